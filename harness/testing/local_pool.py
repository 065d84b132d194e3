"""LocalRunPool: a run pool whose runs execute in this process.

For tests of what sits in front of a pool (the run desk, the HTTP app) without Ray: each run is
a :class:`~harness.diagnosis.DiagnosisRun` on the caller's event loop, built from one shared
RunDeps. It is a :class:`~harness.runhost.pool.BaseRunPool` like the Ray pool, so the two share
their registry, views, owner checks and cancels; only where a run executes is written here.
``slots`` bounds how many run at once; the others wait (PENDING), as on a full pool, though
``submit`` itself answers at once.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

from harness.audit.records import drain_sink
from harness.contracts.errors import RunInactive
from harness.contracts.ids import new_run_id
from harness.contracts.ingress import RunRequest
from harness.diagnosis import DiagnosisRun, RunDeps
from harness.run.snapshot import RunSnapshot
from harness.runhost import BaseRunPool, RunEntry, RunRegistry, RunTicket
from harness.trace import TraceEvent

__all__ = ["LocalRunPool"]

_PENDING_WATCH_S = 0.05
"""How often a watch on a run still waiting for a slot looks again."""


class LocalRunPool(BaseRunPool[DiagnosisRun]):
    """In-process stand-in for ``actors.pool.RunPool`` (the same verbs and meanings).

    Args:
        deps: What every run is built from; its clock stamps runs submitted without a time.
        slots: Runs executing at once.
        audit_flush_timeout_s: How long closing waits for the runs' records to be written.
    """

    def __init__(self, deps: RunDeps, slots: int = 8, *, audit_flush_timeout_s: float = 5.0):
        self.deps = deps
        self.slots = slots
        self.audit_flush_timeout_s = audit_flush_timeout_s
        self.unrecorded = 0
        """Records closing could not have written in time."""
        self.registry: RunRegistry[DiagnosisRun | None] = RunRegistry()
        self._free: asyncio.Semaphore | None = None
        self._closed = False
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> LocalRunPool:
        self._free = asyncio.Semaphore(self.slots)
        return self

    async def close(self) -> None:
        """Write the runs' records, then stop every run still executing or waiting."""
        self._closed = True
        self.unrecorded += await drain_sink(self.deps.audit, self.audit_flush_timeout_s)
        for task in list(self._tasks):
            task.cancel()

    async def submit(
        self,
        request: RunRequest,
        *,
        run_id: str | None = None,
        created_at: datetime | None = None,
    ) -> str:
        """Register the run and return its id at once; it executes once a slot is free.

        Raises:
            HarnessError: RUN_NOT_ACTIVE when the pool is closed; RUN_MISMATCH for a run_id
                already known.
        """
        if self._closed:
            raise RunInactive(message="pool is closed")
        run_id = run_id or new_run_id()
        run = DiagnosisRun(request, self.deps, run_id=run_id)
        ticket = RunTicket.of(
            request, run_id=run_id, created_at=created_at or self.deps.clock.now()
        )
        entry = self.registry.add(run_id, None, ticket)
        task = asyncio.create_task(self._host(entry, run), name=f"host:{run_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return run_id

    async def _host(self, entry: RunEntry[DiagnosisRun | None], run: DiagnosisRun) -> None:
        assert self._free is not None, "start the pool first"
        async with self._free:
            if entry.settled:  # cancelled while it waited
                return
            self.registry.move(entry.run_id, run)
            result = await run.execute()
        self.registry.settle(entry.run_id, result, run.snapshot())

    async def _progress(self, entry: RunEntry[DiagnosisRun | None]) -> RunSnapshot:
        run = entry.slot
        if entry.final is not None or run is None:
            return entry.snapshot()
        return run.snapshot()

    async def _progress_after(
        self, entry: RunEntry[DiagnosisRun | None], after: int, timeout_s: float
    ) -> RunSnapshot:
        run = entry.slot
        if run is not None and not entry.settled:
            grown = asyncio.ensure_future(run.trace.wait_beyond(after))
            waiters: list[asyncio.Future[Any]] = [grown, entry.done]
            try:
                await asyncio.wait(waiters, timeout=timeout_s)
            finally:
                grown.cancel()
            # The step that recorded the event may set its phase right after; let it run.
            await asyncio.sleep(0)
        elif not entry.settled:
            await asyncio.wait({entry.done}, timeout=min(timeout_s, _PENDING_WATCH_S))
        return await self._progress(entry)

    async def _stop(self, entry: RunEntry[DiagnosisRun | None], slot: DiagnosisRun) -> bool:
        return slot.cancel()

    async def _timeline(
        self, entry: RunEntry[DiagnosisRun | None], slot: DiagnosisRun
    ) -> list[TraceEvent] | None:
        return list(slot.trace.events)
