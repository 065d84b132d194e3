"""``/v1/runs``: the caller's runs, one run's view, and its cancel."""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Query

from harness.contracts.principal import Permission
from harness.run.view import CancelOutcome, RunView
from serve.models import SESSION_ID_PATTERN, RunList
from serve.routes._shared import ERRORS, Caller, Deps, RunId

__all__ = ["router"]

router = APIRouter()


@router.get(
    "/v1/runs",
    operation_id="listRuns",
    response_model=RunList,
    responses=ERRORS,
    summary="The caller's runs, newest first",
)
async def list_runs(
    holder: Caller,
    deps: Deps,
    session_id: Annotated[
        str | None, Query(pattern=SESSION_ID_PATTERN, description="Only this session's.")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=100, description="Runs at most.")] = 20,
) -> RunList:
    principal = holder.require(Permission.READ)
    return RunList(runs=await deps.plane.runs(principal.id, session_id, limit))


@router.get(
    "/v1/runs/{run_id}",
    operation_id="getRun",
    response_model=RunView,
    responses=ERRORS,
    summary="A run's status, progress and released result",
)
async def get_run(run_id: RunId, holder: Caller, deps: Deps) -> RunView:
    principal = holder.require(Permission.READ)
    return await deps.plane.view(run_id, principal.id)


@router.post(
    "/v1/runs/{run_id}/cancel",
    operation_id="cancelRun",
    response_model=CancelOutcome,
    responses=ERRORS,
    summary="Cancel a run (works from any replica; a no-op once it ended)",
)
async def cancel_run(run_id: RunId, holder: Caller, deps: Deps) -> CancelOutcome:
    principal = holder.require(Permission.CANCEL)
    # Shielded: a client that goes away mid-cancel cannot leave the cancel half-done.
    return await asyncio.shield(deps.plane.cancel(run_id, principal.id))
