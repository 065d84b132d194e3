"""RunBudget arithmetic at its edges, and the information-gain control."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.contracts.errors import BudgetExhausted, ErrorCode, ProtocolError
from harness.contracts.invocation import EvidenceStatus
from harness.contracts.models import Component
from harness.run.budget import Budgets, BytesKind, RunBudget
from harness.run.control import InformationControl


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


@pytest.mark.parametrize("kind", list(BytesKind))
@given(
    per_call=st.integers(1, 1000),
    per_run=st.integers(1, 3000),
    sizes=st.lists(st.integers(0, 1200), max_size=30),
)
def test_bytes_ledger_never_exceeds_limits(
    kind: BytesKind, per_call: int, per_run: int, sizes: list[int]
) -> None:
    name = kind.value.lower()
    budget = RunBudget(
        Budgets(**{f"max_{name}_bytes_per_call": per_call, f"max_{name}_bytes_per_run": per_run})
    )
    assert budget.budgets.byte_limits(kind) == (per_call, per_run)
    per_call_code = {
        BytesKind.REQUEST: ErrorCode.REQUEST_TOO_LARGE,
        BytesKind.RAW: ErrorCode.RAW_TOO_LARGE,
        BytesKind.PROJECTION: ErrorCode.PROJECTION_ERROR,
    }[kind]
    for size in sizes:
        before = dict(budget.ledger.bytes)
        try:
            budget.reserve_bytes(kind, size)
            assert size <= per_call and before[kind] + size <= per_run
        except BudgetExhausted as err:
            assert budget.ledger.bytes == before
            expected = per_call_code if size > per_call else ErrorCode.BYTES_BUDGET_EXHAUSTED
            assert err.error_code is expected
        # The other kinds are never charged.
        assert {k: v for k, v in budget.ledger.bytes.items() if k is not kind} == {
            k: 0 for k in BytesKind if k is not kind
        }
    assert budget.ledger.bytes[kind] <= per_run


def test_exact_edges() -> None:
    budget = RunBudget(Budgets(max_request_bytes_per_call=10, max_request_bytes_per_run=20))
    budget.reserve_bytes(BytesKind.REQUEST, 10)
    with pytest.raises(BudgetExhausted) as err:
        budget.reserve_bytes(BytesKind.REQUEST, 11)
    assert err.value.error_code is ErrorCode.REQUEST_TOO_LARGE
    budget.reserve_bytes(BytesKind.REQUEST, 10)
    with pytest.raises(BudgetExhausted) as err:
        budget.reserve_bytes(BytesKind.REQUEST, 1)
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
    assert budget.ledger.snapshot().model_dump() == {
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


# ---------------------------------------------------------------- models, tokens, cost


def test_cost_from_the_price_table_and_its_edge() -> None:
    from harness.contracts.models import Usage

    budget = RunBudget(Budgets(max_cost_usd=0.02, prices_usd_per_1k={"m": (0.01, 0.03)}))
    usage = Usage(input_tokens=1000, output_tokens=200, total_tokens=1200)
    budget.reserve_model_call(100)
    budget.commit_usage(Component.DIAGNOSIS_AGENT, "m", usage)  # 0.01 + 0.006
    assert budget.ledger.cost_usd == pytest.approx(0.016)
    budget.reserve_model_call(100)
    budget.commit_usage(
        Component.DIAGNOSIS_AGENT, "m", usage
    )  # 0.032 >= 0.02: the next call is refused
    with pytest.raises(BudgetExhausted) as err:
        budget.reserve_model_call(100)
    assert err.value.error_code is ErrorCode.COST_BUDGET_EXHAUSTED
    unknown = RunBudget(Budgets(max_cost_usd=0.02))
    unknown.reserve_model_call(100)
    unknown.commit_usage(Component.ROUTER, "unpriced", usage)
    assert unknown.ledger.cost_usd == 0.0  # models without a price cost nothing in the ledger


def test_model_call_budget_edge() -> None:
    budget = RunBudget(Budgets(max_model_calls=2))
    budget.reserve_model_call(10)
    budget.reserve_model_call(10)
    with pytest.raises(BudgetExhausted) as err:
        budget.reserve_model_call(10)
    assert err.value.error_code is ErrorCode.MODEL_BUDGET_EXHAUSTED


def test_input_token_budget_edge() -> None:
    from harness.contracts.models import Usage

    budget = RunBudget(Budgets(max_input_tokens=100))
    budget.reserve_model_call(10)
    budget.commit_usage(
        Component.ROUTER, "m", Usage(input_tokens=100, output_tokens=1, total_tokens=101)
    )
    with pytest.raises(BudgetExhausted) as err:
        budget.reserve_model_call(10)
    assert err.value.error_code is ErrorCode.TOKEN_BUDGET_EXHAUSTED
