"""``GET /v1/runs/{run_id}/events``: a run's progress as Server-Sent Events (``serve.sse``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header
from fastapi.responses import StreamingResponse

from harness.contracts.principal import Permission
from harness.run.view import RunView
from serve.routes._shared import ERRORS, Caller, Deps, RunId
from serve.sse import MAX_EVENT_ID, open_progress_stream

__all__ = ["router"]

router = APIRouter()


@router.get(
    "/v1/runs/{run_id}/events",
    operation_id="runEvents",
    response_class=StreamingResponse,
    responses={
        200: {
            "content": {"text/event-stream": {"schema": RunView.model_json_schema()}},
            "description": (
                "Server-Sent Events: `progress` events (data: RunView) whenever the run "
                "moves, `: keep-alive` comments while it does not, and one `result` event "
                "(data: RunView with the released result) at its terminal state. Event ids "
                "are timeline sequence numbers: reconnect with `Last-Event-ID` to resume."
            ),
        },
        **ERRORS,
    },
    summary="Progress of a run as Server-Sent Events",
)
async def run_events(
    run_id: RunId,
    holder: Caller,
    deps: Deps,
    last_event_id: Annotated[
        str,
        Header(
            pattern=rf"^[0-9]{{0,{len(str(MAX_EVENT_ID))}}}$",
            description="Resume after this event id (SSE reconnect); empty: from the start.",
        ),
    ] = "",
) -> StreamingResponse:
    principal = holder.require(Permission.READ)
    frames = await open_progress_stream(
        deps.plane,
        run_id,
        owner=principal.id,
        last_event_id=int(last_event_id) if last_event_id else None,  # digits only
        heartbeat_s=deps.limits.sse_heartbeat_s,
        max_stream_s=deps.limits.max_stream_s,
        clock=deps.clock,
    )
    return StreamingResponse(
        frames,
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )
