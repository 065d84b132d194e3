"""RunBudget arithmetic at its edges, and the information-gain control."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.budget import Budgets, RunBudget
from harness.control import InformationControl
from harness.errors import BudgetExhausted, ErrorCode, ProtocolError
from harness.invocation import EvidenceStatus


@given(limit=st.integers(0, 20), attempts=st.integers(0, 40))
def test_tool_calls_never_exceed_the_limit(limit: int, attempts: int) -> None:
    budget = RunBudget(Budgets(max_tool_calls=limit, max_tool_calls_per_tool={}))
    granted = 0
    for _ in range(attempts):
        try:
            budget.reserve_tool_call("t")
            granted += 1
        except BudgetExhausted as err:
            assert err.error_code is ErrorCode.TOOL_BUDGET_EXHAUSTED
    assert granted == min(limit, attempts) == budget.ledger.tool_calls


@given(
    per_call=st.integers(1, 1000),
    per_run=st.integers(1, 3000),
    sizes=st.lists(st.integers(0, 1200), max_size=30),
)
def test_bytes_ledger_never_exceeds_limits(per_call: int, per_run: int, sizes: list[int]) -> None:
    budget = RunBudget(Budgets(max_raw_bytes_per_call=per_call, max_raw_bytes_per_run=per_run))
    for size in sizes:
        before = budget.ledger.bytes["raw"]
        try:
            budget.reserve_bytes("raw", size)
            assert size <= per_call and before + size <= per_run
        except BudgetExhausted as err:
            assert budget.ledger.bytes["raw"] == before
            expected = (
                ErrorCode.RAW_TOO_LARGE if size > per_call else ErrorCode.BYTES_BUDGET_EXHAUSTED
            )
            assert err.error_code is expected
    assert budget.ledger.bytes["raw"] <= per_run


def test_exact_edges() -> None:
    budget = RunBudget(Budgets(max_request_bytes_per_call=10, max_request_bytes_per_run=20))
    budget.reserve_bytes("request", 10)
    with pytest.raises(BudgetExhausted) as err:
        budget.reserve_bytes("request", 11)
    assert err.value.error_code is ErrorCode.REQUEST_TOO_LARGE
    budget.reserve_bytes("request", 10)
    with pytest.raises(BudgetExhausted) as err:
        budget.reserve_bytes("request", 1)
    assert err.value.error_code is ErrorCode.BYTES_BUDGET_EXHAUSTED


def test_negative_limits_are_refused() -> None:
    with pytest.raises(ValueError):
        Budgets(max_tool_calls=-1)


def test_ledger_snapshot_separates_the_three_figures() -> None:
    budget = RunBudget()
    budget.reserve_tool_call("query_logs")
    budget.count_execution()
    budget.count_rejection(ErrorCode.DUPLICATE_SCOPE)
    budget.count_rejection(ErrorCode.RUN_MISMATCH)
    assert budget.ledger.snapshot() == {
        "tool_calls": 1,
        "tool_calls_by_tool": {"query_logs": 1},
        "executions": 1,
        "rejections": 2,
        "rejections_by_code": {"DUPLICATE_SCOPE": 1, "RUN_MISMATCH": 1},
        "request_bytes": 0,
        "raw_bytes": 0,
        "projection_bytes": 0,
        "model_calls": 0,
        "input_tokens": 0,
        "output_tokens": 0,
        "total_tokens": 0,
        "usage_unavailable": 0,
        "cost_usd": 0.0,
    }


# ---------------------------------------------------------------- control


def test_in_flight_scope_is_a_duplicate_and_error_frees_it() -> None:
    control = InformationControl()
    control.admit("s")
    with pytest.raises(ProtocolError) as err:
        control.admit("s")
    assert err.value.error_code is ErrorCode.DUPLICATE_SCOPE
    control.settle("s", ready=False)
    control.admit("s")
    control.settle(
        "s", ready=True, evidence_status=EvidenceStatus.EVIDENCE_FOUND, identities=frozenset({"a"})
    )
    with pytest.raises(ProtocolError):
        control.admit("s")


def test_agent_evaluation_can_declare_no_gain() -> None:
    control = InformationControl(no_gain_threshold=1)
    control.admit("s")
    control.settle(
        "s", ready=True, evidence_status=EvidenceStatus.EVIDENCE_FOUND, identities=frozenset({"a"})
    )
    outcome = control.close_round(agent_says_no_gain=True)
    assert (outcome.gain, outcome.new_identities, outcome.stop_required) == (False, 1, True)
    with pytest.raises(ProtocolError) as err:
        control.admit("other")
    assert err.value.error_code is ErrorCode.INFORMATION_SATURATED


@given(
    st.lists(st.frozensets(st.sampled_from("abcdef"), max_size=3), min_size=1, max_size=12),
    st.integers(1, 4),
)
def test_stop_required_exactly_after_threshold_consecutive_no_gain(
    rounds: list[frozenset[str]], threshold: int
) -> None:
    control = InformationControl(no_gain_threshold=threshold)
    seen: set[str] = set()
    streak = 0
    for i, ids in enumerate(rounds):
        if control.stop_required:
            break
        control.admit(f"s{i}")
        control.settle(
            f"s{i}", ready=True, evidence_status=EvidenceStatus.EVIDENCE_FOUND, identities=ids
        )
        outcome = control.close_round()
        gained = bool(ids - seen)
        seen |= ids
        streak = 0 if gained else streak + 1
        assert outcome.gain is gained
        assert outcome.stop_required is (streak >= threshold)
