"""RunDesk without Ray: owners, idempotency keys and views in front of an in-process pool.

The pool is ``harness.testing.local_pool.LocalRunPool`` over the directed fake model, so the
runs are real DiagnosisRuns; only the hosting is in process.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import pytest

from actors.desk import RunDesk
from actors.testing import FakeDepsFactory
from harness.contracts.errors import ErrorCode, HarnessError, RunInactive, RunNotFound
from harness.contracts.ingress import RunRequest
from harness.contracts.results import Answer, Cancelled
from harness.run.view import RunSummary, Submission
from harness.runhost import RunHost
from harness.testing.clock import FakeClock
from harness.testing.local_pool import LocalRunPool

T = TypeVar("T")


def _run(scenario: Callable[[RunDesk, LocalRunPool], Awaitable[T]], **desk: object) -> T:
    async def main() -> T:
        pool = LocalRunPool(FakeDepsFactory()(), slots=2)
        runs = RunDesk(lambda: pool, **desk)  # type: ignore[arg-type]
        await runs.start()
        try:
            return await scenario(runs, pool)
        finally:
            await runs.close()

    return asyncio.run(main())


def _submission(
    question: str, owner: str = "alice", key: str | None = None, session: str = "s1"
) -> Submission:
    return Submission(
        request=RunRequest(question=question, owner=owner, session_id=session),
        idempotency_key=key,
        fingerprint=question,
    )


def test_a_run_is_read_by_its_owner_and_by_nobody_else() -> None:
    async def scenario(desk: RunDesk, pool: LocalRunPool) -> None:
        run_id = (await desk.accept(_submission("hello @answer=hi"))).run_id
        view = await desk.wait(run_id, "alice", 10)
        assert view.result == Answer(run_id=run_id, intent="SYSTEM_CHAT", text="hi")
        assert (view.status.value, view.session_id, view.progress.phase.value) == (
            "COMPLETED",
            "s1",
            "DONE",
        )
        refusals = []
        for call in (
            lambda: desk.view(run_id, "bob"),
            lambda: desk.view("run-0123456789abcdef0123", "alice"),
            lambda: desk.cancel(run_id, "bob"),
            lambda: desk.trace(run_id, "bob"),
            lambda: desk.watch(run_id, "bob", 0, 1),
        ):
            with pytest.raises(HarnessError) as refused:
                await call()
            refusals.append((type(refused.value), refused.value.error_code))
        assert refusals == [(RunNotFound, ErrorCode.NOT_FOUND)] * 5

    _run(scenario)


def test_submit_and_view_answers_the_submission_and_its_view_in_one_call() -> None:
    async def scenario(desk: RunDesk, pool: LocalRunPool) -> None:
        waited, view = await desk.submit_and_view(_submission("hi @answer=yes", key="k"), 10)
        assert waited.created and view.terminal
        assert view.result == Answer(run_id=waited.run_id, intent="SYSTEM_CHAT", text="yes")
        replayed, again = await desk.submit_and_view(_submission("hi @answer=yes", key="k"), 0)
        assert (replayed.run_id, replayed.created, again.result) == (
            waited.run_id,
            False,
            view.result,
        )
        # Without a wait the view comes at once, while the run goes on.
        started, running = await desk.submit_and_view(_submission("slow @route_s=5"), 0)
        assert started.created and not running.terminal and running.run_id == started.run_id
        assert (await desk.cancel(started.run_id, "alice")).cancelled

    _run(scenario)


def test_the_same_key_and_body_name_the_same_run_per_owner() -> None:
    async def scenario(desk: RunDesk, pool: LocalRunPool) -> None:
        first = await desk.accept(_submission("hello", key="k"))
        again = await desk.accept(_submission("hello", key="k"))
        other_owner = await desk.accept(_submission("hello", owner="bob", key="k"))
        with pytest.raises(HarnessError) as conflict:
            await desk.accept(_submission("other", key="k"))
        assert (first.created, again.created, again.run_id) == (True, False, first.run_id)
        assert other_owner.created and other_owner.run_id != first.run_id
        assert conflict.value.error_code is ErrorCode.IDEMPOTENCY_CONFLICT

    _run(scenario)


def test_a_key_expires_after_its_ttl() -> None:
    clock = FakeClock()

    async def scenario(desk: RunDesk, pool: LocalRunPool) -> None:
        first = await desk.accept(_submission("hello", key="k"))
        clock.advance(59)
        assert (await desk.accept(_submission("hello", key="k"))).run_id == first.run_id
        clock.advance(2)
        later = await desk.accept(_submission("other body", key="k"))
        assert later.created and later.run_id != first.run_id

    _run(scenario, clock=clock, idempotency_ttl_s=60.0)


def test_cancel_decides_once_and_a_waiting_run_never_starts() -> None:
    async def scenario(desk: RunDesk, pool: LocalRunPool) -> None:
        busy = [(await desk.accept(_submission("hello @answer_s=30"))).run_id for _ in range(2)]
        queued = (await desk.accept(_submission("hello"))).run_id
        assert (await desk.view(queued, "alice")).status.value == "PENDING"  # both slots taken
        outcome = await desk.cancel(queued, "alice")
        assert outcome.cancelled and outcome.run.result == Cancelled(run_id=queued)
        assert not (await desk.cancel(queued, "alice")).cancelled
        running = await desk.cancel(busy[0], "alice")
        assert running.cancelled and running.run.status.value == "CANCELLED"
        await desk.cancel(busy[1], "alice")

    _run(scenario)


def test_watch_returns_once_the_timeline_grows_or_at_its_timeout() -> None:
    async def scenario(desk: RunDesk, pool: LocalRunPool) -> None:
        run_id = (await desk.accept(_submission("hello @answer_s=0.3"))).run_id
        seen = await desk.watch(run_id, "alice", -1, 5)
        sequence = seen.progress.sequence_no or 0
        loop = asyncio.get_running_loop()
        started = loop.time()
        later = await desk.watch(run_id, "alice", sequence, 5)
        assert (later.progress.sequence_no or 0) > sequence or later.terminal
        final = await desk.wait(run_id, "alice", 5)
        idle = await desk.watch(run_id, "alice", final.progress.sequence_no or 0, 0.2)
        assert idle.terminal and loop.time() - started < 5

    _run(scenario)


def test_the_owner_lists_its_runs_newest_first_by_session() -> None:
    async def scenario(desk: RunDesk, pool: LocalRunPool) -> list[RunSummary]:
        ids = [
            (await desk.accept(_submission(f"hello {n}", session=s))).run_id
            for n, s in enumerate(["a", "b", "a"])
        ]
        await desk.accept(_submission("hello", owner="bob", session="a"))
        for run_id in ids:
            await desk.wait(run_id, "alice", 10)
        listed = await desk.runs("alice", "a", 10)
        assert [r.run_id for r in listed] == [ids[2], ids[0]]
        assert [r.run_id for r in await desk.runs("alice", None, 1)] == [ids[2]]
        return listed

    listed = _run(scenario)
    assert {(r.status.value, r.result_kind) for r in listed} == {("COMPLETED", "Answer")}


def test_a_refused_placement_leaves_no_run_and_no_key() -> None:
    async def scenario(desk: RunDesk, pool: LocalRunPool) -> None:
        await pool.close()
        with pytest.raises(RunInactive):
            await desk.accept(_submission("hello", key="k"))
        assert await desk.runs("alice", None, 10) == []
        assert (await desk.ping()).runs_known == 0

    _run(scenario)


def test_the_desk_forgets_its_oldest_runs_beyond_max_runs() -> None:
    async def scenario(desk: RunDesk, pool: LocalRunPool) -> None:
        ids = [(await desk.accept(_submission(f"hello {n}"))).run_id for n in range(3)]
        with pytest.raises(HarnessError):
            await desk.view(ids[0], "alice")
        assert [r.run_id for r in await desk.runs("alice", None, 10)] == ids[:0:-1]

    _run(scenario, max_runs=2)


class _CountingPool(LocalRunPool):
    """Counts the watch calls that are pending at once."""

    pending = 0
    most = 0

    async def watch(self, run_id: str, owner: str, after: int, timeout_s: float) -> Any:
        type(self).pending += 1
        type(self).most = max(type(self).most, type(self).pending)
        try:
            return await super().watch(run_id, owner, after, timeout_s)
        finally:
            type(self).pending -= 1


def test_many_watchers_of_a_run_share_one_pending_call_on_its_host() -> None:
    async def main() -> list[int]:
        pool = _CountingPool(FakeDepsFactory()(), slots=2)
        desk = RunDesk(lambda: pool)
        await desk.start()
        run_id = (await desk.accept(_submission("why @intent=DIAGNOSIS @answer_s=0.2"))).run_id

        async def stream() -> list[int]:
            after, seen = -1, []
            while True:
                view = await desk.watch(run_id, "alice", after, 5)
                after = view.progress.sequence_no or 0
                seen.append(after)
                if view.terminal:
                    return seen

        streams = await asyncio.gather(*(stream() for _ in range(20)))
        await desk.close()
        assert all(s[-1] == streams[0][-1] for s in streams)
        return [_CountingPool.most]

    assert asyncio.run(main()) == [1]


class _OvertakenPool(LocalRunPool):
    """Its first reply to a watch — a snapshot of the run as it was when asked — arrives only
    once the run has ended (a host's reply overtaken by the run's end); later watches are held
    until ``more`` is set."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.replied = False
        self.more = asyncio.Event()

    async def _progress_after(self, entry: Any, after: int, timeout_s: float) -> Any:
        if self.replied:
            await self.more.wait()
            return await super()._progress_after(entry, after, timeout_s)
        snapshot = await self._progress(entry)
        await asyncio.shield(entry.done)
        self.replied = True
        return snapshot


