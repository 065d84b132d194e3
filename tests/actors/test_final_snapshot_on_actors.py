"""A settled run's snapshot through pooled RunActors is its final one: it reflects the whole
timeline and reads the same from status and watch, before and after the actor forgot the run."""

from __future__ import annotations

import asyncio

import pytest
from actor_helpers import eventually

from actors.pool import RunPool
from actors.testing import FakeDepsFactory
from harness.contracts.ingress import RunRequest
from harness.run.snapshot import RunSnapshot

pytestmark = pytest.mark.usefixtures("ray_cluster")


def test_a_settled_run_reads_its_final_snapshot_even_once_its_actor_forgot_it() -> None:
    async def main() -> list[RunSnapshot]:
        async with RunPool(
            1, 2, FakeDepsFactory(), name_prefix="ttl-actor", result_ttl_s=0.5
        ) as pool:
            run_id = await pool.submit(RunRequest(question="why @intent=DIAGNOSIS"))
            await pool.result(run_id, timeout_s=30)
            timeline = await pool.trace(run_id, "anonymous")
            assert timeline is not None and timeline[-1].event_type == "RUN_FINISHED"
            kept = [
                await pool.status(run_id),
                (await pool.watch(run_id, "anonymous", 0, 1)).progress,
            ]

            async def forgotten() -> bool:
                return await pool.trace(run_id, "anonymous") is None

            await eventually(forgotten, timeout_s=10)
            later = [
                await pool.status(run_id),
                (await pool.watch(run_id, "anonymous", 0, 1)).progress,
            ]
            assert kept[0].sequence_no == timeline[-1].sequence_no
            return kept + later

    first, *others = asyncio.run(main())
    assert not first.reduced and others == [first] * 3
