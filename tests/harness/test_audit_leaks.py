"""Leak scanner over everything the audit keeps: every audit table, every trace row, the exported
spans and the captured application logs.

Runs: the demo incident (its logs embed passwords, cloud keys, API keys and JWTs) through the
offline model; echoing scripted models fed tool data stuffed with every gitleaks `tp` secret, down
each release path; and every shipped misbehaving model over the same data. What must not be
found anywhere: a `tp` secret or a demo secret, a prompt, the question, a tool call's arguments
(SQL text, log queries), a raw log line, a projection's text or the draft's text.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gzip
import json
import logging
import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from harness.adapters.audit_sql import SqlAuditStore
from harness.adapters.audit_tables import METADATA
from harness.adapters.embedded import build_run_deps, build_tool_plane
from harness.adapters.otel_export import OtelSpanSink
from harness.audit.records import FanOutSink, RunRecord
from harness.contracts.ingress import RunRequest
from harness.contracts.models import ModelClient, ModelReply, ModelRequest
from harness.diagnosis import DiagnosisRun, RunDeps
from harness.embedded.demo import INCIDENT_QUESTION, WINDOW_END, logs_path
from harness.run.budget import Budgets
from harness.settings import Settings
from harness.testing.clock import FakeClock, until
from harness.testing.misbehaving import MISBEHAVIOURS
from tests.harness.test_release_scanner import (  # the fixtures are used by name
    PROMPTS,
    _deps,
    _model,
    tp_secrets,
    tp_texts,
)

__all__ = ["tp_secrets", "tp_texts"]  # fixtures shared with the release scanner

MIN_LEN = 12  # shorter strings (codes, tool names, "ERROR") are metadata or coincidence


class _Recording:
    """Wraps a model client and keeps every request and reply (the content the run handled)."""

    def __init__(self, inner: ModelClient) -> None:
        self.inner = inner
        self.requests: list[ModelRequest] = []
        self.replies: list[ModelReply] = []

    async def complete(self, request: ModelRequest) -> ModelReply:
        self.requests.append(request)
        reply = await self.inner.complete(request)
        self.replies.append(reply)
        return reply


class _Keep:
    def __init__(self) -> None:
        self.records: list[RunRecord] = []

    async def record(self, record: RunRecord) -> None:
        self.records.append(record)


@dataclasses.dataclass
class _Kept:
    """Everything the audit side kept, and the content the runs handled."""

    database: list[str]
    spans: list[str]
    records: list[str]
    logs: str
    content: set[str]


def _content_of(models: Sequence[_Recording], question: str) -> set[str]:
    """What the runs handled that is content: the question, prompts, tool arguments, tool
    results as the model saw them, and every reply (drafts, answers, verdicts)."""
    found = {question, *PROMPTS}
    for model in models:
        for request in model.requests:
            for message in request.messages:
                if message.role == "tool" and message.content:
                    found |= _strings(json.loads(message.content))
                elif message.role == "system" and message.content:
                    found.add(message.content[:80])
        for reply in model.replies:
            if reply.content:
                found.add(reply.content[:200])
                with contextlib.suppress(ValueError):
                    found |= _strings(json.loads(reply.content))
            for call in reply.tool_calls:
                found.add(call.arguments)  # whole, for a misbehaving model's malformed ones
                with contextlib.suppress(ValueError):
                    found |= _strings(json.loads(call.arguments))
    return {s for s in found if _is_text(s)}


def _is_text(value: str) -> bool:
    """Content is text (a sentence, a query, a log line), not an id, a code or a tool name:
    those are metadata and belong in the audit. Secrets are scanned for separately."""
    return len(value) >= MIN_LEN and any(c.isspace() for c in value.strip())


def _strings(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return {s for v in value.values() for s in _strings(v)}
    if isinstance(value, list):
        return {s for v in value for s in _strings(v)}
    return set()


def _raw_log_lines(deps: RunDeps, records: Sequence[RunRecord]) -> set[str]:
    """The raw log lines (and the secrets in them) of every query_logs record of the runs."""

    async def load() -> set[str]:
        found: set[str] = set()
        for record in records:
            for tool in record.tool_invocations:
                stored = await deps.store.get(record.run.run_id, tool.tool_call_id)
                if stored is None or stored.raw is None or tool.tool_name != "query_logs":
                    continue
                for event in stored.raw_response().get("events", []):
                    message = str(event.get("message", ""))
                    found.add(message.splitlines()[0] if message else message)
        return found

    return {s for s in asyncio.run(load()) if _is_text(s)}


_DEMO_SECRET = re.compile(
    r"(?:password|api_key|aws_secret_access_key|secret|token)=([^\s\"',;&]+)"
    r"|(eyJ[\w-]+\.[\w-]+\.[\w-]+)",
    re.IGNORECASE,
)


def _demo_secrets() -> set[str]:
    """Every secret the demo's logs embed (the whole file, not only what the run read)."""
    with gzip.open(logs_path(), "rt", encoding="utf-8") as lines:
        return {a or b for line in lines for a, b in _DEMO_SECRET.findall(line)}


