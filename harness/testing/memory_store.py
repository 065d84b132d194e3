"""An in-process CanonicalStore with an injected clock, for deterministic tests.

It keeps the same contract as ``harness.adapters.redis_store.RedisCanonicalStore``: records are
stored serialised (so a caller's later mutation cannot leak in and size limits match), the TTL is
fixed at ``begin`` and never renewed, and a transition on an expired record is RECORD_EXPIRED
without recreating it. Expiry follows ``clock.monotonic()``, so ``FakeClock.advance`` drives it.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from dataclasses import dataclass

from harness.clock import SystemClock
from harness.errors import ErrorCode, RecordExpired, StoreError
from harness.invocation import CanonicalInvocation
from harness.ports import Clock
from harness.store import TransitionMethods, decode_record, encode_record, require_projecting

__all__ = ["InMemoryCanonicalStore"]


@dataclass(slots=True)
class _Entry:
    payload: bytes
    expires_at_s: float


class InMemoryCanonicalStore(TransitionMethods):
    """Pure-Python :class:`~harness.ports.CanonicalStore` with outage simulation.

    Args:
        clock: Source of monotonic time for expiry; defaults to the system clock.
        ttl_s: Lifetime of a record from ``begin``; never renewed.
        max_record_bytes: Largest serialised record accepted.

    Attributes:
        down: While true, every operation raises StoreError(STORE_ERROR).
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
        self.down = False
        self._clock: Clock = clock or SystemClock()
        self._entries: dict[tuple[str, str], _Entry] = {}
        self._failures_left = 0
        # Transitions are read-check-write; the lock keeps that atomic even if an await is
        # ever added inside the critical section.
        self._lock = asyncio.Lock()

    def fail_next(self, n: int = 1) -> None:
        """Make the next ``n`` operations raise StoreError(STORE_ERROR)."""
        self._failures_left += n

    def _gate(self, op: str) -> None:
        if self.down:
            raise StoreError(ErrorCode.STORE_ERROR, "store is down", {"op": op})
        if self._failures_left > 0:
            self._failures_left -= 1
            raise StoreError(ErrorCode.STORE_ERROR, "injected store failure", {"op": op})

    def _live(self, key: tuple[str, str]) -> _Entry | None:
        entry = self._entries.get(key)
        if entry is not None and self._clock.monotonic() >= entry.expires_at_s:
            # Expired entries are dropped lazily, as Redis does on access.
            del self._entries[key]
            return None
        return entry

    async def begin(self, record: CanonicalInvocation) -> None:
        """Create a PROJECTING record with a fresh TTL.

        Raises:
            StoreError: ILLEGAL_TRANSITION (not PROJECTING), RECORD_TOO_LARGE,
                DUPLICATE_TOOL_CALL_ID (key present), STORE_ERROR (simulated outage).
        """
        self._gate("begin")
        require_projecting(record, op="begin")
        payload = encode_record(record, max_record_bytes=self.max_record_bytes, op="begin")
        key = (record.run_id, record.tool_call_id)
        async with self._lock:
            if self._live(key) is not None:
                raise StoreError(
                    ErrorCode.DUPLICATE_TOOL_CALL_ID, "record already exists", {"op": "begin"}
                )
            self._entries[key] = _Entry(payload, self._clock.monotonic() + self.ttl_s)

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
            successor = build(decode_record(entry.payload, op=op))
            payload = encode_record(successor, max_record_bytes=self.max_record_bytes, op=op)
            # Same expiry instant: a transition keeps the remaining TTL, never renews it.
            self._entries[key] = _Entry(payload, entry.expires_at_s)
        return successor

    async def get(self, run_id: str, tool_call_id: str) -> CanonicalInvocation | None:
        """Read a record without touching its TTL; None when absent or expired."""
        self._gate("get")
        entry = self._live((run_id, tool_call_id))
        return None if entry is None else decode_record(entry.payload, op="get")

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
