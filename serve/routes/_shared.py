"""What every router of the API shares: the caller, the app's collaborators, the run-id path
parameter, and the documented error answers and links."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Path, Request, Security
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from harness.contracts.errors import ErrorCode, RateLimited
from serve.auth import Keyholder
from serve.deps import ApiDeps
from serve.errors import ErrorBody
from serve.models import RUN_ID_PATTERN

__all__ = ["ERRORS", "RUN_LINKS", "Caller", "Deps", "RunId"]

ERRORS: dict[int | str, dict[str, Any]] = {
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
"""The error answers every ``/v1`` route documents."""

RUN_LINKS = {
    name: {"operationId": operation, "parameters": {"run_id": "$response.body#/run_id"}}
    for name, operation in (
        ("GetRun", "getRun"),
        ("CancelRun", "cancelRun"),
        ("RunEvents", "runEvents"),
        ("RunTrace", "runTrace"),
    )
}
"""OpenAPI links: what a created run's id leads to (clients and schemathesis follow them)."""

# Declared for /openapi.json (either scheme will do); ``KeyRing`` reads the raw headers itself.
_BEARER = HTTPBearer(
    auto_error=False, description="An API key as a bearer token: `Authorization: Bearer hk_…`."
)
_API_KEY = APIKeyHeader(
    name="X-API-Key", auto_error=False, description="An API key in its own header."
)


async def _deps(request: Request) -> ApiDeps:
    # Async on purpose: FastAPI runs a plain ``def`` dependency in its thread pool, a thread
    # hop per request that cost the replica about a tenth of its CPU.
    deps: ApiDeps = request.app.state.deps
    return deps


Deps = Annotated[ApiDeps, Depends(_deps)]
"""The app's collaborators (``build_app`` keeps them in the app's state)."""


async def _caller(
    deps: Deps,
    request: Request,
    _bearer: Annotated[HTTPAuthorizationCredentials | None, Security(_BEARER)],
    _api_key: Annotated[str | None, Security(_API_KEY)],
) -> Keyholder:
    """The authenticated caller, its request counted against its quota."""
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
"""The authenticated caller (401 without a valid key, 429 beyond its quota)."""

RunId = Annotated[str, Path(pattern=RUN_ID_PATTERN, description="The run.")]
