"""Contracts: legal status pairs, error pickling, typed requests, observation/control split."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from harness.contracts.errors import ErrorCode
from harness.contracts.invocation import (
    LEGAL_STATUS_PAIRS,
    CanonicalInvocation,
    EvidenceStatus,
    InvocationStatus,
)
from harness.contracts.observation import (
    ControlView,
    LogsObservation,
    MysqlObservation,
    RagObservation,
)
from harness.tools.arguments import QueryLogsRequest, QueryMysqlRequest, SearchKnowledgeRequest

T0 = datetime(2026, 11, 2, 14, 0, tzinfo=UTC)


def _record(status: InvocationStatus, evidence: EvidenceStatus | None) -> CanonicalInvocation:
    return CanonicalInvocation(
        tool_call_id="c1",
        run_id="r1",
        tool_name="query_logs",
        request={},
        agent_result={} if status is InvocationStatus.READY else None,
        invocation_status=status,
        evidence_status=evidence,
        error_code=ErrorCode.BACKEND_ERROR if status is InvocationStatus.ERROR else None,
        started_at=T0,
        completed_at=None if status is InvocationStatus.PROJECTING else T0,
    )


@pytest.mark.parametrize(
    ("status", "evidence"), list(itertools.product(InvocationStatus, [None, *EvidenceStatus]))
)
def test_only_legal_status_pairs_can_be_built(
    status: InvocationStatus, evidence: EvidenceStatus | None
) -> None:
    if (status, evidence) in LEGAL_STATUS_PAIRS:
        assert _record(status, evidence).invocation_status is status
    else:
        with pytest.raises(ValidationError):
            _record(status, evidence)


def test_legal_pairs_are_exactly_the_seed_table() -> None:
    assert {
        (InvocationStatus.PROJECTING, None),
        (InvocationStatus.READY, EvidenceStatus.EVIDENCE_FOUND),
        (InvocationStatus.READY, EvidenceStatus.NO_EVIDENCE),
        (InvocationStatus.ERROR, EvidenceStatus.ERROR),
    } == LEGAL_STATUS_PAIRS


def test_ready_needs_agent_result_and_error_needs_code() -> None:
    with pytest.raises(ValidationError):
        CanonicalInvocation(
            tool_call_id="c",
            run_id="r",
            tool_name="t",
            request={},
            invocation_status=InvocationStatus.READY,
            evidence_status=EvidenceStatus.EVIDENCE_FOUND,
            started_at=T0,
        )
    with pytest.raises(ValidationError):
        CanonicalInvocation(
            tool_call_id="c",
            run_id="r",
            tool_name="t",
            request={},
            invocation_status=InvocationStatus.ERROR,
            evidence_status=EvidenceStatus.ERROR,
            started_at=T0,
        )


def test_record_round_trips_through_json() -> None:
    record = _record(InvocationStatus.READY, EvidenceStatus.NO_EVIDENCE)
    assert CanonicalInvocation.model_validate_json(record.model_dump_json()) == record


# ---------------------------------------------------------------- requests


def test_logs_request_normalises_and_bounds() -> None:
    req = QueryLogsRequest(
        start="2026-11-02T14:00:00", end="2026-11-02T16:00:00+01:00", services=["b", "a", "a"]
    )
    assert (req.start.tzinfo, req.end.hour, req.services) == (UTC, 15, ["a", "b"])
    for bad in (
        {"start": "2026-11-02T14:00:00Z", "end": "2026-11-02T14:00:00Z"},
        {"start": "2026-11-02T14:00:00Z", "end": "2026-11-03T14:00:01Z"},
        {"start": "2026-11-02T14:00:00Z", "end": "2026-11-02T15:00:00Z", "services": ["bad name"]},
        {"start": "2026-11-02T14:00:00Z", "end": "2026-11-02T15:00:00Z", "level": "LOUD"},
        {"start": "2026-11-02T14:00:00Z", "end": "2026-11-02T15:00:00Z", "unknown": 1},
        {
            "start": "2026-11-02T14:00:00Z",
            "end": "2026-11-02T15:00:00Z",
            "services": [str(i) for i in range(9)],
        },
    ):
        with pytest.raises(ValidationError):
            QueryLogsRequest.model_validate(bad)
    QueryLogsRequest(
        start="2026-11-02T14:00:00Z", end="2026-11-03T14:00:00Z"
    )  # exactly 24 h is allowed


def test_mysql_and_knowledge_requests_are_bounded() -> None:
    QueryMysqlRequest(datasource="d", sql="x" * 4000)
    with pytest.raises(ValidationError):
        QueryMysqlRequest(datasource="d", sql="x" * 4001)
    SearchKnowledgeRequest(query="q", top_k=10)
    with pytest.raises(ValidationError):
        SearchKnowledgeRequest(query="q", top_k=11)


# ---------------------------------------------------------------- the two views


CONTROL_ONLY = {
    "returned_count",
    "normalized_scope",
    "scope_identity",
    "consecutive_no_gain",
    "no_gain_threshold",
    "remaining_tool_calls",
    "remaining_bytes",
    "new_evidence_identities",
}


@pytest.mark.parametrize("model", [LogsObservation, MysqlObservation, RagObservation])
def test_agent_observations_hold_no_control_fields(model: type) -> None:
    assert set(model.model_fields) & CONTROL_ONLY == set()
    assert {"tool_call_id", "evidence_status", "scope", "truncated"} <= set(model.model_fields)


def test_control_view_holds_the_control_fields() -> None:
    assert set(ControlView.model_fields) >= CONTROL_ONLY


@given(st.text(max_size=50))
def test_unknown_error_codes_are_refused(text: str) -> None:
    if text in ErrorCode.__members__:
        return
    with pytest.raises(ValueError):
        ErrorCode(text)
