"""Durable-audit records: metadata only, safe to keep for years.

Everything one run leaves behind is one :class:`RunRecord`, handed to the
:class:`~harness.ports.AuditSink` once, when the run ends: the ``diagnosis_run`` row, one
``tool_invocation`` row per call that entered execution, one ``agent_step`` row per diagnosis
agent turn, the trace timeline, and the provider's reasoning — encrypted, in its own table.

None of these carries a prompt, a message, a draft, a SQL text, a log query, a tool payload or
a projection: a tool invocation is audited by identity, tool, statuses, stable code, latency
and sizes. Reasoning is the one content the audit keeps, and only as ciphertext with an
expiry, readable through :func:`harness.audit.reasoning.read_reasoning` alone.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime
from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from harness.contracts.errors import ErrorCode
from harness.contracts.intent import Intent
from harness.contracts.invocation import EvidenceStatus
from harness.contracts.ledger import BudgetUsage
from harness.contracts.models import Component
from harness.contracts.results import FailureStage, ResultKind
from harness.contracts.status import RunStatus
from harness.trace import TraceEvent

__all__ = [
    "AgentStepAudit",
    "AuditSink",
    "AuditStore",
    "DrainableSink",
    "FanOutSink",
    "ReasoningAccess",
    "ReasoningAudit",
    "RunAudit",
    "RunRecord",
    "ToolInvocationAudit",
    "drain_sink",
]


class _Row(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int = Field(default=1, description="Format of the record.")


class ToolInvocationAudit(_Row):
    """One tool call that entered execution, as the durable audit stores it."""

    run_id: str = Field(description="The run that made the call.")
    tool_call_id: str = Field(max_length=64, description="The call's id.")
    tool_name: str = Field(max_length=64, description="The registered tool.")
    outcome: Literal["OBSERVATION", "ERROR"] = Field(description="How the execution ended.")
    evidence_status: EvidenceStatus | None = Field(description="Objective result status.")
    error_code: ErrorCode | None = Field(description="Set when ERROR.")
    latency_ms: float = Field(ge=0, description="Time the call spent in the boundary.")
    request_bytes: int | None = Field(description="Argument bytes.")
    raw_bytes: int | None = Field(description="Raw response bytes (None: never fetched).")
    projection_bytes: int | None = Field(description="Observation bytes (None: not built).")


class AgentStepAudit(_Row):
    """One diagnosis agent turn: its number, tokens and what it did; no content."""

    run_id: str = Field(description="The run.")
    step_no: int = Field(ge=1, description="1-based turn of the diagnosis agent.")
    token_count: int | None = Field(
        description="Provider-reported total tokens; None = unavailable."
    )
    latency_ms: float = Field(ge=0, description="Time the model call took.")
    tool_calls: int = Field(ge=0, description="Tool calls the turn asked for.")
    outcome: Literal["TOOL_CALLS", "DRAFT", "ERROR"] = Field(description="What the turn produced.")


class RunAudit(_Row):
    """One run's ``diagnosis_run`` row: identity, owner, outcome, timings, ledger totals."""

    run_id: str = Field(description="The run.")
    session_id: str = Field(description="The session the run belongs to.")
    owner: str = Field(description="The principal that owns the run.")
    analysis_id: str = Field(description="The analysis id the draft had to carry.")
    intent: Intent | None = Field(description="The route, once decided.")
    status: RunStatus = Field(description="The terminal state.")
    result_kind: ResultKind | None = Field(description="Kind of the released result.")
    failure_stage: FailureStage | None = Field(default=None, description="For a SafeFallback.")
    error_code: ErrorCode | None = Field(default=None, description="For a StableFailure.")
    created_at: datetime = Field(description="When the run was opened (UTC).")
    finished_at: datetime = Field(description="When it reached its terminal state (UTC).")
    duration_ms: float = Field(ge=0, description="Wall time from start to release.")
    ledger: BudgetUsage = Field(description="The budget ledger's totals at the end.")
    usage_unavailable: int = Field(ge=0, description="Model calls without provider usage.")
    tokens_reconciled: bool = Field(description="The ledger equals the per-call usage sums.")


class ReasoningAudit(_Row):
    """The provider's reasoning of one model call: ciphertext with an expiry, or unavailable."""

    run_id: str = Field(description="The run.")
    session_id: str = Field(description="The run's session (access is bound to it).")
    owner: str = Field(description="The run's owner (the only principal that may read it).")
    component: Component = Field(description="The component that called the model.")
    component_round: int = Field(ge=1, description="1-based call of that component in the run.")
    attempt: int = Field(ge=1, description="1-based attempt of that call.")
    available: bool = Field(description="False: the provider returned no reasoning.")
    key_id: str | None = Field(default=None, description="The key that encrypted it.")
    ciphertext: bytes | None = Field(default=None, description="The encrypted reasoning text.")
    created_at: datetime = Field(description="When it was recorded (UTC).")
    expires_at: datetime = Field(description="When it must be purged (UTC).")


