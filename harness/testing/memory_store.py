"""An in-process CanonicalStore with an injected clock and outage simulation, for tests.

It is :class:`harness.store.local.LocalCanonicalStore` — the embedded store, which keeps the
contract of ``harness.adapters.redis_store.RedisCanonicalStore`` — plus a switch that makes every
operation fail (``down``) and a count of operations to fail next (``fail_next``).
"""

from __future__ import annotations

from harness.contracts.errors import ErrorCode, StoreError
from harness.ports import Clock
from harness.store.local import LocalCanonicalStore

__all__ = ["InMemoryCanonicalStore"]


class InMemoryCanonicalStore(LocalCanonicalStore):
    """:class:`~harness.store.local.LocalCanonicalStore` with outage simulation.

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
        super().__init__(clock, ttl_s=ttl_s, max_record_bytes=max_record_bytes)
        self.down = False
        self._failures_left = 0

    def fail_next(self, n: int = 1) -> None:
        """Make the next ``n`` operations raise StoreError(STORE_ERROR)."""
        self._failures_left += n

    def _gate(self, op: str) -> None:
        if self.down:
            raise StoreError(ErrorCode.STORE_ERROR, "store is down", {"op": op})
        if self._failures_left > 0:
            self._failures_left -= 1
            raise StoreError(ErrorCode.STORE_ERROR, "injected store failure", {"op": op})
