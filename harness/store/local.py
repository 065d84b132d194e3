"""The canonical store of one process: the embedded default when no Redis is configured.

It keeps the contract of ``harness.adapters.redis_store.RedisCanonicalStore`` (the production
store of servers), checked by the same contract tests: records are stored in the record format
of :mod:`harness.store.codec` (so a caller's later mutation cannot leak in, and size limits are
those of Redis), the TTL is fixed at ``begin`` and never renewed, a transition on an expired
record is RECORD_EXPIRED without recreating it, and of concurrent transitions of one record
exactly one wins. What it leaves out is the network and the Lua interpreter: an embedded run
paid ~5 ms of CPU per run for fakeredis parsing commands and running the transition script.

One difference in what it keeps: a raw made of shared parts (the embedded log store's events,
whose JSON that store keeps anyway) is held by reference beside the record instead of being
compressed into it (``codec.encode_record_beside``) — fewer bytes than the frame, and no
compression of a multi-megabyte log result (~5 ms of CPU) on every query.

Every record lives ``ttl_s`` from its ``begin``, so records expire in the order they were
begun, which is the order of the dict that holds them: each ``begin`` drops the expired records
at its front, and memory stays bounded by what one TTL holds, even for records nobody reads.
Expiry follows ``clock.monotonic()``, so ``FakeClock.advance`` drives it in tests.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from dataclasses import dataclass

from harness.clock import SystemClock
from harness.contracts.errors import ErrorCode, RecordExpired, StoreError
from harness.contracts.invocation import CanonicalInvocation
from harness.contracts.raw import RawResponse
from harness.ports import Clock
from harness.store.codec import decode_record, encode_record_beside
from harness.store.transitions import TransitionMethods, require_projecting

__all__ = ["LocalCanonicalStore"]


@dataclass(slots=True)
class _Entry:
    payload: bytes
    expires_at_s: float
    beside: RawResponse | None = None
    """The raw, when it is made of shared parts (see ``encode_record_beside``)."""


class LocalCanonicalStore(TransitionMethods):
    """:class:`~harness.ports.CanonicalStore` in this process's memory (see the module doc).

    Args:
        clock: Source of monotonic time for expiry; defaults to the system clock.
        ttl_s: Lifetime of a record from ``begin``; never renewed.
        max_record_bytes: Largest serialised record accepted.
    """

    def __init__(
        self,
        clock: Clock | None = None,
        *,
        ttl_s: int = 3600,
        max_record_bytes: int = 1_048_576,
    ) -> None:
        if ttl_s <= 0:
            raise ValueError("ttl_s must be positive")
        self.ttl_s = ttl_s
        self.max_record_bytes = max_record_bytes
        self._clock: Clock = clock or SystemClock()
        # Insertion order is expiry order (one TTL for all, fixed at begin; a transition
        # assigns an existing key, which keeps its place).
        self._entries: dict[tuple[str, str], _Entry] = {}
        # Transitions are read-check-write; the lock keeps that atomic even if an await is
        # ever added inside the critical section.
        self._lock = asyncio.Lock()

    def _gate(self, op: str) -> None:
        """Called first by every operation; a subclass may refuse it (outage simulation)."""

    def _live(self, key: tuple[str, str]) -> _Entry | None:
        entry = self._entries.get(key)
        if entry is not None and self._clock.monotonic() >= entry.expires_at_s:
            # Expired entries are dropped lazily on access, as Redis does.
            del self._entries[key]
            return None
        return entry

    def _sweep(self) -> None:
        """Drop the expired records at the front (the oldest begun)."""
        entries, now = self._entries, self._clock.monotonic()
        while entries:
            key = next(iter(entries))
            if entries[key].expires_at_s > now:
                return
            del entries[key]

    def __len__(self) -> int:
        """Records held, expired ones not yet dropped included."""
        return len(self._entries)

    async def begin(self, record: CanonicalInvocation) -> None:
        """Create a PROJECTING record with a fresh TTL.

        Raises:
            StoreError: ILLEGAL_TRANSITION (not PROJECTING), RECORD_TOO_LARGE,
                DUPLICATE_TOOL_CALL_ID (key present), STORE_ERROR (from a subclass's gate).
        """
        self._gate("begin")
        require_projecting(record, op="begin")
        payload, beside = encode_record_beside(
            record, max_record_bytes=self.max_record_bytes, op="begin"
        )
        key = (record.run_id, record.tool_call_id)
        async with self._lock:
            self._sweep()
            if self._live(key) is not None:
                raise StoreError(
                    ErrorCode.DUPLICATE_TOOL_CALL_ID, "record already exists", {"op": "begin"}
                )
            self._entries[key] = _Entry(payload, self._clock.monotonic() + self.ttl_s, beside)

    async def _transition(
        self,
        run_id: str,
        tool_call_id: str,
        op: str,
        build: Callable[[CanonicalInvocation], CanonicalInvocation],
    ) -> CanonicalInvocation:
        self._gate(op)
        key = (run_id, tool_call_id)
        async with self._lock:
            entry = self._live(key)
            if entry is None:
                raise RecordExpired(message="record missing or expired", context={"op": op})
            successor = build(decode_record(entry.payload, op=op, beside=entry.beside))
            payload, beside = encode_record_beside(
                successor, max_record_bytes=self.max_record_bytes, op=op
            )
            # Same expiry instant: a transition keeps the remaining TTL, never renews it.
            self._entries[key] = _Entry(payload, entry.expires_at_s, beside)
        return successor

    async def get(self, run_id: str, tool_call_id: str) -> CanonicalInvocation | None:
        """Read a record without touching its TTL; None when absent or expired."""
        self._gate("get")
        entry = self._live((run_id, tool_call_id))
        return (
            None if entry is None else decode_record(entry.payload, op="get", beside=entry.beside)
        )

    async def remaining_ttl_ms(self, run_id: str, tool_call_id: str) -> int | None:
        """Remaining lifetime in milliseconds, or None when absent or expired."""
        self._gate("remaining_ttl_ms")
        entry = self._live((run_id, tool_call_id))
        if entry is None:
            return None
        remaining_ms = (entry.expires_at_s - self._clock.monotonic()) * 1000
        # Round away float noise first (60 - 59.999 is 0.00099999...), then report a live
        # record as at least 1 ms so that "alive" and "0" can never be confused.
        return max(1, math.ceil(round(remaining_ms, 6)))
