"""RunHost: the verbs every host of runs offers — submit, view, wait, watch, cancel, trace.

A run passes several hosts on its way from a caller to the process that executes it: the run
desk (``actors.desk.RunDesk``, the deployment's one front door), a run pool
(``actors.pool.RunPool`` over Ray actors, ``harness.testing.local_pool.LocalRunPool`` in
process), and, from an HTTP replica, the desk again behind its actor handle
(``serve.plane.RayRunPlane``). Each answers the same questions with the same meaning, stated
here once and checked against every implementation by one contract suite.
"""

from __future__ import annotations

from typing import Protocol

from harness.contracts.ingress import RunRequest
from harness.run.view import CancelOutcome, RunView
from harness.trace import TraceEvent

__all__ = ["RunHost"]


class RunHost(Protocol):
    """Hosts runs: takes them and answers about each by its id, for its owner.

    Every verb but ``submit`` names the principal it answers for, and a run of another owner
    is refused exactly like a run the host does not know: the same ``RunNotFound``
    (NOT_FOUND), so no host tells whether someone else's run exists. The owner is part of the
    request itself (``RunRequest.owner``), so a pool checks it as well as the desk does; what
    the desk adds in front of a pool is what only a front door knows (idempotency keys, the
    listing of an owner's runs, one shared feed per watched run), not the ownership.

    A host answers views (:class:`~harness.run.view.RunView`). A view that carries the
    released result carries the run's final snapshot, fixed when the run settled: a terminal
    view reads the same on every call, from every host.
    """

    async def submit(self, request: RunRequest) -> str:
        """Take the run and return its id; the run goes on by itself.

        A host with room answers at once. A pool without room may hold the call until a slot
        frees (``actors.pool.RunPool`` does; the run is known, PENDING and cancellable, from
        the call's first step on); the desk never holds it, as it places each run in a task
        of its own.

        Raises:
            HarnessError: RUN_NOT_ACTIVE when the host is closing; OVERLOADED when it is full
                and may not queue more runs.
        """
        ...

    async def view(self, run_id: str, owner: str) -> RunView:
        """The owner's view of the run: status, progress, and the result once released.

        Raises:
            RunNotFound: NOT_FOUND for an unknown run and for a run of another owner alike.
        """
        ...

    async def wait(self, run_id: str, owner: str, timeout_s: float) -> RunView:
        """The view once the run released its result, or after ``timeout_s`` (still
        running). Giving up on the wait leaves the run as it is.

        Raises:
            RunNotFound: NOT_FOUND as for :meth:`view`.
        """
        ...

    async def watch(self, run_id: str, owner: str, after: int, timeout_s: float) -> RunView:
        """The view once the run's timeline passed event ``after``, the run ended, or
        ``timeout_s`` passed, whichever comes first. A watch only reads: cancelling it never
        touches the run.

        Raises:
            RunNotFound: NOT_FOUND as for :meth:`view`.
        """
        ...

    async def cancel(self, run_id: str, owner: str) -> CancelOutcome:
        """Cancel the run. First terminal wins: ``cancelled`` is True only when this call
        decided the run's end; a run that had ended stays as it was. A run still waiting for
        room never starts.

        Raises:
            RunNotFound: NOT_FOUND as for :meth:`view`.
        """
        ...

    async def trace(self, run_id: str, owner: str) -> list[TraceEvent] | None:
        """The run's timeline so far, in sequence order (metadata only): empty while the run
        waits for room, complete once it ended. None once the host that executed the run
        forgot it; the durable audit keeps it then.

        Raises:
            RunNotFound: NOT_FOUND as for :meth:`view`.
        """
        ...
