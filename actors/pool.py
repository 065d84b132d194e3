"""RunPool: pre-warmed RunActors, run placement and replacement.

A fresh actor costs a process (hundreds of ms, ~50 MB), so the pool starts ``size`` actors
up front (named ``run-actor-<n>`` for the dashboard), keeps them and places each run on the
least-loaded actor with a free slot (K = ``max_runs_per_actor``), waiting when all are full.
The run-host verbs (view, wait, watch, cancel, trace), the registry and the pool's own reads
are every pool's (:class:`harness.runhost.BaseRunPool`); this module says how a run reaches
an actor and how the pool asks that actor about it.

Losing an actor loses the runs it hosted, because their state lived in its memory. The pool
notices at once through the pending ``wait`` calls (they fail with ActorDiedError) and, for a
hung actor, through the periodic ping; it then ends those runs FAILED with RUN_LOST, kills
the actor to be sure it is gone, and starts a replacement.

The pool lives on one asyncio event loop; await all of its methods on that loop.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import ValidationError
from ray.actor import ActorHandle

from actors.errors import resolve
from actors.factory import RayResources
from actors.run_actor import HEALTH_GROUP, ActorHealth, RunActor, RunEnded
from actors.slots import ActorSlot, ActorSpawner
from harness.clock import SystemClock
from harness.contracts.errors import (
    ErrorCode,
    HarnessError,
    InternalError,
    RateLimited,
    RunInactive,
    RunLost,
)
from harness.contracts.ids import new_run_id
from harness.contracts.ingress import RunRequest
from harness.contracts.results import ReleasedResult, StableFailure, released_adapter
from harness.diagnosis import RunDeps
from harness.run.snapshot import RunSnapshot
from harness.runhost import BaseRunPool, RunEntry, RunRegistry, RunTicket
from harness.trace import TraceEvent

__all__ = ["ActorView", "RunPool"]

log = logging.getLogger(__name__)

_RELEASED = released_adapter()
_PLACEMENT_ATTEMPTS = 3
_PENDING_WATCH_S = 0.25
"""How often a watch on a run still waiting for a slot looks again."""


@dataclass(frozen=True, kw_only=True)
class ActorView:
    """One live actor of the pool, for operators and the dashboard."""

    name: str
    pid: int
    load: int
    """Runs placed on it and not yet settled."""
    started: int
    """Runs it has hosted so far."""


class RunPool(BaseRunPool[ActorSlot]):
    """Places runs on pre-warmed RunActors.

    Args:
        size: Actors kept warm (with ``fresh_actor_per_run``: runs at once).
        max_runs_per_actor: Runs one actor hosts at the same time (K).
        deps_factory: Picklable callable building RunDeps inside each actor; default: the
            embedded deployment (``actors.deps.EmbeddedDepsFactory``).
        fresh_actor_per_run: Start an actor for every run and kill it afterwards (the
            baseline the pool is measured against).
        name_prefix: Actor names are ``<name_prefix>-<n>``.
        result_ttl_s: How long an actor keeps a finished run for ``wait``/``status``.
        health_check_period_s: Interval of the health check that finds hung or dead actors.
        health_check_timeout_s: A health check slower than this counts as unanswered.
        hung_after_s: An actor whose run loop has not run for this long, or whose health
            check stayed unanswered this long, is hung: its runs end RUN_LOST and it is
            replaced. Generous on purpose: a dead actor is found at once anyway (its pending
            calls fail), and a false alarm loses every run of a healthy one.
        retire_after_runs: Replace an actor once it hosted this many runs and is idle
            (bounds slow leaks); None keeps actors forever.
        max_finished: Settled runs the registry remembers.
        audit_flush_timeout_s: How long an actor that goes away (the pool closing, a fresh or
            retired actor) may take to hand its finished runs' records to the node audit
            writer and have them written.
        actor_resources: Custom Ray resources each actor requires, as sorted pairs (keeps the
            actors on the nodes that have them; ``HARNESS_RUN_ACTOR_RESOURCES``).
        max_waiting: Admission control: runs that may wait for a slot once every slot is
            taken; a submission beyond them is refused with OVERLOADED (``retry_after_s``)
            instead of queueing (None: no limit).
        retry_after_s: The ``retry_after_s`` of that refusal.
    """

    def __init__(
        self,
        size: int = 1,
        max_runs_per_actor: int = 1,
        deps_factory: Callable[[], RunDeps] | None = None,
        *,
        fresh_actor_per_run: bool = False,
        name_prefix: str = "run-actor",
        result_ttl_s: float = 60.0,
        health_check_period_s: float = 2.0,
        health_check_timeout_s: float = 10.0,
        hung_after_s: float = 60.0,
        retire_after_runs: int | None = None,
        max_finished: int = 10_000,
        audit_flush_timeout_s: float = 5.0,
        actor_resources: RayResources = (),
        max_waiting: int | None = None,
        retry_after_s: float = 1.0,
    ) -> None:
        if size < 1 or max_runs_per_actor < 1:
            raise ValueError("size and max_runs_per_actor must be at least 1")
        if max_waiting is not None and max_waiting < 0:
            raise ValueError("max_waiting must be at least 0")
        if deps_factory is None:
            from actors.deps import EmbeddedDepsFactory

            deps_factory = EmbeddedDepsFactory()
        self.size = size
        self.max_runs_per_actor = 1 if fresh_actor_per_run else max_runs_per_actor
        self.deps_factory = deps_factory
        self.fresh_actor_per_run = fresh_actor_per_run
        self.name_prefix = name_prefix
        self.result_ttl_s = result_ttl_s
        self.health_check_period_s = health_check_period_s
        self.health_check_timeout_s = health_check_timeout_s
        self.hung_after_s = hung_after_s
        self.retire_after_runs = retire_after_runs
        self.audit_flush_timeout_s = audit_flush_timeout_s
        self.max_waiting = max_waiting
        self.retry_after_s = retry_after_s
        self.registry: RunRegistry[ActorSlot | None] = RunRegistry(max_finished=max_finished)
        self._clock = SystemClock()
        self.replaced = 0
        self.lost_runs = 0
        self.unrecorded = 0
        """Records that actors going away could not hand to the audit writer in time (each
        also logged); the pool's caller reports them."""
        self._slots: list[ActorSlot] = []
        self._retiring: set[asyncio.Task[None]] = set()
        self._spawning = 0
        self._fresh_active = 0
        self._spawner = ActorSpawner(
            name_prefix, deps_factory, self.max_runs_per_actor, result_ttl_s, actor_resources
        )
        self._changed = asyncio.Event()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._starting: dict[str, asyncio.Task[Any]] = {}
        """Runs whose start call is on its way to their actor."""
        self._health: asyncio.Task[None] | None = None
        self._closing = False

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> RunPool:
        """Pre-warm ``size`` actors (deps built) and start the health check."""
        self._changed = asyncio.Event()  # bound to the running loop
        if not self.fresh_actor_per_run:
            await asyncio.gather(*(self._spawn() for _ in range(self.size)))
        self._health = asyncio.create_task(self._health_loop(), name="run-pool-health")
        return self

    async def close(self) -> None:
        """Have every finished run's record written, kill every actor; runs still in flight
        end FAILED with RUN_LOST."""
        self._closing = True
        # A finished run's record leaves its actor without being awaited; before this driver
        # (and, for the CLI, its Ray instance) goes away, each actor hands its records to the
        # node writer and has them written.
        await self._drain_audit([slot for slot in self._slots if slot.alive])
        if self._retiring:
            await asyncio.gather(*self._retiring, return_exceptions=True)
        if self._health is not None:
            self._health.cancel()
        lost = self.registry.fail_all(self._lost_result)
        self.lost_runs += len(lost)
        for slot in {id(e.slot): e.slot for e in lost if e.slot is not None}.values():
            self._kill(slot)
        for slot in self._slots:
            self._kill(slot)
        self._slots.clear()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._health is not None:
            await asyncio.gather(self._health, return_exceptions=True)

    async def __aenter__(self) -> RunPool:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ------------------------------------------------------------------ runs

    async def submit(
        self,
        request: RunRequest,
        *,
        run_id: str | None = None,
        created_at: datetime | None = None,
    ) -> str:
        """Start a run on an actor with a free slot (waiting for one) and return its id.

        The run is registered at once, so it can be cancelled while it waits for a slot. A
        run whose actor turns out dead when it is started is placed again.

        Raises:
            HarnessError: RUN_MISMATCH for a run_id already known; RUN_NOT_ACTIVE when the
                pool is closed.
            RateLimited: OVERLOADED when every slot is taken and ``max_waiting`` runs wait
                (raised before the first await: nothing was registered).
        """
        if self._closing:
            raise RunInactive(message="pool is closed")
        if self.max_waiting is not None and self.registry.in_flight() >= (
            self.size * self.max_runs_per_actor + self.max_waiting
        ):
            raise RateLimited(
                ErrorCode.OVERLOADED, "run pool full", {"retry_after_s": self.retry_after_s}
            )
        run_id = run_id or new_run_id()
        ticket = RunTicket.of(request, run_id=run_id, created_at=created_at or self._clock.now())
        entry = self.registry.add(run_id, None, ticket)
        body = request.model_dump_json()
        for _ in range(_PLACEMENT_ATTEMPTS):
            try:
                slot = await self._acquire()
            except Exception:
                log.exception("no actor for run_id=%s", run_id)
                self._settle(
                    run_id, StableFailure(run_id=run_id, error_code=ErrorCode.INTERNAL_ERROR)
                )
                return run_id
            if entry.settled:  # cancelled while it waited for a slot
                self._release(slot)
                return run_id
            self.registry.move(run_id, slot)
            starting = self._starting[run_id] = asyncio.ensure_future(
                resolve(slot.handle.start.remote(run_id, body), fallback=InternalError())
            )
            try:
                await starting
            except RunLost:
                self.registry.move(run_id, None)  # not on that actor: not lost with it
                self._lose(slot)
                continue
            except HarnessError as err:  # refused by the actor: never started
                self._settle(run_id, StableFailure(run_id=run_id, error_code=err.error_code))
                return run_id
            finally:
                self._starting.pop(run_id, None)
            slot.started += 1
            self._track(self._watch(run_id, slot), f"watch:{run_id}")
            return run_id
        self._settle(run_id, self._lost_result(run_id))
        return run_id

    # ------------------------------------------------------------------ hosting

    async def _started(self, entry: RunEntry[ActorSlot | None]) -> None:
        """Wait for the run's start if it is on its way to the actor: an async actor keeps no
        order between calls, so a read sent meanwhile can overtake the start and find no run
        there. Reads then go to wherever the start left the run (its slot, or none)."""
        starting = self._starting.get(entry.run_id)
        if starting is not None and not starting.done():
            await asyncio.wait({starting})

    async def _progress(self, entry: RunEntry[ActorSlot | None]) -> RunSnapshot:
        await self._started(entry)
        slot = entry.slot
        if not entry.settled and slot is not None and slot.alive:
            try:
                snapshot: RunSnapshot = await resolve(
                    slot.handle.status.remote(entry.run_id), fallback=InternalError()
                )
                entry.observe(snapshot)
                return entry.final or snapshot  # settled during the call: the final one
            except RunLost:
                self._lose(slot)
            except HarnessError:
                pass  # the actor did not answer for the run: a reduced snapshot
        return entry.snapshot()

    async def _progress_after(
        self, entry: RunEntry[ActorSlot | None], after: int, timeout_s: float
    ) -> RunSnapshot:
        """See :meth:`RunActor.watch`; the final snapshot once the run is settled."""
        if entry.slot is None and not entry.settled:
            # Waiting for a slot: nothing to watch on an actor yet; look again shortly.
            await asyncio.wait({entry.done}, timeout=min(timeout_s, _PENDING_WATCH_S))
        await self._started(entry)
        slot = entry.slot
        if not entry.settled and slot is not None and slot.alive:
            try:
                snapshot: RunSnapshot = await resolve(
                    slot.handle.watch.remote(entry.run_id, after, timeout_s),
                    fallback=InternalError(),
                )
                entry.observe(snapshot)
                return entry.final or snapshot  # settled during the call: the final one
            except RunLost:
                self._lose(slot)
            except HarnessError:
                pass  # the actor did not answer for the run
        return entry.snapshot()

    async def _stop(self, entry: RunEntry[ActorSlot | None], slot: ActorSlot) -> bool:
        starting = self._starting.get(entry.run_id)
        if starting is not None and not starting.done():
            # A cancel that overtook the start would be lost while the run goes on (see
            # _started). Decide once the start is over, on what it left: the run on its
            # actor, waiting to be placed again, or refused.
            await self._started(entry)
            return await self._cancel(entry)
        try:
            won: bool = await resolve(
                slot.handle.cancel.remote(entry.run_id), fallback=InternalError()
            )
        except RunLost:
            self._lose(slot)
            return False
        return won

    async def _timeline(
        self, entry: RunEntry[ActorSlot | None], slot: ActorSlot
    ) -> list[TraceEvent] | None:
        await self._started(entry)
        if entry.slot is None:  # to be placed again
            return []
        slot = entry.slot
        if not slot.alive:
            return None
        try:
            events: list[TraceEvent] = await resolve(
                slot.handle.trace.remote(entry.run_id), fallback=InternalError()
            )
            return events
        except RunLost:
            self._lose(slot)
        except HarnessError:
            pass
        return None

    # ------------------------------------------------------------------ actors

    def actor_of(self, run_id: str) -> ActorHandle[RunActor] | None:
        """The handle of the actor hosting (or that hosted) a run."""
        slot = self.registry.get(run_id).slot
        return slot.handle if slot is not None else None

    def host_of(self, run_id: str) -> str | None:
        """The name of the actor hosting (or that hosted) a run."""
        slot = self.registry.get(run_id).slot
        return slot.name if slot is not None else None

    def actors(self) -> list[ActorView]:
        """Live actors: name, pid, runs in flight and runs hosted so far."""
        return [
            ActorView(name=s.name, pid=s.pid, load=s.load, started=s.started) for s in self._slots
        ]

    async def check_health(self) -> None:
        """Ask every actor once; lose the dead and the hung, top the pool up to ``size``."""
        slots = list(self._slots)
        outcomes = await asyncio.gather(
            *(
                asyncio.wait_for(
                    resolve(
                        s.handle.health.options(concurrency_group=HEALTH_GROUP).remote(),
                        fallback=RunLost(message="health check failed"),
                    ),
                    self.health_check_timeout_s,
                )
                for s in slots
            ),
            return_exceptions=True,
        )
        now = time.monotonic()
        for slot, outcome in zip(slots, outcomes, strict=True):
            if isinstance(outcome, ActorHealth):
                slot.unanswered_since = None
                if outcome.loop_lag_s < self.hung_after_s:
                    continue
                why = "its run loop stopped"
            elif isinstance(outcome, TimeoutError):
                if slot.unanswered_since is None:
                    slot.unanswered_since = now - self.health_check_timeout_s
                if now - slot.unanswered_since < self.hung_after_s:
                    continue
                why = "unanswered"
            elif isinstance(outcome, HarnessError):
                why = "lost"
            else:
                continue
            log.warning("actor failed its health check name=%s why=%s", slot.name, why)
            self._lose(slot)
        if not self.fresh_actor_per_run:
            for _ in range(self.size - len(self._slots) - self._spawning):
                self._replace()

    # ------------------------------------------------------------------ machinery

    async def _acquire(self) -> ActorSlot:
        while True:
            if self._closing:
                raise RunInactive(message="pool is closed")
            if self.fresh_actor_per_run:
                if self._fresh_active < self.size:
                    self._fresh_active += 1
                    try:
                        slot = await self._spawn(fresh=True)
                    except BaseException:
                        self._fresh_active -= 1
                        self._notify()
                        raise
                    slot.load = 1
                    return slot
            else:
                free = [s for s in self._slots if s.alive and s.load < self.max_runs_per_actor]
                if free:
                    slot = min(free, key=lambda s: s.load)
                    slot.load += 1
                    return slot
            await self._changed.wait()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def _watch(self, run_id: str, slot: ActorSlot) -> None:
        final: RunSnapshot | None = None
        try:
            ended: RunEnded = await resolve(
                slot.handle.wait.remote(run_id), fallback=InternalError()
            )
            result: ReleasedResult = _RELEASED.validate_python(ended.result)
            final = ended.snapshot
        except RunLost:
            self._lose(slot)
            return
        except (HarnessError, ValidationError) as err:
            log.warning("run result unreadable run_id=%s error=%s", run_id, type(err).__name__)
            result = self._lost_result(run_id)
        self._settle(run_id, result, final)

    def _settle(
        self, run_id: str, result: ReleasedResult, final: RunSnapshot | None = None
    ) -> None:
        slot = self.registry.get(run_id).slot
        if self.registry.settle(run_id, result, final) and slot is not None:
            self._release(slot)

    def _release(self, slot: ActorSlot) -> None:
        """A run left ``slot``: free its place, end a fresh actor, retire a used-up one."""
        slot.load -= 1
        if slot.fresh:
            self._fresh_active -= 1
            slot.alive = False
            self._retire(slot)
        elif (
            self.retire_after_runs is not None
            and slot.started >= self.retire_after_runs
            and slot.load == 0
            and slot.alive
        ):
            slot.alive = False
            self._slots.remove(slot)
            self._retire(slot)
            self._replace()
        self._notify()

    def _retire(self, slot: ActorSlot) -> None:
        """End a healthy actor once its finished runs' records are with the audit writer."""

        async def retire() -> None:
            try:
                await self._drain_audit([slot])
            finally:
                self._kill(slot)

        task = asyncio.create_task(retire(), name=f"retire:{slot.name}")
        self._retiring.add(task)
        task.add_done_callback(self._retiring.discard)

    async def _drain_audit(self, slots: list[ActorSlot]) -> None:
        """Have ``slots`` hand their finished runs' records to the audit writer and have them
        written, within ``audit_flush_timeout_s``; what is not is counted and logged."""
        if not slots:
            return
        calls: list[asyncio.Future[int]] = [
            asyncio.ensure_future(s.handle.drain_audit.remote(self.audit_flush_timeout_s))
            for s in slots
        ]
        done, late = await asyncio.wait(calls, timeout=self.audit_flush_timeout_s + 5.0)
        for call in late:
            call.cancel()
        missing = 0
        for call in done:
            error = call.exception()
            if error is not None:
                log.warning("audit not drained error=%s", type(error).__name__)
                missing += 1
            else:
                missing += int(call.result())
        missing += len(late)
        if missing:
            self.unrecorded += missing
            log.warning("audit records not written before the actors went away n=%d", missing)

    def _lose(self, slot: ActorSlot) -> None:
        if not slot.alive:
            return
        slot.alive = False
        if slot in self._slots:
            self._slots.remove(slot)
        for entry in self.registry.on_slot(slot):
            if self.registry.settle(entry.run_id, self._lost_result(entry.run_id)):
                self.lost_runs += 1
        if slot.fresh:
            self._fresh_active -= 1
        self._kill(slot)
        if not slot.fresh and not self._closing:
            self._replace()
        self._notify()

    @staticmethod
    def _lost_result(run_id: str) -> StableFailure:
        return StableFailure(run_id=run_id, error_code=ErrorCode.RUN_LOST)

    def _replace(self) -> None:
        self._spawning += 1
        self.replaced += 1
        self._track(self._spawn_replacement(), "spawn-replacement")

    async def _spawn_replacement(self) -> None:
        try:
            await self._spawn()
        except Exception:  # the health check tops the pool up again later
            log.exception("replacement actor failed to start")
        finally:
            self._spawning -= 1

    async def _spawn(self, *, fresh: bool = False) -> ActorSlot:
        slot = await self._spawner.spawn(fresh=fresh)
        if not fresh:
            if self._closing:
                self._kill(slot)
                raise RunInactive(message="pool is closed")
            self._slots.append(slot)
            self._notify()
        return slot

    def _kill(self, slot: ActorSlot) -> None:
        self._spawner.kill(slot)

    def _track(self, coro: Any, name: str) -> None:
        task = asyncio.create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _health_loop(self) -> None:
        while True:
            await asyncio.sleep(self.health_check_period_s)
            try:
                await self.check_health()
            except Exception:
                log.exception("health check failed")
