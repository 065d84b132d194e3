"""RunPlane: what the HTTP app asks of the runs, and its Ray implementation.

The app holds no run state. Every question goes to the run desk (``actors.desk.RunDesk``), one
named actor that every replica shares, so a run started through one replica is read, watched
and cancelled through any other. In process (unit tests) the desk itself is the plane.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from harness.contracts.errors import RunLost, Unavailable
from harness.contracts.ingress import RunRequest
from harness.run.view import CancelOutcome, RunSummary, RunView, Submission, Submitted
from harness.runhost import RunHost
from harness.trace import TraceEvent

if TYPE_CHECKING:
    from ray.actor import ActorHandle

    from actors.desk import DeskHealth, RunDesk

__all__ = ["RayRunPlane", "RunPlane"]


class RunPlane(RunHost, Protocol):
    """The run desk as the app sees it: a run host (:class:`harness.runhost.RunHost`), plus
    what only the desk answers (see ``actors.desk.RunDesk`` for their contracts)."""

    async def submit_and_view(
        self, submission: Submission, wait_s: float
    ) -> tuple[Submitted, RunView]: ...

    async def runs(self, owner: str, session_id: str | None, limit: int) -> list[RunSummary]: ...

    async def ping(self) -> DeskHealth: ...


class RayRunPlane:
    """The run desk actor behind an actor handle: the desk's verbs, across Ray.

    Ray's failures leave as the harness's own errors (``actors.errors.resolve``): an error the
    desk raised on purpose (NOT_FOUND, IDEMPOTENCY_CONFLICT) as itself; a lost desk as
    UNAVAILABLE — the desk restarts on its own and the next call reaches the new one.
    """

    def __init__(self, desk: ActorHandle[RunDesk]) -> None:
        self._desk = desk

    async def _call(self, method: str, *args: Any) -> Any:
        from actors.errors import resolve

        ref = getattr(self._desk, method).remote(*args)
        try:
            return await resolve(ref, fallback=Unavailable(message=f"desk {method}"))
        except RunLost:
            raise Unavailable(message="run desk lost") from None

    async def submit(self, request: RunRequest) -> str:
        run_id: str = await self._call("submit", request)
        return run_id

    async def submit_and_view(
        self, submission: Submission, wait_s: float
    ) -> tuple[Submitted, RunView]:
        started: tuple[Submitted, RunView] = await self._call("submit_and_view", submission, wait_s)
        return started

    async def view(self, run_id: str, owner: str) -> RunView:
        view: RunView = await self._call("view", run_id, owner)
        return view

    async def wait(self, run_id: str, owner: str, timeout_s: float) -> RunView:
        view: RunView = await self._call("wait", run_id, owner, timeout_s)
        return view

    async def watch(self, run_id: str, owner: str, after: int, timeout_s: float) -> RunView:
        view: RunView = await self._call("watch", run_id, owner, after, timeout_s)
        return view

    async def cancel(self, run_id: str, owner: str) -> CancelOutcome:
        outcome: CancelOutcome = await self._call("cancel", run_id, owner)
        return outcome

    async def trace(self, run_id: str, owner: str) -> list[TraceEvent] | None:
        events: list[TraceEvent] | None = await self._call("trace", run_id, owner)
        return events

    async def runs(self, owner: str, session_id: str | None, limit: int) -> list[RunSummary]:
        found: list[RunSummary] = await self._call("runs", owner, session_id, limit)
        return found

    async def ping(self) -> DeskHealth:
        health: DeskHealth = await self._call("ping")
        return health
