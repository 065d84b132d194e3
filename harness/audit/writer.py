"""AuditWriter: the batching, never-blocking :class:`~harness.audit.records.AuditSink` of one node.

A run hands its :class:`~harness.audit.records.RunRecord` to ``record`` and goes on: ``record`` only
enqueues. Writing happens in one background flush at a time, through the
:class:`~harness.audit.records.AuditStore` port (one ``write`` per batch, one transaction). A failed,
slow or full database therefore never changes a run's result and never delays it; what it
costs is counted in :class:`AuditWriterStats`, logged (the exception's class only) and
reported to an optional listener (metrics).

Semantics:

- **Queue bound.** The queue holds at most ``max_queued_rows`` rows (a record's rows: its run
  row, tool invocations, agent steps, trace events and reasoning rows). A record that would
  overflow it makes room by dropping the *oldest* queued records first — every queued record
  is a finished run's metadata, and the newest are the ones operators look for — and each drop
  is counted (``DropReason.OVERFLOW``). A record larger than the whole bound is dropped itself.
- **Flush triggers.** A flush starts when the queued rows reach ``batch_rows``; when
  ``flush_interval_s`` has passed since the oldest unwritten record was queued (then
  everything queued is written, batch by batch); and on :meth:`close`. While a flush is in
  progress records keep queuing; at most one flush runs at a time, so a slow database holds
  one connection, not many.
- **Retry.** A batch whose write fails goes back to the head of the queue and is tried once
  more, at the next flush (no sooner than the next interval, so a dead database is not
  hammered). If it fails again its records are dropped and counted as failed
  (``DropReason.FAILED``). The store's ``write`` must therefore be safe to repeat for a batch
  whose first commit succeeded without the writer learning it (``SqlAuditStore`` skips runs
  already stored).
- **Close.** :meth:`close` stops accepting records (later ones are dropped,
  ``DropReason.CLOSED``) and writes what is queued, giving each batch the attempts it has
  left, within ``close_timeout_s``; whatever is still queued then is dropped and counted.

All methods run on one event loop; nothing here needs a lock.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from harness.audit.records import AuditStore, RunRecord
from harness.ports import Clock, Timer

__all__ = [
    "AuditWriter",
    "AuditWriterEvent",
    "AuditWriterPolicy",
    "AuditWriterStats",
    "DropReason",
    "record_rows",
]

log = logging.getLogger(__name__)


def record_rows(record: RunRecord) -> int:
    """The rows one record becomes in the durable audit."""
    return (
        1
        + len(record.tool_invocations)
        + len(record.agent_steps)
        + len(record.trace)
        + len(record.reasoning)
    )


@dataclass(frozen=True, kw_only=True)
class AuditWriterPolicy:
    """Limits and timings of one writer.

    Attributes:
        batch_rows: Rows per write (one transaction); reaching it starts a flush.
        flush_interval_s: The longest a queued record waits before a flush starts.
        max_queued_rows: Rows the queue holds; beyond, the oldest records are dropped.
        max_attempts: Writes of one batch before its records are dropped (1 = no retry).
        close_timeout_s: How long :meth:`AuditWriter.close` may spend writing what is queued.
    """

    batch_rows: int = 2_000
    flush_interval_s: float = 1.0
    max_queued_rows: int = 200_000
    max_attempts: int = 2
    close_timeout_s: float = 10.0

    def __post_init__(self) -> None:
        if self.batch_rows < 1 or self.max_queued_rows < self.batch_rows:
            raise ValueError("need 1 <= batch_rows <= max_queued_rows")
        if self.flush_interval_s <= 0 or self.close_timeout_s < 0 or self.max_attempts < 1:
            raise ValueError("flush_interval_s > 0, close_timeout_s >= 0, max_attempts >= 1")


class DropReason(str, Enum):
    """Why records were given up."""

    OVERFLOW = "OVERFLOW"
    """The queue was full; the oldest records made room."""
    FAILED = "FAILED"
    """Their batch failed on every attempt."""
    CLOSED = "CLOSED"
    """They arrived after close, or were still queued when close ran out of time."""


@dataclass(frozen=True, kw_only=True)
class AuditWriterEvent:
    """One thing the writer did, for a metrics listener (no run ids: counts only)."""

    kind: str
    """``WRITTEN``, ``FLUSH_FAILED`` or ``DROPPED``."""
    records: int
    rows: int
    reason: DropReason | None = None
    error: str | None = None
    """The exception's class name, for ``FLUSH_FAILED``."""


