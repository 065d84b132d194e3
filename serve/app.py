"""``build_app(deps)``: the HTTP API as a FastAPI app.

Route handlers translate HTTP to run-desk calls and ErrorCodes to statuses (``serve.errors``);
nothing more. Every ``/v1`` route authenticates (``Authorization: Bearer <key>``), counts the
request against the principal's quota (429 + ``Retry-After`` beyond it), then checks the
route's permission (403). A run is its creator's: any other principal's run answers exactly
like a run that does not exist (404 NOT_FOUND, same body, same path through the desk).

=========================================================  ===============  ==================
route                                                      permission       answers
=========================================================  ===============  ==================
POST /v1/diagnoses                                         DIAGNOSE         202 RunView, or
                                                                            200 with ``wait``
GET  /v1/runs?session_id=&limit=                           READ             RunList
GET  /v1/runs/{run_id}                                     READ             RunView
POST /v1/runs/{run_id}/cancel                              CANCEL           CancelOutcome
GET  /v1/runs/{run_id}/events                              READ             text/event-stream
GET  /v1/runs/{run_id}/trace                               READ             TraceResponse
GET  /v1/sessions/{session_id}/runs/{run_id}/reasoning     REASONING_READ   ReasoningResponse
GET  /healthz, /readyz                                     none             Health, Readiness
=========================================================  ===============  ==================
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Annotated, Any, TypeVar

from fastapi import Depends, FastAPI, Header, Path, Query, Request, Response, Security
from fastapi.responses import JSONResponse, StreamingResponse
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from harness.audit import AuditStore
from harness.errors import (
    ErrorCode,
    HarnessError,
    RateLimited,
    RequestRefused,
    RunNotFound,
    Unavailable,
)
from harness.ingress import RunLimits, RunRequest
from harness.principal import Permission
from harness.reasoning import read_reasoning
from harness.run_view import CancelOutcome, RunView, Submission
from serve.auth import Keyholder
from serve.deps import ApiDeps, ApiLimits
from serve.edge import BodyLimit, ContainErrors
from serve.errors import ErrorBody, error_response, install_error_handlers
from serve.models import (
    RUN_ID_PATTERN,
    SESSION_ID_PATTERN,
    DiagnosisCreate,
    Health,
    Readiness,
    ReasoningItem,
    ReasoningResponse,
    RunList,
    TraceResponse,
)
from serve.openapi import publish_maxima
from serve.sse import MAX_EVENT_ID, progress_stream

__all__ = ["API_VERSION", "build_app"]

log = logging.getLogger(__name__)

API_VERSION = "1.0.0"
_T = TypeVar("_T")
_IDEMPOTENCY_KEY_PATTERN = r"^[\x21-\x7e]{1,255}$"
_PROBE_TIMEOUT_S = 2.0

_ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": text}
    for status, text in {
        401: "No valid API key (UNAUTHENTICATED).",
        403: "The key lacks the permission (FORBIDDEN).",
        404: "No such run for this caller (NOT_FOUND).",
        413: "Body too large (PAYLOAD_TOO_LARGE).",
        422: "Breaks the schema or a server maximum (INVALID_REQUEST).",
        429: "Quota used up (RATE_LIMITED) or service full (OVERLOADED); see Retry-After.",
        503: "A service the request needs is unavailable (UNAVAILABLE).",
    }.items()
}


# OpenAPI links: what a created run's id leads to (clients and schemathesis follow them).
_RUN_LINKS = {
    name: {"operationId": operation, "parameters": {"run_id": "$response.body#/run_id"}}
    for name, operation in (
        ("GetRun", "getRun"),
        ("CancelRun", "cancelRun"),
        ("RunEvents", "runEvents"),
        ("RunTrace", "runTrace"),
    )
}

# Declared for /openapi.json (either scheme will do); ``KeyRing`` reads the raw headers itself.
_BEARER = HTTPBearer(
    auto_error=False, description="An API key as a bearer token: `Authorization: Bearer hk_…`."
)
_API_KEY = APIKeyHeader(
    name="X-API-Key", auto_error=False, description="An API key in its own header."
)


async def _caller(
    request: Request,
    _bearer: Annotated[HTTPAuthorizationCredentials | None, Security(_BEARER)],
    _api_key: Annotated[str | None, Security(_API_KEY)],
) -> Keyholder:
    """The authenticated caller, its request counted against its quota."""
    deps: ApiDeps = request.app.state.deps
    headers = request.headers
    holder = deps.keys.authenticate(headers.getlist("authorization"), headers.getlist("x-api-key"))
    retry_after_s = await deps.limiter.hit(
        holder.principal.id,
        limit=holder.rate_limit or deps.limits.rate_limit,
        window_s=deps.limits.rate_window_s,
    )
    if retry_after_s is not None:
        raise RateLimited(ErrorCode.RATE_LIMITED, "quota used up", {"retry_after_s": retry_after_s})
    return holder


Caller = Annotated[Keyholder, Depends(_caller)]
RunId = Annotated[str, Path(pattern=RUN_ID_PATTERN, description="The run.")]


def build_app(deps: ApiDeps) -> FastAPI:
    """The API over ``deps``; state lives in ``deps`` (the run desk, Redis), never here."""
    app = FastAPI(
        title="Diagnosis Harness",
        version=API_VERSION,
        description=(
            "Incident diagnoses behind a deterministic control boundary: runs, progress as "
            "Server-Sent Events, cancel, trace timeline and the reasoning audit."
        ),
        docs_url="/docs",
        redoc_url=None,
    )
    app.state.deps = deps
    publish_maxima(app, deps.limits)
    install_error_handlers(app)
    app.add_middleware(BodyLimit, max_bytes=deps.limits.max_body_bytes)
    app.add_middleware(ContainErrors)
    limits = deps.limits
    plane = deps.plane

    # ------------------------------------------------------------------ runs

    @app.post(
        "/v1/diagnoses",
        operation_id="createDiagnosis",
        response_model=RunView,
        status_code=202,
        responses={
            200: {"model": RunView, "description": "Waited: the run ended.", "links": _RUN_LINKS},
            202: {"description": "Accepted: the run goes on.", "links": _RUN_LINKS},
            409: {"model": ErrorBody, "description": "Idempotency-Key reused (CONFLICT)."},
            **_ERRORS,
        },
        summary="Start a diagnosis (answer at once, or wait for the result)",
    )
    async def create_diagnosis(
        body: DiagnosisCreate,
        response: Response,
        holder: Caller,
        idempotency_key: Annotated[
            str | None,
            Header(
                pattern=_IDEMPOTENCY_KEY_PATTERN,
                description=(
                    "Retry-safe key (1-255 visible ASCII characters): the same key and body "
                    "name the same run."
                ),
            ),
        ] = None,
    ) -> RunView:
        principal = holder.require(Permission.DIAGNOSE)
        request = _run_request(body, principal.id, limits)
        submission = Submission(
            request=request, idempotency_key=idempotency_key, fingerprint=body.fingerprint()
        )
        wait_s = (
            min(limits.max_wait_s, (request.deadline_s or limits.max_wait_s) + 5.0)
            if body.wait
            else 0.0
        )
        # One hop to the desk, which shields the acceptance: a client that disconnects while
        # the desk accepts the run cannot cancel it half-way (the run never depends on this
        # request); a disconnect during the wait only ends the wait.
        submitted, view = await plane.submit_and_view(submission, wait_s)
        if not submitted.created:
            response.headers["Idempotent-Replayed"] = "true"
        response.headers["Location"] = f"/v1/runs/{submitted.run_id}"
        response.status_code = 200 if view.terminal else 202
        return view

    @app.get(
        "/v1/runs",
        operation_id="listRuns",
        response_model=RunList,
        responses=_ERRORS,
        summary="The caller's runs, newest first",
    )
    async def list_runs(
        holder: Caller,
        session_id: Annotated[
            str | None, Query(pattern=SESSION_ID_PATTERN, description="Only this session's.")
        ] = None,
        limit: Annotated[int, Query(ge=1, le=100, description="Runs at most.")] = 20,
    ) -> RunList:
        principal = holder.require(Permission.READ)
        return RunList(runs=await plane.runs(principal.id, session_id, limit))

    @app.get(
        "/v1/runs/{run_id}",
        operation_id="getRun",
        response_model=RunView,
        responses=_ERRORS,
        summary="A run's status, progress and released result",
    )
    async def get_run(run_id: RunId, holder: Caller) -> RunView:
        principal = holder.require(Permission.READ)
        return await plane.view(run_id, principal.id)

    @app.post(
        "/v1/runs/{run_id}/cancel",
        operation_id="cancelRun",
        response_model=CancelOutcome,
        responses=_ERRORS,
        summary="Cancel a run (works from any replica; a no-op once it ended)",
    )
    async def cancel_run(run_id: RunId, holder: Caller) -> CancelOutcome:
        principal = holder.require(Permission.CANCEL)
        return await _shielded(plane.cancel(run_id, principal.id))

    @app.get(
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
            **_ERRORS,
        },
        summary="Progress of a run as Server-Sent Events",
    )
    async def run_events(
        run_id: RunId,
        holder: Caller,
        last_event_id: Annotated[
            str,
            Header(
                pattern=rf"^[0-9]{{0,{len(str(MAX_EVENT_ID))}}}$",
                description="Resume after this event id (SSE reconnect); empty: from the start.",
            ),
        ] = "",
    ) -> StreamingResponse:
        principal = holder.require(Permission.READ)
        resume = _event_id(last_event_id)
        first = await plane.view(run_id, principal.id)  # 404 before any byte is streamed
        frames = progress_stream(
            plane,
            first,
            owner=principal.id,
            last_event_id=resume,
            heartbeat_s=limits.sse_heartbeat_s,
            max_stream_s=limits.max_stream_s,
            clock=deps.clock,
        )
        return StreamingResponse(
            frames,
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )

    @app.get(
        "/v1/runs/{run_id}/trace",
        operation_id="runTrace",
        response_model=TraceResponse,
        responses=_ERRORS,
        summary="A run's timeline (metadata only)",
    )
    async def run_trace(run_id: RunId, holder: Caller) -> TraceResponse:
        principal = holder.require(Permission.READ)
        try:
            events = await plane.trace(run_id, principal.id)
        except HarnessError as err:
            if err.error_code is not ErrorCode.NOT_FOUND:
                raise
            events = None  # the desk forgot it (or never knew): the audit may still have it
        if events is not None:
            return TraceResponse(run_id=run_id, source="live", events=events)
        audit = _audit(deps)
        run = await _audited(audit.run(run_id))
        if run is None or run.owner != principal.id:
            raise RunNotFound(message="no such run in the audit")
        timeline = await _audited(audit.timeline(run_id))
        return TraceResponse(run_id=run_id, source="audit", events=timeline)

    @app.get(
        "/v1/sessions/{session_id}/runs/{run_id}/reasoning",
        operation_id="runReasoning",
        response_model=ReasoningResponse,
        responses=_ERRORS,
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
    ) -> ReasoningResponse:
        audit = _audit(deps)
        if deps.cipher is None:
            raise Unavailable(message="no reasoning cipher")
        entries = await _audited(
            read_reasoning(
                audit,
                deps.cipher,
                principal=holder.principal,
                session_id=session_id,
                run_id=run_id,
                clock=deps.clock,
            )
        )
        return ReasoningResponse(
            run_id=run_id, session_id=session_id, entries=[ReasoningItem.of(e) for e in entries]
        )

    # ------------------------------------------------------------------ health

    @app.get("/healthz", operation_id="healthz", response_model=Health, summary="Liveness")
    async def healthz() -> Health:
        return Health(status="ok")

    @app.get(
        "/readyz",
        operation_id="readyz",
        response_model=Readiness,
        responses={503: {"model": ErrorBody, "description": "Redis or the run pool is down."}},
        summary="Readiness: Redis and the run pool reachable (audit down: degraded)",
    )
    async def readyz() -> Readiness | JSONResponse:
        redis_ok, pool_ok, audit_ok = await asyncio.gather(
            _probe(deps.limiter.ping()),
            _probe(plane.ping()),
            _probe(deps.audit.run("run-00000000000000000000")) if deps.audit else _true(),
        )
        if not (redis_ok and pool_ok):
            down = [name for name, ok in (("redis", redis_ok), ("run_pool", pool_ok)) if not ok]
            return error_response(ErrorCode.UNAVAILABLE, message=f"not ready: {', '.join(down)}")
        return Readiness(
            status="ready" if audit_ok else "degraded",
            redis="ok",
            run_pool="ok",
            audit="disabled" if deps.audit is None else "ok" if audit_ok else "unavailable",
        )

    return app


def _run_request(body: DiagnosisCreate, owner: str, limits: ApiLimits) -> RunRequest:
    """The run the body asks for, refused (422) beyond the server's maxima."""
    over = []
    if body.deadline_s is not None and body.deadline_s > limits.max_deadline_s:
        over.append(f"deadline_s <= {limits.max_deadline_s:g}")
    asked = body.limits or RunLimits()
    for name, ceiling in (
        ("max_tool_calls", limits.max_tool_calls),
        ("max_model_calls", limits.max_model_calls),
        ("max_total_tokens", limits.max_total_tokens),
    ):
        value = getattr(asked, name)
        if value is not None and value > ceiling:
            over.append(f"limits.{name} <= {ceiling}")
    if over:
        raise RequestRefused(ErrorCode.INVALID_REQUEST, "over a server maximum", {"over": over})
    return RunRequest(
        question=body.question,
        session_id=body.session_id,
        owner=owner,
        as_of=body.as_of,
        deadline_s=body.deadline_s,
        limits=body.limits,
    )


def _event_id(header: str) -> int | None:
    return int(header) if header else None  # the route's pattern admits digits only


def _audit(deps: ApiDeps) -> AuditStore:
    if deps.audit is None:
        raise Unavailable(message="no audit configured")
    return deps.audit


async def _audited(call: Awaitable[_T]) -> _T:
    """An audit read; the database's own failures leave as UNAVAILABLE (never their text)."""
    try:
        return await call
    except HarnessError:
        raise
    except Exception as exc:
        log.warning("audit read failed error=%s", type(exc).__name__)
        raise Unavailable(message="audit unavailable") from None


async def _shielded(call: Awaitable[_T]) -> _T:
    return await asyncio.shield(call)


async def _probe(call: Awaitable[Any]) -> bool:
    try:
        await asyncio.wait_for(call, _PROBE_TIMEOUT_S)
    except Exception:
        return False
    return True


async def _true() -> bool:
    return True
