"""Recorded worlds: replay answers only what was recorded; recording redacts as it records."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pydantic import BaseModel

from actors.eval_executor import CaseExecutor
from actors.eval_record import record_case
from harness.adapters.audit_sql import open_audit_store
from harness.contracts.errors import BackendError, ErrorCode, RawTooLarge
from harness.eval.case import load_cases
from harness.eval.replay import RecordedResponse, Recording, RecordingBackend, ReplayBackend
from harness.eval.result import CaseOutcome
from harness.testing.tools import RAW_CAP
from harness.tools.registry import scope_of
from harness.workspace import resolve_workspace

TOKEN = "ghp_Zx9Q8w7E6r5T4y3U2i1O0pAsDfGhJkLzXcVb"
PASSWORD = "Tr0ub4dor&3-rotated"


class _Request(BaseModel):
    service: str
    limit: int = 5


class _Live:
    def __init__(self) -> None:
        self.calls = 0

    def fetch(self, request: BaseModel, *, max_raw_bytes: int) -> object:
        self.calls += 1
        if isinstance(request, _Request) and request.service == "down":
            raise BackendError(ErrorCode.BACKEND_TIMEOUT, "slow")
        return {"rows": [{"line": f"login ok password={PASSWORD} token {TOKEN}", "n": 1}]}


def test_replay_answers_recorded_requests_and_refuses_the_rest() -> None:
    live = _Live()
    recorder = RecordingBackend("query_logs", live)
    first = recorder.fetch(_Request(service="api"), max_raw_bytes=RAW_CAP)
    recorder.fetch(_Request(service="api"), max_raw_bytes=RAW_CAP)  # the same scope is kept once
    with pytest.raises(BackendError):
        recorder.fetch(_Request(service="down"), max_raw_bytes=RAW_CAP)
    recording = Recording(tools=["query_logs"], responses=recorder.responses)

    assert [r.scope for r in recording.responses] == [
        scope_of("query_logs", _Request(service="api")),
        scope_of("query_logs", _Request(service="down")),
    ]
    text = recording.model_dump_json()
    assert TOKEN not in text and PASSWORD not in text
    assert first == live.fetch(
        _Request(service="api"), max_raw_bytes=RAW_CAP
    )  # the live caller got the live answer

    replay = ReplayBackend("query_logs", recording)
    replayed = replay.fetch(_Request(service="api"), max_raw_bytes=RAW_CAP)
    assert replayed.value() == recording.responses[0].raw
    # The recorded raw is counted against the cap as the live fetch would have counted it.
    with pytest.raises(RawTooLarge):
        replay.fetch(_Request(service="api"), max_raw_bytes=replayed.size - 1)
    assert replay.fetch(_Request(service="api"), max_raw_bytes=replayed.size) == replayed
    with pytest.raises(BackendError) as timeout:
        replay.fetch(_Request(service="down"), max_raw_bytes=RAW_CAP)
    assert timeout.value.error_code is ErrorCode.BACKEND_TIMEOUT
    # Not recorded (a different limit is a different request): a stable error, never a guess.
    with pytest.raises(BackendError) as missing:
        replay.fetch(_Request(service="api", limit=6), max_raw_bytes=RAW_CAP)
    assert (missing.value.error_code, missing.value.context["reason"]) == (
        ErrorCode.BACKEND_ERROR,
        "NOT_RECORDED",
    )
    # Another tool's recording never answers.
    with pytest.raises(BackendError):
        ReplayBackend("search_knowledge", recording).fetch(
            _Request(service="api"), max_raw_bytes=RAW_CAP
        )


def test_a_recording_round_trips_through_its_file(tmp_path: Path) -> None:
    recording = Recording(
        tools=["query_logs"],
        responses=[RecordedResponse(tool="query_logs", scope="s", raw={"a": [1, "x"]})],
    )
    recording.save(tmp_path / "r.json")
    assert Recording.load(tmp_path / "r.json") == recording


def _world(root: Path) -> Path:
    start = datetime(2026, 6, 1, 8, 0, tzinfo=UTC)
    lines = []
    for n in range(40):
        at = (start + timedelta(seconds=61 * n)).isoformat().replace("+00:00", "Z")
        lines.append({"ts": at, "level": "INFO", "service": "mailer", "message": "tick"})
        if n >= 20:
            lines.append(
                {
                    "ts": at,
                    "level": "ERROR",
                    "service": "mailer",
                    "message": f"SMTP auth failed for user=relay password={PASSWORD} "
                    f"api_token={TOKEN}",
                }
            )
    (root / "logs").mkdir(parents=True)
    (root / "logs" / "mailer.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return root / "logs"


def test_record_redacts_secrets_and_the_case_replays(tmp_path: Path) -> None:
    logs = _world(tmp_path / "world")
    workspace = resolve_workspace({"logs": {"paths": [str(logs)]}}, base=tmp_path)
    case_dir = tmp_path / "cases" / "mailer"
    recorded = asyncio.run(
        record_case(
            "Why does mailer fail since 08:20?",
            case_dir,
            workspace=workspace,
            as_of=datetime(2026, 6, 1, 8, 45, tzinfo=UTC),
        )
    )

    assert recorded.responses >= 1
    # An operator's live run: on the durable audit by the time the recording returns.
    assert recorded.unrecorded == 0
    store = open_audit_store()
    try:
        stored = asyncio.run(store.run(recorded.result.run_id))
    finally:
        store.close()
    assert stored is not None and stored.result_kind == recorded.result.kind
    files = sorted(p.name for p in case_dir.iterdir())
    assert files == ["case.toml", "recording.json"]
    for file in case_dir.iterdir():
        text = file.read_text()
        assert TOKEN not in text and PASSWORD not in text, file.name
    raw = json.dumps([r.raw for r in Recording.load(case_dir / "recording.json").responses])
    assert "SMTP auth failed" in raw  # the failing lines were recorded, redacted

    (loaded,) = load_cases(tmp_path / "cases")
    assert loaded.case_id == "mailer" and loaded.case.expect.release == [recorded.result.kind]
    row = asyncio.run(CaseExecutor().run(loaded, 0))
    assert row.outcome is CaseOutcome.PASSED, row.failed_checks()
    assert row.release_kind == recorded.result.kind
    assert row.tool_calls.get("query_logs", 0) >= 1
