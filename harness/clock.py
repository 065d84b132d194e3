"""The production clock: UTC wall time and a monotonic reading.

Core code receives a :class:`~harness.ports.Clock` and never calls ``datetime.now`` or
``time.monotonic`` itself, so tests can inject ``harness.testing.clock.FakeClock``.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

__all__ = ["SystemClock"]


class SystemClock:
    """Real time: timezone-aware UTC wall time and ``time.monotonic``."""

    def now(self) -> datetime:
        """Return the current wall time, timezone-aware in UTC."""
        return datetime.now(UTC)

    def monotonic(self) -> float:
        """Return a monotonic reading in seconds (only differences are meaningful)."""
        return time.monotonic()
