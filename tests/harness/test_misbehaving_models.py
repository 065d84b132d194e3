"""Every shipped misbehaving model ends in a stable, expected outcome."""

from __future__ import annotations

import asyncio

import pytest

from harness.budget import Budgets
from harness.diagnosis import DiagnosisRun, RunRequest
from harness.testing.misbehaving import MISBEHAVIOURS
from harness.testing.rig import fake_deps

EXPECTED = {
    "hallucinated_ids": ("DiagnosisReport", None),
    "foreign_run_ids": ("SafeFallback", "EVIDENCE"),
    "repeated_calls": ("DiagnosisReport", None),
    "endless_tool_loop": ("StableFailure", "MODEL_BUDGET_EXHAUSTED"),
    "oversized_reply": ("StableFailure", "MODEL_ERROR"),
    "malformed_arguments": ("SafeFallback", "EVIDENCE"),
    "malformed_draft": ("StableFailure", "INVALID_DRAFT"),
    "slow_reply": ("TimedOut", None),
    "provider_error": ("StableFailure", "MODEL_ERROR"),
    "missing_usage": ("DiagnosisReport", None),
}


def test_every_misbehaviour_has_an_expectation() -> None:
    assert set(EXPECTED) == set(MISBEHAVIOURS)


@pytest.mark.parametrize("name", sorted(MISBEHAVIOURS))
def test_misbehaving_model_ends_in_a_stable_outcome(name: str) -> None:
    model = MISBEHAVIOURS[name]("an-1")
    deps = fake_deps(
        model, deadline_s=0.5 if name == "slow_reply" else 30.0, budgets=Budgets(max_model_calls=8)
    )
    run = DiagnosisRun(RunRequest(question="Why 500?", analysis_id="an-1"), deps, run_id="run-bad")
    result = asyncio.run(run.execute())
    detail = getattr(result, "failure_stage", None) or getattr(result, "error_code", None)
    assert (result.type, detail) == EXPECTED[name]
    assert run.run.terminal and run.result is result
    ledger = run.budget.ledger
    assert ledger.model_calls <= 8 and ledger.tool_calls <= run.budget.budgets.max_tool_calls
    if name == "missing_usage":
        assert (ledger.usage_unavailable, ledger.total_tokens, run.budget.tokens_reconciled()) == (
            4,
            0,
            False,
        )
    if hasattr(model, "assert_complete") and name not in ("slow_reply",):
        model.assert_complete()
