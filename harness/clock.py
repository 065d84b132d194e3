"""The production clock: UTC wall time, a monotonic reading, timers, sleeps and timeouts.

Core code receives a :class:`~harness.ports.Clock` and never calls ``datetime.now``,
``time.monotonic``, ``asyncio.sleep``, ``loop.call_later`` or ``asyncio.wait_for`` itself, so
that tests can inject ``harness.testing.clock.FakeClock`` and move time by hand: the run
deadline, model timeouts and tool timeouts all fire from ``FakeClock.advance()``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import TypeVar

__all__ = ["SystemClock"]

T = TypeVar("T")


class SystemClock:
    """Real time on the running event loop."""

    def now(self) -> datetime:
        """Return the current wall time, timezone-aware in UTC."""
        return datetime.now(UTC)

    def monotonic(self) -> float:
        """Return a monotonic reading in seconds (only differences are meaningful)."""
        return time.monotonic()

    def call_later(self, delay_s: float, callback: Callable[[], None]) -> asyncio.TimerHandle:
        """Run ``callback`` on the running loop after ``delay_s`` seconds (cancellable)."""
        return asyncio.get_running_loop().call_later(max(0.0, delay_s), callback)

    async def sleep(self, delay_s: float) -> None:
        """Wait ``delay_s`` seconds."""
        await asyncio.sleep(max(0.0, delay_s))

    async def wait_for(self, awaitable: Awaitable[T], timeout_s: float) -> T:
        """Await ``awaitable``; cancel it and raise ``TimeoutError`` after ``timeout_s``.

        The awaitable runs in the calling task under ``asyncio.timeout`` (no task and no
        future chained per call, as ``asyncio.wait_for`` makes on 3.11: a tool call passes
        here three times). A timeout already spent is ``asyncio.wait_for``'s: a coroutine that
        has not started never does.
        """
        if timeout_s <= 0:
            return await asyncio.wait_for(awaitable, timeout=0)
        async with asyncio.timeout(timeout_s):
            return await awaitable
