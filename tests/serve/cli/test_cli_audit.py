"""`harness runs`, `harness trace RUN_ID` and `harness purge` over a real audit database."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from datetime import timedelta
from pathlib import Path

import pytest

from harness.adapters.audit_sql import SqlAuditStore
from harness.adapters.embedded import build_run_deps, build_tool_plane
from harness.audit.records import RunRecord
from harness.contracts.ingress import RunRequest
from harness.diagnosis import DiagnosisRun
from harness.embedded.demo import INCIDENT_QUESTION, WINDOW_END
from harness.settings import Settings
from harness.trace import TraceEvent
from serve.cli import main
from serve.cli.audit import report_unrecorded


class _Keep:
    def __init__(self) -> None:
        self.records: list[RunRecord] = []

    async def record(self, record: RunRecord) -> None:
        self.records.append(record)


def _runs(questions: list[str], retention: timedelta = timedelta(days=30)) -> list[RunRecord]:
    settings = Settings()
    keep = _Keep()
    deps = dataclasses.replace(
        build_run_deps(settings, plane=build_tool_plane(settings)),
        audit=keep,
        reasoning_retention=retention,
    )

    async def all_runs() -> None:
        for question in questions:
            await DiagnosisRun(RunRequest(question=question, as_of=WINDOW_END), deps).execute()

    asyncio.run(all_runs())
    return keep.records


@pytest.fixture
def audit_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    url = f"sqlite:///{tmp_path / 'audit.db'}"
    monkeypatch.setenv("HARNESS_AUDIT_URL", url)
    return url


def _store(records: list[RunRecord], url: str) -> None:
    store = SqlAuditStore.open(url)
    try:
        asyncio.run(store.write(records))
    finally:
        store.close()


def test_trace_json_prints_the_stored_timeline_event_for_event(
    audit_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (record,) = _runs([INCIDENT_QUESTION])
    _store([record], audit_url)
    assert main(["trace", record.run.run_id, "--json"]) == 0
    printed = [
        TraceEvent.model_validate_json(line) for line in capsys.readouterr().out.splitlines()
    ]
    assert printed == list(record.trace)
    assert [e.sequence_no for e in printed] == list(range(1, len(printed) + 1))


def test_trace_table_shows_every_event_and_the_run_header(
    audit_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (record,) = _runs([INCIDENT_QUESTION])
    _store([record], audit_url)
    assert main(["trace", record.run.run_id]) == 0
    out = capsys.readouterr().out
    assert record.run.run_id in out and "DiagnosisReport" in out
    for event_type in {e.event_type for e in record.trace}:
        assert event_type in out
    # Metadata only: the question, the demo's log text and its SQL never reach the table.
    assert "HTTP 500" not in out and "SELECT" not in out.upper().replace("SELECTED", "")


def test_trace_of_an_unknown_run_exits_1_without_a_traceback(
    audit_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _store(_runs(["hello, what can you do?"]), audit_url)
    assert main(["trace", "run-00000000000000000000"]) == 1
    captured = capsys.readouterr()
    assert "no such run" in captured.err and "Traceback" not in captured.err


def test_runs_lists_newest_first_with_owner_intent_kind_and_tokens(
    audit_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    records = _runs([INCIDENT_QUESTION, "hello, what can you do?"])
    _store(records, audit_url)
    assert main(["runs", "--json"]) == 0
    listed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["run_id"] for r in listed] == [r.run.run_id for r in reversed(records)]
    assert [r["result_kind"] for r in listed] == ["Answer", "DiagnosisReport"]
    assert listed[1]["ledger"]["total_tokens"] == records[0].run.ledger.total_tokens > 0
    assert main(["runs", "--limit", "1"]) == 0
    table = capsys.readouterr().out
    assert records[1].run.run_id in table and records[0].run.run_id not in table
    assert "SYSTEM_CHAT" in table and records[1].run.owner in table


def test_runs_filters_by_session(audit_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    records = _runs([INCIDENT_QUESTION, "hello, what can you do?"])
    _store(records, audit_url)
    assert main(["runs", "--json", "--session", records[0].run.session_id]) == 0
    listed = [json.loads(line)["run_id"] for line in capsys.readouterr().out.splitlines()]
    assert listed == [records[0].run.run_id]


def test_purge_deletes_expired_reasoning_only_and_reports_the_count(
    audit_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    expired = _runs([INCIDENT_QUESTION], retention=timedelta(microseconds=1))
    kept = _runs(["hello, what can you do?"])
    _store(expired + kept, audit_url)
    n_expired = len(expired[0].reasoning)
    assert n_expired > 0
    assert main(["purge", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "reasoning_rows_deleted": n_expired,
        "runs_deleted": 0,
    }
    assert main(["purge"]) == 0  # nothing left to purge; run again, same answer
    assert "purged 0 expired" in capsys.readouterr().out
    store = SqlAuditStore.open(audit_url)
    try:
        assert asyncio.run(store.reasoning(expired[0].run.run_id)) == []
        assert len(asyncio.run(store.reasoning(kept[0].run.run_id))) == len(kept[0].reasoning)
        assert asyncio.run(store.run(expired[0].run.run_id)) is not None  # metadata is kept
    finally:
        store.close()


def test_purge_deletes_runs_past_the_audit_retention_with_all_their_rows(
    audit_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = _runs([INCIDENT_QUESTION, INCIDENT_QUESTION])
    aged = old.model_copy(
        update={
            "run": old.run.model_copy(update={"created_at": old.run.created_at - timedelta(days=8)})
        }
    )
    _store([aged, new], audit_url)
    monkeypatch.setenv("HARNESS_AUDIT_RETENTION_DAYS", "7")
    assert main(["purge", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["runs_deleted"] == 1
    store = SqlAuditStore.open(audit_url)
    try:
        assert asyncio.run(store.run(old.run.run_id)) is None
        assert asyncio.run(store.timeline(old.run.run_id)) == []
        assert asyncio.run(store.run(new.run.run_id)) == new.run
        assert len(asyncio.run(store.timeline(new.run.run_id))) == len(new.trace)
    finally:
        store.close()


def test_an_unreachable_audit_database_is_one_line_naming_the_class_only(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HARNESS_AUDIT_URL", "mysql+pymysql://auditor:s3cr3t-pw@127.0.0.1:1/audit")
    monkeypatch.setenv("HARNESS_AUDIT_TIMEOUT_S", "2")
    assert main(["runs"]) == 1
    err = capsys.readouterr().err
    assert "audit database unavailable" in err and "OperationalError" in err
    assert "s3cr3t" not in err and "127.0.0.1" not in err and "Traceback" not in err


def test_a_run_the_audit_does_not_hold_is_named_on_stderr_and_counted(
    audit_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (record,) = _runs([INCIDENT_QUESTION])
    _store([record], audit_url)
    assert report_unrecorded([record.run.run_id]) == 0
    assert capsys.readouterr().err == ""
    assert report_unrecorded([record.run.run_id, "run-never-written"]) == 1
    err = capsys.readouterr().err
    assert "1 run(s) not recorded" in err and "run-never-written" in err
    assert record.run.run_id not in err
