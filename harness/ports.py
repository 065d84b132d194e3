"""Ports: the small protocols through which the core reaches the outside world.

Adapters in ``harness/adapters`` (Redis, SQLAlchemy, httpx, openai) and ``actors/`` (Ray)
implement them; fakes in ``harness/testing`` implement them for tests.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel

from harness.admission import ToolSlots
from harness.contracts.errors import ErrorCode
from harness.contracts.invocation import CanonicalInvocation, EvidenceStatus
from harness.contracts.observation import Projection
from harness.contracts.raw import RawResponse

__all__ = [
    "CanonicalStore",
    "Clock",
    "Projector",
    "Timer",
    "ToolBackend",
    "ToolExecutor",
]

T = TypeVar("T")


class Timer(Protocol):
    """A scheduled callback that can still be called off."""

    def cancel(self) -> None: ...


class Clock(Protocol):
    """The only source of time of the core: readings, timers, sleeps and timeouts.

    ``harness.clock.SystemClock`` is real time on the running event loop;
    ``harness.testing.clock.FakeClock`` moves only when a test advances it, firing every
    timer, sleep and timeout that falls due.
    """

    def now(self) -> datetime:
        """Wall time, timezone-aware UTC."""
        ...

    def monotonic(self) -> float:
        """A monotonic reading in seconds; only differences are meaningful."""
        ...

    def call_later(self, delay_s: float, callback: Callable[[], None]) -> Timer:
        """Call ``callback`` (on the event loop's thread) once ``delay_s`` seconds passed."""
        ...

    async def sleep(self, delay_s: float) -> None:
        """Wait ``delay_s`` seconds."""
        ...

    async def wait_for(self, awaitable: Awaitable[T], timeout_s: float) -> T:
        """Await ``awaitable``; cancel it and raise ``TimeoutError`` after ``timeout_s``."""
        ...


@runtime_checkable
class CanonicalStore(Protocol):
    """Short-lived, harness-only store of canonical invocations.

    Implementations key records by ``(run_id, tool_call_id)``; TTL is set once at ``begin``
    and never renewed, neither by reads nor by transitions. Failures raise ``StoreError``
    (STORE_ERROR, RECORD_TOO_LARGE, RECORD_EXPIRED, ILLEGAL_TRANSITION,
    DUPLICATE_TOOL_CALL_ID).
    """

    ttl_s: int

    async def begin(self, record: CanonicalInvocation) -> None:
        """Create a PROJECTING record; refuse when the key exists."""
        ...

    async def mark_ready(
        self,
        run_id: str,
        tool_call_id: str,
        *,
        raw: RawResponse,
        agent_result: dict[str, Any],
        evidence_status: EvidenceStatus,
        completed_at: datetime,
    ) -> CanonicalInvocation:
        """PROJECTING → READY, keeping the remaining TTL."""
        ...

    async def mark_error(
        self,
        run_id: str,
        tool_call_id: str,
        *,
        error_code: ErrorCode,
        completed_at: datetime,
        raw: RawResponse | None = None,
    ) -> CanonicalInvocation:
        """PROJECTING → ERROR, keeping the remaining TTL."""
        ...

    async def get(self, run_id: str, tool_call_id: str) -> CanonicalInvocation | None:
        """Read a record without renewing its TTL; None when absent or expired."""
        ...


class ToolBackend(Protocol):
    """Fetches the raw result for one typed request. Synchronous; may block on I/O."""

    def fetch(self, request: BaseModel, *, max_raw_bytes: int) -> Any:
        """Return a JSON-compatible raw response, or raise BackendError or RawTooLarge.

        A backend that holds its records' JSON already may return a
        :class:`~harness.contracts.raw.RawResponse` (e.g. ``RawResponse.of_parts``) instead.

        ``max_raw_bytes`` is what the response may fill: the backend counts the bytes it
        reads while they stream (a :class:`~harness.contracts.rawcap.RawCap`) and raises
        :class:`~harness.contracts.errors.RawTooLarge` the moment the count passes it, so that no
        response larger than the cap is ever held. The boundary still checks the serialised
        size afterwards; the count only has to stop the fetch early.
        """
        ...


class Projector(Protocol):
    """Builds the bounded agent observation from a raw response. Pure and synchronous."""

    def project(self, tool_call_id: str, request: BaseModel, raw: Any) -> Projection:
        """Return the observation and harness-only facts, or raise ProjectionError."""
        ...


class ToolExecutor(Protocol):
    """Runs backends and projectors: inline in a thread, or as Ray remote tasks.

    ``slots`` is the executor's bounded pool of tool-call slots, shared by every run of the
    process. A caller holds a slot (:meth:`ToolSlots.acquire`) before it calls ``execute``
    and gives it back once ``project`` returned: that bounds the tool work in flight, and
    the timeouts passed to both methods start from their call, never from the wait for a
    slot. ``execute`` and ``project`` enforce their timeout from the moment they are called.
    """

    slots: ToolSlots

    async def execute(
        self,
        tool_name: str,
        request: BaseModel,
        timeout_s: float,
        *,
        tool_call_id: str,
        max_raw_bytes: int,
    ) -> RawResponse:
        """Run the tool's backend; raise BackendError (BACKEND_ERROR / BACKEND_TIMEOUT).

        The response is serialised where the backend ran (``RawResponse.of``), once.
        ``tool_call_id`` and ``max_raw_bytes`` (what the run may still book) let an executor
        start the projection in the same step; ``project`` then hands that one back.
        """
        ...

    async def project(
        self,
        tool_name: str,
        tool_call_id: str,
        request: BaseModel,
        raw: RawResponse,
        timeout_s: float,
    ) -> Projection:
        """Run the tool's projector; raise ProjectionError."""
        ...
