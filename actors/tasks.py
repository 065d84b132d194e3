"""Stateless tool work that runs as Ray remote tasks: a backend call and its projection.

The bodies here are plain functions: :func:`tool_outcome` (the raw response and its
projection, as one :class:`ToolOutcome`) and :func:`projection_of` (a projection on its own).
:mod:`actors.factory` turns their wire forms, :func:`run_tool` and :func:`run_projector`, into
remote functions named ``tool:<name>`` and ``project:<name>``. A worker process builds its
backends and projectors once, from a picklable *tool set factory*, and keeps them for every
later task it runs (building a tool plane opens databases and indexes; doing it per call
would cost more than the call).

A task's arguments and its result cross Ray *packed* (:func:`pack`): pickled once, by the
standard pickler, into one ``bytes`` value that Ray moves as it is. Handed the arguments one
by one, Ray serialises each on its own and cloudpickle walks every object of a result in
Python; packed, a call costs less CPU on both sides (``benchmarks/bench_tool_task.py``).

Errors leave a task as a :class:`~harness.contracts.errors.HarnessError` only: an unexpected
exception is reduced to its stable code here, so the caller never needs the class of an
adapter's exception to unpickle it, and no exception text crosses the process boundary. A
projection that fails inside ``tool:<name>`` does not fail the task (its raw is good): it
travels as a :class:`ProjectionFailure` value, a code and safe context.
"""

from __future__ import annotations

import hashlib
import logging
import pickle
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from harness.contracts.errors import BackendError, ErrorCode, HarnessError, ProjectionError
from harness.contracts.observation import Projection
from harness.contracts.raw import RawResponse, by_reference
from harness.ports import Projector, ToolBackend
from harness.workspace import Workspace

__all__ = [
    "ProjectionFailure",
    "ToolOutcome",
    "ToolSet",
    "ToolSetFactory",
    "WorkspaceToolSet",
    "embedded_tool_set",
    "pack",
    "projection_of",
    "run_projector",
    "run_tool",
    "tool_outcome",
    "tool_set_key",
    "unpack",
]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ToolSet:
    """The backends and projectors one worker process serves, by tool name."""

    backends: Mapping[str, ToolBackend] = field(default_factory=dict)
    projectors: Mapping[str, Projector] = field(default_factory=dict)


ToolSetFactory = Callable[[], ToolSet]
"""A picklable zero-argument callable; keep it small, it travels with every task."""


def embedded_tool_set() -> ToolSet:
    """The default factory: backends and projectors of the embedded tool plane."""
    from harness.adapters.embedded import build_tool_plane

    plane = build_tool_plane()
    return ToolSet(backends=plane.backends, projectors=plane.projectors)


@dataclass(frozen=True)
class WorkspaceToolSet:
    """The factory of a user's world: backends and projectors of the workspace's tool plane."""

    workspace: Workspace

    def __call__(self) -> ToolSet:
        from harness.adapters.embedded import build_tool_plane

        plane = build_tool_plane(workspace=self.workspace)
        return ToolSet(backends=plane.backends, projectors=plane.projectors)


def pack(value: object) -> bytes:
    """``value`` pickled once, by the standard pickler (C speed), or by cloudpickle when that
    refuses it (a factory that is a lambda or a closure); :func:`unpack` reads either."""
    try:
        return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError):
        import ray.cloudpickle

        body: bytes = ray.cloudpickle.dumps(value)  # type: ignore[no-untyped-call]  # cloudpickle ships no types
        return body


def unpack(packed: bytes) -> Any:
    """The value :func:`pack` packed (cloudpickle writes plain pickles too)."""
    # Written by pack() in a process of this cluster: trusted as Ray trusts its own pickles.
    return pickle.loads(packed)


def tool_set_key(factory: ToolSetFactory) -> str:
    """A stable identity for a factory, so that equal factories share one cached tool set."""
    import ray.cloudpickle

    try:
        body: bytes = ray.cloudpickle.dumps(factory)  # type: ignore[no-untyped-call]  # cloudpickle ships no types
    except (pickle.PicklingError, TypeError) as exc:
        raise TypeError("the tool set factory must be picklable") from exc
    name = getattr(factory, "__qualname__", type(factory).__qualname__)
    return f"{name}:{hashlib.sha256(body).hexdigest()[:16]}"


# One cache per worker process: task bodies run on the worker's main thread, one at a time.
_TOOL_SETS: dict[str, ToolSet] = {}


def _tool_set(key: str, factory: ToolSetFactory) -> ToolSet:
    tool_set = _TOOL_SETS.get(key)
    if tool_set is None:
        tool_set = _TOOL_SETS[key] = factory()
    return tool_set


