"""A clock that moves only when a test says so."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

__all__ = ["FakeClock"]

_DEFAULT_START = datetime(2024, 5, 1, 14, 0, tzinfo=UTC)


class FakeClock:
    """Deterministic :class:`~harness.ports.Clock` for tests.

    Wall time and the monotonic reading advance together, and only through :meth:`advance`.

    Args:
        start: Initial wall time; must be timezone-aware so records never carry naive times.
        monotonic_start_s: Initial monotonic reading in seconds.
    """

    def __init__(self, start: datetime = _DEFAULT_START, *, monotonic_start_s: float = 0.0) -> None:
        if start.tzinfo is None or start.utcoffset() is None:
            raise ValueError("FakeClock start must be timezone-aware")
        self._now = start
        self._monotonic_s = monotonic_start_s

    def now(self) -> datetime:
        """Return the current fake wall time."""
        return self._now

    def monotonic(self) -> float:
        """Return the current fake monotonic reading in seconds."""
        return self._monotonic_s

    def advance(self, seconds: float) -> None:
        """Move both readings forward.

        Args:
            seconds: How far to move; negative values are refused because neither a monotonic
                clock nor the TTL logic built on it may run backwards.
        """
        if seconds < 0:
            raise ValueError("a clock cannot be advanced by a negative amount")
        self._now += timedelta(seconds=seconds)
        self._monotonic_s += seconds
