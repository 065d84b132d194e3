"""First terminal wins: cancel, deadline and completion raced 1,000 times in process."""

from __future__ import annotations

import asyncio
import json
import random

from harness.contracts.ingress import RunRequest
from harness.contracts.results import Answer, Cancelled, TimedOut
from harness.contracts.status import RunStatus
from harness.diagnosis import DiagnosisRun
from harness.testing.clock import FakeClock
from harness.testing.models import ScriptedModel, Slow, text_reply
from harness.testing.rig import fake_deps

EXPECTED = {
    RunStatus.COMPLETED: Answer,
    RunStatus.CANCELLED: Cancelled,
    RunStatus.TIMED_OUT: TimedOut,
}


async def _race(seed: int) -> tuple[DiagnosisRun, object]:
    """Model replies, the deadline and a cancel, all timed on one fake clock, raced.

    A driver moves the clock in random small steps and lets the loop run between them, so
    the three outcomes fall due in every order — including two in the same step, where the
    timers fire before the woken run gets to finish.
    """
    rng = random.Random(seed)
    clock = FakeClock()
    model = ScriptedModel(
        [
            Slow(rng.uniform(0, 0.002), text_reply(json.dumps({"intent": "SYSTEM_CHAT"}))),
            Slow(rng.uniform(0, 0.002), text_reply("late or not")),
        ],
        clock=clock,
    )
    deps = fake_deps(model, deadline_s=rng.uniform(0.0005, 0.004), clock=clock)
    run = DiagnosisRun(RunRequest(question="hello"), deps, run_id=f"run-{seed}")
    clock.call_later(rng.uniform(0.0005, 0.004), run.cancel)
    pending = asyncio.create_task(run.execute())
    await asyncio.sleep(0)  # the run starts before any of its timers can fire
    while not pending.done():
        for _ in range(rng.randint(0, 3)):
            await asyncio.sleep(0)
        clock.advance(rng.uniform(0, 0.001))
    return run, await pending


def test_one_terminal_state_per_run_under_races() -> None:
    async def main() -> list[tuple[DiagnosisRun, object]]:
        out = []
        for batch in range(50):
            out += await asyncio.gather(*(_race(batch * 20 + i) for i in range(20)))
        return out

    outcomes = asyncio.run(main())
    assert len(outcomes) == 1000
    seen = set()
    for run, result in outcomes:
        assert run.run.terminal
        assert isinstance(result, EXPECTED[run.run.status])
        assert run.result is result
        # A later finish attempt changes nothing and is counted.
        before = run.run.dropped_finishes
        assert run.cancel() is False
        assert run.result is result and run.run.dropped_finishes == before + 1
        ledger = run.budget.ledger
        assert (
            ledger.model_calls == len(ledger.model_usage)
            or ledger.model_calls == len(ledger.model_usage) + 1
        )
        seen.add(run.run.status)
    # The race really races: every outcome occurs.
    assert seen == set(EXPECTED)
