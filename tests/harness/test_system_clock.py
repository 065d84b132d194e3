"""SystemClock.wait_for: asyncio.wait_for's contract, without a task per call."""

from __future__ import annotations

import asyncio

import pytest

from harness.clock import SystemClock


def test_result_of_an_awaitable_that_finishes_in_time() -> None:
    async def answer() -> int:
        await asyncio.sleep(0)
        return 42

    async def main() -> int:
        return await SystemClock().wait_for(answer(), 1.0)

    assert asyncio.run(main()) == 42


def test_timeout_cancels_the_awaitable_and_raises_timeout_error() -> None:
    cancelled = False

    async def hang() -> None:
        nonlocal cancelled
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled = True
            raise

    async def main() -> None:
        with pytest.raises(TimeoutError):
            await SystemClock().wait_for(hang(), 0.01)

    asyncio.run(main())
    assert cancelled


@pytest.mark.parametrize("timeout_s", [0.0, -5.0])
def test_a_spent_timeout_never_starts_a_coroutine(timeout_s: float) -> None:
    started = False

    async def work() -> None:
        nonlocal started
        started = True

    async def main() -> None:
        with pytest.raises(TimeoutError):
            await SystemClock().wait_for(work(), timeout_s)

    asyncio.run(main())
    assert not started


def test_a_done_future_with_a_spent_timeout_gives_its_result() -> None:
    async def main() -> str:
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        future.set_result("done")
        return await SystemClock().wait_for(future, 0)

    assert asyncio.run(main()) == "done"


def test_a_future_is_cancelled_on_timeout() -> None:
    async def main() -> asyncio.Future[None]:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        with pytest.raises(TimeoutError):
            await SystemClock().wait_for(future, 0.01)
        return future

    assert asyncio.run(main()).cancelled()


def test_cancelling_the_caller_is_a_cancellation_not_a_timeout() -> None:
    async def main() -> None:
        task = asyncio.ensure_future(SystemClock().wait_for(asyncio.sleep(60), 30.0))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())


def test_errors_of_the_awaitable_pass_through() -> None:
    async def fail() -> None:
        raise ValueError("boom")

    async def main() -> None:
        with pytest.raises(ValueError, match="boom"):
            await SystemClock().wait_for(fail(), 1.0)

    asyncio.run(main())
