"""``GET /v1/sessions/{session_id}/runs/{run_id}/reasoning``: the provider's reasoning of a
run, for its owner with REASONING_READ (``serve.lookups.find_reasoning``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path

from serve.lookups import find_reasoning
from serve.models import SESSION_ID_PATTERN, ReasoningResponse
from serve.routes._shared import ERRORS, Caller, Deps, RunId

__all__ = ["router"]

router = APIRouter()


@router.get(
    "/v1/sessions/{session_id}/runs/{run_id}/reasoning",
    operation_id="runReasoning",
    response_model=ReasoningResponse,
    responses=ERRORS,
    summary="The provider's reasoning of a run (owner with REASONING_READ only)",
    description=(
        "Every refusal — another owner, another session, an unknown run, a missing "
        "REASONING_READ — answers the same 404 NOT_FOUND; each attempt is audited."
    ),
)
async def run_reasoning(
    session_id: Annotated[str, Path(pattern=SESSION_ID_PATTERN, description="The session.")],
    run_id: RunId,
    holder: Caller,
    deps: Deps,
) -> ReasoningResponse:
    # No permission check here: a missing REASONING_READ is refused (and audited) like any
    # other refusal, with the same NOT_FOUND.
    return await find_reasoning(
        deps.audit,
        deps.cipher,
        deps.clock,
        principal=holder.principal,
        session_id=session_id,
        run_id=run_id,
    )
