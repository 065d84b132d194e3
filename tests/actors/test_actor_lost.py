"""A RunActor that dies or hangs mid-run: its runs end FAILED with RUN_LOST; the pool heals."""

from __future__ import annotations

import asyncio
import time

import pytest
import ray
from actor_helpers import eventually

from actors.pool import RunPool
from actors.testing import FakeDepsFactory
from harness.contracts.errors import ErrorCode
from harness.contracts.ingress import RunRequest
from harness.contracts.results import Answer, StableFailure
from harness.contracts.status import RunStatus
from harness.run.snapshot import RunPhase, RunSnapshot

pytestmark = pytest.mark.usefixtures("ray_cluster")


def test_killed_actor_loses_its_runs_and_is_replaced() -> None:
    async def main() -> None:
        async with RunPool(
            1, 2, FakeDepsFactory(), name_prefix="kill-actor", health_check_period_s=0.5
        ) as pool:
            slow = RunRequest(question="wait for me @route_s=60")
            run_ids = [await pool.submit(slow), await pool.submit(slow)]

            seen: list[int] = []

            async def both_routing() -> bool:
                snapshots = [await pool.status(r) for r in run_ids]
                seen[:] = [s.sequence_no or 0 for s in snapshots]
                return [s.phase.value for s in snapshots] == ["ROUTING", "ROUTING"]

            await eventually(both_routing)
            victim = pool.actor_of(run_ids[0])
            assert victim is not None and pool.actor_of(run_ids[1]) is victim
            killed_at = time.monotonic()
            ray.kill(victim)
            results = [await pool.result(r, timeout_s=10) for r in run_ids]
            lost_after_s = time.monotonic() - killed_at

            assert results == [
                StableFailure(run_id=r, error_code=ErrorCode.RUN_LOST) for r in run_ids
            ]
            assert lost_after_s < 5.0
            status = await pool.status(run_ids[0])
            assert status == RunSnapshot(
                run_id=run_ids[0],
                status=RunStatus.FAILED,
                phase=RunPhase.DONE,
                result_kind="StableFailure",
                sequence_no=seen[0] + 1,  # the timeline closes past the last event read
            )
            assert status.reduced  # the actor is gone: no figures are claimed

            after = await pool.submit(RunRequest(question="again @answer=back"))
            assert await pool.result(after, timeout_s=30) == Answer(
                run_id=after, intent="SYSTEM_CHAT", text="back"
            )
            assert ([a.name for a in pool.actors()], pool.host_of(after)) == (
                ["kill-actor-2"],
                "kill-actor-2",
            )
            assert (pool.replaced, pool.lost_runs) == (1, 2)

    asyncio.run(main())


def test_hung_actor_fails_its_health_check_and_is_replaced() -> None:
    async def main() -> None:
        async with RunPool(
            1,
            1,
            FakeDepsFactory(),
            name_prefix="hung-actor",
            health_check_period_s=0.3,
            health_check_timeout_s=1.0,
            hung_after_s=1.0,
        ) as pool:
            run_id = await pool.submit(RunRequest(question="hang @route_block_s=30"))
            started = time.monotonic()
            result = await pool.result(run_id, timeout_s=15)
            assert result == StableFailure(run_id=run_id, error_code=ErrorCode.RUN_LOST)
            assert time.monotonic() - started < 5.0
            after = await pool.submit(RunRequest(question="fine @answer=ok"))
            assert await pool.result(after, timeout_s=30) == Answer(
                run_id=after, intent="SYSTEM_CHAT", text="ok"
            )
            assert pool.host_of(after) == "hung-actor-2"

    asyncio.run(main())


def test_busy_actor_is_not_taken_for_a_hung_one() -> None:
    # The actor's run loop is blocked for 3 s, far beyond the health check's timeout: a check
    # answered on that loop would time out and the pool would kill the actor with its runs.
    # Answered off the loop, it reports the loop late but alive (under ``hung_after_s``), so
    # the run ends as it would have, and its neighbour on the same actor too.
    async def main() -> None:
        async with RunPool(
            1,
            2,
            FakeDepsFactory(),
            name_prefix="busy-actor",
            health_check_period_s=0.2,
            health_check_timeout_s=0.5,
            hung_after_s=20.0,
        ) as pool:
            neighbour = await pool.submit(RunRequest(question="next door @answer=fine"))
            busy = await pool.submit(RunRequest(question="busy @route_block_s=3 @answer=late"))
            started = time.monotonic()
            assert await pool.result(busy, timeout_s=30) == Answer(
                run_id=busy, intent="SYSTEM_CHAT", text="late"
            )
            assert time.monotonic() - started >= 2.5  # it really blocked the loop
            assert await pool.result(neighbour, timeout_s=30) == Answer(
                run_id=neighbour, intent="SYSTEM_CHAT", text="fine"
            )
            assert (pool.replaced, pool.lost_runs) == (0, 0)
            assert [a.name for a in pool.actors()] == ["busy-actor-1"]

    asyncio.run(main())