class ReasoningAccess(_Row):
    """One attempt to read a run's reasoning, allowed or refused."""

    run_id: str = Field(max_length=64, description="The run asked for (as given).")
    session_id: str = Field(max_length=64, description="The session asked for (as given).")
    principal: str = Field(max_length=128, description="Who asked.")
    at: datetime = Field(description="When (UTC).")
    allowed: bool = Field(description="Whether the reasoning was returned.")
    reason: str = Field(max_length=32, description="Why: ALLOWED, or the refusal's cause.")


class RunRecord(_Row):
    """Everything one run leaves behind, handed to the audit sink once."""

    run: RunAudit = Field(description="The diagnosis_run row.")
    tool_invocations: list[ToolInvocationAudit] = Field(description="Calls that executed.")
    agent_steps: list[AgentStepAudit] = Field(description="Diagnosis agent turns.")
    trace: list[TraceEvent] = Field(description="The timeline, in sequence order.")
    reasoning: list[ReasoningAudit] = Field(description="One row per model call.")


class AuditSink(Protocol):
    """Where a finished run's record goes; best effort, never changes a result.

    An implementation may raise (the caller counts and logs it) but must not block for long:
    production hands the record to a batching writer and returns.
    """

    async def record(self, record: RunRecord) -> None:
        """Accept one run's record for storage."""
        ...


@runtime_checkable
class DrainableSink(Protocol):
    """A sink that can say when the records it accepted are safe: handed to the writer that
    stores them, or stored. A driver that goes away (the CLI, a closing pool) drains its
    sinks first, so that no finished run is lost with the process."""

    async def drain(self, timeout_s: float) -> int:
        """Wait up to ``timeout_s`` until every accepted record is handed on or stored.

        Returns:
            The records that are not: still on their way when the wait ended, or failed.
        """
        ...


async def drain_sink(sink: AuditSink | None, timeout_s: float) -> int:
    """:meth:`DrainableSink.drain` of ``sink`` where it has one; 0 for a sink that hands
    nothing on later (it stored or refused each record when it was given)."""
    if isinstance(sink, DrainableSink):
        return await sink.drain(timeout_s)
    return 0


class FanOutSink:
    """Hands each record to every sink; one failing sink does not starve the others.

    Args:
        sinks: The sinks, called in order.
    """

    def __init__(self, sinks: Sequence[AuditSink]) -> None:
        self.sinks = tuple(sinks)

    async def record(self, record: RunRecord) -> None:
        """Record everywhere, then raise the first failure (the caller counts it)."""
        failure: Exception | None = None
        for sink in self.sinks:
            try:
                await sink.record(record)
            except Exception as exc:  # one sink's failure must not skip the next
                failure = failure or exc
        if failure is not None:
            raise failure

    async def drain(self, timeout_s: float) -> int:
        """Drain every sink that can be drained (concurrently, each within ``timeout_s``)."""
        counts = await asyncio.gather(*(drain_sink(sink, timeout_s) for sink in self.sinks))
        return sum(counts)


class AuditStore(Protocol):
    """The stored audit, as operators, the CLI and the HTTP layer read and maintain it."""

    async def timeline(self, run_id: str) -> list[TraceEvent]:
        """One run's trace events ordered by ``sequence_no, id``; empty when unknown."""
        ...

    async def run(self, run_id: str) -> RunAudit | None:
        """One run's row; None when unknown."""
        ...

    async def runs(
        self, *, limit: int = 50, owner: str | None = None, session_id: str | None = None
    ) -> list[RunAudit]:
        """Recent runs, newest first, optionally of one owner or one session."""
        ...

    async def reasoning(self, run_id: str) -> list[ReasoningAudit]:
        """The reasoning rows of one run, expired ones excluded."""
        ...

    async def record_access(self, access: ReasoningAccess) -> None:
        """Store one reasoning read attempt."""
        ...

    async def purge(self, now: datetime) -> int:
        """Delete reasoning rows that expired before ``now``; return how many."""
        ...

    async def purge_runs(self, before: datetime) -> int:
        """Delete the runs created before ``before`` with everything recorded of them (tool
        calls, agent steps, timeline, reasoning), and reads of reasoning before it; return
        how many runs."""
        ...

    async def write(self, records: Sequence[RunRecord]) -> None:
        """Store records (one transaction per batch)."""
        ...
