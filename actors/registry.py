"""RunRegistry: run_id → the actor that hosts it, and the run's released result.

Lives in the pool, on the pool's event loop (no locks). An entry is *in flight* until its
result is settled; settling happens once — the first of "the actor released a result" and
"the actor was lost" wins, exactly like a run's own terminal state. Settled entries are
kept, oldest first, up to ``max_finished`` so that results and status stay readable for a
while after the run.

Settling also fixes the run's *final snapshot*, the one every later read answers: the actor's
snapshot of the ended run when it released the result, else (the pool ended the run itself:
lost, cancelled before it started) a reduced one that closes the timeline one event past the
last the pool saw of it. Either way its ``sequence_no`` is past every event id a progress
view showed, and it never changes afterwards, whether or not the actor still remembers the
run: a progress stream's terminal event id means the same on every read.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from harness.context import RunStatus
from harness.errors import ErrorCode, RunNotFound, RunRejected
from harness.results import ReleasedResult
from harness.snapshot import RunPhase, RunSnapshot

__all__ = ["RunEntry", "RunRegistry"]

SlotT = TypeVar("SlotT")


@dataclass(eq=False)
class RunEntry(Generic[SlotT]):
    """One run as the pool sees it."""

    run_id: str
    slot: SlotT
    done: asyncio.Future[ReleasedResult] = field(repr=False)
    seen: int = 0
    """The highest ``sequence_no`` read from the run's actor so far."""
    final: RunSnapshot | None = None
    """The run's snapshot as it ended, fixed when the entry is settled."""

    @property
    def settled(self) -> bool:
        return self.done.done()

    def observe(self, snapshot: RunSnapshot) -> RunSnapshot:
        """Note how far the run's timeline has been read (``snapshot`` came from its actor)."""
        self.seen = max(self.seen, snapshot.sequence_no or 0)
        return snapshot

    def snapshot(self) -> RunSnapshot:
        """The final snapshot of a settled run; else a reduced one without the actor's
        figures (the run waits for a slot, or its actor did not answer)."""
        if self.final is not None:
            return self.final
        return RunSnapshot(run_id=self.run_id, status=RunStatus.PENDING, phase=RunPhase.PENDING)


def _ended_by_pool(entry: RunEntry[Any], result: ReleasedResult) -> RunSnapshot:
    """The final snapshot of a run the pool ended itself: no figures (the actor's are gone or
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

    def add(self, run_id: str, slot: SlotT) -> RunEntry[SlotT]:
        """Register a new run on ``slot``.

        Raises:
            HarnessError: RUN_MISMATCH when the run_id is already known.
        """
        if run_id in self._in_flight or run_id in self._finished:
            raise RunRejected(ErrorCode.RUN_MISMATCH, "run_id already registered")
        entry = RunEntry(run_id=run_id, slot=slot, done=asyncio.get_running_loop().create_future())
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

    def on_slot(self, slot: SlotT) -> list[RunEntry[SlotT]]:
        """In-flight runs hosted on ``slot``."""
        return [e for e in self._in_flight.values() if e.slot is slot]

    def settle(self, run_id: str, result: ReleasedResult, final: RunSnapshot | None = None) -> bool:
        """Record the run's result and final snapshot (``final``: the actor's snapshot of the
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
