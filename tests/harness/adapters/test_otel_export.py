"""OpenTelemetry export: GenAI spans from a run's record, metadata only, never content."""

from __future__ import annotations

import asyncio
import dataclasses
import re
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from harness.adapters.embedded import audit_sink, build_run_deps, build_tool_plane
from harness.adapters.otel_export import SEMCONV_VERSION, OtelSpanSink
from harness.audit.records import FanOutSink, RunRecord
from harness.contracts.errors import ErrorCode, ModelError
from harness.contracts.ingress import RunRequest
from harness.contracts.models import Component
from harness.diagnosis import DiagnosisRun, RunDeps
from harness.embedded.demo import INCIDENT_QUESTION, WINDOW_END
from harness.settings import Settings
from harness.testing.models import ScriptedModel, text_reply
from harness.testing.rig import fake_deps
from harness.trace import ModelTokenUsage, ToolInvocation

# Every attribute a span may carry. Content attributes of the conventions
# (gen_ai.input.messages, gen_ai.output.messages, gen_ai.system_instructions,
# gen_ai.tool.call.arguments, gen_ai.tool.call.result, gen_ai.tool.definitions) are absent.
_ALLOWED = {
    "gen_ai.operation.name",
    "gen_ai.agent.name",
    "gen_ai.conversation.id",
    "gen_ai.response.model",
    "gen_ai.usage.input_tokens",
    "gen_ai.usage.output_tokens",
    "gen_ai.tool.name",
    "gen_ai.tool.type",
    "gen_ai.tool.call.id",
    "error.type",
    "harness.run_id",
    "harness.owner",
    "harness.contracts.intent",
    "harness.status",
    "harness.result_kind",
    "harness.failure_stage",
    "harness.tool_calls",
    "harness.tool_rejections",
    "harness.tokens_reconciled",
    "harness.component",
    "harness.component_round",
    "harness.attempt",
    "harness.usage_available",
    "harness.evidence_status",
}
# A metadata value: an identifier, a code or a model name — never a sentence, a query or data.
_METADATA = re.compile(r"[A-Za-z0-9_.:/\-]{0,128}")


def _exporting(deps: RunDeps) -> tuple[RunDeps, InMemorySpanExporter, list[RunRecord]]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    records: list[RunRecord] = []

    class Keep:
        async def record(self, record: RunRecord) -> None:
            records.append(record)

    sink = FanOutSink([OtelSpanSink(provider), Keep()])
    return dataclasses.replace(deps, audit=sink), exporter, records


def _by_operation(spans: tuple[ReadableSpan, ...], name: str) -> list[ReadableSpan]:
    return [s for s in spans if (s.attributes or {}).get("gen_ai.operation.name") == name]


def test_the_demo_run_exports_one_agent_span_with_a_child_per_model_and_tool_call() -> None:
    settings = Settings()
    deps, exporter, records = _exporting(build_run_deps(settings, plane=build_tool_plane(settings)))
    run = DiagnosisRun(RunRequest(question=INCIDENT_QUESTION, as_of=WINDOW_END), deps)
    result = asyncio.run(run.execute())
    assert result.kind == "DiagnosisReport"
    spans = exporter.get_finished_spans()

    (root,) = _by_operation(spans, "invoke_agent")
    chats = _by_operation(spans, "chat")
    tools = _by_operation(spans, "execute_tool")
    assert len(spans) == 1 + len(chats) + len(tools)
    events = records[0].trace
    assert len(chats) == sum(isinstance(e.details, ModelTokenUsage) for e in events)
    assert len(tools) == sum(isinstance(e.details, ToolInvocation) for e in events) == 8
    assert root.name == "invoke_agent diagnosis-harness"
    assert root.instrumentation_scope is not None
    assert root.instrumentation_scope.schema_url.endswith(SEMCONV_VERSION)
    assert root.status.status_code is not StatusCode.ERROR
    attrs = root.attributes or {}
    audit = records[0].run
    assert attrs["harness.run_id"] == run.run_id
    assert attrs["harness.status"] == "COMPLETED"
    assert attrs["harness.result_kind"] == "DiagnosisReport"
    assert attrs["gen_ai.usage.input_tokens"] == audit.ledger.input_tokens
    assert attrs["gen_ai.usage.output_tokens"] == audit.ledger.output_tokens
    assert sum(int((s.attributes or {})["gen_ai.usage.input_tokens"]) for s in chats) == (
        audit.ledger.input_tokens
    )
    assert sorted({str((s.attributes or {})["gen_ai.tool.name"]) for s in tools}) == [
        "query_logs",
        "query_mysql",
        "search_knowledge",
    ]
    assert {str((s.attributes or {})["harness.component"]) for s in chats} == {
        "ROUTER",
        "DIAGNOSIS_AGENT",
        "SEMANTIC_GUARD",
    }
    for span in (*chats, *tools):
        assert span.parent is not None and span.parent.span_id == root.context.span_id
        assert span.context.trace_id == root.context.trace_id
        assert root.start_time <= span.start_time <= span.end_time <= root.end_time  # type: ignore[operator]


