"""RayToolExecutor: the ToolExecutor port over Ray remote tasks.

Each backend call and each projection is one stateless task (``tool:<name>``,
``project:<name>``). The executor submits it, awaits its ObjectRef under the timeout and
cancels the task when the timeout passes or when the awaiting coroutine is cancelled (the
run was cancelled or hit its deadline): in-flight work is stopped and its result, should it
still arrive, is never read. The contract is that of ``InlineToolExecutor``.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from typing import Any

import ray
from pydantic import BaseModel

from actors.errors import resolve
from actors.factory import ToolTasks, tool_tasks
from actors.tasks import ToolSetFactory, embedded_tool_set, tool_set_key
from harness.errors import BackendError, ErrorCode, HarnessError, ProjectionError
from harness.observation import Projection
from harness.raw import RawResponse

__all__ = ["RayToolExecutor"]

log = logging.getLogger(__name__)

_MAX_REMEMBERED_RAWS = 64


class RayToolExecutor:
    """Implements the ToolExecutor port with Ray tasks.

    Args:
        tool_set_factory: Picklable callable that builds the backends and projectors, once
            per worker process. Default: the embedded tool plane.
        tasks: The remote functions to submit (default: the process-wide ones).
    """

    def __init__(
        self,
        tool_set_factory: ToolSetFactory = embedded_tool_set,
        *,
        tasks: ToolTasks | None = None,
    ) -> None:
        self.tool_set_factory = tool_set_factory
        self.key = tool_set_key(tool_set_factory)
        self.tasks = tasks or tool_tasks()
        self.cancelled_tasks = 0
        """Tasks cancelled because of a timeout or a cancelled caller (results discarded)."""
        # Raw responses can be megabytes (a log query returns every line). They come back as
        # JSON bytes (RawResponse), and the projector task receives the backend task's
        # ObjectRef instead of a second copy uploaded from here; keyed by the identity of the
        # raw object this executor handed out.
        self._raw_refs: OrderedDict[int, tuple[RawResponse, ray.ObjectRef[Any]]] = OrderedDict()

    async def execute(self, tool_name: str, request: BaseModel, timeout_s: float) -> RawResponse:
        """Run the tool's backend as ``tool:<tool_name>``.

        Raises:
            HarnessError: What the backend raised (same class and code), BACKEND_TIMEOUT
                after ``timeout_s``, or BACKEND_ERROR for any other failure.
        """
        ref = self.tasks.tool(tool_name).remote(self.key, self.tool_set_factory, tool_name, request)
        raw: RawResponse = await self._await(
            ref,
            timeout_s,
            timeout_error=BackendError(ErrorCode.BACKEND_TIMEOUT, "backend timed out"),
            failure=BackendError(ErrorCode.BACKEND_ERROR, "backend task failed"),
            context={"tool": tool_name},
        )
        self._raw_refs[id(raw)] = (raw, ref)
        while len(self._raw_refs) > _MAX_REMEMBERED_RAWS:
            self._raw_refs.popitem(last=False)  # its projection was never asked for
        return raw

    async def project(
        self,
        tool_name: str,
        tool_call_id: str,
        request: BaseModel,
        raw: RawResponse,
        timeout_s: float,
    ) -> Projection:
        """Run the tool's projector as ``project:<tool_name>``.

        Raises:
            HarnessError: What the projector raised, or PROJECTION_ERROR (also on timeout).
        """
        remembered = self._raw_refs.pop(id(raw), None)
        raw_arg = remembered[1] if remembered is not None and remembered[0] is raw else raw
        ref = self.tasks.projector(tool_name).remote(
            self.key, self.tool_set_factory, tool_name, tool_call_id, request, raw_arg
        )
        result: Projection = await self._await(
            ref,
            timeout_s,
            timeout_error=ProjectionError(ErrorCode.PROJECTION_ERROR, "projection timed out"),
            failure=ProjectionError(ErrorCode.PROJECTION_ERROR, "projection task failed"),
            context={"tool": tool_name},
        )
        return result

    async def _await(
        self,
        ref: ray.ObjectRef[Any],
        timeout_s: float,
        *,
        timeout_error: HarnessError,
        failure: HarnessError,
        context: dict[str, Any],
    ) -> Any:
        failure.context.update(context)
        try:
            return await asyncio.wait_for(resolve(ref, fallback=failure), timeout=timeout_s)
        except TimeoutError:
            self._cancel(ref)
            timeout_error.context.update(context)
            raise timeout_error from None
        except asyncio.CancelledError:
            # The run ended while this call was in flight: stop the task, drop its result.
            self._cancel(ref)
            raise

    def _cancel(self, ref: ray.ObjectRef[Any]) -> None:
        self.cancelled_tasks += 1
        try:
            ray.cancel(ref)
        except Exception:  # already finished or already gone: nothing left to stop
            log.debug("ray.cancel refused", exc_info=True)
