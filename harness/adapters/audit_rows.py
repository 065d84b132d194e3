"""Rows ↔ records: how one :class:`~harness.audit.records.RunRecord` maps onto the audit tables.

The mapping half of :mod:`harness.adapters.audit_sql` (which owns engines, transactions and
queries). Times are written as naive UTC and read back timezone-aware; trace details and the
ledger travel as JSON columns, written from pydantic's own JSON without a second encode.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from pydantic import TypeAdapter

from harness.adapters.audit_tables import (
    AGENT_STEP,
    DIAGNOSIS_RUN,
    REASONING_AUDIT,
    TOOL_INVOCATION,
    TRACE_EVENT,
)
from harness.audit.records import (
    AgentStepAudit,
    ReasoningAccess,
    ReasoningAudit,
    RunAudit,
    RunRecord,
    ToolInvocationAudit,
)
from harness.contracts.ledger import BudgetUsage
from harness.trace import TraceDetails, TraceEvent

__all__ = [
    "access_of",
    "access_row",
    "event_of",
    "insert_records",
    "json_serializer",
    "naive_utc",
    "reasoning_of",
    "run_of",
]

_DETAILS: TypeAdapter[TraceDetails] = TypeAdapter(TraceDetails)


class _RawJson(str):
    """JSON text already serialised (by pydantic, in Rust): bound to a JSON column as is."""


def json_serializer(value: Any) -> str:
    return value if isinstance(value, _RawJson) else json.dumps(value)


def insert_records(conn: sa.Connection, records: Iterable[RunRecord]) -> None:
    runs: list[dict[str, Any]] = []
    tools: list[dict[str, Any]] = []
    steps: list[dict[str, Any]] = []
    events: list[dict[str, Any]] = []
    reasoning: list[dict[str, Any]] = []
    for record in records:
        runs.append(_run_row(record.run))
        tools.extend(_tool_row(t) for t in record.tool_invocations)
        steps.extend(_step_row(s) for s in record.agent_steps)
        events.extend(_event_row(e) for e in record.trace)
        reasoning.extend(_reasoning_row(r) for r in record.reasoning)
    for table, rows in (
        (DIAGNOSIS_RUN, runs),
        (TOOL_INVOCATION, tools),
        (AGENT_STEP, steps),
        (TRACE_EVENT, events),
        (REASONING_AUDIT, reasoning),
    ):
        if rows:
            conn.execute(sa.insert(table), rows)


def naive_utc(value: datetime) -> datetime:
    if value.tzinfo is UTC:  # the common case, and the cheap one
        return value.replace(tzinfo=None)
    if value.tzinfo is None:
        raise ValueError("audit times must be timezone-aware")
    return value.astimezone(UTC).replace(tzinfo=None)


def _aware(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC)


def _enum(value: Any) -> Any:
    return None if value is None else getattr(value, "value", value)


def _run_row(run: RunAudit) -> dict[str, Any]:
    ledger = run.ledger
    return {
        "run_id": run.run_id,
        "schema_version": run.schema_version,
        "session_id": run.session_id,
        "owner": run.owner,
        "analysis_id": run.analysis_id,
        "intent": _enum(run.intent),
        "status": run.status.value,
        "result_kind": run.result_kind,
        "failure_stage": run.failure_stage,
        "error_code": _enum(run.error_code),
        "created_at": naive_utc(run.created_at),
        "finished_at": naive_utc(run.finished_at),
        "duration_ms": run.duration_ms,
        "tool_calls": ledger.tool_calls,
        "tool_calls_by_tool": ledger.tool_calls_by_tool,
        "executions": ledger.executions,
        "rejections": ledger.rejections,
        "rejections_by_code": ledger.rejections_by_code,
        "request_bytes": ledger.request_bytes,
        "raw_bytes": ledger.raw_bytes,
        "projection_bytes": ledger.projection_bytes,
        "model_calls": ledger.model_calls,
        "input_tokens": ledger.input_tokens,
        "output_tokens": ledger.output_tokens,
        "total_tokens": ledger.total_tokens,
        "ledger_usage_unavailable": ledger.usage_unavailable,
        "cost_usd": ledger.cost_usd,
        "usage_unavailable": run.usage_unavailable,
        "tokens_reconciled": run.tokens_reconciled,
    }


_LEDGER_COLUMNS = (
    "tool_calls",
    "tool_calls_by_tool",
    "executions",
    "rejections",
    "rejections_by_code",
    "request_bytes",
    "raw_bytes",
    "projection_bytes",
    "model_calls",
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "cost_usd",
)


def run_of(row: sa.Row[Any]) -> RunAudit:
    m = row._mapping
    ledger = BudgetUsage(
        **{c: m[c] for c in _LEDGER_COLUMNS}, usage_unavailable=m["ledger_usage_unavailable"]
    )
    return RunAudit.model_validate(
        {
            "schema_version": m["schema_version"],
            "run_id": m["run_id"],
            "session_id": m["session_id"],
            "owner": m["owner"],
            "analysis_id": m["analysis_id"],
            "intent": m["intent"],
            "status": m["status"],
            "result_kind": m["result_kind"],
            "failure_stage": m["failure_stage"],
            "error_code": m["error_code"],
            "created_at": _aware(m["created_at"]),
            "finished_at": _aware(m["finished_at"]),
            "duration_ms": m["duration_ms"],
            "ledger": ledger,
            "usage_unavailable": m["usage_unavailable"],
            "tokens_reconciled": m["tokens_reconciled"],
        }
    )


def _tool_row(tool: ToolInvocationAudit) -> dict[str, Any]:
    return {
        "run_id": tool.run_id,
        "tool_call_id": tool.tool_call_id,
        "schema_version": tool.schema_version,
        "tool_name": tool.tool_name,
        "outcome": tool.outcome,
        "evidence_status": _enum(tool.evidence_status),
        "error_code": _enum(tool.error_code),
        "latency_ms": tool.latency_ms,
        "request_bytes": tool.request_bytes,
        "raw_bytes": tool.raw_bytes,
        "projection_bytes": tool.projection_bytes,
    }


def _step_row(step: AgentStepAudit) -> dict[str, Any]:
    return {
        "run_id": step.run_id,
        "step_no": step.step_no,
        "schema_version": step.schema_version,
        "token_count": step.token_count,
        "latency_ms": step.latency_ms,
        "tool_calls": step.tool_calls,
        "outcome": step.outcome,
    }


def _event_row(event: TraceEvent) -> dict[str, Any]:
    return {
        "run_id": event.run_id,
        "sequence_no": event.sequence_no,
        "schema_version": event.schema_version,
        "category": event.category.value,
        "event_type": event.event_type,
        "at": naive_utc(event.at),
        "details": _RawJson(event.details.model_dump_json()),
    }


def event_of(row: sa.Row[Any]) -> TraceEvent:
    m = row._mapping
    return TraceEvent(
        schema_version=m["schema_version"],
        run_id=m["run_id"],
        sequence_no=m["sequence_no"],
        category=m["category"],
        event_type=m["event_type"],
        at=_aware(m["at"]),
        details=_DETAILS.validate_python(m["details"]),
    )


def _reasoning_row(row: ReasoningAudit) -> dict[str, Any]:
    return {
        "run_id": row.run_id,
        "schema_version": row.schema_version,
        "session_id": row.session_id,
        "owner": row.owner,
        "component": row.component.value,
        "component_round": row.component_round,
        "attempt": row.attempt,
        "available": row.available,
        "key_id": row.key_id,
        "ciphertext": row.ciphertext,
        "created_at": naive_utc(row.created_at),
        "expires_at": naive_utc(row.expires_at),
    }


def reasoning_of(row: sa.Row[Any]) -> ReasoningAudit:
    m = dict(row._mapping)
    del m["id"]
    m["created_at"] = _aware(m["created_at"])
    m["expires_at"] = _aware(m["expires_at"])
    return ReasoningAudit.model_validate(m)


def access_row(access: ReasoningAccess) -> dict[str, Any]:
    return {
        "run_id": access.run_id,
        "schema_version": access.schema_version,
        "session_id": access.session_id,
        "principal": access.principal,
        "at": naive_utc(access.at),
        "allowed": access.allowed,
        "reason": access.reason,
    }


def access_of(row: sa.Row[Any]) -> ReasoningAccess:
    m = dict(row._mapping)
    del m["id"]
    m["at"] = _aware(m["at"])
    return ReasoningAccess.model_validate(m)