@dataclass(frozen=True, kw_only=True)
class AuditWriterStats:
    """The writer's counters since it started."""

    accepted_records: int
    written_records: int
    written_rows: int
    flushes: int
    failed_flushes: int
    dropped_records: dict[DropReason, int]
    dropped_rows: dict[DropReason, int]
    queued_records: int
    queued_rows: int
    last_error: str | None
    """Class name of the last failed write's exception."""


@dataclass
class _Queued:
    record: RunRecord
    rows: int
    attempts: int = 0


class AuditWriter:
    """Batches run records into an :class:`~harness.audit.records.AuditStore`.

    Args:
        store: Where batches go.
        clock: Times the flush interval and the close timeout.
        policy: Limits and timings.
        listener: Called with every :class:`AuditWriterEvent` (metrics); its failures are
            swallowed.
    """

    def __init__(
        self,
        store: AuditStore,
        clock: Clock,
        policy: AuditWriterPolicy | None = None,
        *,
        listener: Callable[[AuditWriterEvent], None] | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.policy = policy or AuditWriterPolicy()
        self._listener = listener
        self._queue: deque[_Queued] = deque()
        self._queued_rows = 0
        self._timer: Timer | None = None
        self._due = False
        self._flush: asyncio.Task[None] | None = None
        self._closed = False
        self._accepted = 0
        self._written_records = 0
        self._written_rows = 0
        self._flushes = 0
        self._failed_flushes = 0
        self._dropped_records = dict.fromkeys(DropReason, 0)
        self._dropped_rows = dict.fromkeys(DropReason, 0)
        self._last_error: str | None = None
        self._overflowing = False
        self._in_flight = 0

    # ------------------------------------------------------------------ the sink

    async def record(self, record: RunRecord) -> None:
        """Queue one run's record; returns at once (never awaits the database)."""
        self.offer(record)

    def offer(self, record: RunRecord) -> None:
        """Queue one record without awaiting (for callers that are not coroutines)."""
        rows = record_rows(record)
        if self._closed:
            self._drop(DropReason.CLOSED, 1, rows)
            return
        self._accepted += 1
        bound = self.policy.max_queued_rows
        if rows > bound:
            self._drop(DropReason.OVERFLOW, 1, rows)
            return
        dropped = dropped_rows = 0
        while self._queued_rows + rows > bound:
            oldest = self._queue.popleft()
            self._queued_rows -= oldest.rows
            dropped, dropped_rows = dropped + 1, dropped_rows + oldest.rows
        if dropped:
            self._drop(DropReason.OVERFLOW, dropped, dropped_rows)
        self._queue.append(_Queued(record, rows))
        self._queued_rows += rows
        if self._queued_rows >= self.policy.batch_rows:
            self._start_flush()
        self._arm()

    # ------------------------------------------------------------------ control

    async def flush(self) -> None:
        """Write everything queued now, stopping at the first failed batch; wait until done."""
        self._due = True
        self._start_flush()
        while self._flush is not None:
            await asyncio.shield(self._flush)

    async def drain(self, timeout_s: float) -> int:
        """Write what is queued, waiting up to ``timeout_s``; the records still queued after
        (see :class:`~harness.audit.records.DrainableSink`)."""
        try:
            await self.clock.wait_for(self.flush(), timeout_s)
        except TimeoutError:
            log.warning("audit writer not drained in time n=%d", len(self._queue))
        return len(self._queue) + self._in_flight

    async def close(self) -> None:
        """Stop accepting records and write what is queued (see the module docstring)."""
        if self._closed:
            return
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        try:
            await self.clock.wait_for(self._drain_on_close(), self.policy.close_timeout_s)
        except TimeoutError:
            log.warning("audit writer closed with unwritten records n=%d", len(self._queue))
        if self._flush is not None:
            self._flush.cancel()
            await asyncio.gather(self._flush, return_exceptions=True)
            self._flush = None
        if self._queue:
            self._drop(DropReason.CLOSED, len(self._queue), self._queued_rows)
            self._queue.clear()
            self._queued_rows = 0

    def stats(self) -> AuditWriterStats:
        """The counters now."""
        return AuditWriterStats(
            accepted_records=self._accepted,
            written_records=self._written_records,
            written_rows=self._written_rows,
            flushes=self._flushes,
            failed_flushes=self._failed_flushes,
            dropped_records=dict(self._dropped_records),
            dropped_rows=dict(self._dropped_rows),
            queued_records=len(self._queue),
            queued_rows=self._queued_rows,
            last_error=self._last_error,
        )

    # ------------------------------------------------------------------ machinery

    async def _drain_on_close(self) -> None:
        if self._flush is not None:
            await asyncio.gather(self._flush, return_exceptions=True)
        while self._queue:
            await self._write_batch()

    def _arm(self) -> None:
        if self._timer is None and self._queue and not self._closed:
            self._timer = self.clock.call_later(self.policy.flush_interval_s, self._on_interval)

    def _on_interval(self) -> None:
        self._timer = None
        self._due = True
        self._start_flush()

    def _start_flush(self) -> None:
        if self._flush is None and not self._closed:
            self._flush = asyncio.get_running_loop().create_task(
                self._run_flush(), name="audit-writer-flush"
            )

    async def _run_flush(self) -> None:
        try:
            while self._queue and (self._due or self._queued_rows >= self.policy.batch_rows):
                if not await self._write_batch():
                    break  # the database is failing: try again at the next interval
        finally:
            self._flush = None
            self._due = False
            self._arm()

    async def _write_batch(self) -> bool:
        batch, rows = self._take()
        self._flushes += 1
        self._in_flight = len(batch)
        try:
            await self.store.write([q.record for q in batch])
        except asyncio.CancelledError:
            self._give_back(batch, rows)
            raise
        except Exception as exc:  # the store may fail in any way; the runs never see it
            self._failed_flushes += 1
            self._last_error = type(exc).__name__
            log.warning(
                "audit write failed records=%d rows=%d error=%s",
                len(batch),
                rows,
                self._last_error,
            )
            self._emit(
                AuditWriterEvent(
                    kind="FLUSH_FAILED", records=len(batch), rows=rows, error=self._last_error
                )
            )
            self._retry_or_drop(batch)
            return False
        finally:
            self._in_flight = 0
        self._written_records += len(batch)
        self._written_rows += rows
        self._overflowing = False
        self._emit(AuditWriterEvent(kind="WRITTEN", records=len(batch), rows=rows))
        return True

    def _take(self) -> tuple[list[_Queued], int]:
        batch: list[_Queued] = []
        rows = 0
        while self._queue and (not batch or rows + self._queue[0].rows <= self.policy.batch_rows):
            item = self._queue.popleft()
            batch.append(item)
            rows += item.rows
        self._queued_rows -= rows
        return batch, rows

    def _give_back(self, batch: list[_Queued], rows: int) -> None:
        self._queue.extendleft(reversed(batch))
        self._queued_rows += rows

    def _retry_or_drop(self, batch: list[_Queued]) -> None:
        keep: list[_Queued] = []
        lost = lost_rows = 0
        for item in batch:
            item.attempts += 1
            if item.attempts < self.policy.max_attempts:
                keep.append(item)
            else:
                lost, lost_rows = lost + 1, lost_rows + item.rows
        if lost:
            self._drop(DropReason.FAILED, lost, lost_rows)
        # Kept records go back to the head: they are the oldest, first to go on overflow.
        self._give_back(keep, sum(item.rows for item in keep))

    def _drop(self, reason: DropReason, records: int, rows: int) -> None:
        self._dropped_records[reason] += records
        self._dropped_rows[reason] += rows
        # One warning per episode of overflow (until a write succeeds), not one per record.
        if reason is not DropReason.OVERFLOW or not self._overflowing:
            log.warning(
                "audit records dropped reason=%s records=%d rows=%d", reason.value, records, rows
            )
        self._overflowing = self._overflowing or reason is DropReason.OVERFLOW
        self._emit(AuditWriterEvent(kind="DROPPED", records=records, rows=rows, reason=reason))

    def _emit(self, event: AuditWriterEvent) -> None:
        if self._listener is None:
            return
        try:
            self._listener(event)
        except Exception:  # metrics are best effort
            log.debug("audit writer listener failed", exc_info=True)
