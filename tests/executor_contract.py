"""Checks every ToolExecutor must pass (inline in tests/harness, Ray tasks in tests/actors).

The executor's ``slots`` are the process's shared pool: a burst of calls beyond them, from
many runs at once, queues for slots and never runs down a backend timeout while it queues.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from harness.clock import SystemClock
from harness.contracts.errors import ErrorCode
from harness.ports import ToolExecutor
from harness.run.boundary import ToolBoundary, ToolBoundaryResult, ToolCallEnvelope, ToolPolicy
from harness.run.budget import RunBudget
from harness.run.context import RunContext
from harness.testing.memory_store import InMemoryCanonicalStore
from harness.tools import SEARCH_KNOWLEDGE, ToolRegistry, default_specs
from harness.trace import ToolInvocation, TraceRecorder

__all__ = ["burst_beyond_slots", "check_burst_beyond_slots"]


async def burst_beyond_slots(
    executor: ToolExecutor, *, query: str, calls: int, execute_timeout_s: float
) -> list[tuple[ToolBoundaryResult, float]]:
    """``calls`` runs (one boundary each, as on one RunActor) each make one call at once;
    returns each call's result and the time it queued for a slot (ms)."""
    clock = SystemClock()
    store = InMemoryCanonicalStore(clock, ttl_s=600)
    registry = ToolRegistry.of([s for s in default_specs() if s.name == SEARCH_KNOWLEDGE])
    policy = ToolPolicy(
        authorized_tools=frozenset({SEARCH_KNOWLEDGE}),
        execute_timeout_s=execute_timeout_s,
        project_timeout_s=max(execute_timeout_s, 5.0),
    )

    async def one(n: int) -> tuple[ToolBoundaryResult, float]:
        run = RunContext.open(run_id=f"burst-{n}", now=clock.now(), timeout_s=300)
        run.start()
        trace = TraceRecorder(run_id=run.run_id, clock=clock)
        boundary = ToolBoundary(
            run=run,
            budget=RunBudget(),
            registry=registry,
            policy=policy,
            store=store,
            executor=executor,
            clock=clock,
            trace=trace,
        )
        arguments = json.dumps({"query": f"{query} n{n}", "top_k": 3})
        result = await boundary.call(
            ToolCallEnvelope(
                run_id=run.run_id,
                tool_call_id="c1",
                tool_name=SEARCH_KNOWLEDGE,
                arguments=arguments,
            )
        )
        waited = [
            e.details.queue_wait_ms for e in trace.events if isinstance(e.details, ToolInvocation)
        ]
        return result, waited[0] if waited else 0.0

    return list(await asyncio.gather(*(one(n) for n in range(calls))))


def check_burst_beyond_slots(
    executor: ToolExecutor, *, query: str, calls: int, execute_timeout_s: float
) -> None:
    """Every call of a burst larger than the slots ends READY (no BACKEND_TIMEOUT) when each
    backend is fast, however long the calls behind it queued; the slots all come back.

    ``query`` must make the backend take a fair share of ``execute_timeout_s``, so that the
    burst, had it not queued for slots, would outlast the timeout.
    """
    slots = executor.slots
    assert calls > 2 * slots.capacity, "the burst must exceed the slots"
    done = asyncio.run(
        burst_beyond_slots(executor, query=query, calls=calls, execute_timeout_s=execute_timeout_s)
    )
    outcomes: dict[tuple[str, ErrorCode | None], int] = {}
    for result, _ in done:
        key = (result.outcome, result.error_code)
        outcomes[key] = outcomes.get(key, 0) + 1
    assert outcomes == {("OBSERVATION", None): calls}, outcomes
    waits: list[Any] = sorted(wait for _, wait in done)
    assert waits[-1] > execute_timeout_s * 1000, "the last calls queued past the timeout"
    assert (slots.in_use, slots.waiting) == (0, 0)
