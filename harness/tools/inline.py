"""InlineToolExecutor: runs backends and projectors in this process.

The run plane runs the same backends and projectors as Ray remote tasks by default; this
executor is the in-process equivalent (a setting for dense or latency-critical deployments,
the CLI, and tests). Backends may block, so they run in worker threads under a timeout taken
from the injected clock; a timed-out backend thread cannot be killed, but its result is
discarded.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from pydantic import BaseModel

from harness.clock import SystemClock
from harness.errors import BackendError, ErrorCode, HarnessError, ProjectionError
from harness.observation import Projection
from harness.ports import Clock, Projector, ToolBackend
from harness.raw import RawResponse

__all__ = ["InlineToolExecutor"]


class InlineToolExecutor:
    """Implements the ToolExecutor port with threads.

    Args:
        backends: Tool name → backend.
        projectors: Tool name → projector.
        project_in_thread: Run projectors in a worker thread (keeps the event loop
            responsive) or directly on the loop (lowest latency for small results).
        clock: Times the backend and projector timeouts (the system clock by default).
    """

    def __init__(
        self,
        backends: Mapping[str, ToolBackend],
        projectors: Mapping[str, Projector],
        *,
        project_in_thread: bool = True,
        clock: Clock | None = None,
    ) -> None:
        self.backends = dict(backends)
        self.projectors = dict(projectors)
        self.project_in_thread = project_in_thread
        self.clock: Clock = clock or SystemClock()

    async def execute(
        self,
        tool_name: str,
        request: BaseModel,
        timeout_s: float,
        *,
        tool_call_id: str,
        max_raw_bytes: int,
    ) -> RawResponse:
        # The projection needs no head start here: it reads the backend's value in process.
        backend = self.backends.get(tool_name)
        if backend is None:
            raise BackendError(ErrorCode.BACKEND_ERROR, "no backend", {"tool": tool_name})

        def fetch() -> RawResponse:
            raw = RawResponse.of(backend.fetch(request))
            _ = raw.compressed  # compressed here, off the event loop, for the store
            return raw

        try:
            return await self.clock.wait_for(asyncio.to_thread(fetch), timeout_s)
        except TimeoutError:
            raise BackendError(
                ErrorCode.BACKEND_TIMEOUT, "backend timed out", {"tool": tool_name}
            ) from None
        except HarnessError:
            raise
        except Exception as exc:  # an adapter defect is still only a BACKEND_ERROR outward
            raise BackendError(
                ErrorCode.BACKEND_ERROR, type(exc).__name__, {"tool": tool_name}
            ) from None

    async def project(
        self,
        tool_name: str,
        tool_call_id: str,
        request: BaseModel,
        raw: RawResponse,
        timeout_s: float,
    ) -> Projection:
        projector = self.projectors.get(tool_name)
        if projector is None:
            raise ProjectionError(ErrorCode.PROJECTION_ERROR, "no projector", {"tool": tool_name})
        try:
            if not self.project_in_thread:
                return projector.project(tool_call_id, request, raw.value())
            return await self.clock.wait_for(
                asyncio.to_thread(lambda: projector.project(tool_call_id, request, raw.value())),
                timeout_s,
            )
        except TimeoutError:
            raise ProjectionError(ErrorCode.PROJECTION_ERROR, "projection timed out") from None
        except HarnessError:
            raise
        except Exception as exc:
            raise ProjectionError(ErrorCode.PROJECTION_ERROR, type(exc).__name__) from None
