"""``GET /v1/runs/{run_id}/trace``: a run's timeline, live or from the audit
(``serve.lookups.find_trace``)."""

from __future__ import annotations

from fastapi import APIRouter

from harness.contracts.principal import Permission
from serve.lookups import find_trace
from serve.models import TraceResponse
from serve.routes._shared import ERRORS, Caller, Deps, RunId

__all__ = ["router"]

router = APIRouter()


@router.get(
    "/v1/runs/{run_id}/trace",
    operation_id="runTrace",
    response_model=TraceResponse,
    responses=ERRORS,
    summary="A run's timeline (metadata only)",
)
async def run_trace(run_id: RunId, holder: Caller, deps: Deps) -> TraceResponse:
    principal = holder.require(Permission.READ)
    return await find_trace(deps.plane, deps.audit, run_id=run_id, owner=principal.id)