@dataclass(frozen=True, kw_only=True, slots=True)
class ProjectionFailure:
    """A projector's failure, carried back as a value: its stable code and safe context.

    Exception text never travels; :meth:`error` rebuilds the error the caller raises.
    """

    error_code: ErrorCode
    context: dict[str, Any]
    retryable: bool = False

    @classmethod
    def of(cls, error: HarnessError) -> ProjectionFailure:
        """The failure a projector raised (its message stays in the worker's log)."""
        return cls(error_code=error.error_code, context=error.context, retryable=error.retryable)

    def error(self) -> HarnessError:
        """PROJECTION_ERROR as a ProjectionError; any other code as a plain HarnessError."""
        if self.error_code in ProjectionError.codes:
            return ProjectionError(
                self.error_code, "projection failed", self.context, self.retryable
            )
        return HarnessError(self.error_code, "projection failed", self.context, self.retryable)


# A plain dataclass, not a pydantic model, on purpose: it only ever travels from
# ``tool_outcome`` to RayToolExecutor, once per tool call, and its fields are already a
# RawResponse (pickled as its compressed frame) and a pydantic Projection.
@dataclass(frozen=True, kw_only=True, slots=True)
class ToolOutcome:
    """What one ``tool:<name>`` task returns: the raw response and what projecting it gave."""

    raw: RawResponse
    projection: Projection | ProjectionFailure | None
    """The projection, its failure, or None when the raw was over the byte limit (not tried)."""


def run_tool(call: bytes) -> bytes:
    """Task body of ``tool:<name>``: :func:`tool_outcome` of the packed arguments, packed.

    The call's last argument names the stores the caller holds: a raw made of one of them
    travels back by reference (:func:`harness.contracts.raw.by_reference`), not as its frame.
    """
    *arguments, held = unpack(call)
    outcome = tool_outcome(*arguments)
    with by_reference(held):
        return pack(outcome)


def run_projector(call: bytes) -> bytes:
    """Task body of ``project:<name>``: :func:`projection_of` of the packed arguments, packed."""
    return pack(projection_of(*unpack(call)))


def tool_outcome(
    key: str,
    factory: ToolSetFactory,
    tool_name: str,
    tool_call_id: str,
    request: BaseModel,
    max_raw_bytes: int,
) -> ToolOutcome:
    """The backend call, then its projection, in one result (what ``tool:<name>`` returns).

    The raw response is serialised here once (only its compressed frame travels back); the
    projection is built in the same worker from the backend's own value: no second task, no
    second copy of the raw, no parse of its JSON. The backend stops reading once it passed
    ``max_raw_bytes`` (what the run may still book); a raw whose serialised form is larger
    still is not projected, since the caller refuses it.

    Raises:
        HarnessError: The backend failed (an unexpected exception becomes BACKEND_ERROR) or
            read past the cap (RAW_TOO_LARGE). A failed projection is not raised: it is the
            outcome's ProjectionFailure.
    """
    try:
        tool_set = _tool_set(key, factory)
        backend = tool_set.backends.get(tool_name)
        if backend is None:
            raise BackendError(ErrorCode.BACKEND_ERROR, "no backend", {"tool": tool_name})
        raw = RawResponse.of(backend.fetch(request, max_raw_bytes=max_raw_bytes))
        value = raw.value()  # the backend's own value (a RawResponse may carry it too)
    except HarnessError:
        raise
    except Exception as exc:  # an adapter defect is still only a BACKEND_ERROR outward
        log.warning("backend failed tool=%s error=%s", tool_name, type(exc).__name__)
        raise BackendError(
            ErrorCode.BACKEND_ERROR, type(exc).__name__, {"tool": tool_name}
        ) from None
    if raw.size > max_raw_bytes:
        return ToolOutcome(raw=raw, projection=None)
    try:
        projection = _project(tool_set, tool_name, tool_call_id, request, value)
    except HarnessError as err:
        log.debug("projection failed tool=%s code=%s", tool_name, err.error_code.value)
        return ToolOutcome(raw=raw, projection=ProjectionFailure.of(err))
    return ToolOutcome(raw=raw, projection=projection)


def projection_of(
    key: str,
    factory: ToolSetFactory,
    tool_name: str,
    tool_call_id: str,
    request: BaseModel,
    raw: RawResponse,
) -> Projection:
    """The bounded observation of a raw response that did not come from a ``tool:<name>``
    task of the caller (parsed here, from its bytes): what ``project:<name>`` returns."""
    try:
        tool_set = _tool_set(key, factory)
        value = raw.value()
    except Exception as exc:
        log.warning("projector failed tool=%s error=%s", tool_name, type(exc).__name__)
        raise ProjectionError(
            ErrorCode.PROJECTION_ERROR, type(exc).__name__, {"tool": tool_name}
        ) from None
    return _project(tool_set, tool_name, tool_call_id, request, value)


def _project(
    tool_set: ToolSet, tool_name: str, tool_call_id: str, request: BaseModel, value: object
) -> Projection:
    try:
        projector = tool_set.projectors.get(tool_name)
        if projector is None:
            raise ProjectionError(ErrorCode.PROJECTION_ERROR, "no projector", {"tool": tool_name})
        return projector.project(tool_call_id, request, value)
    except HarnessError:
        raise
    except Exception as exc:
        log.warning("projector failed tool=%s error=%s", tool_name, type(exc).__name__)
        raise ProjectionError(
            ErrorCode.PROJECTION_ERROR, type(exc).__name__, {"tool": tool_name}
        ) from None
