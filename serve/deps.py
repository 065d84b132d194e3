"""ApiDeps: everything ``build_app`` is built from, and the limits it enforces.

The app is a plain function of these (``serve.app.build_app``): the Serve deployment builds
them with the run desk actor, Redis and the audit database; unit tests with an in-process desk,
fakeredis and an in-memory audit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from harness.audit.reasoning import ReasoningCipher
from harness.audit.records import AuditStore
from harness.clock import SystemClock
from harness.ports import Clock
from harness.settings import ServeSettings
from serve.auth import KeyRing
from serve.plane import RunPlane

__all__ = ["ApiDeps", "ApiLimits", "RateLimiter"]


class RateLimiter(Protocol):
    """Per-principal request quota (``harness.adapters.redis_quota.RedisRateLimiter``)."""

    async def hit(self, principal: str, *, limit: int, window_s: int) -> float | None:
        """None when within ``limit`` this window, else seconds until it ends."""
        ...

    async def ping(self) -> None:
        """Raises Unavailable when the counters cannot be reached."""
        ...


@dataclass(frozen=True, kw_only=True)
class ApiLimits:
    """What the API accepts and how long it holds requests (see ``ServeSettings``)."""

    max_body_bytes: int = 16 * 1024
    rate_limit: int = 600
    rate_window_s: int = 60
    max_deadline_s: float = 600.0
    max_wait_s: float = 300.0
    max_tool_calls: int = 12
    max_model_calls: int = 16
    max_total_tokens: int = 220_000
    sse_heartbeat_s: float = 15.0
    max_stream_s: float = 900.0
    max_list: int = 100

    @classmethod
    def of(cls, settings: ServeSettings) -> ApiLimits:
        return cls(
            max_body_bytes=settings.api_max_body_bytes,
            rate_limit=settings.api_rate_limit,
            rate_window_s=settings.api_rate_window_s,
            max_deadline_s=settings.api_max_deadline_s,
            max_wait_s=settings.api_max_wait_s,
            max_tool_calls=settings.api_max_tool_calls,
            max_model_calls=settings.api_max_model_calls,
            max_total_tokens=settings.api_max_total_tokens,
            sse_heartbeat_s=settings.api_sse_heartbeat_s,
            max_stream_s=settings.api_max_stream_s,
        )


@dataclass(kw_only=True)
class ApiDeps:
    """The app's collaborators.

    Args:
        plane: The runs (the run desk, through its actor under Serve).
        keys: API keys → principals.
        limiter: Per-principal quotas, shared across replicas.
        audit: The durable audit (trace after the run's host forgot it, reasoning); None when
            the deployment keeps no audit.
        cipher: Opens sealed reasoning; None: reasoning cannot be read here.
        clock: Time of reasoning-access records.
        limits: What the API accepts.
    """

    plane: RunPlane
    keys: KeyRing
    limiter: RateLimiter
    audit: AuditStore | None = None
    cipher: ReasoningCipher | None = None
    clock: Clock = field(default_factory=SystemClock)
    limits: ApiLimits = field(default_factory=ApiLimits)
