"""Stateless tool work that runs as Ray remote tasks: one backend call, one projection.

The bodies here are plain functions; :mod:`actors.factory` turns them into remote functions
named ``tool:<name>`` and ``project:<name>``. A worker process builds its backends and
projectors once, from a picklable *tool set factory*, and keeps them for every later task
it runs (building a tool plane opens databases and indexes; doing it per call would cost
more than the call).

Errors leave a task as a :class:`~harness.errors.HarnessError` only: an unexpected
exception is reduced to its stable code here, so the caller never needs the class of an
adapter's exception to unpickle it, and no exception text crosses the process boundary.
"""

from __future__ import annotations

import hashlib
import logging
import pickle
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from pydantic import BaseModel

from harness.errors import BackendError, ErrorCode, HarnessError, ProjectionError
from harness.observation import Projection
from harness.ports import Projector, ToolBackend
from harness.raw import RawResponse
from harness.workspace import Workspace

__all__ = [
    "ToolSet",
    "ToolSetFactory",
    "WorkspaceToolSet",
    "embedded_tool_set",
    "run_projector",
    "run_tool",
    "tool_set_key",
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


def run_tool(key: str, factory: ToolSetFactory, tool_name: str, request: BaseModel) -> RawResponse:
    """Task body of ``tool:<name>``: the raw backend response for one typed request, serialised
    here, once (only its JSON bytes travel back)."""
    try:
        backend = _tool_set(key, factory).backends.get(tool_name)
        if backend is None:
            raise BackendError(ErrorCode.BACKEND_ERROR, "no backend", {"tool": tool_name})
        return RawResponse.of(backend.fetch(request))
    except HarnessError:
        raise
    except Exception as exc:  # an adapter defect is still only a BACKEND_ERROR outward
        log.warning("backend failed tool=%s error=%s", tool_name, type(exc).__name__)
        raise BackendError(
            ErrorCode.BACKEND_ERROR, type(exc).__name__, {"tool": tool_name}
        ) from None


def run_projector(
    key: str,
    factory: ToolSetFactory,
    tool_name: str,
    tool_call_id: str,
    request: BaseModel,
    raw: RawResponse,
) -> Projection:
    """Task body of ``project:<name>``: the bounded observation built from a raw response
    (parsed here, from the bytes the tool task produced)."""
    try:
        projector = _tool_set(key, factory).projectors.get(tool_name)
        if projector is None:
            raise ProjectionError(ErrorCode.PROJECTION_ERROR, "no projector", {"tool": tool_name})
        return projector.project(tool_call_id, request, raw.value())
    except HarnessError:
        raise
    except Exception as exc:
        log.warning("projector failed tool=%s error=%s", tool_name, type(exc).__name__)
        raise ProjectionError(
            ErrorCode.PROJECTION_ERROR, type(exc).__name__, {"tool": tool_name}
        ) from None
