"""LocalRunPool: runs hosted in this process, with the methods of the Ray run pool.

For tests of what sits in front of a pool (the run desk, the HTTP app) without Ray: each run is
a :class:`~harness.diagnosis.DiagnosisRun` on the caller's event loop, built from one shared
RunDeps. ``slots`` bounds how many run at once; the others wait (PENDING), as on a full pool.
As there, a settled run's snapshot is fixed when it settles (its final one).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from harness.audit import drain_sink
from harness.context import RunStatus
from harness.diagnosis import DiagnosisRun, RunDeps
from harness.errors import RunInactive, RunNotFound
from harness.ids import new_run_id
from harness.ingress import RunRequest
from harness.results import Cancelled, ReleasedResult
from harness.snapshot import RunPhase, RunSnapshot
from harness.trace import TraceEvent

__all__ = ["LocalRunPool"]


@dataclass(eq=False)
class _Hosted:
    run: DiagnosisRun
    done: asyncio.Future[ReleasedResult]
    started: bool = False
    task: asyncio.Task[None] | None = None
    final: RunSnapshot | None = None


@dataclass
class LocalRunPool:
    """In-process stand-in for ``actors.pool.RunPool`` (same method names and meanings)."""

    deps: RunDeps
    slots: int = 8
    _runs: dict[str, _Hosted] = field(default_factory=dict)
    _free: asyncio.Semaphore | None = None
    _closed: bool = False
    unrecorded: int = 0
    audit_flush_timeout_s: float = 5.0

    async def start(self) -> LocalRunPool:
        self._free = asyncio.Semaphore(self.slots)
        return self

    async def close(self) -> None:
        self._closed = True
        self.unrecorded += await drain_sink(self.deps.audit, self.audit_flush_timeout_s)
        for hosted in self._runs.values():
            if hosted.task is not None:
                hosted.task.cancel()

    async def submit(self, request: RunRequest, *, run_id: str | None = None) -> str:
        if self._closed:
            raise RunInactive(message="pool is closed")
        run_id = run_id or new_run_id()
        hosted = _Hosted(
            run=DiagnosisRun(request, self.deps, run_id=run_id),
            done=asyncio.get_running_loop().create_future(),
        )
        self._runs[run_id] = hosted
        hosted.task = asyncio.create_task(self._host(hosted))
        return run_id

    async def _host(self, hosted: _Hosted) -> None:
        assert self._free is not None
        async with self._free:
            if hosted.done.done():  # cancelled while it waited
                return
            hosted.started = True
            result = await hosted.run.execute()
        if not hosted.done.done():
            hosted.final = hosted.run.snapshot()
            hosted.done.set_result(result)

    async def result(self, run_id: str, timeout_s: float | None = None) -> ReleasedResult:
        return await asyncio.wait_for(asyncio.shield(self._get(run_id).done), timeout_s)

    def released(self, run_id: str) -> ReleasedResult | None:
        done = self._get(run_id).done
        return done.result() if done.done() else None

    def known_status(self, run_id: str) -> RunStatus:
        hosted = self._get(run_id)
        if hosted.done.done():
            return hosted.done.result().run_status
        return RunStatus.RUNNING if hosted.started else RunStatus.PENDING

    async def status(self, run_id: str) -> RunSnapshot:
        hosted = self._get(run_id)
        if hosted.final is not None:
            return hosted.final
        if not hosted.started:
            return RunSnapshot(run_id=run_id, status=RunStatus.PENDING, phase=RunPhase.PENDING)
        return hosted.run.snapshot()

    async def watch(self, run_id: str, after: int, timeout_s: float) -> RunSnapshot:
        hosted = self._get(run_id)
        if hosted.started and not hosted.done.done():
            grown = asyncio.ensure_future(hosted.run.trace.wait_beyond(after))
            waiters: list[asyncio.Future[Any]] = [grown, hosted.done]
            try:
                await asyncio.wait(waiters, timeout=timeout_s)
            finally:
                grown.cancel()
            await asyncio.sleep(0)
        elif not hosted.done.done():
            await asyncio.wait({hosted.done}, timeout=min(timeout_s, 0.05))
        return await self.status(run_id)

    async def cancel(self, run_id: str) -> bool:
        hosted = self._get(run_id)
        if hosted.done.done():
            return False
        if not hosted.started:
            # Ended by the pool itself: no figures, the timeline closed one past its start.
            hosted.final = RunSnapshot(
                run_id=run_id,
                status=RunStatus.CANCELLED,
                phase=RunPhase.DONE,
                result_kind="Cancelled",
                sequence_no=1,
            )
            hosted.done.set_result(Cancelled(run_id=run_id))
            return True
        return hosted.run.cancel()

    async def trace(self, run_id: str) -> list[TraceEvent] | None:
        return list(self._get(run_id).run.trace.events)

    def _get(self, run_id: str) -> _Hosted:
        hosted = self._runs.get(run_id)
        if hosted is None:
            raise RunNotFound(message="unknown run")
        return hosted