def _dump(url: str) -> list[str]:
    """Every cell of every audit table, as text (bytes as latin-1, so ciphertext is scanned)."""
    engine = sa.create_engine(url)
    cells: list[str] = []
    try:
        with engine.connect() as conn:
            for table in METADATA.sorted_tables:
                for row in conn.execute(sa.select(table)):
                    for cell in row:
                        if isinstance(cell, bytes):
                            cells.append(cell.decode("latin-1"))
                        elif cell is not None:
                            cells.append(str(cell))
    finally:
        engine.dispose()
    assert cells, "the audit database is empty: nothing was scanned"
    return cells


@pytest.fixture
def keep_all(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> Iterator[Callable[..., Any]]:
    caplog.set_level(logging.DEBUG)
    url = f"sqlite:///{tmp_path / 'audit.db'}"
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    keep = _Keep()
    sink = FanOutSink([keep, OtelSpanSink(provider)])

    def collect(content: set[str]) -> _Kept:
        store = SqlAuditStore.open(url)
        try:
            asyncio.run(store.write(keep.records))
        finally:
            store.close()
        spans = [
            json.dumps({"name": s.name, "attributes": dict(s.attributes or {})})
            for s in exporter.get_finished_spans()
        ]
        assert spans, "no span was exported: nothing was scanned"
        records = [r.model_dump_json(exclude={"reasoning"}) for r in keep.records]
        return _Kept(_dump(url), spans, records, caplog.text, content)

    collect.sink = sink  # type: ignore[attr-defined]
    collect.records = keep.records  # type: ignore[attr-defined]
    yield collect


def _assert_clean(kept: _Kept, secrets: set[str]) -> None:
    forbidden = sorted(kept.content | {s for s in secrets if len(s) >= 8})
    assert len(forbidden) > 20, "too little content collected for the scan to mean anything"
    places = {
        "audit tables": "\n".join(kept.database),
        "spans": "\n".join(kept.spans),
        "run records": "\n".join(kept.records),
        "application logs": kept.logs,
    }
    leaks = [(where, s[:60]) for where, text in places.items() for s in forbidden if s in text]
    assert leaks == []


def _wrap(deps: RunDeps) -> tuple[RunDeps, list[_Recording]]:
    wrapped = {component: _Recording(client) for component, client in deps.models.items()}
    return dataclasses.replace(deps, models=wrapped), list(wrapped.values())


def test_nothing_of_the_demo_incident_is_kept_by_the_audit(keep_all: Any) -> None:
    settings = Settings()
    deps, models = _wrap(build_run_deps(settings, plane=build_tool_plane(settings)))
    deps = dataclasses.replace(deps, audit=keep_all.sink)
    result = asyncio.run(
        DiagnosisRun(RunRequest(question=INCIDENT_QUESTION, as_of=WINDOW_END), deps).execute()
    )
    assert result.kind == "DiagnosisReport"
    raw_lines = _raw_log_lines(deps, keep_all.records)
    secrets = _demo_secrets()
    assert len(secrets) >= 4 and len(raw_lines) > 100
    content = _content_of(models, INCIDENT_QUESTION) | raw_lines
    assert any("SELECT" in s.upper() for s in content)  # SQL text is part of the scan
    _assert_clean(keep_all(content), secrets=secrets)


@pytest.mark.parametrize("path", ["report", "evidence", "unsupported", "unavailable", "failure"])
def test_nothing_of_an_echoing_model_is_kept_by_the_audit(
    path: str, keep_all: Any, tp_texts: list[str], tp_secrets: list[str]
) -> None:
    deps, models = _wrap(_deps(_model(path, tp_texts), tp_texts))
    deps = dataclasses.replace(deps, audit=keep_all.sink)
    question = "Why does checkout-api fail since 14:05?"
    asyncio.run(DiagnosisRun(RunRequest(question=question), deps).execute())
    content = _content_of(models, question) | {t for t in tp_texts if len(t) >= MIN_LEN}
    _assert_clean(keep_all(content), secrets=set(tp_secrets))


def test_nothing_of_a_misbehaving_model_is_kept_by_the_audit(
    keep_all: Any, tp_texts: list[str], tp_secrets: list[str]
) -> None:
    all_models: list[_Recording] = []
    question = "Why does checkout-api fail since 14:05?"
    for name in sorted(MISBEHAVIOURS):
        clock = FakeClock()
        model = MISBEHAVIOURS[name]("an-1", clock)
        deps, models = _wrap(
            _deps(
                model,
                tp_texts,
                clock=clock,
                deadline_s=0.5 if name == "slow_reply" else 30.0,
                budgets=Budgets(max_model_calls=8),
            )
        )
        all_models += models
        deps = dataclasses.replace(deps, audit=keep_all.sink)
        run = DiagnosisRun(RunRequest(question=question, analysis_id="an-1"), deps)

        async def main(
            run: DiagnosisRun = run, name: str = name, model: Any = model, clock: FakeClock = clock
        ) -> None:
            pending = asyncio.create_task(run.execute())
            if name == "slow_reply":
                await until(lambda: len(model.requests) == 2)
                clock.advance(0.5)
            await pending

        asyncio.run(main())
    assert len(keep_all.records) == len(MISBEHAVIOURS)
    content = _content_of(all_models, question) | {t for t in tp_texts if len(t) >= MIN_LEN}
    _assert_clean(keep_all(content), secrets=set(tp_secrets))
