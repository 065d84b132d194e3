"""RayToolExecutor: the ToolExecutor port over Ray remote tasks.

A tool call runs in a stateless plain Ray task, ``tool:<names>``: it runs the backend,
projects the backend's value in the same worker and returns both as one value (an
:class:`~actors.tasks.ToolOutcome`: the raw, compressed, and its projection or the
projection's failure as a code and safe context). The raw crosses processes once, is never
parsed back from JSON for the projection. ``execute`` resolves the task, returns the raw and
keeps the projection outcome for ``project``, which returns it (or raises its error) without
another round trip. A raw over the byte limit the caller gave (``max_raw_bytes``, what its
budget may still book) is not projected; a raw this executor did not produce, or did not
project, is projected by a task of its own, ``project:<name>``.

One task per turn: the calls of one model turn (:data:`harness.ports.TOOL_TURN`) that reach
``execute`` in the same iteration of the event loop (each once it holds a slot: the turn
starts them together) travel as one task, named by their tools (``tool:query_logs+query_mysql``), and run there one
after the other. Ray's own machinery is most of a small call's cost: five calls of the probe
tools cost 1.9 ms of CPU each (caller, raylet and workers) as five tasks and 0.64 ms as one
(``benchmarks/bench_tool_task.py --concurrency 5``); a demo run's eight calls come in three
turns. Each caller still waits under its own timeout and leaves alone; the last to leave
cancels the task. Trade-offs: the calls of one task share one CPU instead of one each, so a
turn's calls no longer overlap on an idle node (on a busy one the CPU they spent on Ray is
what they gain); and a call that hangs holds the calls after it in its task until their own
timeouts (BACKEND_TIMEOUT for them too; a call whose timeout passed before it started is not
started at all). A turn waits for all of its calls before the model is asked again, so only a
hang past the timeout costs its peers their results; calls of different turns, and so of
different runs, never share a task.

Trade-off: the projection runs before the raw returns, so it adds to ``execute``'s
latency instead of overlapping with the caller storing the raw, as a two-item generator task
(raw, then projection) allowed. That overlap saved at most one projection's wall time per
call, while the generator cost CPU, which bounds throughput on a small node: through this
executor on a local Ray, 3.7-3.9 ms of CPU per call (driver and Ray processes) against
2.3 ms for the plain task (``benchmarks/bench_tool_task.py``, 600 calls).

A raw made of a log store's events comes back by reference when this process holds the same
store (``holds``: the backends whose stores it keeps loaded, for a caller whose canonical store
keeps such raws as their parts: the in-process store): the task is told the stores it
holds, and sends their identity and the events' positions instead of compressing the events' JSON (~13 ms of CPU per demo run), and
the raw is rebuilt here from the local copy (:mod:`harness.contracts.raw`, "By reference").

A task whose worker dies with its process or node ends its calls BACKEND_LOST (retryable:
the model may call again, and the retry runs on a live node), not BACKEND_ERROR: the backend
did not fail, the machine under it did. Each caller waits under its timeout; on a timeout, or
when the awaiting coroutine is cancelled (the run was cancelled or hit its deadline), it
leaves its task, and the last caller to leave cancels it: in-flight work is stopped and its
result, should it still arrive, is never read. The contract is that of ``InlineToolExecutor``.

Admission: the executor's ``slots`` are shared by every run of the process (a RunActor's),
as many as the cluster runs tool tasks at once unless set (``HARNESS_TOOL_SLOTS``). A caller
holds a slot from before it begins the call's record until the projection is read, so at most
that many calls, and so tasks, are in flight from this process; a burst of calls queues for slots on the
actor's event loop, where the wait is bounded by each run's deadline, instead of in Ray's
scheduler queue, where the wait would run down the backend timeout of tasks never started.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import ray
from pydantic import BaseModel

from actors.errors import map_ray_errors, resolve
from actors.factory import ToolTasks, tool_task_capacity, tool_tasks
from actors.tasks import (
    ProjectionFailure,
    ToolCall,
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
from harness.ports import TOOL_TURN

__all__ = ["RayToolExecutor"]

log = logging.getLogger(__name__)

# Projections kept for ``project``; past this the oldest is dropped (and projected again by
# a ``project:<name>`` task, should it still be asked for).
_MAX_KEPT_PROJECTIONS = 256


@dataclass(frozen=True)
class _Kept:
    """What the ``tool:`` task of one raw made of it, for ``tool_call_id``."""

    raw: weakref.ref[RawResponse]  # never keeps the raw alive: the caller drops it when stored
    tool_call_id: str
    request: BaseModel
    projection: Projection | ProjectionFailure


@dataclass(eq=False)
class _Batch:
    """The calls handed over in one iteration of the event loop: one ``tool:`` task."""

    outcomes: asyncio.Future[list[ToolOutcome | HarnessError]]
    """The calls' outcomes in order, or the Ray error the task ended with."""
    calls: list[ToolCall] = field(default_factory=list)
    waiting: int = 0
    """Callers still awaiting the outcomes; the last to leave cancels the task."""
    task: ray.ObjectRef[Any] | None = None
    resolver: asyncio.Task[None] | None = None


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
        self._open: dict[object, _Batch] = {}
        """Each turn's batch of this loop iteration, until it is submitted."""

    async def execute(
        self,
        tool_name: str,
        request: BaseModel,
        timeout_s: float,
        *,
        tool_call_id: str,
        max_raw_bytes: int,
    ) -> RawResponse:
        """Run the tool's backend and its projector in a ``tool:`` task, with the calls of
        its turn handed over in the same iteration of the event loop.

        The projection (or its failure) is kept for :meth:`project`, never the raw.

        Raises:
            HarnessError: What the backend raised (same class and code), BACKEND_TIMEOUT
                after ``timeout_s``, BACKEND_LOST when the task's worker or node died, or
                BACKEND_ERROR for any other failure.
        """
        batch, index = self._join((tool_name, tool_call_id, request, max_raw_bytes, timeout_s))
        outcome = await self._outcome(batch, index, tool_name, timeout_s)
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

    def _join(self, call: ToolCall) -> tuple[_Batch, int]:
        """Add ``call`` to its turn's batch of this loop iteration (opening one, submitted
        once the callers already scheduled have handed theirs over); its index there.

        A call made outside a turn has a batch of its own."""
        turn = TOOL_TURN.get()
        batch = None if turn is None else self._open.get(turn)
        if batch is None:
            loop = asyncio.get_running_loop()
            batch = _Batch(outcomes=loop.create_future())
            # Nobody may be left to read a failure: reading it here keeps asyncio quiet.
            batch.outcomes.add_done_callback(lambda f: f.cancelled() or f.exception())
            if turn is not None:
                self._open[turn] = batch
            loop.call_soon(self._submit, turn, batch)
        batch.calls.append(call)
        batch.waiting += 1
        return batch, len(batch.calls) - 1

    def _submit(self, turn: object | None, batch: _Batch) -> None:
        """Submit the batch as one task, unless every caller has already left it."""
        if turn is not None:
            del self._open[turn]
        if batch.waiting == 0:
            batch.outcomes.cancel()
            return
        names = sorted({tool_name for tool_name, *_ in batch.calls})
        held = held_sources() if self.by_reference else frozenset()
        packed = pack((self.key, self.tool_set_factory, held, batch.calls))
        batch.task = self.tasks.tool("+".join(names)).remote(packed)
        batch.resolver = asyncio.get_running_loop().create_task(self._resolve(batch))

    @staticmethod
    async def _resolve(batch: _Batch) -> None:
        """Read the batch's task into its outcomes (or the Ray error it ended with)."""
        assert batch.task is not None
        try:
            packed = await batch.task
        except asyncio.CancelledError:
            raise
        except BaseException as err:  # mapped per caller (map_ray_errors)
            if not batch.outcomes.done():
                batch.outcomes.set_exception(err)
            return
        if batch.outcomes.done():
            return
        try:
            outcomes = unpack(packed)
            if not isinstance(outcomes, list) or len(outcomes) != len(batch.calls):
                raise TypeError("not one outcome per call")
        except Exception as err:  # not what a task of this executor packs
            batch.outcomes.set_exception(err)
            return
        batch.outcomes.set_result(outcomes)

    async def _outcome(
        self, batch: _Batch, index: int, tool_name: str, timeout_s: float
    ) -> ToolOutcome:
        """The outcome of call ``index`` of ``batch``, waited for no longer than ``timeout_s``;
        leaving the batch on a timeout or a cancelled caller."""
        context = {"tool": tool_name}
        failure = BackendError(ErrorCode.BACKEND_ERROR, "backend task failed", context)
        lost = BackendError(ErrorCode.BACKEND_LOST, "backend worker lost", context, True)
        try:
            async with asyncio.timeout(timeout_s):
                with map_ray_errors(failure, lost=lost):
                    outcomes = await asyncio.shield(batch.outcomes)
        except TimeoutError:
            self._leave(batch)
            raise BackendError(ErrorCode.BACKEND_TIMEOUT, "backend timed out", context) from None
        except asyncio.CancelledError:
            # The run ended while this call was in flight: leave, stop the task if last.
            self._leave(batch)
            raise
        except HarnessError:
            raise
        except Exception:  # an unreadable result: no outcome to hand on
            log.warning("unreadable tool task result code=%s", failure.error_code)
            raise failure from None
        outcome = outcomes[index]
        if isinstance(outcome, HarnessError):
            raise outcome
        if not isinstance(outcome, ToolOutcome):
            log.warning("unreadable tool task result code=%s", failure.error_code)
            raise failure
        return outcome

    def _leave(self, batch: _Batch) -> None:
        batch.waiting -= 1
        if batch.waiting > 0 or batch.outcomes.done():
            return
        batch.outcomes.cancel()
        if batch.resolver is not None:
            batch.resolver.cancel()
        if batch.task is not None:
            self._cancel(batch.task)

    async def _await(
        self,
        task: ray.ObjectRef[Any],
        timeout_s: float,
        *,
        timeout_error: HarnessError,
        failure: HarnessError,
        context: dict[str, Any],
    ) -> Any:
        """The result of the task ``task`` (an ObjectRef), cancelling it on a timeout or a
        cancelled caller."""
        failure.context.update(context)
        try:
            async with asyncio.timeout(timeout_s):
                packed = await resolve(task, fallback=failure)
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
