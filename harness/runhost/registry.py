"""RunRegistry: run_id → where the run is hosted, who it is for, and its released result.

Lives in a pool, on the pool's event loop (no locks). An entry is *in flight* until its
result is settled; settling happens once — the first of "the host released a result" and
"the host was lost" wins, exactly like a run's own terminal state. Settled entries are
kept, oldest first, up to ``max_finished`` so that results and status stay readable for a
while after the run.

Settling also fixes the run's *final snapshot*, the one every later read answers: the host's
snapshot of the ended run when it released the result, else (the pool ended the run itself:
lost, cancelled before it started) a reduced one that closes the timeline one event past the
last the pool saw of it. Either way its ``sequence_no`` is past every event id a progress
view showed, and it never changes afterwards, whether or not the host still remembers the
run: a progress stream's terminal event id means the same on every read.

Every entry carries the run's :class:`RunTicket` — its owner, session and submission time —
so that the pool answers views (:class:`~harness.run.view.RunView`) itself and refuses a run to
anyone but its owner.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar

from harness.contracts.errors import ErrorCode, RunNotFound, RunRejected
from harness.contracts.ingress import RunRequest
from harness.contracts.results import ReleasedResult
from harness.contracts.status import RunStatus
from harness.run.snapshot import RunPhase, RunSnapshot
from harness.run.view import RunView

__all__ = ["RunEntry", "RunRegistry", "RunTicket"]

SlotT = TypeVar("SlotT")


@dataclass(frozen=True, kw_only=True)
class RunTicket:
    """Who a run is for and when it was asked for: the identity every view of it carries."""

    owner: str
    session_id: str
    """The request's session; a run without one is a session of its own (its run id)."""
    created_at: datetime
    """When the run was submitted (UTC)."""

    @classmethod
    def of(cls, request: RunRequest, *, run_id: str, created_at: datetime) -> RunTicket:
        """The ticket of ``request``, submitted at ``created_at`` as run ``run_id``."""
        return cls(
            owner=request.owner,
            session_id=request.session_id or run_id,
            created_at=created_at,
        )


@dataclass(eq=False)
class RunEntry(Generic[SlotT]):
    """One run as the pool sees it."""

    run_id: str
    slot: SlotT
    ticket: RunTicket
    done: asyncio.Future[ReleasedResult] = field(repr=False)
    seen: int = 0
    """The highest ``sequence_no`` read from the run's host so far."""
    final: RunSnapshot | None = None
    """The run's snapshot as it ended, fixed when the entry is settled."""

    @property
    def settled(self) -> bool:
        return self.done.done()

    def observe(self, snapshot: RunSnapshot) -> RunSnapshot:
        """Note how far the run's timeline has been read (``snapshot`` came from its host)."""
        self.seen = max(self.seen, snapshot.sequence_no or 0)
        return snapshot

    def snapshot(self) -> RunSnapshot:
        """The final snapshot of a settled run; else a reduced one without the host's
        figures (the run waits for a slot, or its host did not answer)."""
        if self.final is not None:
            return self.final
        return RunSnapshot(run_id=self.run_id, status=RunStatus.PENDING, phase=RunPhase.PENDING)

    def view(self, progress: RunSnapshot) -> RunView:
        """The run as ``progress`` shows it, without a result."""
        return self._view(progress.status, progress, None)

    def settled_view(self) -> RunView:
        """The settled run: its released result and its final snapshot.

        Raises:
            asyncio.InvalidStateError: The entry is not settled yet.
        """
        result = self.done.result()
        return self._view(result.run_status, self.snapshot(), result)

    def _view(
        self, status: RunStatus, progress: RunSnapshot, result: ReleasedResult | None
    ) -> RunView:
        return RunView(
            run_id=self.run_id,
            session_id=self.ticket.session_id,
            created_at=self.ticket.created_at,
            status=status,
            progress=progress,
            result=result,
        )


def _ended_by_pool(entry: RunEntry[Any], result: ReleasedResult) -> RunSnapshot:
    """The final snapshot of a run the pool ended itself: no figures (the host's are gone or
    never were), its timeline closed one event past the last the pool saw of it."""
    return RunSnapshot(
        run_id=entry.run_id,
        status=result.run_status,
        phase=RunPhase.DONE,
        result_kind=result.kind,
        sequence_no=entry.seen + 1,
    )


class RunRegistry(Generic[SlotT]):
    """Maps run ids to entries; in-flight entries are also indexed by slot."""

    def __init__(self, *, max_finished: int = 10_000) -> None:
        self.max_finished = max_finished
        self._in_flight: dict[str, RunEntry[SlotT]] = {}
        self._finished: OrderedDict[str, RunEntry[SlotT]] = OrderedDict()

    def add(self, run_id: str, slot: SlotT, ticket: RunTicket) -> RunEntry[SlotT]:
        """Register a new run on ``slot``.

        Raises:
            HarnessError: RUN_MISMATCH when the run_id is already known.
        """
        if run_id in self._in_flight or run_id in self._finished:
            raise RunRejected(ErrorCode.RUN_MISMATCH, "run_id already registered")
        entry = RunEntry(
            run_id=run_id,
            slot=slot,
            ticket=ticket,
            done=asyncio.get_running_loop().create_future(),
        )
        self._in_flight[run_id] = entry
        return entry

    def move(self, run_id: str, slot: SlotT) -> None:
        """Re-home an in-flight run that never started on its first slot."""
        self._in_flight[run_id].slot = slot

    def get(self, run_id: str) -> RunEntry[SlotT]:
        """The entry of a known run.

        Raises:
            HarnessError: NOT_FOUND for an unknown (or long-forgotten) run.
        """
        entry = self._in_flight.get(run_id) or self._finished.get(run_id)
        if entry is None:
            raise RunNotFound(message="unknown run")
        return entry

    def owned(self, run_id: str, owner: str) -> RunEntry[SlotT]:
        """The entry of a known run of ``owner``.

        Raises:
            HarnessError: NOT_FOUND for an unknown run and for a run of another owner alike.
        """
        entry = self.get(run_id)
        if entry.ticket.owner != owner:
            raise RunNotFound(message="unknown run")
        return entry

    def on_slot(self, slot: SlotT) -> list[RunEntry[SlotT]]:
        """In-flight runs hosted on ``slot``."""
        return [e for e in self._in_flight.values() if e.slot is slot]

    def settle(self, run_id: str, result: ReleasedResult, final: RunSnapshot | None = None) -> bool:
        """Record the run's result and final snapshot (``final``: the host's snapshot of the
        ended run; None when the pool ended it); True only for the first settlement."""
        entry = self._in_flight.pop(run_id, None)
        if entry is None:
            return False
        entry.final = final if final is not None else _ended_by_pool(entry, result)
        entry.done.set_result(result)
        self._finished[run_id] = entry
        while len(self._finished) > self.max_finished:
            self._finished.popitem(last=False)
        return True

    def in_flight(self) -> int:
        return len(self._in_flight)

    def fail_all(self, result_for: Any) -> list[RunEntry[SlotT]]:
        """Settle every in-flight run with ``result_for(run_id)`` (pool shutdown)."""
        entries = list(self._in_flight.values())
        for entry in entries:
            self.settle(entry.run_id, result_for(entry.run_id))
        return entries
