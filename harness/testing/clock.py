"""A clock that moves only when a test says so, firing timers, sleeps and timeouts on the way."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TypeVar

__all__ = ["FakeClock", "FakeTimer", "until"]

T = TypeVar("T")

_DEFAULT_START = datetime(2024, 5, 1, 14, 0, tzinfo=UTC)


@dataclass(order=True)
class FakeTimer:
    """A callback due at a monotonic instant; ``cancel()`` stops it from firing."""

    due_s: float
    seq: int
    callback: Callable[[], None] = field(compare=False)
    cancelled: bool = field(default=False, compare=False)

    def cancel(self) -> None:
        self.cancelled = True


class FakeClock:
    """Deterministic :class:`~harness.ports.Clock` for tests.

    Wall time and the monotonic reading advance together, and only through :meth:`advance`,
    which fires every timer that falls due — in due order, each seeing ``now()`` at its own
    due instant. ``sleep`` and ``wait_for`` are built on those timers, so a run deadline, a
    model timeout or a tool timeout fires exactly when the test moves time past it, with no
    wall-clock wait.

    Args:
        start: Initial wall time; must be timezone-aware so records never carry naive times.
        monotonic_start_s: Initial monotonic reading in seconds.
    """

    def __init__(self, start: datetime = _DEFAULT_START, *, monotonic_start_s: float = 0.0) -> None:
        if start.tzinfo is None or start.utcoffset() is None:
            raise ValueError("FakeClock start must be timezone-aware")
        self._start = start
        self._start_monotonic_s = monotonic_start_s
        self._monotonic_s = monotonic_start_s
        self._timers: list[FakeTimer] = []
        self._seq = itertools.count()

    # ------------------------------------------------------------------ readings

    def now(self) -> datetime:
        """Return the current fake wall time."""
        return self._start + timedelta(seconds=self._monotonic_s - self._start_monotonic_s)

    def monotonic(self) -> float:
        """Return the current fake monotonic reading in seconds."""
        return self._monotonic_s

    # ------------------------------------------------------------------ timers

    def call_later(self, delay_s: float, callback: Callable[[], None]) -> FakeTimer:
        """Schedule ``callback`` at ``monotonic() + delay_s``; it fires inside :meth:`advance`."""
        timer = FakeTimer(self._monotonic_s + max(0.0, delay_s), next(self._seq), callback)
        heapq.heappush(self._timers, timer)
        return timer

    async def sleep(self, delay_s: float) -> None:
        """Wait until the clock has been advanced by ``delay_s``."""
        if delay_s <= 0:
            await asyncio.sleep(0)
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def wake() -> None:
            if not waiter.done():
                waiter.set_result(None)

        timer = self.call_later(delay_s, wake)
        try:
            await waiter
        finally:
            timer.cancel()

    async def wait_for(self, awaitable: Awaitable[T], timeout_s: float) -> T:
        """Await ``awaitable``; cancel it and raise TimeoutError once ``timeout_s`` passed."""
        task = asyncio.ensure_future(awaitable)
        expired = False

        def expire() -> None:
            nonlocal expired
            if not task.done():
                expired = True
                task.cancel()

        timer = self.call_later(timeout_s, expire)
        try:
            return await task
        except asyncio.CancelledError:
            if expired:
                raise TimeoutError from None
            raise
        finally:
            timer.cancel()

    @property
    def pending_timers(self) -> int:
        """Timers scheduled and neither fired nor cancelled."""
        return sum(not t.cancelled for t in self._timers)

    # ------------------------------------------------------------------ moving time

    def advance(self, seconds: float) -> None:
        """Move both readings forward, firing the timers that fall due on the way.

        Args:
            seconds: How far to move; negative values are refused because neither a monotonic
                clock nor the TTL logic built on it may run backwards.
        """
        if seconds < 0:
            raise ValueError("a clock cannot be advanced by a negative amount")
        target = self._monotonic_s + seconds
        while self._timers and self._timers[0].due_s <= target:
            timer = heapq.heappop(self._timers)
            if timer.cancelled:
                continue
            self._monotonic_s = max(self._monotonic_s, timer.due_s)
            timer.callback()
        self._monotonic_s = target


async def until(predicate: Callable[[], bool], *, max_turns: int = 100_000) -> None:
    """Yield to the event loop until ``predicate()`` holds (no wall-clock sleeping).

    Raises:
        AssertionError: The predicate still fails after ``max_turns`` loop turns.
    """
    for _ in range(max_turns):
        if predicate():
            return
        await asyncio.sleep(0)
    raise AssertionError("condition not reached")
