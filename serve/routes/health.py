"""``GET /healthz`` (liveness) and ``GET /readyz`` (Redis and the run pool reachable)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from harness.contracts.errors import ErrorCode
from serve.deps import ApiDeps
from serve.errors import ErrorBody, error_response
from serve.models import CheckState, Health, Readiness
from serve.routes._shared import Deps

__all__ = ["router"]

router = APIRouter()

_PROBE_TIMEOUT_S = 2.0
_NO_RUN = "run-00000000000000000000"
"""A run id no run has: reading it probes the audit database without reading a run."""


@router.get("/healthz", operation_id="healthz", response_model=Health, summary="Liveness")
async def healthz() -> Health:
    return Health(status="ok")


@router.get(
    "/readyz",
    operation_id="readyz",
    response_model=Readiness,
    responses={503: {"model": ErrorBody, "description": "Redis or the run pool is down."}},
    summary="Readiness: Redis and the run pool reachable (audit down: degraded)",
)
async def readyz(deps: Deps) -> Readiness | JSONResponse:
    down, audit = await _reachable(deps)
    if down:
        return error_response(ErrorCode.UNAVAILABLE, message=f"not ready: {', '.join(down)}")
    return Readiness(
        status="degraded" if audit == "unavailable" else "ready",
        redis="ok",
        run_pool="ok",
        audit=audit,
    )


async def _reachable(deps: ApiDeps) -> tuple[list[str], CheckState]:
    """The parts the API cannot serve without that are down (Redis, the run pool behind the
    desk), and the audit's state: unavailable only degrades the API."""
    redis_ok, pool_ok, audit_ok = await asyncio.gather(
        _probe(deps.limiter.ping()),
        _probe(deps.plane.ping()),
        _probe(deps.audit.run(_NO_RUN)) if deps.audit else _true(),
    )
    down = [name for name, ok in (("redis", redis_ok), ("run_pool", pool_ok)) if not ok]
    audit: CheckState = "disabled" if deps.audit is None else "ok" if audit_ok else "unavailable"
    return down, audit


async def _probe(call: Awaitable[Any]) -> bool:
    try:
        await asyncio.wait_for(call, _PROBE_TIMEOUT_S)
    except Exception:
        return False
    return True


async def _true() -> bool:
    return True
