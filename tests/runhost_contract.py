"""Checks every run host (``harness.runhost.RunHost``) must pass: the in-process pool and the
desk over it (tests/actors), the Ray pool and the desk over it (tests/actors, with Ray), and
the desk actor behind its handle (tests/serve).

The runs are played by the directed fake model of ``actors.testing``: ``@answer=`` is the chat
reply, ``@answer_s=`` slows every model call after the router, ``@intent=DIAGNOSIS`` runs the
tools. Every run is :data:`OWNER`'s; :data:`STRANGER` asks about them too. A host under test
hosts at least two runs at once, and each check ends the runs it started.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from harness.contracts.errors import ErrorCode, HarnessError, RunNotFound
from harness.contracts.ingress import RunRequest
from harness.contracts.results import Answer, Cancelled
from harness.contracts.status import RunStatus
from harness.run.snapshot import RunPhase
from harness.runhost import RunHost

__all__ = [
    "OWNER",
    "STRANGER",
    "check_a_terminal_view_reads_the_same_every_time",
    "check_cancel_decides_once",
    "check_run_host",
    "check_submit_answers_before_the_run_ends",
    "check_trace_is_the_whole_timeline_in_order",
    "check_unknown_and_foreign_runs_are_not_found",
    "check_wait_gives_the_released_result",
    "check_watch_returns_past_after_or_at_its_timeout",
]

OWNER = "alice"
STRANGER = "bob"
SESSION = "s1"
UNKNOWN = "run-0123456789abcdef0123"
_RUN_ID = re.compile(r"run-[0-9a-f]{20}")
_SLOW = "hello @answer_s=30"
"""A run that waits on its answer far longer than any check: it ends only when cancelled."""
_RUN_S = 60.0
"""Ample time for a quick run to end, on a loaded machine."""


def _request(question: str) -> RunRequest:
    return RunRequest(question=question, owner=OWNER, session_id=SESSION)


async def check_run_host(host: RunHost) -> None:
    """Every check of this module in turn, on one started host."""
    await check_submit_answers_before_the_run_ends(host)
    await check_unknown_and_foreign_runs_are_not_found(host)
    await check_wait_gives_the_released_result(host)
    await check_watch_returns_past_after_or_at_its_timeout(host)
    await check_cancel_decides_once(host)
    await check_trace_is_the_whole_timeline_in_order(host)
    await check_a_terminal_view_reads_the_same_every_time(host)


async def check_submit_answers_before_the_run_ends(host: RunHost) -> None:
    """``submit`` names a new run, which is under way (not ended) when the call returns, in
    the request's session."""
    run_id = await host.submit(_request(_SLOW))
    view = await host.view(run_id, OWNER)
    assert _RUN_ID.fullmatch(run_id), run_id
    assert (view.run_id, view.session_id, view.terminal, view.result) == (
        run_id,
        SESSION,
        False,
        None,
    )
    assert view.status in {RunStatus.PENDING, RunStatus.RUNNING}
    await host.cancel(run_id, OWNER)


async def check_unknown_and_foreign_runs_are_not_found(host: RunHost) -> None:
    """Every verb refuses a run of another owner exactly as a run that does not exist, and a
    stranger's cancel leaves the owner's run alone."""
    run_id = await host.submit(_request("hello @answer_s=0.3 @answer=mine"))
    calls: list[Callable[[str, str], Awaitable[Any]]] = [
        host.view,
        lambda r, o: host.wait(r, o, 0.1),
        lambda r, o: host.watch(r, o, -1, 0.1),
        host.cancel,
        host.trace,
    ]
    refusals = []
    for run, asker in ((run_id, STRANGER), (UNKNOWN, OWNER)):
        for call in calls:
            with pytest.raises(HarnessError) as refused:
                await call(run, asker)
            refusals.append((type(refused.value), refused.value.error_code))
    assert refusals == [(RunNotFound, ErrorCode.NOT_FOUND)] * 10
    ended = await host.wait(run_id, OWNER, _RUN_S)
    assert ended.result == Answer(run_id=run_id, intent="SYSTEM_CHAT", text="mine")


