"""Every shipped misbehaving model ends in a stable, expected outcome."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from harness.contracts.ingress import RunRequest
from harness.diagnosis import DiagnosisRun
from harness.run.budget import Budgets
from harness.testing.clock import FakeClock, until
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
    clock = FakeClock()
    model = MISBEHAVIOURS[name]("an-1", clock)
    deps = fake_deps(
        model,
        deadline_s=0.5 if name == "slow_reply" else 30.0,
        budgets=Budgets(max_model_calls=8),
        clock=clock,
    )
    run = DiagnosisRun(RunRequest(question="Why 500?", analysis_id="an-1"), deps, run_id="run-bad")

    async def main() -> Any:
        pending = asyncio.create_task(run.execute())
        if name == "slow_reply":
            await until(lambda: len(model.requests) == 2)  # the slow reply is on its way
            clock.advance(0.5)  # the deadline, on the fake clock
        return await pending

    result = asyncio.run(main())
    detail = getattr(result, "failure_stage", None) or getattr(result, "error_code", None)
    assert (result.kind, detail) == EXPECTED[name]
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
