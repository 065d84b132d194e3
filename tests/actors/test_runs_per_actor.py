"""K runs share one RunActor and run at the same time; a fresh-actor pool uses one per run."""

from __future__ import annotations

import asyncio

import pytest
from actor_helpers import eventually

from actors.pool import ActorView, RunPool
from actors.testing import FakeDepsFactory
from harness.contracts.errors import ErrorCode, HarnessError, RateLimited
from harness.contracts.ingress import RunRequest
from harness.contracts.results import Answer, Cancelled
from harness.contracts.status import RunStatus
from harness.run.snapshot import RunPhase

pytestmark = pytest.mark.usefixtures("ray_cluster")

K = 4


def test_k_runs_run_concurrently_on_one_actor() -> None:
    async def main() -> None:
        async with RunPool(1, K, FakeDepsFactory(), name_prefix="dense-actor") as pool:
            # Each answer waits until K runs of the actor reach it: only concurrency passes.
            run_ids = [
                await pool.submit(RunRequest(question=f"meet @barrier={K}")) for _ in range(K)
            ]
            results = await asyncio.gather(*(pool.result(r, timeout_s=30) for r in run_ids))
            assert results == [
                Answer(run_id=r, intent="SYSTEM_CHAT", text="together") for r in run_ids
            ]
            assert {pool.host_of(r) for r in run_ids} == {"dense-actor-1"}
            assert pool.actors() == [
                ActorView(name="dense-actor-1", pid=pool.actors()[0].pid, load=0, started=K)
            ]

    asyncio.run(main())


def test_a_full_pool_waits_for_a_free_slot() -> None:
    async def main() -> None:
        async with RunPool(1, 1, FakeDepsFactory(), name_prefix="full-actor") as pool:
            first = await pool.submit(RunRequest(question="first @route_s=0.5 @answer=1"))
            second_submit = asyncio.create_task(
                pool.submit(RunRequest(question="second @answer=2"))
            )

            async def first_routing() -> bool:
                return (await pool.status(first)).phase is RunPhase.ROUTING

            await eventually(first_routing)
            # While the only slot is taken, the second run is not placed anywhere; a third,
            # queued behind it, is cancelled before it ever starts.
            third_submit = asyncio.create_task(
                pool.submit(RunRequest(question="third @answer=3"), run_id="run-queued")
            )

            async def third_queued() -> bool:
                try:
                    return (await pool.status("run-queued")).status is RunStatus.PENDING
                except HarnessError:  # not registered yet
                    return False

            await eventually(third_queued)
            assert (second_submit.done(), pool.host_of("run-queued")) == (False, None)
            assert (await pool.cancel("run-queued", "anonymous")).cancelled is True
            assert await pool.result("run-queued", timeout_s=5) == Cancelled(run_id="run-queued")
            second = await second_submit
            assert await third_submit == "run-queued"
            results = [await pool.result(r, timeout_s=30) for r in (first, second)]
            # Placed on a full actor it would have been refused (RATE_LIMITED), not answered.
            assert results == [
                Answer(run_id=first, intent="SYSTEM_CHAT", text="1"),
                Answer(run_id=second, intent="SYSTEM_CHAT", text="2"),
            ]
            assert pool.actors()[0].load == 0 and pool.actors()[0].started == 2

    asyncio.run(main())


def test_fresh_actor_per_run_starts_and_kills_one_actor_per_run() -> None:
    async def main() -> None:
        async with RunPool(
            1, 1, FakeDepsFactory(), name_prefix="fresh-actor", fresh_actor_per_run=True
        ) as pool:
            run_ids = [await pool.submit(RunRequest(question=f"@answer={n}")) for n in "ab"]
            results = [await pool.result(r, timeout_s=30) for r in run_ids]
            assert results == [
                Answer(run_id=r, intent="SYSTEM_CHAT", text=n)
                for r, n in zip(run_ids, "ab", strict=True)
            ]
            assert [pool.host_of(r) for r in run_ids] == ["fresh-actor-1", "fresh-actor-2"]
            assert pool.actors() == []

    asyncio.run(main())


def test_actors_are_retired_after_their_quota_of_runs() -> None:
    async def main() -> None:
        async with RunPool(
            1, 1, FakeDepsFactory(), name_prefix="quota-actor", retire_after_runs=2
        ) as pool:
            hosts = []
            for n in range(3):
                run_id = await pool.submit(RunRequest(question=f"@answer={n}"))
                await pool.result(run_id, timeout_s=30)
                hosts.append(pool.host_of(run_id))
            assert hosts == ["quota-actor-1", "quota-actor-1", "quota-actor-2"]
            assert [a.name for a in pool.actors()] == ["quota-actor-2"]

    asyncio.run(main())


def test_a_pool_with_max_waiting_refuses_beyond_it_with_overloaded() -> None:
    async def main() -> None:
        async with RunPool(
            1, 1, FakeDepsFactory(), name_prefix="admit-actor", max_waiting=1, retry_after_s=3
        ) as pool:
            running = await pool.submit(RunRequest(question="first @route_s=1 @answer=1"))
            waiting = asyncio.create_task(pool.submit(RunRequest(question="second @answer=2")))
            await eventually(lambda: _async(pool.registry.in_flight() == 2))
            with pytest.raises(RateLimited) as refused:
                await pool.submit(RunRequest(question="third @answer=3"))
            assert refused.value.error_code is ErrorCode.OVERLOADED
            assert refused.value.context == {"retry_after_s": 3}
            assert pool.registry.in_flight() == 2  # the refused run was never registered
            results = [await pool.result(r, timeout_s=30) for r in (running, await waiting)]
            assert [r.text for r in results if isinstance(r, Answer)] == ["1", "2"]
            # Slots free again: a new submission is admitted.
            admitted = await pool.submit(RunRequest(question="fourth @answer=4"))
            assert await pool.result(admitted, timeout_s=30) == Answer(
                run_id=admitted, intent="SYSTEM_CHAT", text="4"
            )

    asyncio.run(main())


async def _async(value: bool) -> bool:
    return value
