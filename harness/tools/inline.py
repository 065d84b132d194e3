"""InlineToolExecutor: runs backends and projectors in this process.

The run plane runs the same backends and projectors as Ray remote tasks by default; this
executor is the in-process equivalent (a setting for dense or latency-critical deployments,
the CLI, and tests). Backends may block, so they run in the executor's own pool of worker
threads, as many as it has tool slots: a call that holds a slot finds a thread at once, so its
timeout (taken from the injected clock) counts the backend's work and never a wait for a
thread. A timed-out backend thread cannot be killed; its result is discarded, and its slot
stays out of service until the thread returns.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from pydantic import BaseModel

from harness.admission import ToolSlots
from harness.clock import SystemClock
from harness.contracts.errors import BackendError, ErrorCode, HarnessError, ProjectionError
from harness.contracts.observation import Projection
from harness.contracts.raw import RawResponse
from harness.ports import Clock, Projector, ToolBackend

__all__ = ["InlineToolExecutor", "default_inline_slots"]

T = TypeVar("T")


def default_inline_slots() -> int:
    """Threads for blocking backends by default: the CPUs plus four, at most 32 (what
    Python's own default thread pool takes: backends mostly wait on I/O)."""
    return min(32, (os.cpu_count() or 1) + 4)


class InlineToolExecutor:
    """Implements the ToolExecutor port with a bounded pool of threads.

    Args:
        backends: Tool name → backend.
        projectors: Tool name → projector.
        project_in_thread: Run projectors in a worker thread (keeps the event loop
            responsive) or directly on the loop (lowest latency for small results).
        clock: Times the backend and projector timeouts (the system clock by default).
        slots: Tool calls in flight at once, and threads of the pool
            (:func:`default_inline_slots` when omitted).
    """

    def __init__(
        self,
        backends: Mapping[str, ToolBackend],
        projectors: Mapping[str, Projector],
        *,
        project_in_thread: bool = True,
        clock: Clock | None = None,
        slots: int | None = None,
    ) -> None:
        self.backends = dict(backends)
        self.projectors = dict(projectors)
        self.project_in_thread = project_in_thread
        self.clock: Clock = clock or SystemClock()
        self.slots = ToolSlots(slots or default_inline_slots())
        self._threads = ThreadPoolExecutor(
            max_workers=self.slots.capacity, thread_name_prefix="harness-tool"
        )

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
        # ``max_raw_bytes`` bounds the fetch itself: the backend stops reading past it.
        backend = self.backends.get(tool_name)
        if backend is None:
            raise BackendError(ErrorCode.BACKEND_ERROR, "no backend", {"tool": tool_name})

        def fetch() -> RawResponse:
            raw = RawResponse.of(backend.fetch(request, max_raw_bytes=max_raw_bytes))
            if not raw.shared:
                # Compressed here, off the event loop, for the store. A raw of shared parts
                # is not: an in-process store keeps it by reference; any other store
                # compresses it when it writes the record.
                _ = raw.compressed
            return raw

        try:
            return await self._in_thread(fetch, timeout_s)
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
            return await self._in_thread(
                lambda: projector.project(tool_call_id, request, raw.value()), timeout_s
            )
        except TimeoutError:
            raise ProjectionError(ErrorCode.PROJECTION_ERROR, "projection timed out") from None
        except HarnessError:
            raise
        except Exception as exc:
            raise ProjectionError(ErrorCode.PROJECTION_ERROR, type(exc).__name__) from None

    async def _in_thread(self, work: Callable[[], T], timeout_s: float) -> T:
        """``work`` in a pool thread, under ``timeout_s``; a thread that outlives it keeps a
        slot out of service until it returns (the pool never has more work than threads)."""
        # As asyncio.to_thread does: the thread sees this task's context variables.
        done: Future[T] = self._threads.submit(contextvars.copy_context().run, work)
        try:
            return await self.clock.wait_for(asyncio.wrap_future(done), timeout_s)
        except (TimeoutError, asyncio.CancelledError):
            if not done.done():
                self._withhold_until(done)
            raise

    def _withhold_until(self, done: Future[T]) -> None:
        give_back = self.slots.withhold()
        loop = asyncio.get_running_loop()

        def returned(_: Future[T]) -> None:
            with contextlib.suppress(RuntimeError):  # the loop is gone, and the pool with it
                loop.call_soon_threadsafe(give_back)

        done.add_done_callback(returned)