async def check_wait_gives_the_released_result(host: RunHost) -> None:
    """``wait`` answers the ended run with its released result, or, at its timeout, the run
    still under way."""
    run_id = await host.submit(_request("hello @answer=hi"))
    view = await host.wait(run_id, OWNER, _RUN_S)
    assert (view.status, view.progress.phase, view.result) == (
        RunStatus.COMPLETED,
        RunPhase.DONE,
        Answer(run_id=run_id, intent="SYSTEM_CHAT", text="hi"),
    )
    slow = await host.submit(_request(_SLOW))
    early = await host.wait(slow, OWNER, 0.2)
    assert (early.terminal, early.result) == (False, None)
    await host.cancel(slow, OWNER)


async def check_watch_returns_past_after_or_at_its_timeout(host: RunHost) -> None:
    """``watch`` answers once the timeline passed ``after`` or the run ended; on a run that
    makes no progress, at its timeout, with the same event."""
    loop = asyncio.get_running_loop()
    moving = await host.submit(_request("why @intent=DIAGNOSIS"))
    first = await host.watch(moving, OWNER, -1, _RUN_S)
    seen = first.progress.sequence_no or 0
    later = await host.watch(moving, OWNER, seen, _RUN_S)
    assert (later.progress.sequence_no or 0) > seen or later.terminal

    stuck = await host.submit(_request(_SLOW))
    view = await host.view(stuck, OWNER)
    deadline = loop.time() + _RUN_S
    while view.progress.phase is not RunPhase.ANSWERING:  # its timeline then stays as it is
        assert loop.time() < deadline, view
        view = await host.watch(stuck, OWNER, view.progress.sequence_no or 0, 1.0)
    idle_from = view.progress.sequence_no or 0
    started = loop.time()
    idle = await host.watch(stuck, OWNER, idle_from, 0.5)
    waited = loop.time() - started
    assert (idle.terminal, idle.progress.sequence_no or 0) == (False, idle_from)
    assert 0.45 <= waited < 10, waited
    await host.cancel(stuck, OWNER)
    await host.wait(moving, OWNER, _RUN_S)


async def check_cancel_decides_once(host: RunHost) -> None:
    """The first cancel of a running run decides its end (CANCELLED, the Cancelled result);
    a later cancel, or a cancel of a run that had ended, changes nothing."""
    run_id = await host.submit(_request(_SLOW))
    first = await host.cancel(run_id, OWNER)
    again = await host.cancel(run_id, OWNER)
    assert (first.cancelled, first.run.status, first.run.result) == (
        True,
        RunStatus.CANCELLED,
        Cancelled(run_id=run_id),
    )
    assert (again.cancelled, again.run) == (False, first.run)
    done = await host.submit(_request("hello @answer=done"))
    ended = await host.wait(done, OWNER, _RUN_S)
    late = await host.cancel(done, OWNER)
    assert (late.cancelled, late.run) == (False, ended)


async def check_trace_is_the_whole_timeline_in_order(host: RunHost) -> None:
    """``trace`` is the run's timeline so far — a beginning of the final one — numbered from 1
    without gaps; once the run ended it closes with RUN_FINISHED, the event its terminal view
    reflects."""
    run_id = await host.submit(_request("why @intent=DIAGNOSIS @answer_s=0.1"))
    early = await host.trace(run_id, OWNER)
    ended = await host.wait(run_id, OWNER, _RUN_S)
    timeline = await host.trace(run_id, OWNER)
    assert early is not None and timeline is not None
    assert timeline[: len(early)] == early
    assert [e.sequence_no for e in timeline] == list(range(1, len(timeline) + 1))
    assert {e.run_id for e in timeline} == {run_id}
    assert (timeline[0].event_type, timeline[-1].event_type) == ("RUN_STARTED", "RUN_FINISHED")
    assert "TOOL_INVOCATION" in {e.event_type for e in timeline}
    assert ended.progress.sequence_no == timeline[-1].sequence_no


async def check_a_terminal_view_reads_the_same_every_time(host: RunHost) -> None:
    """Once a run ended, view, wait, watch (from any event) and a late cancel all answer the
    same view, at once."""
    loop = asyncio.get_running_loop()
    run_id = await host.submit(_request("hello @answer=same"))
    ended = await host.wait(run_id, OWNER, _RUN_S)
    last = ended.progress.sequence_no or 0
    started = loop.time()
    reads = [
        await host.view(run_id, OWNER),
        await host.wait(run_id, OWNER, 5),
        await host.watch(run_id, OWNER, last, 5),
        await host.watch(run_id, OWNER, -1, 5),
        (await host.cancel(run_id, OWNER)).run,
    ]
    assert reads == [ended] * 5
    assert ended.terminal and ended.result is not None
    assert loop.time() - started < 5