def _values(spans: tuple[ReadableSpan, ...]) -> list[tuple[str, Any]]:
    return [(k, v) for s in spans for k, v in (s.attributes or {}).items()]


def test_spans_carry_metadata_only_never_content() -> None:
    settings = Settings()
    deps, exporter, _ = _exporting(build_run_deps(settings, plane=build_tool_plane(settings)))
    run = DiagnosisRun(RunRequest(question=INCIDENT_QUESTION, as_of=WINDOW_END), deps)
    asyncio.run(run.execute())
    spans = exporter.get_finished_spans()
    assert spans
    for key, value in _values(spans):
        assert key in _ALLOWED, key
        if isinstance(value, str):
            assert _METADATA.fullmatch(value), (key, value)
    for span in spans:
        assert not span.events and not span.links
        assert span.name.split(" ")[0] in {"invoke_agent", "chat", "execute_tool"}
        assert _METADATA.fullmatch(span.name.replace(" ", "_"))


def test_a_failed_run_marks_its_spans_with_the_stable_error_type() -> None:
    failing = ScriptedModel(
        [ModelError(ErrorCode.MODEL_ERROR, "upstream said: secret=hunter2")] * 3
    )
    deps, exporter, records = _exporting(fake_deps(failing))
    run = DiagnosisRun(RunRequest(question="why does checkout-api fail?"), deps)
    result = asyncio.run(run.execute())
    assert result.kind == "StableFailure"
    (root,) = _by_operation(exporter.get_finished_spans(), "invoke_agent")
    assert root.status.status_code is StatusCode.ERROR
    assert (root.attributes or {})["error.type"] == "MODEL_ERROR"
    chats = _by_operation(exporter.get_finished_spans(), "chat")
    assert chats and all(c.status.status_code is StatusCode.ERROR for c in chats)
    assert all((c.attributes or {})["error.type"] == "MODEL_ERROR" for c in chats)
    assert all((c.attributes or {})["harness.usage_available"] is False for c in chats)
    assert "hunter2" not in repr(_values(exporter.get_finished_spans()))
    assert records[0].run.error_code is ErrorCode.MODEL_ERROR


def test_one_failing_sink_does_not_starve_the_next_and_the_failure_is_counted() -> None:
    class Broken:
        async def record(self, record: RunRecord) -> None:
            raise ConnectionError("audit database down")

    deps, exporter, _ = _exporting(
        fake_deps(ScriptedModel([text_reply('{"intent": "SYSTEM_CHAT"}')]))
    )
    assert isinstance(deps.audit, FanOutSink)
    deps = dataclasses.replace(deps, audit=FanOutSink([Broken(), *deps.audit.sinks]))
    models: dict[Component, Any] = dict(deps.models)
    models[Component.SYSTEM_CHAT] = ScriptedModel([text_reply("Hello, I diagnose incidents.")])
    deps = dataclasses.replace(deps, models=models)
    run = DiagnosisRun(RunRequest(question="hello, what can you do?"), deps)
    result = asyncio.run(run.execute())
    assert result.kind == "Answer"
    assert _by_operation(exporter.get_finished_spans(), "invoke_agent")
    assert run.audit_failures == 1


@pytest.mark.parametrize(("exporter", "expected"), [("off", type(None)), ("console", OtelSpanSink)])
def test_the_setting_turns_the_export_on(exporter: str, expected: type) -> None:
    assert isinstance(audit_sink(Settings(otel_exporter=exporter)), expected)  # type: ignore[arg-type]
