"""The run desk actor behind its handle (``serve.plane.RayRunPlane``, what every HTTP replica
talks to) against the run-host contract (tests/runhost_contract.py): the same answers as the
desk in process, Ray's own errors mapped on the way."""

from __future__ import annotations

import asyncio

import pytest

from actors.factory import connect_run_desk
from actors.pool_spec import PoolSpec
from actors.testing import FakeDepsFactory
from serve.plane import RayRunPlane
from tests.runhost_contract import check_run_host

DESK = "contract-plane-desk"


@pytest.mark.usefixtures("ray_cluster")
def test_the_desk_actor_behind_its_handle_keeps_the_run_host_contract() -> None:
    import ray

    desk = connect_run_desk(
        PoolSpec(
            size=1,
            runs_per_actor=2,
            deps_factory=FakeDepsFactory(),
            name_prefix="contract-plane-actor",
        ),
        max_runs=100,
        idempotency_ttl_s=60.0,
        name=DESK,
    )

    async def main() -> None:
        await desk.start.remote()
        try:
            await check_run_host(RayRunPlane(desk))
        finally:
            await desk.close.remote()

    try:
        asyncio.run(main())
    finally:
        ray.kill(desk, no_restart=True)
