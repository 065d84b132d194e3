"""RayToolExecutor: the ToolExecutor port over Ray remote tasks.

A tool call is one stateless Ray generator task, ``tool:<name>``: it runs the backend,
yields the raw response, then projects the backend's value in the same worker and yields
the projection. ``execute`` awaits the first item, ``project`` the second: the raw crosses
processes once (compressed), is never parsed back from JSON for the projection, and the
call costs one task instead of two. The projection runs while the caller stores the raw;
its result is read only when the caller asks for it (a raw the caller refuses, say over its
byte budget, is not projected at all). A raw this executor did not produce is projected by a
task of its own, ``project:<name>``.

A task whose worker dies with its process or node ends the call BACKEND_LOST (retryable:
the model may call again, and the retry runs on a live node), not BACKEND_ERROR: the backend
did not fail, the machine under it did. Each await runs under its timeout; on a timeout, or when the awaiting coroutine is cancelled
(the run was cancelled or hit its deadline), the task is cancelled: in-flight work is stopped
and its result, should it still arrive, is never read. The contract is that of
``InlineToolExecutor``.

Admission: the executor's ``slots`` are shared by every run of the process (a RunActor's),
as many as the cluster runs tool tasks at once unless set (``HARNESS_TOOL_SLOTS``). A caller
holds a slot from before it begins the call's record until the projection is read, so at most
that many tasks are in flight from this process; a burst of calls queues for slots on the
actor's event loop, where the wait is bounded by each run's deadline, instead of in Ray's
scheduler queue, where the wait would run down the backend timeout of tasks never started.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import ray
from pydantic import BaseModel

from actors.errors import map_ray_errors, resolve
from actors.factory import ToolTasks, tool_task_capacity, tool_tasks
from actors.tasks import ToolSetFactory, embedded_tool_set, tool_set_key
from harness.admission import ToolSlots
from harness.errors import BackendError, ErrorCode, HarnessError, ProjectionError
from harness.observation import Projection
from harness.raw import RawResponse

__all__ = ["RayToolExecutor"]

log = logging.getLogger(__name__)

# Tool calls whose projection may still be asked for; past this the oldest task is cancelled.
_MAX_PENDING_PROJECTIONS = 256


class _NotYielded(Exception):
    """A tool task ended without the projection it skips for a raw over its byte limit."""


@dataclass(frozen=True)
class _Pending:
    """A tool task that yielded its raw and is projecting it for ``tool_call_id``."""

    raw: weakref.ref[RawResponse]  # never keeps the raw alive: the caller drops it when stored
    tool_call_id: str
    request: BaseModel
    task: Any  # ray.ObjectRefGenerator


class RayToolExecutor:
    """Implements the ToolExecutor port with Ray tasks.

    Args:
        tool_set_factory: Picklable callable that builds the backends and projectors, once
            per worker process. Default: the embedded tool plane.
        tasks: The remote functions to submit (default: the process-wide ones).
        slots: Tool calls in flight at once from this process (default: as many tool tasks
            as the cluster runs at once, :func:`actors.factory.tool_task_capacity`).
    """

    def __init__(
        self,
        tool_set_factory: ToolSetFactory = embedded_tool_set,
        *,
        tasks: ToolTasks | None = None,
        slots: int | None = None,
    ) -> None:
        self.tool_set_factory = tool_set_factory
        self.key = tool_set_key(tool_set_factory)
        self.tasks = tasks or tool_tasks()
        self.slots = ToolSlots(slots or tool_task_capacity(self.tasks))
        self.cancelled_tasks = 0
        """Tasks cancelled because of a timeout or a cancelled caller (results discarded)."""
        # Keyed by the identity of the raw object this executor handed out.
        self._pending: OrderedDict[int, _Pending] = OrderedDict()

    async def execute(
        self,
        tool_name: str,
        request: BaseModel,
        timeout_s: float,
        *,
        tool_call_id: str,
        max_raw_bytes: int,
    ) -> RawResponse:
        """Run the tool's backend (and, behind it, its projector) as ``tool:<tool_name>``.

        Raises:
            HarnessError: What the backend raised (same class and code), BACKEND_TIMEOUT
                after ``timeout_s``, BACKEND_LOST when the task's worker or node died, or
                BACKEND_ERROR for any other failure.
        """
        task = self.tasks.tool(tool_name).remote(
            self.key, self.tool_set_factory, tool_name, tool_call_id, request, max_raw_bytes
        )
        raw: RawResponse = await self._await(
            task,
            timeout_s,
            timeout_error=BackendError(ErrorCode.BACKEND_TIMEOUT, "backend timed out"),
            failure=BackendError(ErrorCode.BACKEND_ERROR, "backend task failed"),
            lost=BackendError(ErrorCode.BACKEND_LOST, "backend worker lost", retryable=True),
            context={"tool": tool_name},
        )
        self._pending[id(raw)] = _Pending(weakref.ref(raw), tool_call_id, request, task)
        while len(self._pending) > _MAX_PENDING_PROJECTIONS:
            _, stale = self._pending.popitem(last=False)  # its projection was never asked for
            self._cancel(stale.task)
        return raw

    async def project(
        self,
        tool_name: str,
        tool_call_id: str,
        request: BaseModel,
        raw: RawResponse,
        timeout_s: float,
    ) -> Projection:
        """The projection the ``tool:<tool_name>`` task of ``raw`` made, or a
        ``project:<tool_name>`` task's for any other raw.

        Raises:
            HarnessError: What the projector raised, or PROJECTION_ERROR (also on timeout).
        """
        pending = self._pending.pop(id(raw), None)
        if pending is not None and (
            pending.raw() is not raw
            or pending.tool_call_id != tool_call_id
            or pending.request is not request
        ):
            self._cancel(pending.task)
            pending = None
        errors: dict[str, Any] = {
            "timeout_error": ProjectionError(ErrorCode.PROJECTION_ERROR, "projection timed out"),
            "failure": ProjectionError(ErrorCode.PROJECTION_ERROR, "projection task failed"),
            "context": {"tool": tool_name},
        }
        if pending is not None:
            try:
                result: Projection = await self._await(pending.task, timeout_s, **errors)
                return result
            except _NotYielded:
                pass  # the raw was over the byte limit the task was given: project it here
        task = self.tasks.projector(tool_name).remote(
            self.key, self.tool_set_factory, tool_name, tool_call_id, request, raw
        )
        result = await self._await(task, timeout_s, **errors)
        return result

    async def _await(
        self,
        task: Any,
        timeout_s: float,
        *,
        timeout_error: HarnessError,
        failure: HarnessError,
        context: dict[str, Any],
        lost: HarnessError | None = None,
    ) -> Any:
        """The result of an ObjectRef, or the next item of an ObjectRefGenerator."""
        for error in (failure, lost):
            if error is not None:
                error.context.update(context)
        try:
            return await asyncio.wait_for(self._next(task, failure, lost), timeout=timeout_s)
        except TimeoutError:
            self._cancel(task)
            timeout_error.context.update(context)
            raise timeout_error from None
        except asyncio.CancelledError:
            # The run ended while this call was in flight: stop the task, drop its result.
            self._cancel(task)
            raise

    @staticmethod
    async def _next(task: Any, failure: HarnessError, lost: HarnessError | None) -> Any:
        if isinstance(task, ray.ObjectRef):
            return await resolve(task, fallback=failure, lost=lost)
        try:
            with map_ray_errors(failure, lost=lost):
                ref = await task.__anext__()
        except StopAsyncIteration:  # the task ended without the item (it was not asked for)
            raise _NotYielded from None
        return await resolve(ref, fallback=failure, lost=lost)

    def _cancel(self, task: Any) -> None:
        self.cancelled_tasks += 1
        try:
            ray.cancel(task)
        except Exception:  # already finished or already gone: nothing left to stop
            log.debug("ray.cancel refused", exc_info=True)
