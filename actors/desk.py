"""RunDesk: the one place that knows every run of a deployment — who owns it, which
idempotency key started it — in front of the RunPool that hosts them.

The desk is a run host (:class:`harness.runhost.RunHost`) like the pool behind it: the same
verbs, for a run's owner, with the same answers. What it adds is what only a front door
knows: idempotency keys (:meth:`RunDesk.accept`), the listing of an owner's runs, one shared
feed per watched run, placement that no caller can interrupt, and its own bounded memory of
runs (a run it forgot is NOT_FOUND here, whatever the pool still remembers). The views
themselves are the pool's.

Every HTTP replica talks to the same desk (one named actor, see
:func:`actors.factory.connect_run_desk`), so a run started through one replica can be read,
watched and cancelled through any other: no replica keeps run state. A plain class; the
factory makes it an async Ray actor, and its unit tests drive it with a fake pool.

Progress streams share one feed per run: however many clients watch a run, the desk keeps one
long-poll pending on its actor (whose concurrency is sized for its runs, not for its watchers)
and wakes every watcher when a new view arrives.

Ownership is checked in the same lookup that finds the run: a run of another owner and a run
that does not exist take the same path and raise the same ``RunNotFound``, so the answer never
tells whether someone else's run exists. The pool checks it again, as every run host does.

Placement runs in a task of the desk's own, never in the caller's call: a caller that gives up
(an HTTP client that disconnects, cancelling its call) cannot leave a run half-placed.
Watchers (progress streams) only read.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from harness.clock import SystemClock
from harness.contracts.errors import ErrorCode, RequestRefused, RunNotFound
from harness.contracts.ids import new_run_id
from harness.contracts.ingress import RunRequest
from harness.contracts.results import ReleasedResult
from harness.contracts.status import TERMINAL_STATES, RunStatus
from harness.ports import Clock
from harness.run.view import CancelOutcome, RunSummary, RunView, Submission, Submitted
from harness.runhost import RunHost, RunTicket
from harness.trace import TraceEvent

__all__ = ["DeskHealth", "HostedRuns", "RunDesk"]

log = logging.getLogger(__name__)

_FEED_POLL_S = 10.0
"""Longest one long-poll of a watched run's actor (the feed ends soon after its last watcher)."""


class HostedRuns(RunHost, Protocol):
    """What the desk needs of a run pool (every :class:`harness.runhost.BaseRunPool` has
    it): a run host the desk starts and closes, that takes each run's id and submission time
    from the desk, and whose state it reads without waiting (for listings and pings)."""

    async def start(self) -> Any: ...

    async def close(self) -> None: ...

    async def submit(
        self,
        request: RunRequest,
        *,
        run_id: str | None = None,
        created_at: datetime | None = None,
    ) -> str: ...

    def released(self, run_id: str) -> ReleasedResult | None: ...

    def known_status(self, run_id: str) -> RunStatus: ...


@dataclass(frozen=True, kw_only=True)
class DeskHealth:
    """What a ping answers."""

    runs_known: int
    runs_in_flight: int


class _Feed:
    """The latest view of one watched run, and a wake-up for those waiting on it."""

    def __init__(self) -> None:
        self.view: RunView | None = None
        self.watchers = 0
        self.failed = False
        self.task: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()

    def publish(self, view: RunView | None) -> None:
        if view is None:
            self.failed = True
        else:
            self.view = view
        self._changed.set()
        self._changed = asyncio.Event()

    async def beyond(self, after: int, timeout_s: float) -> None:
        """Wait until the view passed event ``after`` or is terminal, or ``timeout_s``."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while not self.failed:
            view = self.view
            if view is not None and ((view.progress.sequence_no or 0) > after or view.terminal):
                return
            remaining = deadline - loop.time()
            if remaining <= 0:
                return
            changed = self._changed
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), remaining)


@dataclass(frozen=True, kw_only=True)
class _KeyUse:
    run_id: str
    fingerprint: str
    expires_at: float
    """On the clock's monotonic scale."""


