"""ToolSlots: the bounded pool of tool-call slots one process shares among all its runs.

A tool call holds a slot from the moment its backend work is submitted until its projection
is read; the executor owns the pool (its capacity is how much tool work the executor can run
at once), the boundary takes a slot before it begins the canonical record. Waiting for a slot
is *admission*, not execution: the backend timeout starts once the slot is held, so a call
that queued behind a burst is never reported as a backend that timed out.

All of it runs on one event loop (a RunActor's), FIFO, with no threads and no locks. A waiter
that is cancelled (its run was cancelled or hit its deadline) leaves the queue and takes
nothing with it; a slot handed to a waiter at the moment it is cancelled passes on to the
next one.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable

__all__ = ["SlotLease", "ToolSlots"]


class SlotLease:
    """One held slot; :meth:`release` gives it back once, later calls do nothing."""

    __slots__ = ("_slots",)

    def __init__(self, slots: ToolSlots) -> None:
        self._slots: ToolSlots | None = slots

    @property
    def held(self) -> bool:
        """True until released."""
        return self._slots is not None

    def release(self) -> None:
        """Give the slot back (to the longest waiter, if any)."""
        slots, self._slots = self._slots, None
        if slots is not None:
            slots._hand_on()


class ToolSlots:
    """A FIFO pool of ``capacity`` slots on the running event loop.

    Args:
        capacity: Slots, at least one.
    """

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError("a tool slot pool needs at least one slot")
        self.capacity = capacity
        self._free = capacity
        self._waiters: deque[asyncio.Future[None]] = deque()

    @property
    def in_use(self) -> int:
        """Slots held (or withheld) now."""
        return self.capacity - self._free

    @property
    def waiting(self) -> int:
        """Callers queued for a slot now."""
        return sum(not w.done() for w in self._waiters)

    def try_acquire(self) -> SlotLease | None:
        """A free slot at once, or None when every slot is held or others queue before."""
        if self._free > 0 and not self._waiters:
            self._free -= 1
            return SlotLease(self)
        return None

    async def acquire(self) -> SlotLease:
        """Wait for a free slot (first come, first served) and hold it.

        Cancelling the caller while it waits takes nothing from the pool.
        """
        lease = self.try_acquire()
        if lease is not None:
            return lease
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self._hand_on()  # granted as the cancel came in: the slot is not ours to keep
            elif waiter in self._waiters:
                self._waiters.remove(waiter)
            raise
        return SlotLease(self)

    def withhold(self) -> Callable[[], None]:
        """Take one slot out of service now, even when none is free, until the returned
        callback runs: for work that outlives its lease (a backend thread that timed out and
        cannot be stopped). Until then the pool admits one call fewer, so the executor never
        promises more capacity than it has.
        """
        self._free -= 1  # may go below zero: the next release repays it before any waiter
        given_back = False

        def give_back() -> None:
            nonlocal given_back
            if not given_back:
                given_back = True
                self._hand_on()

        return give_back

    def _hand_on(self) -> None:
        """A released slot goes straight to the longest waiter, or back to the pool."""
        if self._free < 0:
            self._free += 1  # a withheld slot's debt first
            return
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return
        self._free += 1
