"""The node's audit writer on Ray, and the sink through which runs reach it.

One :class:`AuditWriterActor` per node and namespace (named ``audit-writer-<node id>``, options
in :mod:`actors.factory`) hosts the batching :class:`~harness.audit.writer.AuditWriter` over
the SQL store; every RunActor on that node hands its finished runs' records to it through a
:class:`RayAuditSink`. The sink is fire-and-forget: ``record`` submits the call and returns,
never awaiting the write or even the actor's reply. A dead actor, a full mailbox or a refused
submission is counted on the sink (``failures``, and the ``harness_audit_sink_failures_total``
metric) and logged with the exception's class only; it never reaches the run.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from harness.audit.records import AuditStore, RunRecord
from harness.audit.writer import AuditWriter, AuditWriterEvent, AuditWriterPolicy, AuditWriterStats
from harness.clock import SystemClock

__all__ = [
    "AUDIT_WRITER_PREFIX",
    "AuditWriterActor",
    "RayAuditSink",
    "SqlAuditStoreFactory",
    "audit_writer_name",
]

log = logging.getLogger(__name__)

AUDIT_WRITER_PREFIX = "audit-writer-"


def audit_writer_name(node_id: str) -> str:
    """The writer actor's name on one node (shown as such in the Ray dashboard)."""
    return f"{AUDIT_WRITER_PREFIX}{node_id}"


@dataclass(frozen=True)
class SqlAuditStoreFactory:
    """Builds the SQL audit store inside the writer's process (picklable)."""

    url: str
    timeout_s: float = 30.0

    def __call__(self) -> AuditStore:
        from harness.adapters.audit_sql import SqlAuditStore, create_audit_engine

        return SqlAuditStore(create_audit_engine(self.url, timeout_s=self.timeout_s))


class AuditWriterActor:
    """Hosts one :class:`~harness.audit.writer.AuditWriter`; a plain class made an async Ray
    actor by :mod:`actors.factory`.

    The store is built on first use, in this process, and never connects before the first
    flush: a database that is down when the actor starts costs counted failures only.

    Args:
        store_factory: Picklable zero-argument callable building the store.
        policy: The writer's limits and timings.
        name: The actor's name, for logs.
        listener: Receives the writer's events (metrics).
    """

    def __init__(
        self,
        store_factory: Callable[[], AuditStore],
        policy: AuditWriterPolicy | None = None,
        *,
        name: str = "",
        listener: Callable[[AuditWriterEvent], None] | None = None,
    ) -> None:
        self._store_factory = store_factory
        self._policy = policy or AuditWriterPolicy()
        self._listener = listener
        self.name = name
        self._writer: AuditWriter | None = None

    def _get(self) -> AuditWriter:
        if self._writer is None:
            self._writer = AuditWriter(
                self._store_factory(), SystemClock(), self._policy, listener=self._listener
            )
        return self._writer

    async def record(self, record: RunRecord) -> None:
        """Queue one run's record (returns at once)."""
        self._get().offer(record)

    async def flush(self) -> AuditWriterStats:
        """Write what is queued now; the counters afterwards."""
        writer = self._get()
        await writer.flush()
        return writer.stats()

    async def stats(self) -> AuditWriterStats:
        """The writer's counters."""
        return self._get().stats()

    async def close(self) -> AuditWriterStats:
        """Write what is queued and stop accepting records (before the actor is killed)."""
        writer = self._get()
        await writer.close()
        return writer.stats()


class RayAuditSink:
    """:class:`~harness.audit.records.AuditSink` forwarding records to the node's writer actor.

    Args:
        connect: Returns the writer's handle, creating the actor when it is missing; called
            on first use and again after a failure.
        on_failure: Called once per failed hand-over (metrics).
    """

    def __init__(
        self,
        connect: Callable[[], Any],
        *,
        on_failure: Callable[[], None] | None = None,
    ) -> None:
        self._connect = connect
        self._on_failure = on_failure
        self._handle: Any = None
        self._lock = threading.Lock()
        self._failures = 0
        self._sent = 0
        # Hand-overs the writer has not answered yet; drained before a driver goes away.
        self._pending: set[Future[Any]] = set()

    @property
    def failures(self) -> int:
        """Records that never reached the writer (or whose hand-over failed)."""
        return self._failures

    @property
    def sent(self) -> int:
        """Records submitted to the writer."""
        return self._sent

    async def record(self, record: RunRecord) -> None:
        """Submit the record to the writer and return without awaiting anything."""
        try:
            if self._handle is None:
                self._handle = self._connect()
            ref = self._handle.record.remote(record)
        except Exception as exc:  # PendingCallsLimitExceeded (full mailbox), GCS trouble, ...
            self._handle = None
            self._failed(type(exc).__name__)
            return
        self._sent += 1
        future = ref.future()
        with self._lock:
            self._pending.add(future)
        future.add_done_callback(self._settled)

    async def drain(self, timeout_s: float) -> int:
        """Wait up to ``timeout_s`` for the writer to take every record handed to it, then
        ask it to write them (see :class:`~harness.audit.records.DrainableSink`).

        Returns:
            Records not safely with the writer: failed hand-overs since the sink started and
            those still unanswered when the wait ended.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        with self._lock:
            pending = list(self._pending)
        if pending:
            await asyncio.wait(
                [asyncio.wrap_future(f) for f in pending], timeout=max(0.0, timeout_s)
            )
        handle = self._handle
        if handle is not None and self._sent:
            try:
                await asyncio.wait_for(
                    handle.flush.remote(), timeout=max(0.0, deadline - loop.time())
                )
            except Exception as exc:  # timeout or a dead writer: what is queued stays there
                log.warning("audit writer not flushed error=%s", type(exc).__name__)
        with self._lock:
            return self._failures + len(self._pending)

    def _settled(self, future: Future[Any]) -> None:
        # Runs on a Ray thread once the actor answered (or died); never awaited by a run.
        with self._lock:
            self._pending.discard(future)
        try:
            error = future.exception()
        except asyncio.CancelledError:
            error = None
        if error is not None:
            self._handle = None  # look the writer up again: it may have been replaced
            self._failed(type(error).__name__)

    def _failed(self, error: str) -> None:
        with self._lock:
            self._failures += 1
        log.warning("audit record not handed to the writer error=%s", error)
        if self._on_failure is not None:
            try:
                self._on_failure()
            except Exception:  # metrics are best effort
                log.debug("audit sink metric not recorded", exc_info=True)