@pytest.mark.parametrize("through_desk", [True, False], ids=["desk", "pool"])
def test_a_terminal_view_carries_the_final_snapshot_however_it_was_read(
    through_desk: bool,
) -> None:
    async def main() -> None:
        pool = _OvertakenPool(FakeDepsFactory()(), slots=2)
        desk = RunDesk(lambda: pool)
        await desk.start()
        host: RunHost = desk if through_desk else pool
        try:
            run_id = await host.submit(_submission("why @intent=DIAGNOSIS @answer_s=0.1").request)
            watched = await host.watch(run_id, "alice", -1, 5)
            read = await host.view(run_id, "alice")
            timeline = await pool.trace(run_id, "alice")
            assert timeline is not None and timeline[-1].event_type == "RUN_FINISHED"
            assert (watched.terminal, watched.progress.sequence_no) == (
                True,
                timeline[-1].sequence_no,
            )
            assert watched == read
        finally:
            pool.more.set()
            await desk.close()

    asyncio.run(main())


def test_a_cancelled_run_reads_the_same_before_and_after_its_timeline_closed() -> None:
    async def scenario(desk: RunDesk, pool: LocalRunPool) -> None:
        run_id = (await desk.accept(_submission("why @intent=DIAGNOSIS @answer_s=30"))).run_id
        await desk.watch(run_id, "alice", 2, 5)  # under way
        outcome = await desk.cancel(run_id, "alice")
        timeline = await pool.trace(run_id, "alice")
        assert timeline is not None and timeline[-1].event_type == "RUN_FINISHED"
        assert outcome.cancelled and outcome.run.progress.sequence_no == timeline[-1].sequence_no
        assert outcome.run == await desk.view(run_id, "alice")

    _run(scenario)


def test_a_run_still_being_handed_to_the_pool_is_pending_to_ping_and_listing() -> None:
    """A submission records its ticket, then hands the run to the pool in a task of its own.
    A ping or a listing that runs in between (queued before that task: under a burst, the
    readiness probe) sees a run the pool does not know yet: it counts and lists it as
    PENDING, instead of failing NOT_FOUND (which made /readyz answer 503 under load)."""

    async def scenario(desk: RunDesk, pool: LocalRunPool) -> tuple[Any, ...]:
        submitted = asyncio.create_task(desk.accept(_submission("slow @route_s=5")))
        health = asyncio.create_task(desk.ping())
        listed = asyncio.create_task(desk.runs("alice", None, 10))
        run_id = (await submitted).run_id
        result = (await health, [(r.run_id, r.status.value) for r in await listed])
        await desk.cancel(run_id, "alice")
        return (run_id, *result)

    run_id, health, listed = _run(scenario)
    assert (health.runs_known, health.runs_in_flight) == (1, 1)
    assert listed == [(run_id, "PENDING")]
