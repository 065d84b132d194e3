"""The progress stream of one run: Server-Sent Events of its views until its terminal state.

Frames::

    retry: 2000                                    once, first: the client's reconnect delay
    id: 7 / event: progress / data: <RunView>      the run moved (a new timeline event)
    : keep-alive                                   nothing new for a heartbeat interval
    id: 12 / event: result / data: <RunView>       the terminal state with the released result;
                                                   the stream ends after it

An event's id is the ``sequence_no`` of the last timeline event its view reflects: it only
grows, and it means the same on every replica, so a client that reconnects anywhere with
``Last-Event-ID: n`` gets the first view past *n* (views are states, not deltas: nothing older
is needed). A terminal view carries the run's final ``sequence_no``, fixed when the run
pool settled the run (``actors.desk.RunDesk``), so its id is the same on every read; it is
always sent, even to a client that has seen that id (its id is then one past the client's, up
to :data:`MAX_EVENT_ID`).

The stream watches the run and never owns it: each step is one ``watch`` call on the run's
host (the run desk), which only reads. When the client goes away, Serve cancels the request and
with it the pending watch; the run goes on. A stream ends by itself after ``max_stream_s``
(the client resumes); Serve's proxy timeout is set above that, so the proxy never cuts a
stream.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from harness.ports import Clock
from harness.run.view import RunView
from harness.runhost import RunHost

__all__ = ["MAX_EVENT_ID", "RETRY_MS", "open_progress_stream", "progress_stream"]

RETRY_MS = 2000
"""Reconnect delay the stream asks of EventSource clients."""
MAX_EVENT_ID = 10**12 - 1
"""The largest event id, and the largest ``Last-Event-ID`` the route admits (12 digits): a
stream never sends an id its route would refuse on reconnect."""


def _frame(event: str, event_id: int, view: RunView) -> bytes:
    return f"id: {event_id}\nevent: {event}\ndata: {view.model_dump_json()}\n\n".encode()


async def open_progress_stream(
    runs: RunHost,
    run_id: str,
    *,
    owner: str,
    last_event_id: int | None,
    heartbeat_s: float,
    max_stream_s: float,
    clock: Clock,
) -> AsyncIterator[bytes]:
    """The progress stream of the owner's run, its ownership checked first: a refusal
    (NOT_FOUND) is raised here, before the stream sends a byte, so it answers as a plain error.

    Raises:
        RunNotFound: NOT_FOUND for an unknown run and for a run of another owner alike.
    """
    first = await runs.view(run_id, owner)
    return progress_stream(
        runs,
        first,
        owner=owner,
        last_event_id=last_event_id,
        heartbeat_s=heartbeat_s,
        max_stream_s=max_stream_s,
        clock=clock,
    )


async def progress_stream(
    runs: RunHost,
    first: RunView,
    *,
    owner: str,
    last_event_id: int | None,
    heartbeat_s: float,
    max_stream_s: float,
    clock: Clock,
) -> AsyncIterator[bytes]:
    """Frames from ``first`` (the view that passed the ownership check) to the terminal view."""
    yield f"retry: {RETRY_MS}\n\n".encode()
    started = last_written = clock.monotonic()
    after = -1 if last_event_id is None else last_event_id
    view = first
    while True:
        sequence_no = view.progress.sequence_no or 0
        if view.terminal:
            yield _frame("result", min(max(sequence_no, after + 1), MAX_EVENT_ID), view)
            return
        now = clock.monotonic()
        if sequence_no > after:
            yield _frame("progress", sequence_no, view)
            after, last_written = sequence_no, now
        elif now - last_written >= heartbeat_s:
            yield b": keep-alive\n\n"
            last_written = now
        remaining_s = max_stream_s - (now - started)
        if remaining_s <= 0:
            return
        wait_s = min(remaining_s, max(heartbeat_s - (now - last_written), 0.05))
        view = await runs.watch(view.run_id, owner, after, wait_s)
