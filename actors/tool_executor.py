"""RayToolExecutor: the ToolExecutor port over Ray remote tasks.

A tool call is one stateless plain Ray task, ``tool:<name>``: it runs the backend, projects
the backend's value in the same worker and returns both as one value (an
:class:`~actors.tasks.ToolOutcome`: the raw, compressed, and its projection or the
projection's failure as a code and safe context). The raw crosses processes once, is never
parsed back from JSON for the projection, and the call costs one task. ``execute`` resolves
the task, returns the raw and keeps the projection outcome for ``project``, which returns it
(or raises its error) without another round trip. A raw over the byte limit the caller gave
(``max_raw_bytes``, what its budget may still book) is not projected; a raw this executor did
not produce, or did not project, is projected by a task of its own, ``project:<name>``.

Trade-off: the projection now runs before the raw returns, so it adds to ``execute``'s
latency instead of overlapping with the caller storing the raw, as a two-item generator task
(raw, then projection) allowed. That overlap saved at most one projection's wall time per
call, while the generator cost CPU, which bounds throughput on a small node: through this
executor on a local Ray, 3.7-3.9 ms of CPU per call (driver and Ray processes) against
2.3 ms for the plain task (``benchmarks/bench_tool_task.py``, 600 calls): ~9 ms of a run's
six calls.

Not batched: the calls of one model turn as one task cost a third of the CPU (five probe calls:
1.87 -> 0.64 ms each), but couple the calls. Run one after the other, a slow query in a sick
database starves the log query beside it; run on the worker's threads, a cancel no longer stops
a blocking backend (Ray interrupts the main thread only); either way, a lost node takes the
turn's finished calls with it. One task per call keeps each call's timeout, cancel and loss its
own (built and reverted: commit e272b3a).

A raw made of a log store's events comes back by reference when this process holds the same
store (``holds``: the backends whose stores it keeps loaded, for a caller whose canonical store
keeps such raws as their parts: the in-process store): the call names the stores it holds, and
the task sends their identity and the events' positions instead of compressing the events'
JSON (~13 ms of CPU per demo run); the raw is rebuilt here from the local copy
(:mod:`harness.contracts.raw`, "By reference").

A task whose worker dies with its process or node ends the call BACKEND_LOST (retryable:
the model may call again, and the retry runs on a live node), not BACKEND_ERROR: the backend
did not fail, the machine under it did. Each await runs under its timeout; on a timeout, or
when the awaiting coroutine is cancelled (the run was cancelled or hit its deadline), the task
is cancelled: in-flight work is stopped and its result, should it still arrive, is never read.
The contract is that of ``InlineToolExecutor``.

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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import ray
from pydantic import BaseModel

from actors.errors import resolve
from actors.factory import ToolTasks, tool_task_capacity, tool_tasks
from actors.tasks import (
    ProjectionFailure,
    ToolOutcome,
    ToolSetFactory,
    embedded_tool_set,
    pack,
    tool_set_key,
    unpack,
)
from harness.admission import ToolSlots
from harness.contracts.errors import BackendError, ErrorCode, HarnessError, ProjectionError
from harness.contracts.observation import Projection
from harness.contracts.raw import RawResponse, held_sources

__all__ = ["RayToolExecutor"]

log = logging.getLogger(__name__)

# Projections kept for ``project``; past this the oldest is dropped (and projected again by
# a ``project:<name>`` task, should it still be asked for).
_MAX_KEPT_PROJECTIONS = 256


@dataclass(frozen=True)
class _Kept:
    """What the ``tool:<name>`` task of one raw made of it, for ``tool_call_id``."""

    raw: weakref.ref[RawResponse]  # never keeps the raw alive: the caller drops it when stored
    tool_call_id: str
    request: BaseModel
    projection: Projection | ProjectionFailure


class RayToolExecutor:
    """Implements the ToolExecutor port with Ray tasks.

    Args:
        tool_set_factory: Picklable callable that builds the backends and projectors, once
            per worker process. Default: the embedded tool plane.
        tasks: The remote functions to submit (default: the process-wide ones).
        slots: Tool calls in flight at once from this process (default: as many tool tasks
            as the cluster runs at once, :func:`actors.factory.tool_task_capacity`).
        holds: Backends of this process whose stores raws may refer to (see the module
            docstring), kept alive by this executor: for a caller whose canonical store keeps
            shared raws as their parts (any other store would compress them here instead).
            None: every raw comes back as its frame.
    """

    def __init__(
        self,
        tool_set_factory: ToolSetFactory = embedded_tool_set,
        *,
        tasks: ToolTasks | None = None,
        slots: int | None = None,
        holds: Sequence[object] | None = None,
    ) -> None:
        self.tool_set_factory = tool_set_factory
        self.by_reference = holds is not None
        # The stores must outlive this executor's calls: the registry keeps them weakly.
        self._holds = tuple(holds or ())
        self.key = tool_set_key(tool_set_factory)
        self.tasks = tasks or tool_tasks()
        self.slots = ToolSlots(slots or tool_task_capacity(self.tasks))
        self.cancelled_tasks = 0
        """Tasks cancelled because of a timeout or a cancelled caller (results discarded)."""
        # Keyed by the identity of the raw object this executor handed out.
        self._kept: OrderedDict[int, _Kept] = OrderedDict()

    async def execute(
        self,
        tool_name: str,
        request: BaseModel,
        timeout_s: float,
        *,
        tool_call_id: str,
        max_raw_bytes: int,
    ) -> RawResponse:
        """Run the tool's backend and its projector as one ``tool:<tool_name>`` task.

        The projection (or its failure) is kept for :meth:`project`, never the raw.

        Raises:
            HarnessError: What the backend raised (same class and code), BACKEND_TIMEOUT
                after ``timeout_s``, BACKEND_LOST when the task's worker or node died, or
                BACKEND_ERROR for any other failure.
        """
        held = held_sources() if self.by_reference else frozenset()
        call = (
            self.key,
            self.tool_set_factory,
            tool_name,
            tool_call_id,
            request,
            max_raw_bytes,
            held,
        )
        task = self.tasks.tool(tool_name).remote(pack(call))
        outcome: ToolOutcome = await self._await(
            task,
            timeout_s,
            timeout_error=BackendError(ErrorCode.BACKEND_TIMEOUT, "backend timed out"),
            failure=BackendError(ErrorCode.BACKEND_ERROR, "backend task failed"),
            lost=BackendError(ErrorCode.BACKEND_LOST, "backend worker lost", retryable=True),
            context={"tool": tool_name},
        )
        raw = outcome.raw
        if outcome.projection is not None:
            kept = _Kept(weakref.ref(raw), tool_call_id, request, outcome.projection)
            self._kept[id(raw)] = kept
            while len(self._kept) > _MAX_KEPT_PROJECTIONS:
                self._kept.popitem(last=False)  # its projection was never asked for
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
            HarnessError: What the projector raised (its code and context), or
                PROJECTION_ERROR (also on timeout).
        """
        kept = self._kept.pop(id(raw), None)
        if (
            kept is not None
            and kept.raw() is raw
            and kept.tool_call_id == tool_call_id
            and kept.request is request
        ):
            if isinstance(kept.projection, ProjectionFailure):
                raise kept.projection.error()
            return kept.projection
        call = (self.key, self.tool_set_factory, tool_name, tool_call_id, request, raw)
        task = self.tasks.projector(tool_name).remote(pack(call))
        result: Projection = await self._await(
            task,
            timeout_s,
            timeout_error=ProjectionError(ErrorCode.PROJECTION_ERROR, "projection timed out"),
            failure=ProjectionError(ErrorCode.PROJECTION_ERROR, "projection task failed"),
            context={"tool": tool_name},
        )
        return result

    async def _await(
        self,
        task: ray.ObjectRef[Any],
        timeout_s: float,
        *,
        timeout_error: HarnessError,
        failure: HarnessError,
        context: dict[str, Any],
        lost: HarnessError | None = None,
    ) -> Any:
        """The result of the task ``task`` (an ObjectRef), cancelling it on a timeout or a
        cancelled caller."""
        for error in (failure, lost):
            if error is not None:
                error.context.update(context)
        try:
            async with asyncio.timeout(timeout_s):
                packed = await resolve(task, fallback=failure, lost=lost)
        except TimeoutError:
            self._cancel(task)
            timeout_error.context.update(context)
            raise timeout_error from None
        except asyncio.CancelledError:
            # The run ended while this call was in flight: stop the task, drop its result.
            self._cancel(task)
            raise
        try:
            return unpack(packed)
        except Exception:  # not what a task of this executor packs: no result to hand on
            log.warning("unreadable tool task result code=%s", failure.error_code)
            raise failure from None

    def _cancel(self, task: ray.ObjectRef[Any]) -> None:
        self.cancelled_tasks += 1
        try:
            ray.cancel(task)
        except Exception:  # already finished or already gone: nothing left to stop
            log.debug("ray.cancel refused", exc_info=True)
