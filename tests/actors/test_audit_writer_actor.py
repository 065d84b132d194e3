"""The node's audit writer on Ray: runs on RunActors are audited through one named writer
actor; the sink never raises into a run, and counts what it could not hand over."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable

import ray

from actors.audit_writer import AUDIT_WRITER_PREFIX, RayAuditSink, audit_writer_name
from actors.factory import audit_writer_options
from actors.pool import RunPool
from actors.testing import FakeDepsFactory
from harness.adapters.audit_sql import SqlAuditStore
from harness.contracts.ingress import RunRequest
from harness.testing.clock import FakeClock
from harness.testing.records import run_record
from tests.actors.actor_helpers import eventually


def test_runs_on_actors_are_audited_by_the_one_writer_of_the_node(ray_cluster: None) -> None:
    url = os.environ["HARNESS_AUDIT_URL"]

    async def scenario() -> list[str]:
        factory = FakeDepsFactory(audit_url=url)
        async with RunPool(2, 1, factory, name_prefix="audit-pool") as pool:
            results = await asyncio.gather(
                *(pool.run(RunRequest(question=f"hello {i}")) for i in range(4))
            )
        run_ids = [r.run_id for r in results]
        assert pool.unrecorded == 0
        store = SqlAuditStore.open(url)
        try:
            # Closing the pool had each actor hand its records over and have them written:
            # they are stored the moment the pool is closed, with no wait (a CLI exits then).
            assert [await store.run(run_id) is not None for run_id in run_ids] == [True] * 4
            timeline = await store.timeline(run_ids[0])
        finally:
            store.close()
        assert timeline[0].event_type == "RUN_STARTED"
        assert timeline[-1].event_type == "RUN_FINISHED"
        return [n for n in ray.util.list_named_actors() if n.startswith(AUDIT_WRITER_PREFIX)]

    writers = asyncio.run(scenario())
    assert writers == [audit_writer_name(ray.get_runtime_context().get_node_id())]


def test_writer_options_are_one_detached_zero_cpu_actor_per_node() -> None:
    options = audit_writer_options("audit-writer-n1", "ab" * 28)
    strategy = options.pop("scheduling_strategy")
    assert (strategy.node_id, strategy.soft) == ("ab" * 28, False)
    assert options == {
        "name": "audit-writer-n1",
        "get_if_exists": True,
        "lifetime": "detached",
        "num_cpus": 0,
        "max_restarts": -1,
        "max_task_retries": 0,
        "max_concurrency": 64,
        "max_pending_calls": 10_000,
    }


class _Refusing:
    """A handle whose submissions fail the way a full mailbox does."""

    class record:
        @staticmethod
        def remote(*_: object) -> None:
            raise ray.exceptions.PendingCallsLimitExceeded("mailbox full")


def test_sink_counts_refused_submissions_and_a_dead_writer_without_raising(
    ray_cluster: None,
) -> None:
    @ray.remote(num_cpus=0)
    class Dying:
        def record(self, _: object) -> None:
            raise SystemExit  # the actor process exits mid-call

    metric_calls: list[None] = []
    record = run_record("run-x", at=FakeClock().now())

    async def scenario() -> tuple[int, int]:
        refusing = RayAuditSink(lambda: _Refusing(), on_failure=lambda: metric_calls.append(None))
        await refusing.record(record)
        dying = Dying.options(max_restarts=0).remote()  # type: ignore[attr-defined]
        dead = RayAuditSink(lambda: dying)
        await dead.record(record)  # returns at once: the failure arrives later
        sent = dead.sent
        await eventually(_async(lambda: dead.failures == 1), timeout_s=20)
        return refusing.failures, sent

    assert asyncio.run(scenario()) == (1, 1)
    assert metric_calls == [None]


def test_a_drain_counts_the_records_a_writer_has_not_taken_when_the_wait_ends(
    ray_cluster: None,
) -> None:
    @ray.remote(num_cpus=0)
    class Stuck:
        async def record(self, _: object) -> None:
            await asyncio.sleep(60)

        async def flush(self) -> None:
            return None

    record = run_record("run-y", at=FakeClock().now())

    async def scenario() -> tuple[int, int]:
        stuck = Stuck.remote()  # type: ignore[attr-defined]
        sink = RayAuditSink(lambda: stuck)
        await sink.record(record)
        late = await sink.drain(0.5)
        ray.kill(stuck)
        idle = await RayAuditSink(lambda: stuck).drain(0.5)  # nothing handed over: nothing owed
        return late, idle

    assert asyncio.run(scenario()) == (1, 0)


def _async(predicate: Callable[[], bool]) -> Callable[[], Awaitable[bool]]:
    async def probe() -> bool:
        return bool(predicate())

    return probe
