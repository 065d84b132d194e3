"""RunActor: hosts 1..K diagnosis runs on one event loop.

A plain class; :mod:`actors.factory` makes it an async Ray actor. Every run's state (its
RunContext, budget, boundary and model caller) is created and mutated on this actor's
event loop only, so nothing needs a lock. The run itself is :class:`DiagnosisRun`; this
class only hosts it: start it in the background, answer ``wait``/``status``/``cancel`` by
run_id, keep a finished run briefly for ``wait`` and then forget it.

Its health is answered off the run loop: :meth:`RunActor.health` runs in the actor's own
concurrency group (``HEALTH_GROUP``: a thread and event loop of its own), so a loop that is busy
with hundreds of runs on a saturated machine still answers at once, and says how long ago the
run loop last ran its heartbeat. A busy loop beats late; a hung one stops beating.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from harness.audit.records import RunRecord, drain_sink
from harness.contracts.errors import ErrorCode, RunNotFound, RunRejected
from harness.contracts.ingress import RunRequest
from harness.contracts.results import ReleasedResult, StableFailure
from harness.diagnosis import DiagnosisRun, RunDeps
from harness.run.snapshot import RunSnapshot
from harness.trace import TraceEvent

__all__ = ["HEALTH_GROUP", "HEARTBEAT_S", "ActorHealth", "RunActor", "RunEnded"]

log = logging.getLogger(__name__)

HEALTH_GROUP = "health"
"""The concurrency group :meth:`RunActor.health` is called in (declared by the factory)."""
HEARTBEAT_S = 1.0
"""How often the run loop beats."""


@dataclass(frozen=True, kw_only=True)
class ActorHealth:
    """What a ping answers: who the actor is and how busy."""

    name: str
    pid: int
    active: int
    """Runs started and not yet finished."""
    hosted_total: int
    """Runs it has hosted so far."""
    loop_lag_s: float = 0.0
    """Seconds since the run loop last beat (0 before its first run or ping)."""


@dataclass(frozen=True, kw_only=True)
class RunEnded:
    """What ``wait`` answers once a run has ended."""

    result: dict[str, Any]
    """The released result, as a JSON-able dict."""
    snapshot: RunSnapshot
    """The run's snapshot as it ended: its timeline is complete."""


@dataclass
class _Hosted:
    run: DiagnosisRun
    task: asyncio.Task[ReleasedResult]


