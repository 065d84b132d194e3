"""RunActor as a plain object (no Ray): hosting, capacity, early cancel, forgetting."""

from __future__ import annotations

import asyncio
import time

import pytest
from actor_helpers import eventually

from actors.run_actor import HEARTBEAT_S, RunActor
from actors.testing import FakeDepsFactory
from harness.audit.records import RunRecord
from harness.contracts.errors import ErrorCode, HarnessError
from harness.contracts.ingress import RunRequest
from harness.contracts.results import Answer, Cancelled, StableFailure
from harness.contracts.status import RunStatus


def _body(question: str, **kwargs: object) -> str:
    return RunRequest(question=question, **kwargs).model_dump_json()  # type: ignore[arg-type]


def test_hosts_runs_and_releases_each_result_once() -> None:
    finished: list[RunRecord] = []

    async def main() -> None:
        actor = RunActor(FakeDepsFactory(), max_runs=2, on_finished=finished.append)
        await actor.start("run-a", _body("@answer=a"))
        await actor.start("run-b", _body("@answer=b @route_s=5"))
        assert await actor.active() == 2
        with pytest.raises(HarnessError) as full:
            await actor.start("run-c", _body("@answer=c"))
        assert full.value.error_code is ErrorCode.RATE_LIMITED
        with pytest.raises(HarnessError) as again:
            await actor.start("run-a", _body("@answer=a"))
        assert again.value.error_code is ErrorCode.RUN_MISMATCH
        assert (await actor.wait("run-a")).result == Answer(
            run_id="run-a", intent="SYSTEM_CHAT", text="a"
        ).model_dump(mode="json")
        assert await actor.cancel("run-b") is True
        assert (await actor.wait("run-b")).result == Cancelled(run_id="run-b").model_dump(
            mode="json"
        )
        assert await actor.cancel("run-b") is False
        assert (await actor.active(), (await actor.status("run-b")).status) == (
            0,
            RunStatus.CANCELLED,
        )

    asyncio.run(main())
    assert [(r.run.run_id, r.run.result_kind) for r in finished] == [
        ("run-a", "Answer"),
        ("run-b", "Cancelled"),
    ]


def test_cancel_before_the_run_starts_still_releases_cancelled() -> None:
    async def main() -> dict[str, object]:
        actor = RunActor(FakeDepsFactory())
        await actor.start("run-early", _body("@answer=never"))
        assert await actor.cancel("run-early") is True  # before its task ran at all
        return (await actor.wait("run-early")).result

    assert asyncio.run(main()) == Cancelled(run_id="run-early").model_dump(mode="json")


def test_finished_runs_are_forgotten_after_the_ttl() -> None:
    async def main() -> None:
        actor = RunActor(FakeDepsFactory(), result_ttl_s=0.05)
        await actor.start("run-x", _body("@answer=x"))
        await actor.wait("run-x")
        assert (await actor.status("run-x")).status is RunStatus.COMPLETED  # kept for a while

        async def forgotten() -> bool:
            try:
                await actor.status("run-x")
            except HarnessError as err:
                return err.error_code is ErrorCode.NOT_FOUND
            return False

        await eventually(forgotten, timeout_s=5)
        assert await actor.cancel("run-x") is False

    asyncio.run(main())


def test_fail_all_ends_unfinished_runs_run_lost() -> None:
    async def main() -> dict[str, object]:
        actor = RunActor(FakeDepsFactory())
        await actor.start("run-f", _body("@route_s=5"))
        assert await actor.fail_all() == 1
        return (await actor.wait("run-f")).result

    expected = StableFailure(run_id="run-f", error_code=ErrorCode.RUN_LOST)
    assert asyncio.run(main()) == expected.model_dump(mode="json")


def test_wait_answers_the_snapshot_of_the_whole_timeline() -> None:
    async def main() -> None:
        actor = RunActor(FakeDepsFactory())
        await actor.start("run-w", _body("why @intent=DIAGNOSIS"))
        ended = await actor.wait("run-w")
        trace = await actor.trace("run-w")
        assert trace[-1].event_type == "RUN_FINISHED"
        assert (ended.snapshot.status, ended.snapshot.sequence_no) == (
            RunStatus.COMPLETED,
            trace[-1].sequence_no,
        )

    asyncio.run(main())


def test_health_reports_how_late_the_run_loop_beats() -> None:
    # What the pool tells a busy actor from a hung one by: the run loop's heartbeat, read
    # without that loop. Blocked, the loop stops beating and the lag grows; free, it catches up.
    async def main() -> None:
        actor = RunActor(FakeDepsFactory())
        assert (await actor.health()).loop_lag_s == 0.0  # no heartbeat before the first ping
        first = await actor.ping()
        assert first.active == 0 and first.loop_lag_s < 0.5
        time.sleep(1.5)  # the run loop is blocked: nothing beats
        assert (await actor.health()).loop_lag_s >= 1.5
        await asyncio.sleep(HEARTBEAT_S + 0.2)
        assert (await actor.health()).loop_lag_s < HEARTBEAT_S + 0.2

    asyncio.run(main())
