"""BaseRunPool: what every run pool does, whatever executes its runs.

A pool registers each run it takes (:class:`~harness.runhost.registry.RunRegistry`) and answers
the run-host verbs about it. Pools differ in one thing only: where a run executes — on a
pooled Ray actor (``actors.pool.RunPool``) or on the caller's event loop
(``harness.testing.local_pool.LocalRunPool``). A subclass says that through :meth:`submit` and
four hooks on a run that reached a slot; the rest is written once here: the owner check, the
views, waiting, cancelling a run still waiting for a slot, the empty timeline of a run that
never reached one.

A view that carries the result carries the final snapshot (see :meth:`BaseRunPool.view`), so a
terminal view reads the same on every call. A host can report a run ended a moment before the
pool settled it (the pool learns of the end through its own call): a view of such a run waits
for the settlement, briefly, rather than show a terminal state without its result.

The pool lives on one asyncio event loop; await all of its methods on that loop.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import logging
from datetime import datetime
from typing import Generic, TypeVar

from harness.contracts.ingress import RunRequest
from harness.contracts.results import Cancelled, ReleasedResult
from harness.contracts.status import TERMINAL_STATES, RunStatus
from harness.run.snapshot import RunSnapshot
from harness.run.view import CancelOutcome, RunView
from harness.runhost.registry import RunEntry, RunRegistry
from harness.trace import TraceEvent

__all__ = ["BaseRunPool"]

log = logging.getLogger(__name__)

SlotT = TypeVar("SlotT")

_RESULT_GRACE_S = 5.0
"""How long a view waits for the pool to settle a run its host already reports ended."""


class BaseRunPool(abc.ABC, Generic[SlotT]):
    """The run-host verbs (:class:`~harness.runhost.protocol.RunHost`) over a registry of
    runs, each on a slot of type ``SlotT`` once it has one (None while it waits for room).

    Besides the verbs, a pool offers reads of its own — :meth:`status`, :meth:`result`,
    :meth:`released`, :meth:`known_status` — that name no owner: they serve whoever holds the
    pool (the run desk, the CLI), which is trusted with every run it submitted.
    """

    registry: RunRegistry[SlotT | None]

    # ------------------------------------------------------------------ run-host verbs

    @abc.abstractmethod
    async def submit(
        self,
        request: RunRequest,
        *,
        run_id: str | None = None,
        created_at: datetime | None = None,
    ) -> str:
        """Register the run and start it on a slot (see the subclass for when it returns).

        Args:
            request: The run; its ``owner`` is the only principal the pool answers about it.
            run_id: The run's id, when the caller names it (the desk does); default: a new one.
            created_at: When the run was submitted, when the caller recorded it (the desk
                does, so that its listing and the pool's views agree); default: now.
        """

    async def view(self, run_id: str, owner: str) -> RunView:
        """The owner's view of the run; once it has its released result, as its final
        snapshot shows it.

        Raises:
            RunNotFound: NOT_FOUND for an unknown run and for a run of another owner alike.
        """
        return await self._view(self.registry.owned(run_id, owner))

    async def wait(self, run_id: str, owner: str, timeout_s: float) -> RunView:
        """The view once the run released its result, or after ``timeout_s`` (still running).

        Raises:
            RunNotFound: NOT_FOUND as for :meth:`view`.
        """
        entry = self.registry.owned(run_id, owner)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(entry.done), timeout_s)
        return await self._view(entry)

    async def watch(self, run_id: str, owner: str, after: int, timeout_s: float) -> RunView:
        """The view once the run's timeline passed event ``after``, it ended, or ``timeout_s``
        passed. The call only reads: cancelling it never touches the run.

        Raises:
            RunNotFound: NOT_FOUND as for :meth:`view`.
        """
        entry = self.registry.owned(run_id, owner)
        return await self._view(entry, await self._progress_after(entry, after, timeout_s))

    async def cancel(self, run_id: str, owner: str) -> CancelOutcome:
        """Cancel the run: a run still waiting for a slot ends CANCELLED and never starts; a
        running one is cancelled on its slot, where the first terminal outcome wins.

        Raises:
            RunNotFound: NOT_FOUND as for :meth:`view`.
        """
        entry = self.registry.owned(run_id, owner)
        won = await self._cancel(entry)
        return CancelOutcome(cancelled=won, run=await self._view(entry))

    async def trace(self, run_id: str, owner: str) -> list[TraceEvent] | None:
        """The run's timeline from its slot; ``[]`` for a run that never reached one; None
        once its slot forgot it (the durable audit has it then).

        Raises:
            RunNotFound: NOT_FOUND as for :meth:`view`.
        """
        entry = self.registry.owned(run_id, owner)
        slot = entry.slot
        if slot is None:
            return []
        return await self._timeline(entry, slot)

    # ------------------------------------------------------------------ the pool's own reads

    async def run(self, request: RunRequest, timeout_s: float | None = None) -> ReleasedResult:
        """Submit and wait: the released result of a new run."""
        return await self.result(await self.submit(request), timeout_s)

    async def result(self, run_id: str, timeout_s: float | None = None) -> ReleasedResult:
        """The run's released result.

        Raises:
            HarnessError: NOT_FOUND for an unknown run.
            TimeoutError: ``timeout_s`` passed first (the run goes on).
        """
        entry = self.registry.get(run_id)
        return await asyncio.wait_for(asyncio.shield(entry.done), timeout=timeout_s)

    async def status(self, run_id: str) -> RunSnapshot:
        """Progress snapshot from the run's slot; once the run is settled, its final snapshot
        (fixed at settlement: the same on every read, with or without the slot).

        Raises:
            HarnessError: NOT_FOUND for an unknown run.
        """
        return await self._progress(self.registry.get(run_id))

    def released(self, run_id: str) -> ReleasedResult | None:
        """The run's released result, or None while it has none.

        Raises:
            HarnessError: NOT_FOUND for an unknown run.
        """
        entry = self.registry.get(run_id)
        return entry.done.result() if entry.settled else None

    def known_status(self, run_id: str) -> RunStatus:
        """The run's state as the pool knows it without asking its slot: the released
        result's, else PENDING while it waits for a slot, else RUNNING.

        Raises:
            HarnessError: NOT_FOUND for an unknown run.
        """
        entry = self.registry.get(run_id)
        if entry.settled:
            return entry.done.result().run_status
        return RunStatus.PENDING if entry.slot is None else RunStatus.RUNNING

    # ------------------------------------------------------------------ hooks

    @abc.abstractmethod
    async def _progress(self, entry: RunEntry[SlotT | None]) -> RunSnapshot:
        """The run's snapshot now: from its slot while it runs, else ``entry.snapshot()``."""

    @abc.abstractmethod
    async def _progress_after(
        self, entry: RunEntry[SlotT | None], after: int, timeout_s: float
    ) -> RunSnapshot:
        """The run's snapshot once its timeline passed ``after``, it ended, or ``timeout_s``
        passed; a run still waiting for a slot is looked at again shortly."""

    @abc.abstractmethod
    async def _stop(self, entry: RunEntry[SlotT | None], slot: SlotT) -> bool:
        """Cancel the running run on ``slot``; True when this decided its terminal state."""

    @abc.abstractmethod
    async def _timeline(
        self, entry: RunEntry[SlotT | None], slot: SlotT
    ) -> list[TraceEvent] | None:
        """The run's timeline from ``slot``; None once the slot forgot the run."""

    # ------------------------------------------------------------------ machinery

    async def _cancel(self, entry: RunEntry[SlotT | None]) -> bool:
        """End the run CANCELLED unless it has ended; True when this decided its end."""
        slot = entry.slot
        if entry.settled:
            return False
        if slot is None:
            return self.registry.settle(entry.run_id, Cancelled(run_id=entry.run_id))
        return await self._stop(entry, slot)

    async def _view(
        self, entry: RunEntry[SlotT | None], progress: RunSnapshot | None = None
    ) -> RunView:
        """The run as ``progress`` (else a fresh read) shows it; once the run has its released
        result, as its final snapshot shows it.

        A view with the result never carries an earlier snapshot: one read before the pool
        settled the run may be older than the result (a watch's reply overtaken by the run's
        end), or terminal before the timeline recorded the end. The final snapshot is fixed
        at settlement, so a terminal view reads the same — and a progress stream's terminal
        event carries the same id — on every call and every replica.
        """
        if not entry.settled:
            progress = progress or await self._progress(entry)
            if progress.status not in TERMINAL_STATES or not await self._settles(entry):
                return entry.view(progress)
        return entry.settled_view()

    @staticmethod
    async def _settles(entry: RunEntry[SlotT | None]) -> bool:
        """Whether a run its host already reports ended is settled within a moment (the
        pool's own call that learns of the end is on its way)."""
        try:
            await asyncio.wait_for(asyncio.shield(entry.done), _RESULT_GRACE_S)
        except TimeoutError:
            log.warning("ended run not settled run_id=%s", entry.run_id)
            return False
        return True
