"""ToolSlots: a bounded FIFO pool; waiters that are cancelled take nothing with them."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.admission import SlotLease, ToolSlots
from harness.testing.clock import until


def test_capacity_must_be_positive() -> None:
    with pytest.raises(ValueError):
        ToolSlots(0)


def test_a_full_pool_queues_the_next_caller_until_a_slot_frees() -> None:
    async def main() -> list[tuple[int, int]]:
        slots = ToolSlots(2)
        first, second = await slots.acquire(), await slots.acquire()
        third = asyncio.create_task(slots.acquire())
        await until(lambda: slots.waiting == 1)
        seen = [(slots.in_use, slots.waiting)]
        assert slots.try_acquire() is None and not third.done()
        first.release()
        lease = await third
        seen.append((slots.in_use, slots.waiting))
        second.release()
        lease.release()
        seen.append((slots.in_use, slots.waiting))
        return seen

    assert asyncio.run(main()) == [(2, 1), (2, 0), (0, 0)]


def test_waiters_are_served_first_come_first_served() -> None:
    async def main() -> list[int]:
        slots = ToolSlots(1)
        held = await slots.acquire()
        order: list[int] = []

        async def take(n: int) -> None:
            lease = await slots.acquire()
            order.append(n)
            lease.release()

        tasks = [asyncio.create_task(take(n)) for n in range(5)]
        await until(lambda: slots.waiting == 5)
        held.release()
        await asyncio.gather(*tasks)
        return order

    assert asyncio.run(main()) == [0, 1, 2, 3, 4]


def test_a_free_slot_is_not_taken_past_callers_already_queued() -> None:
    async def main() -> tuple[SlotLease | None, int]:
        slots = ToolSlots(1)
        held = await slots.acquire()
        queued = asyncio.create_task(slots.acquire())
        await until(lambda: slots.waiting == 1)
        held.release()  # handed straight to the waiter: nothing free for a newcomer
        newcomer = slots.try_acquire()
        (await queued).release()
        return newcomer, slots.in_use

    assert asyncio.run(main()) == (None, 0)


def test_a_cancelled_waiter_takes_nothing_and_leaves_the_queue() -> None:
    async def main() -> tuple[int, int, bool]:
        slots = ToolSlots(1)
        held = await slots.acquire()
        gone = asyncio.create_task(slots.acquire())
        after = asyncio.create_task(slots.acquire())
        await until(lambda: slots.waiting == 2)
        gone.cancel()
        with pytest.raises(asyncio.CancelledError):
            await gone
        in_use, waiting = slots.in_use, slots.waiting
        held.release()
        lease = await after  # the slot skips the cancelled waiter
        lease.release()
        return in_use, waiting, slots.try_acquire() is not None

    assert asyncio.run(main()) == (1, 1, True)


def test_a_slot_granted_as_its_waiter_is_cancelled_passes_on() -> None:
    async def main() -> tuple[int, bool]:
        slots = ToolSlots(1)
        held = await slots.acquire()
        unlucky = asyncio.create_task(slots.acquire())
        next_in_line = asyncio.create_task(slots.acquire())
        await until(lambda: slots.waiting == 2)
        held.release()  # granted to ``unlucky``, which is cancelled before it resumes
        unlucky.cancel()
        with pytest.raises(asyncio.CancelledError):
            await unlucky
        lease = await next_in_line
        in_use = slots.in_use
        lease.release()
        return in_use, slots.try_acquire() is not None

    assert asyncio.run(main()) == (1, True)


def test_release_is_idempotent() -> None:
    async def main() -> tuple[bool, int, int]:
        slots = ToolSlots(2)
        lease = await slots.acquire()
        lease.release()
        lease.release()
        return lease.held, slots.in_use, slots.capacity

    assert asyncio.run(main()) == (False, 0, 2)


def test_a_withheld_slot_admits_no_one_until_given_back() -> None:
    async def main() -> list[int]:
        slots = ToolSlots(1)
        lease = await slots.acquire()
        give_back = slots.withhold()  # the work outlives its lease (a stuck thread)
        lease.release()
        assert slots.try_acquire() is None
        waiter = asyncio.create_task(slots.acquire())
        await until(lambda: slots.waiting == 1)
        seen = [slots.in_use]
        give_back()
        give_back()  # once only
        (await waiter).release()
        seen.append(slots.in_use)
        return seen

    assert asyncio.run(main()) == [1, 0]


@given(
    capacity=st.integers(1, 4),
    steps=st.lists(st.sampled_from(["take", "release", "cancel"]), max_size=40),
)
def test_slots_in_use_never_exceed_capacity_and_all_come_back(
    capacity: int, steps: list[str]
) -> None:
    async def main() -> None:
        slots = ToolSlots(capacity)
        held: list[SlotLease] = []
        waiting: list[asyncio.Task[SlotLease]] = []
        for step in steps:
            if step == "take":
                waiting.append(asyncio.create_task(slots.acquire()))
            elif step == "release" and held:
                held.pop(0).release()
            elif step == "cancel" and waiting:
                waiting.pop(0).cancel()
            await asyncio.sleep(0)
            for task in [t for t in waiting if t.done()]:
                waiting.remove(task)
                if not task.cancelled():
                    held.append(task.result())
            assert len(held) <= capacity and slots.in_use <= capacity
        for task in waiting:
            task.cancel()
        await asyncio.gather(*waiting, return_exceptions=True)
        for task in waiting:
            if not task.cancelled():
                held.append(task.result())
        for lease in held:
            lease.release()
        assert (slots.in_use, slots.waiting) == (0, 0)

    asyncio.run(main())