class RunActor:
    """Hosts up to ``max_runs`` runs at once.

    Args:
        deps_factory: Picklable zero-argument callable building the RunDeps; called once per
            actor, on its event loop (deps may hold loop-bound clients).
        max_runs: Runs hosted at the same time (K).
        result_ttl_s: How long a finished run stays answerable by ``wait`` and ``status``.
        name: The actor's name, for logs.
        on_finished: Called with the run's durable record once per finished run (metrics).
    """

    def __init__(
        self,
        deps_factory: Callable[[], RunDeps],
        *,
        max_runs: int = 1,
        result_ttl_s: float = 60.0,
        name: str = "",
        on_finished: Callable[[RunRecord], None] | None = None,
    ) -> None:
        if max_runs < 1:
            raise ValueError("max_runs must be at least 1")
        self._deps_factory = deps_factory
        self._deps: RunDeps | None = None
        self.max_runs = max_runs
        self.result_ttl_s = result_ttl_s
        self.name = name
        self._on_finished = on_finished
        self._runs: dict[str, _Hosted] = {}
        self._active = 0
        self.hosted_total = 0
        self._beat: float | None = None
        self._heartbeat: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ methods

    async def ping(self) -> ActorHealth:
        """Health and identity, answered on the run loop; the first ping builds the deps
        (pre-warming) and starts the loop's heartbeat."""
        self._ensure_deps()
        self._ensure_heartbeat()
        return self._health()

    async def health(self) -> ActorHealth:
        """Health and identity without the run loop: call it in ``HEALTH_GROUP``.

        It reads two numbers and touches nothing the runs use (their deps are bound to the run
        loop), so it is safe from another thread.
        """
        return self._health()

    async def start(self, run_id: str, request_json: str) -> None:
        """Open a run and execute it in the background; returns once it is registered.

        Raises:
            HarnessError: RUN_MISMATCH when the run_id is already hosted here; RATE_LIMITED
                when K runs are active.
        """
        deps = self._ensure_deps()
        self._ensure_heartbeat()
        if run_id in self._runs:
            raise RunRejected(ErrorCode.RUN_MISMATCH, "run_id already hosted")
        if self._active >= self.max_runs:
            raise RunRejected(ErrorCode.RATE_LIMITED, "actor at capacity")
        request = RunRequest.model_validate_json(request_json)
        run = DiagnosisRun(request, deps, run_id=run_id)
        task = asyncio.create_task(self._host(run), name=f"host:{run_id}")
        self._runs[run_id] = _Hosted(run=run, task=task)
        self._active += 1
        self.hosted_total += 1

    async def wait(self, run_id: str) -> RunEnded:
        """The released result of the run and its final snapshot, once it has ended.

        The run's status turns terminal a little before its timeline records the end (the
        RunFinished event); the snapshot here is taken after the host task finished, so it
        reflects the whole timeline.
        """
        hosted = self._get(run_id)
        # Shielded: a caller giving up on waiting must not cancel the run itself.
        result = await asyncio.shield(hosted.task)
        return RunEnded(result=result.model_dump(mode="json"), snapshot=hosted.run.snapshot())

    async def cancel(self, run_id: str) -> bool:
        """Cancel the run; True when this call decided its terminal state."""
        hosted = self._runs.get(run_id)
        return hosted.run.cancel() if hosted is not None else False

    async def status(self, run_id: str) -> RunSnapshot:
        """Progress snapshot of the run (ids, phase, figures; no content)."""
        return self._get(run_id).run.snapshot()

    async def watch(self, run_id: str, after: int, timeout_s: float) -> RunSnapshot:
        """The run's snapshot once its timeline holds an event numbered above ``after``, it
        has ended, or ``timeout_s`` passed, whichever comes first.

        A watcher never owns the run: cancelling this call (a client gave up) leaves the run
        as it was.
        """
        hosted = self._get(run_id)
        run = hosted.run
        if len(run.trace.events) <= after and not hosted.task.done():
            grown = asyncio.ensure_future(run.trace.wait_beyond(after))
            try:
                await asyncio.wait({grown, hosted.task}, timeout=timeout_s)
            finally:
                grown.cancel()
            # The step that recorded the event may set its phase right after; let it run.
            await asyncio.sleep(0)
        return run.snapshot()

    async def trace(self, run_id: str) -> list[TraceEvent]:
        """The run's timeline so far (metadata only)."""
        return list(self._get(run_id).run.trace.events)

    async def active(self) -> int:
        """Runs started and not yet finished."""
        return self._active

    async def drain_audit(self, timeout_s: float) -> int:
        """Hand every finished run's record to the audit and have it written, waiting up to
        ``timeout_s`` (the actor is about to go away); the records that are not."""
        if self._deps is None:
            return 0
        return await drain_sink(self._deps.audit, timeout_s)

    async def fail_all(self, code: ErrorCode = ErrorCode.RUN_LOST) -> int:
        """End every unfinished run FAILED with ``code`` (the host is going away)."""
        return sum(h.run.fail(code) for h in self._runs.values() if not h.task.done())

    # ------------------------------------------------------------------ machinery

    def _ensure_deps(self) -> RunDeps:
        if self._deps is None:
            self._deps = self._deps_factory()
        return self._deps

    def _ensure_heartbeat(self) -> None:
        if self._heartbeat is None:
            self._beat = time.monotonic()  # on the run loop now
            self._heartbeat = asyncio.create_task(self._beat_forever(), name="heartbeat")

    async def _beat_forever(self) -> None:
        while True:
            self._beat = time.monotonic()
            await asyncio.sleep(HEARTBEAT_S)

    def _health(self) -> ActorHealth:
        beat = self._beat
        return ActorHealth(
            name=self.name,
            pid=os.getpid(),
            active=self._active,
            hosted_total=self.hosted_total,
            loop_lag_s=0.0 if beat is None else max(0.0, time.monotonic() - beat),
        )

    def _get(self, run_id: str) -> _Hosted:
        hosted = self._runs.get(run_id)
        if hosted is None:
            raise RunNotFound(message="run not hosted here")
        return hosted

    async def _host(self, run: DiagnosisRun) -> ReleasedResult:
        try:
            result = await run.execute()
        except Exception:
            # A cancel can land before execute() starts the run (it then refuses to start);
            # the run already has its result. Anything else is a defect, contained here.
            if run.result is None:
                log.exception("run host failed run_id=%s", run.run_id)
                run.fail(ErrorCode.INTERNAL_ERROR)
            result = run.result or StableFailure(
                run_id=run.run_id, error_code=ErrorCode.INTERNAL_ERROR
            )
        finally:
            self._active -= 1
            asyncio.get_running_loop().call_later(self.result_ttl_s, self._forget, run.run_id)
        if self._on_finished is not None and run.record is not None:
            self._on_finished(run.record)
        return result

    def _forget(self, run_id: str) -> None:
        self._runs.pop(run_id, None)
