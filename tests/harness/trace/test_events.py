"""Trace events: typed details per event type, metadata only, numbered by the run's owner."""

from __future__ import annotations

import typing

import pytest
from pydantic import ValidationError

from harness.contracts.errors import ErrorCode
from harness.contracts.intent import Intent
from harness.contracts.invocation import EvidenceStatus
from harness.contracts.models import Component, FailureReason, Usage
from harness.contracts.status import RunStatus
from harness.contracts.verdicts import IssueCode, SemanticVerdict
from harness.run.budget import RunBudget
from harness.testing.clock import FakeClock
from harness.trace import (
    AgentStep,
    CorrectiveTurn,
    EvidenceCheck,
    EvidenceRepair,
    ModelTokenUsage,
    ReleaseDecision,
    Rerouted,
    Routed,
    RoutingAttempt,
    RunFinished,
    RunStarted,
    SemanticCheck,
    ToolInvocation,
    ToolRequestRejected,
    TraceCategory,
    TraceDetails,
    TraceEvent,
    TraceRecorder,
)

USAGE = Usage(input_tokens=10, output_tokens=2, total_tokens=12)

ONE_OF_EACH = [
    RunStarted(status=RunStatus.RUNNING),
    Routed(intent=Intent.DIAGNOSIS),
    RoutingAttempt(attempt=1, outcome="OK"),
    ModelTokenUsage(
        component=Component.ROUTER, component_round=1, attempt=1, latency_ms=1.5, usage=USAGE
    ),
    ModelTokenUsage(
        component=Component.DIAGNOSIS_AGENT, component_round=1, attempt=1, latency_ms=2, usage=None
    ),
    AgentStep(step_no=1, outcome="TOOL_CALLS", tool_calls=2, token_count=None, latency_ms=2),
    ModelTokenUsage(
        component=Component.SEMANTIC_GUARD,
        component_round=1,
        attempt=2,
        latency_ms=0,
        usage=None,
        error_code=ErrorCode.MODEL_TIMEOUT,
    ),
    ToolRequestRejected(tool_call_id="c1", tool_name="-", error_code=ErrorCode.RUN_MISMATCH),
    ToolInvocation(
        tool_call_id="c2",
        tool_name="query_logs",
        outcome="OBSERVATION",
        evidence_status=EvidenceStatus.EVIDENCE_FOUND,
        latency_ms=3.25,
    ),
    EvidenceCheck(attempt=1, outcome="ISSUES", issue_codes=[IssueCode.UNKNOWN_TOOL_CALL]),
    EvidenceRepair(outcome="FAILED", error_code=ErrorCode.MODEL_ERROR),
    CorrectiveTurn(reason=FailureReason.PROSE_REPLY, asks_for="DRAFT"),
    Rerouted(
        from_intent=Intent.SYSTEM_CHAT,
        to="DIAGNOSIS",
        trigger="QUESTION_NAMES_CATALOG",
        catalog_items=1,
    ),
    SemanticCheck(verdict=SemanticVerdict.SUPPORTED, issue_count=0),
    ReleaseDecision(result_kind="SafeFallback", failure_stage="EVIDENCE"),
    RunFinished(
        status=RunStatus.COMPLETED,
        result_kind="SafeFallback",
        ledger=RunBudget().ledger.snapshot(),
        model_calls=[],
        unavailable_usage=0,
        tokens_reconciled=True,
        dropped_late=0,
        dropped_finishes=0,
    ),
]


def test_every_event_type_has_a_sample() -> None:
    members = typing.get_args(typing.get_args(TraceDetails)[0])
    assert {type(d) for d in ONE_OF_EACH} == set(members)


def test_a_misspelled_or_smuggled_key_is_refused() -> None:
    with pytest.raises(ValidationError):
        RunStarted(status=RunStatus.RUNNING, statuss="RUNNING")  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        ToolRequestRejected(  # type: ignore[call-arg]
            tool_call_id="c1", tool_name="query_mysql", error_code="SQL_REJECTED", sql="SELECT 1"
        )


def test_recorder_numbers_from_one_and_derives_type_and_category() -> None:
    clock = FakeClock()
    trace = TraceRecorder(run_id="run-t", clock=clock)
    for details in ONE_OF_EACH:
        trace.record(details)
        clock.advance(0.5)
    events = trace.events
    assert [e.sequence_no for e in events] == list(range(1, len(ONE_OF_EACH) + 1))
    assert [e.event_type for e in events] == [d.kind for d in ONE_OF_EACH]
    assert [e.category for e in events] == [
        TraceCategory.RUN,
        TraceCategory.ROUTING,
        TraceCategory.ROUTING,
        TraceCategory.ROUTING,  # the router's model call belongs to routing
        TraceCategory.AGENT,
        TraceCategory.AGENT,
        TraceCategory.SEMANTIC,  # the judge's model call belongs to the semantic check
        TraceCategory.TOOL,
        TraceCategory.TOOL,
        TraceCategory.EVIDENCE,
        TraceCategory.EVIDENCE,
        TraceCategory.AGENT,  # the corrective turn
        TraceCategory.ROUTING,  # a re-route
        TraceCategory.SEMANTIC,
        TraceCategory.RELEASE,
        TraceCategory.RUN,
    ]
    assert events[1].at > events[0].at


def test_events_round_trip_through_json_with_their_types() -> None:
    trace = TraceRecorder(run_id="run-t", clock=FakeClock())
    for details in ONE_OF_EACH:
        trace.record(details)
    for event in trace.events:
        again = TraceEvent.model_validate_json(event.model_dump_json())
        assert again == event and type(again.details) is type(event.details)


def test_an_event_whose_type_or_category_disagrees_with_its_details_is_refused() -> None:
    event = TraceRecorder(run_id="run-t", clock=FakeClock()).record(Routed(intent=Intent.DIAGNOSIS))
    body = event.model_dump(mode="json")
    with pytest.raises(ValidationError):
        TraceEvent.model_validate({**body, "event_type": "RUN_STARTED"})
    with pytest.raises(ValidationError):
        TraceEvent.model_validate({**body, "category": "TOOL"})
