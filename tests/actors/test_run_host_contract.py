"""The run pools, and the run desk over each, against the run-host contract
(tests/runhost_contract.py): the in-process pool without Ray, the Ray pool with it."""

from __future__ import annotations

import asyncio

import pytest

from actors.desk import RunDesk
from actors.pool import RunPool
from actors.testing import FakeDepsFactory
from harness.testing.local_pool import LocalRunPool
from tests.runhost_contract import check_run_host


def test_the_local_pool_keeps_the_run_host_contract() -> None:
    async def main() -> None:
        pool = await LocalRunPool(FakeDepsFactory()(), slots=2).start()
        try:
            await check_run_host(pool)
        finally:
            await pool.close()

    asyncio.run(main())


def test_the_desk_over_the_local_pool_keeps_the_run_host_contract() -> None:
    async def main() -> None:
        desk = RunDesk(lambda: LocalRunPool(FakeDepsFactory()(), slots=2))
        await desk.start()
        try:
            await check_run_host(desk)
        finally:
            await desk.close()

    asyncio.run(main())


@pytest.mark.usefixtures("ray_cluster")
def test_the_ray_pool_keeps_the_run_host_contract() -> None:
    async def main() -> None:
        async with RunPool(1, 2, FakeDepsFactory(), name_prefix="contract-actor") as pool:
            await check_run_host(pool)

    asyncio.run(main())


@pytest.mark.usefixtures("ray_cluster")
def test_the_desk_over_the_ray_pool_keeps_the_run_host_contract() -> None:
    async def main() -> None:
        desk = RunDesk(lambda: RunPool(1, 2, FakeDepsFactory(), name_prefix="contract-desk"))
        await desk.start()
        try:
            await check_run_host(desk)
        finally:
            await desk.close()

    asyncio.run(main())
