"""An in-memory :class:`~harness.audit.records.AuditStore` that can be made to fail or to hang."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime

from harness.audit.records import ReasoningAccess, ReasoningAudit, RunAudit, RunRecord
from harness.clock import SystemClock
from harness.ports import Clock
from harness.trace import TraceEvent

__all__ = ["InMemoryAuditStore", "StoreDown"]


class StoreDown(ConnectionError):
    """What a failing :class:`InMemoryAuditStore` raises."""


class InMemoryAuditStore:
    """Keeps written records in lists; tests steer its writes.

    ``failing = True`` makes every write raise :class:`StoreDown`; ``hold()`` makes writes wait
    until ``release()`` (a slow or hung database). ``batches`` lists every batch that was
    written, in order; ``attempts`` counts every call of ``write``.

    Args:
        clock: Decides which reasoning rows have expired.
    """

    def __init__(self, clock: Clock | None = None) -> None:
        self.clock = clock or SystemClock()
        self.batches: list[list[RunRecord]] = []
        self.accesses: list[ReasoningAccess] = []
        self.attempts = 0
        self.failing = False
        self._gate: asyncio.Event | None = None
        self.waiting = 0
        """Writes currently held by :meth:`hold`."""

    # ------------------------------------------------------------------ steering

    def hold(self) -> None:
        """Make writes wait until :meth:`release`."""
        self._gate = asyncio.Event()

    def release(self) -> None:
        """Let held and later writes through."""
        if self._gate is not None:
            self._gate.set()
            self._gate = None

    @property
    def records(self) -> list[RunRecord]:
        """Every record written, in order."""
        return [r for batch in self.batches for r in batch]

    # ------------------------------------------------------------------ the port

    async def write(self, records: Sequence[RunRecord]) -> None:
        self.attempts += 1
        gate = self._gate
        if gate is not None:
            self.waiting += 1
            try:
                await gate.wait()
            finally:
                self.waiting -= 1
        if self.failing:
            raise StoreDown("audit store is down")
        stored = {r.run.run_id for r in self.records}
        self.batches.append([r for r in records if r.run.run_id not in stored])

    async def timeline(self, run_id: str) -> list[TraceEvent]:
        events = [e for r in self.records if r.run.run_id == run_id for e in r.trace]
        return sorted(events, key=lambda e: e.sequence_no)

    async def run(self, run_id: str) -> RunAudit | None:
        return next((r.run for r in self.records if r.run.run_id == run_id), None)

    async def runs(
        self, *, limit: int = 50, owner: str | None = None, session_id: str | None = None
    ) -> list[RunAudit]:
        found = [
            r.run
            for r in self.records
            if (owner is None or r.run.owner == owner)
            and (session_id is None or r.run.session_id == session_id)
        ]
        found.sort(key=lambda run: (run.created_at, run.run_id), reverse=True)
        return found[:limit]

    async def reasoning(self, run_id: str) -> list[ReasoningAudit]:
        now = self.clock.now()
        return [
            row
            for r in self.records
            if r.run.run_id == run_id
            for row in r.reasoning
            if row.expires_at >= now
        ]

    async def record_access(self, access: ReasoningAccess) -> None:
        self.accesses.append(access)

    async def purge_runs(self, before: datetime) -> int:
        purged = 0
        for batch in self.batches:
            kept = [record for record in batch if record.run.created_at >= before]
            purged += len(batch) - len(kept)
            batch[:] = kept
        self.accesses = [access for access in self.accesses if access.at >= before]
        return purged

    async def purge(self, now: datetime) -> int:
        purged = 0
        for batch in self.batches:
            for i, record in enumerate(batch):
                keep = [row for row in record.reasoning if row.expires_at >= now]
                purged += len(record.reasoning) - len(keep)
                batch[i] = record.model_copy(update={"reasoning": keep})
        return purged
