"""OpenTelemetry export of a run's timeline, following the GenAI semantic conventions.

Spans are built from the run's durable record after it ends, so they carry exactly the audit's
metadata and never content — no prompts, messages, tool arguments or results, drafts or
reasoning, not even as an opt-in (the conventions' ``gen_ai.input.messages``,
``gen_ai.tool.call.arguments`` and ``gen_ai.tool.call.result`` are never set).

Conventions followed: OpenTelemetry semantic conventions for generative AI as published with
semconv **1.37.0** (``opentelemetry-semantic-conventions`` 0.66b2): one ``invoke_agent`` span
per run, a ``chat`` child per model call attempt and an ``execute_tool`` child per tool call that
executed, with ``gen_ai.operation.name``, ``gen_ai.agent.name``, ``gen_ai.response.model``,
``gen_ai.usage.input_tokens`` / ``output_tokens``, ``gen_ai.tool.name``,
``gen_ai.tool.call.id`` and ``error.type``. Harness-specific metadata uses the ``harness.``
prefix.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import Enum
from typing import Any, Literal

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    ConsoleSpanExporter,
    SpanExporter,
)
from opentelemetry.trace import SpanKind, Status, StatusCode

from harness.audit.records import RunRecord
from harness.trace import ModelTokenUsage, RunFinished, ToolInvocation

__all__ = ["SEMCONV_VERSION", "OtelSpanSink", "build_span_sink"]

SEMCONV_VERSION = "1.37.0"
_SCHEMA_URL = f"https://opentelemetry.io/schemas/{SEMCONV_VERSION}"
_AGENT = "diagnosis-harness"


def _ns(at: datetime) -> int:
    return int(at.timestamp() * 1_000_000_000)


class OtelSpanSink:
    """An AuditSink that turns each finished run into GenAI spans.

    Args:
        provider: The tracer provider spans go to (its processors and exporters decide where).
    """

    def __init__(self, provider: TracerProvider) -> None:
        self.provider = provider
        self._tracer = provider.get_tracer("diagnosis-harness", schema_url=_SCHEMA_URL)

    async def record(self, record: RunRecord) -> None:
        """Emit the run's spans (synchronously; the SDK's processor batches the export)."""
        run = record.run
        root = self._tracer.start_span(
            f"invoke_agent {_AGENT}",
            kind=SpanKind.INTERNAL,
            start_time=_ns(run.created_at),
            attributes=_clean(
                {
                    "gen_ai.operation.name": "invoke_agent",
                    "gen_ai.agent.name": _AGENT,
                    "gen_ai.conversation.id": run.session_id,
                    "harness.run_id": run.run_id,
                    "harness.owner": run.owner,
                    "harness.contracts.intent": run.intent,
                    "harness.status": run.status,
                    "harness.result_kind": run.result_kind,
                    "harness.failure_stage": run.failure_stage,
                    "harness.tool_calls": run.ledger.tool_calls,
                    "harness.tool_rejections": run.ledger.rejections,
                    "gen_ai.usage.input_tokens": run.ledger.input_tokens,
                    "gen_ai.usage.output_tokens": run.ledger.output_tokens,
                    "harness.tokens_reconciled": run.tokens_reconciled,
                    "error.type": run.error_code,
                }
            ),
        )
        if run.error_code is not None:
            root.set_status(Status(StatusCode.ERROR))
        context = trace.set_span_in_context(root)
        finished = next(
            (e.details for e in record.trace if isinstance(e.details, RunFinished)), None
        )
        # The ledger books every attempt in the order it is traced, so they pair up.
        models = iter([c.model for c in finished.model_calls] if finished else [])
        for event in record.trace:
            details = event.details
            if isinstance(details, ModelTokenUsage):
                model = next(models, "")
                self._child(
                    f"chat {model}".strip(),
                    SpanKind.CLIENT,
                    event.at,
                    details.latency_ms,
                    context,
                    {
                        "gen_ai.operation.name": "chat",
                        "gen_ai.response.model": model or None,
                        "gen_ai.usage.input_tokens": details.usage.input_tokens
                        if details.usage
                        else None,
                        "gen_ai.usage.output_tokens": details.usage.output_tokens
                        if details.usage
                        else None,
                        "harness.component": details.component,
                        "harness.component_round": details.component_round,
                        "harness.attempt": details.attempt,
                        "harness.usage_available": details.usage is not None,
                        "error.type": details.error_code,
                    },
                )
            elif isinstance(details, ToolInvocation):
                self._child(
                    f"execute_tool {details.tool_name}",
                    SpanKind.INTERNAL,
                    event.at,
                    details.latency_ms,
                    context,
                    {
                        "gen_ai.operation.name": "execute_tool",
                        "gen_ai.tool.name": details.tool_name,
                        "gen_ai.tool.type": "function",
                        "gen_ai.tool.call.id": details.tool_call_id,
                        "harness.evidence_status": details.evidence_status,
                        "error.type": details.error_code,
                    },
                )
        root.end(end_time=_ns(run.finished_at))

    def _child(
        self,
        name: str,
        kind: SpanKind,
        ended: datetime,
        latency_ms: float,
        context: Any,
        attributes: dict[str, Any],
    ) -> None:
        start = ended - timedelta(milliseconds=latency_ms)
        span = self._tracer.start_span(
            name, context=context, kind=kind, start_time=_ns(start), attributes=_clean(attributes)
        )
        if attributes.get("error.type"):
            span.set_status(Status(StatusCode.ERROR))
        span.end(end_time=_ns(ended))


def _clean(attributes: dict[str, Any]) -> dict[str, Any]:
    """Drop unset attributes; enums export as their stable value."""
    return {
        key: value.value if isinstance(value, Enum) else value
        for key, value in attributes.items()
        if value is not None
    }


def build_span_sink(
    exporter: Literal["console", "otlp"], endpoint: str | None = None
) -> OtelSpanSink:
    """A span sink batching to the console or to an OTLP/HTTP collector.

    Args:
        exporter: ``console`` (stdout, for a look) or ``otlp`` (OTLP over HTTP/protobuf).
        endpoint: The collector's traces URL for ``otlp``; the SDK's environment default
            (``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``, else localhost:4318) when None.
    """
    span_exporter: SpanExporter
    if exporter == "otlp":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        span_exporter = OTLPSpanExporter(endpoint=endpoint)
    else:
        span_exporter = ConsoleSpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": _AGENT}))
    provider.add_span_processor(BatchSpanProcessor(span_exporter))
    return OtelSpanSink(provider)
