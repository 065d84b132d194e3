"""Synthetic :class:`~harness.audit.records.RunRecord` objects of realistic shape, for tests and benchmarks."""

from __future__ import annotations

from datetime import datetime, timedelta

from harness.audit.records import (
    AgentStepAudit,
    ReasoningAudit,
    RunAudit,
    RunRecord,
    ToolInvocationAudit,
)
from harness.contracts.errors import ErrorCode
from harness.contracts.intent import Intent
from harness.contracts.invocation import EvidenceStatus
from harness.contracts.ledger import BudgetUsage
from harness.contracts.models import Component, Usage
from harness.contracts.status import RunStatus
from harness.contracts.verdicts import SemanticVerdict
from harness.trace import (
    AgentStep,
    EvidenceCheck,
    ModelCallUsage,
    ModelTokenUsage,
    ReleaseDecision,
    Routed,
    RoutingAttempt,
    RunFinished,
    RunStarted,
    SemanticCheck,
    ToolInvocation,
    TraceDetails,
    TraceEvent,
)

__all__ = ["run_record"]

_TOOLS = ("query_logs", "query_mysql", "search_knowledge")


def run_record(
    run_id: str,
    *,
    at: datetime,
    owner: str = "alice",
    session_id: str = "sess-1",
    tools: int = 5,
    steps: int = 4,
    events: int = 30,
    reasoning: int = 8,
    retention: timedelta = timedelta(days=30),
) -> RunRecord:
    """A finished diagnosis run's record: 1 run row plus the given numbers of child rows.

    Args:
        run_id: The run.
        at: When the run was created (timezone-aware); its events follow at 10 ms steps.
        owner: The run's owner.
        session_id: The run's session.
        tools: Tool invocation rows.
        steps: Agent step rows.
        events: Trace events, at least 3: RUN_STARTED, ..., RELEASE_DECISION, RUN_FINISHED.
        reasoning: Reasoning rows; odd ones carry a (fake) ciphertext.
        retention: How long after ``at`` the reasoning expires.
    """
    if events < 3:
        raise ValueError("a finished run has at least 3 trace events")
    usage = Usage(input_tokens=900, output_tokens=120, total_tokens=1020)
    ledger = BudgetUsage(
        tool_calls=tools,
        tool_calls_by_tool={t: tools // 3 + (i < tools % 3) for i, t in enumerate(_TOOLS)},
        executions=tools,
        rejections=1,
        rejections_by_code={ErrorCode.DUPLICATE_SCOPE.value: 1},
        request_bytes=180 * tools,
        raw_bytes=40_000 * tools,
        projection_bytes=3_000 * tools,
        model_calls=steps + 2,
        input_tokens=900 * (steps + 2),
        output_tokens=120 * (steps + 2),
        total_tokens=1020 * (steps + 2),
        usage_unavailable=0,
        cost_usd=0.0125,
    )
    body: list[TraceDetails] = [
        RoutingAttempt(attempt=1, outcome="OK"),
        Routed(intent=Intent.DIAGNOSIS),
    ]
    filler: list[TraceDetails] = [
        ModelTokenUsage(
            component=Component.DIAGNOSIS_AGENT,
            component_round=1,
            attempt=1,
            latency_ms=812.5,
            usage=usage,
            tool_calls=2,
            reasoning="AVAILABLE",
        ),
        AgentStep(
            step_no=1, outcome="TOOL_CALLS", tool_calls=2, token_count=1020, latency_ms=812.5
        ),
        ToolInvocation(
            tool_call_id="call_0001",
            tool_name="query_logs",
            outcome="OBSERVATION",
            evidence_status=EvidenceStatus.EVIDENCE_FOUND,
            latency_ms=143.25,
        ),
        EvidenceCheck(attempt=1, outcome="OK"),
        SemanticCheck(verdict=SemanticVerdict.SUPPORTED, issue_count=0),
    ]
    while len(body) < events - 3:
        body.append(filler[len(body) % len(filler)])
    details: list[TraceDetails] = [
        RunStarted(status=RunStatus.RUNNING),
        *body[: events - 3],
        ReleaseDecision(result_kind="DiagnosisReport"),
        RunFinished(
            status=RunStatus.COMPLETED,
            result_kind="DiagnosisReport",
            ledger=ledger,
            model_calls=[
                ModelCallUsage(component=Component.DIAGNOSIS_AGENT, model="scripted", usage=usage)
            ],
            unavailable_usage=0,
            tokens_reconciled=True,
            dropped_late=0,
            dropped_finishes=0,
        ),
    ]
    step = timedelta(milliseconds=10)
    trace = [
        TraceEvent(
            run_id=run_id,
            sequence_no=i + 1,
            category=d.category(),
            event_type=d.kind,
            at=at + step * i,
            details=d,
        )
        for i, d in enumerate(details)
    ]
    finished = at + step * len(trace)
    return RunRecord(
        run=RunAudit(
            run_id=run_id,
            session_id=session_id,
            owner=owner,
            analysis_id=f"an-{run_id}",
            intent=Intent.DIAGNOSIS,
            status=RunStatus.COMPLETED,
            result_kind="DiagnosisReport",
            created_at=at,
            finished_at=finished,
            duration_ms=(finished - at).total_seconds() * 1000,
            ledger=ledger,
            usage_unavailable=0,
            tokens_reconciled=True,
        ),
        tool_invocations=[
            ToolInvocationAudit(
                run_id=run_id,
                tool_call_id=f"call_{i:04d}",
                tool_name=_TOOLS[i % len(_TOOLS)],
                outcome="ERROR" if i == 4 else "OBSERVATION",
                evidence_status=EvidenceStatus.ERROR if i == 4 else EvidenceStatus.EVIDENCE_FOUND,
                error_code=ErrorCode.BACKEND_TIMEOUT if i == 4 else None,
                latency_ms=100.0 + i,
                request_bytes=180,
                raw_bytes=None if i == 4 else 40_000,
                projection_bytes=None if i == 4 else 3_000,
            )
            for i in range(tools)
        ],
        agent_steps=[
            AgentStepAudit(
                run_id=run_id,
                step_no=i + 1,
                token_count=1020 if i % 3 else None,
                latency_ms=800.0 + i,
                tool_calls=0 if i == steps - 1 else 2,
                outcome="DRAFT" if i == steps - 1 else "TOOL_CALLS",
            )
            for i in range(steps)
        ],
        trace=trace,
        reasoning=[
            ReasoningAudit(
                run_id=run_id,
                session_id=session_id,
                owner=owner,
                component=Component.DIAGNOSIS_AGENT,
                component_round=i + 1,
                attempt=1,
                available=i % 2 == 1,
                key_id="k1" if i % 2 else None,
                ciphertext=bytes(range(256)) * 2 if i % 2 else None,
                created_at=finished,
                expires_at=at + retention,
            )
            for i in range(reasoning)
        ],
    )