class RunDesk:
    """Owners, idempotency keys, listings and shared feeds of the runs of one pool.

    Args:
        pool_factory: Builds the pool, once, on the desk's event loop
            (:class:`actors.pool_spec.PoolSpec` under Ray; a fake in unit tests).
        clock: Wall time of ``created_at`` and the monotonic time of key expiry.
        max_runs: Runs the desk remembers (oldest forgotten first); match the pool's
            ``max_finished``.
        idempotency_ttl_s: How long a key names its run.
    """

    def __init__(
        self,
        pool_factory: Callable[[], HostedRuns],
        *,
        clock: Clock | None = None,
        max_runs: int = 10_000,
        idempotency_ttl_s: float = 24 * 3600.0,
    ) -> None:
        self._pool_factory = pool_factory
        self._pool: HostedRuns | None = None
        self._starting: asyncio.Future[None] | None = None
        self._clock = clock or SystemClock()
        self.max_runs = max_runs
        self.idempotency_ttl_s = idempotency_ttl_s
        self._tickets: OrderedDict[str, RunTicket] = OrderedDict()
        self._keys: OrderedDict[tuple[str, str], _KeyUse] = OrderedDict()
        # Placement tasks by run: a run is known to the pool from its task's first step on.
        self._placing: dict[str, asyncio.Task[str]] = {}
        self._feeds: dict[str, _Feed] = {}

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> DeskHealth:
        """Build and pre-warm the pool (once; later calls wait for the first).

        Every other method starts the desk too, so a restarted desk actor serves at once.
        """
        await self._ready()
        return await self.ping()

    async def _ready(self) -> HostedRuns:
        if self._pool is None:
            failed = (
                self._starting is not None
                and self._starting.done()
                and (self._starting.cancelled() or self._starting.exception() is not None)
            )
            if self._starting is None or failed:
                self._starting = asyncio.ensure_future(self._build())
            await asyncio.shield(self._starting)
        assert self._pool is not None
        return self._pool

    async def _build(self) -> None:
        pool = self._pool_factory()
        await pool.start()
        self._pool = pool

    async def ping(self) -> DeskHealth:
        """How many runs the desk knows and how many are still placing or running."""
        pool = await self._ready()
        statuses = [self._status(pool, run_id) for run_id in self._tickets]
        in_flight = sum(
            1 for status in statuses if status is not None and status not in TERMINAL_STATES
        )
        return DeskHealth(runs_known=len(self._tickets), runs_in_flight=in_flight)

    async def close(self) -> None:
        """Close the pool: runs still in flight end FAILED with RUN_LOST."""
        if self._pool is not None:
            await self._pool.close()

    # ------------------------------------------------------------------ runs

    async def submit(self, request: RunRequest) -> str:
        """Start the run (no idempotency key: always a new one) and return its id at once.

        Raises:
            HarnessError: RUN_NOT_ACTIVE when the pool is closing.
        """
        return (await self.accept(Submission(request=request))).run_id

    async def accept(self, submission: Submission) -> Submitted:
        """Start the submitted run, or name the run an earlier submission with the same key
        started. Answers at once: the run is placed in a task of the desk's own.

        Raises:
            RequestRefused: IDEMPOTENCY_CONFLICT when the key started a run from another body.
            HarnessError: RUN_NOT_ACTIVE when the pool is closing.
        """
        pool = await self._ready()
        request = submission.request
        key = (request.owner, submission.idempotency_key) if submission.idempotency_key else None
        if key is not None:
            earlier = self._key_use(key)
            if earlier is not None:
                if earlier.fingerprint != submission.fingerprint:
                    raise RequestRefused(
                        ErrorCode.IDEMPOTENCY_CONFLICT, "idempotency key reused with another body"
                    )
                return Submitted(run_id=earlier.run_id, created=False)
        run_id = new_run_id()
        ticket = self._tickets[run_id] = RunTicket.of(
            request, run_id=run_id, created_at=self._clock.now()
        )
        if key is not None:
            self._keys[key] = _KeyUse(
                run_id=run_id,
                fingerprint=submission.fingerprint,
                expires_at=self._clock.monotonic() + self.idempotency_ttl_s,
            )
        placing = asyncio.create_task(
            pool.submit(request, run_id=run_id, created_at=ticket.created_at),
            name=f"place:{run_id}",
        )
        self._placing[run_id] = placing
        placing.add_done_callback(functools.partial(self._placed, run_id))
        # ``submit`` registers the run before its first await: one turn of the loop suffices
        # for the run to be known to the pool (or for a refusal to surface).
        await asyncio.sleep(0)
        refused = placing.exception() if placing.done() else None
        if refused is not None:
            self._tickets.pop(run_id, None)
            if key is not None:
                self._keys.pop(key, None)
            raise refused
        self._forget_oldest()
        return Submitted(run_id=run_id, created=True)

    async def submit_and_view(
        self, submission: Submission, wait_s: float
    ) -> tuple[Submitted, RunView]:
        """:meth:`accept`, then the run's view — after :meth:`wait` for up to ``wait_s`` when
        it is positive — in one call (the HTTP create: one hop to the desk, not two).

        The submission is shielded: a caller that gives up while it is accepted cannot leave
        it half-done; giving up during the wait leaves the run as it is.

        Raises:
            RequestRefused: as :meth:`accept`.
        """
        submitted = await asyncio.shield(self.accept(submission))
        owner = submission.request.owner
        if wait_s > 0:
            view = await self.wait(submitted.run_id, owner, wait_s)
        else:
            view = await self.view(submitted.run_id, owner)
        return submitted, view

    async def view(self, run_id: str, owner: str) -> RunView:
        """The owner's view of a run.

        Raises:
            RunNotFound: NOT_FOUND for an unknown run and for a run of another owner alike.
        """
        self._ticket(run_id, owner)
        pool = await self._ready()
        return await pool.view(run_id, owner)

    async def wait(self, run_id: str, owner: str, timeout_s: float) -> RunView:
        """The view once the run released its result, or after ``timeout_s`` (still running).

        Raises:
            RunNotFound: NOT_FOUND as for :meth:`view`.
        """
        self._ticket(run_id, owner)
        pool = await self._ready()
        return await pool.wait(run_id, owner, timeout_s)

    async def watch(self, run_id: str, owner: str, after: int, timeout_s: float) -> RunView:
        """The view once the run's timeline passed event ``after``, it ended, or ``timeout_s``
        passed, from the run's one shared feed. The call only reads: cancelling it never
        touches the run.

        Raises:
            RunNotFound: NOT_FOUND as for :meth:`view`.
        """
        self._ticket(run_id, owner)
        pool = await self._ready()
        feed = self._feeds.get(run_id)
        if feed is None:
            feed = self._feeds[run_id] = _Feed()
            feed.task = asyncio.create_task(
                self._follow(run_id, owner, feed), name=f"feed:{run_id}"
            )
        feed.watchers += 1
        try:
            await feed.beyond(after, timeout_s)
        finally:
            feed.watchers -= 1
        view = feed.view
        # The feed's latest view may predate the run's result (a watch that timed out while
        # the feed's own call was on its way, or a feed that failed): then read afresh, so a
        # view with the result always carries the final snapshot.
        if view is None or (
            view.result is None and (view.terminal or pool.released(run_id) is not None)
        ):
            return await pool.view(run_id, owner)
        return view

    async def cancel(self, run_id: str, owner: str) -> CancelOutcome:
        """Cancel the owner's run (the first terminal outcome wins).

        Raises:
            RunNotFound: NOT_FOUND as for :meth:`view`.
        """
        self._ticket(run_id, owner)
        pool = await self._ready()
        return await pool.cancel(run_id, owner)

    async def trace(self, run_id: str, owner: str) -> list[TraceEvent] | None:
        """The owner's run's timeline from its host; None once only the durable audit has it.

        Raises:
            RunNotFound: NOT_FOUND as for :meth:`view`.
        """
        self._ticket(run_id, owner)
        pool = await self._ready()
        return await pool.trace(run_id, owner)

    async def runs(self, owner: str, session_id: str | None, limit: int) -> list[RunSummary]:
        """The owner's runs, newest first, optionally of one session only."""
        pool = await self._ready()
        found: list[RunSummary] = []
        for run_id in reversed(self._tickets):
            ticket = self._tickets[run_id]
            if ticket.owner != owner or (
                session_id is not None and ticket.session_id != session_id
            ):
                continue
            status = self._status(pool, run_id)
            if status is None:
                continue  # the pool forgot it: it cannot be read any more either
            result = pool.released(run_id) if status in TERMINAL_STATES else None
            found.append(
                RunSummary(
                    run_id=run_id,
                    session_id=ticket.session_id,
                    created_at=ticket.created_at,
                    status=status,
                    result_kind=result.kind if result is not None else None,
                )
            )
            if len(found) >= limit:
                break
        return found

    # ------------------------------------------------------------------ machinery

    def _ticket(self, run_id: str, owner: str) -> RunTicket:
        ticket = self._tickets.get(run_id)
        if ticket is None or ticket.owner != owner:
            raise RunNotFound(message="unknown run")
        return ticket

    def _key_use(self, key: tuple[str, str]) -> _KeyUse | None:
        now = self._clock.monotonic()
        while self._keys:  # keys expire in the order they were made (one TTL)
            oldest_key, oldest = next(iter(self._keys.items()))
            if oldest.expires_at > now:
                break
            del self._keys[oldest_key]
        use = self._keys.get(key)
        if use is not None and use.run_id not in self._tickets:
            del self._keys[key]  # its run was forgotten: the key starts afresh
            return None
        return use

    def _forget_oldest(self) -> None:
        while len(self._tickets) > self.max_runs:
            self._tickets.popitem(last=False)
        while len(self._keys) > self.max_runs:
            self._keys.popitem(last=False)

    async def _follow(self, run_id: str, owner: str, feed: _Feed) -> None:
        """Long-poll the run's host for as long as someone watches, publishing each view to
        every watcher: one pending actor call per watched run, however many streams."""
        pool = await self._ready()
        after = -1
        try:
            while True:
                view = await pool.watch(run_id, owner, after, _FEED_POLL_S)
                feed.publish(view)
                after = view.progress.sequence_no or 0
                if view.terminal or feed.watchers == 0:
                    return
        except Exception as exc:  # the watchers fall back to a status read
            log.warning("run feed failed run_id=%s error=%s", run_id, type(exc).__name__)
            feed.publish(None)
        finally:
            if self._feeds.get(run_id) is feed:
                del self._feeds[run_id]

    def _status(self, pool: HostedRuns, run_id: str) -> RunStatus | None:
        """The pool's status of a run; PENDING while the run is still being handed to the pool
        (its ticket is written first); None for a run the pool has forgotten."""
        try:
            return pool.known_status(run_id)
        except RunNotFound:
            return RunStatus.PENDING if run_id in self._placing else None

    def _placed(self, run_id: str, task: asyncio.Task[str]) -> None:
        self._placing.pop(run_id, None)
        if not task.cancelled() and task.exception() is not None:
            log.warning("run placement failed error=%s", type(task.exception()).__name__)
