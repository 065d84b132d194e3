"""ToolBoundary admission: calls beyond the executor's slots queue, bounded by their run.

A queued call has no canonical record and counts no execution; its timeouts start once it
holds a slot; a run that ends while the call queues ends the call with the run's code. Time
is a FakeClock; the blocking backends are released by the test, never waited out.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Awaitable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic import BaseModel

from harness.admission import ToolSlots
from harness.contracts.errors import ErrorCode
from harness.contracts.invocation import InvocationStatus
from harness.contracts.observation import Projection
from harness.contracts.raw import RawResponse
from harness.contracts.status import RunStatus
from harness.run.boundary import ToolBoundary, ToolBoundaryResult, ToolCallEnvelope, ToolPolicy
from harness.run.budget import RunBudget
from harness.run.context import RunContext
from harness.testing.clock import FakeClock, until
from harness.testing.memory_store import InMemoryCanonicalStore
from harness.testing.tools import DocsProjector, RecordingBackend, SlowBackend, docs_raw
from harness.tools import InlineToolExecutor, ToolRegistry, default_specs
from harness.trace import ToolInvocation, ToolRequestRejected, TraceRecorder

TOOL = "search_knowledge"
EXECUTE_TIMEOUT_S = 0.2


@dataclass
class GatedBackend:
    """Blocks each fetch until the test opens the gate once for it."""

    started: list[str] = field(default_factory=list)
    gate: threading.Semaphore = field(default_factory=lambda: threading.Semaphore(0))
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def fetch(self, request: BaseModel, *, max_raw_bytes: int) -> Any:
        with self._lock:
            self.started.append(getattr(request, "query", ""))
        self.gate.acquire(timeout=10)
        return docs_raw("a")


@dataclass
class World:
    """One executor (its slots shared by every run) and one store, as in a RunActor."""

    clock: FakeClock
    executor: Any
    backend: Any
    store: InMemoryCanonicalStore

    def open(self, run_id: str = "run-1") -> ToolBoundary:
        run = RunContext.open(run_id=run_id, now=self.clock.now(), timeout_s=120)
        run.start()
        return ToolBoundary(
            run=run,
            budget=RunBudget(),
            registry=ToolRegistry.of([s for s in default_specs() if s.name == TOOL]),
            policy=ToolPolicy(
                authorized_tools=frozenset({TOOL}), execute_timeout_s=EXECUTE_TIMEOUT_S
            ),
            store=self.store,
            executor=self.executor,
            clock=self.clock,
            trace=TraceRecorder(run_id=run_id, clock=self.clock),
        )


def world(*, slots: int = 1, backend: Any = None, executor: Any = None) -> World:
    clock = FakeClock(datetime(2026, 11, 2, 14, 30, tzinfo=UTC))
    backend = backend or RecordingBackend()
    executor = executor or InlineToolExecutor(
        {TOOL: backend}, {TOOL: DocsProjector()}, project_in_thread=False, clock=clock, slots=slots
    )
    return World(clock, executor, backend, InMemoryCanonicalStore(clock, ttl_s=600))


def call(
    boundary: ToolBoundary, call_id: str, query: str = "pool"
) -> Awaitable[ToolBoundaryResult]:
    return boundary.call(
        ToolCallEnvelope(
            run_id=boundary.run.run_id,
            tool_call_id=call_id,
            tool_name=TOOL,
            arguments=json.dumps({"query": query, "top_k": 3}),
        )
    )


def codes(results: list[ToolBoundaryResult]) -> list[tuple[str, ErrorCode | None]]:
    return [(r.outcome, r.error_code) for r in results]


def tool_events(boundary: ToolBoundary) -> list[Any]:
    assert boundary.trace is not None
    return [e.details for e in boundary.trace.events]


# ---------------------------------------------------------------- queueing


def test_calls_beyond_the_slots_wait_and_run_when_one_frees() -> None:
    gated = GatedBackend()
    w = world(slots=2, backend=gated)

    async def main() -> list[ToolBoundaryResult]:
        runs = [w.open(f"run-{n}") for n in range(3)]  # three runs share the actor's two slots
        pending = [asyncio.create_task(call(b, "c1", f"q{n}")) for n, b in enumerate(runs)]
        await until(lambda: len(gated.started) == 2 and w.executor.slots.waiting == 1)
        queued = runs[2]
        assert await w.store.get(queued.run.run_id, "c1") is None  # no PROJECTING record
        assert queued.budget.ledger.executions == 0
        gated.gate.release()  # one backend returns, its slot goes to the queued call
        await until(lambda: len(gated.started) == 3)
        gated.gate.release()
        gated.gate.release()
        results = list(await asyncio.gather(*pending))
        assert (w.executor.slots.in_use, w.executor.slots.waiting) == (0, 0)
        return results

    results = asyncio.run(main())
    assert codes(results) == [("OBSERVATION", None)] * 3
    assert sorted(gated.started) == ["q0", "q1", "q2"]


def test_the_timeout_counts_from_admission_not_from_the_queue() -> None:
    w = world(slots=1)

    async def main() -> tuple[ToolBoundaryResult, list[Any]]:
        boundary = w.open()
        held = await w.executor.slots.acquire()  # another run's call holds the only slot
        pending = asyncio.create_task(call(boundary, "c1"))
        await until(lambda: w.executor.slots.waiting == 1)
        w.clock.advance(60)  # 300 x the execute timeout, all of it spent queueing
        assert not pending.done() and w.backend.seen == []
        held.release()
        return await pending, tool_events(boundary)

    result, events = asyncio.run(main())
    assert (result.outcome, result.error_code) == ("OBSERVATION", None)
    invocation = next(e for e in events if isinstance(e, ToolInvocation))
    assert (invocation.queue_wait_ms, invocation.latency_ms) == (60_000.0, 60_000.0)


def test_a_backend_admitted_late_still_times_out_on_its_own_work() -> None:
    slow = SlowBackend(max_wait_s=30)
    w = world(slots=1, backend=slow)

    async def main() -> ToolBoundaryResult:
        boundary = w.open()
        held = await w.executor.slots.acquire()
        pending = asyncio.create_task(call(boundary, "c1"))
        try:
            await until(lambda: w.executor.slots.waiting == 1)
            w.clock.advance(60)
            held.release()
            await until(slow.started.is_set)
            w.clock.advance(EXECUTE_TIMEOUT_S / 2)  # within the timeout, counted from the slot
            await asyncio.sleep(0)
            assert not pending.done()
            w.clock.advance(EXECUTE_TIMEOUT_S)
            return await pending
        finally:
            slow.release.set()

    result = asyncio.run(main())
    assert (result.outcome, result.error_code) == ("ERROR", ErrorCode.BACKEND_TIMEOUT)


class DeafExecutor:
    """Ignores its own timeouts: ``execute`` never returns unless cancelled."""

    def __init__(self) -> None:
        self.slots = ToolSlots(1)
        self.executing = False

    async def execute(
        self,
        tool_name: str,
        request: BaseModel,
        timeout_s: float,
        *,
        tool_call_id: str,
        max_raw_bytes: int,
    ) -> RawResponse:
        self.executing = True
        await asyncio.get_running_loop().create_future()
        raise AssertionError("never completes")

    async def project(
        self,
        tool_name: str,
        tool_call_id: str,
        request: BaseModel,
        raw: RawResponse,
        timeout_s: float,
    ) -> Projection:
        raise AssertionError("never reached")


def test_an_executor_that_ignores_its_timeout_is_cut_off_after_admission_plus_grace() -> None:
    deaf = DeafExecutor()
    w = world(executor=deaf)

    async def main() -> ToolBoundaryResult:
        boundary = w.open()
        held = await deaf.slots.acquire()
        pending = asyncio.create_task(call(boundary, "c1"))
        await until(lambda: deaf.slots.waiting == 1)
        w.clock.advance(30)
        held.release()
        await until(lambda: deaf.executing)
        w.clock.advance(EXECUTE_TIMEOUT_S + 0.9)  # the grace second has not run out yet
        await asyncio.sleep(0)
        assert not pending.done()
        w.clock.advance(0.2)
        return await pending

    result = asyncio.run(main())
    assert (result.outcome, result.error_code) == ("ERROR", ErrorCode.BACKEND_TIMEOUT)
    assert asyncio.run(w.store.get("run-1", "c1")).error_code is ErrorCode.BACKEND_TIMEOUT
    assert (deaf.slots.in_use, deaf.slots.waiting) == (0, 0)


# ---------------------------------------------------------------- the run ends while queued


def _assert_never_ran(w: World, boundary: ToolBoundary) -> None:
    assert w.backend.seen == []
    assert asyncio.run(w.store.get(boundary.run.run_id, "c1")) is None
    assert (boundary.budget.ledger.executions, boundary.budget.ledger.tool_calls) == (0, 1)
    assert boundary.audit_rows == []
    assert (w.executor.slots.in_use, w.executor.slots.waiting) == (1, 0)  # only the held one


def test_a_queued_call_whose_run_hits_its_deadline_ends_with_deadline_exceeded() -> None:
    w = world(slots=1)
    boundary = w.open()

    async def main() -> ToolBoundaryResult:
        await w.executor.slots.acquire()  # held past the run's end
        pending = asyncio.create_task(call(boundary, "c1"))
        await until(lambda: w.executor.slots.waiting == 1)
        w.clock.advance(121)  # past the run's 120 s deadline
        return await pending

    result = asyncio.run(main())
    assert (result.outcome, result.error_code) == ("REJECTED", ErrorCode.DEADLINE_EXCEEDED)
    assert tool_events(boundary) == [
        ToolRequestRejected(
            tool_call_id="c1", tool_name=TOOL, error_code=ErrorCode.DEADLINE_EXCEEDED
        )
    ]
    _assert_never_ran(w, boundary)


def test_a_queued_call_whose_run_is_cancelled_stops_waiting_and_takes_nothing() -> None:
    w = world(slots=1)
    boundary = w.open()

    async def main() -> None:
        await w.executor.slots.acquire()
        pending = asyncio.create_task(call(boundary, "c1"))
        await until(lambda: w.executor.slots.waiting == 1)
        boundary.run.try_finish(RunStatus.CANCELLED)  # as DiagnosisRun.cancel does: finish,
        pending.cancel()  # then cancel the run's task
        with pytest.raises(asyncio.CancelledError):
            await pending

    asyncio.run(main())
    assert tool_events(boundary) == []
    _assert_never_ran(w, boundary)


def test_a_call_admitted_after_its_run_was_cancelled_ends_with_cancelled() -> None:
    w = world(slots=1)
    boundary = w.open()

    async def main() -> ToolBoundaryResult:
        held = await w.executor.slots.acquire()
        pending = asyncio.create_task(call(boundary, "c1"))
        await until(lambda: w.executor.slots.waiting == 1)
        boundary.run.try_finish(RunStatus.CANCELLED)
        held.release()  # the slot arrives for a run that has ended: given straight back
        result = await pending
        await w.executor.slots.acquire()  # hold one again, as the other tests do
        return result

    result = asyncio.run(main())
    assert (result.outcome, result.error_code) == ("REJECTED", ErrorCode.CANCELLED)
    _assert_never_ran(w, boundary)


def test_queueing_leaves_the_ledger_and_audit_as_they_were() -> None:
    def run_once(*, queued: bool) -> tuple[Any, list[Any], InvocationStatus]:
        w = world(slots=1)
        boundary = w.open()

        async def main() -> None:
            if not queued:
                await call(boundary, "c1")
                return
            held = await w.executor.slots.acquire()
            pending = asyncio.create_task(call(boundary, "c1"))
            await until(lambda: w.executor.slots.waiting == 1)
            w.clock.advance(45)
            held.release()
            await pending

        asyncio.run(main())
        rows = [r.model_copy(update={"latency_ms": 0.0}) for r in boundary.audit_rows]
        record = asyncio.run(w.store.get("run-1", "c1"))
        return boundary.budget.ledger.snapshot(), rows, record.invocation_status

    assert run_once(queued=False) == run_once(queued=True)
