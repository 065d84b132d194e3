"""HTTP errors: the one ErrorCode → status table, the error body, and the handlers.

Every error response of the API is ``{"error_code": ..., "message": ...}``. The message is the
public text of the code from :data:`PUBLIC_MESSAGES` — never the exception's own message (that
is local-log text), never a stack, a class name, a host or a query. Only a schema refusal says
more: where the request broke the schema (field locations and pydantic's error kinds, never
the offending values).

=====================  ======  ====================================================
code                   status  when
=====================  ======  ====================================================
UNAUTHENTICATED        401     no API key, or one the deployment does not know
FORBIDDEN              403     the principal lacks the route's permission
NOT_FOUND              404     no such run for this principal (another's run too),
                               no such route
METHOD_NOT_ALLOWED     405     the route has no such method
IDEMPOTENCY_CONFLICT   409     an Idempotency-Key reused with a different body
PAYLOAD_TOO_LARGE      413     a body over the deployment's limit
INVALID_REQUEST        422     the body, a parameter or a header breaks the schema or
                               a server maximum (deadline, budgets)
RATE_LIMITED           429     the principal's quota for this window is used up
OVERLOADED             429     the service is full (Serve's queue limit)
INTERNAL_ERROR         500     a defect, contained
UNAVAILABLE            503     the run desk, Redis or the audit database is unreachable
RUN_LOST               503     the process hosting the run desk was lost mid-call
RUN_NOT_ACTIVE         503     the run pool is shutting down
DEADLINE_EXCEEDED      504     the proxy's own timeout (set above every run deadline)
any other code         500     run-internal codes never answer a request by themselves
=====================  ======  ====================================================

A 401 carries ``WWW-Authenticate: Bearer``; a 405 ``Allow`` (the resource's methods); a 429
``Retry-After`` (whole seconds).
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from harness.contracts.errors import ErrorCode, HarnessError

__all__ = [
    "HTTP_STATUS",
    "PUBLIC_MESSAGES",
    "ErrorBody",
    "error_response",
    "install_error_handlers",
    "schema_message",
    "status_of",
]

log = logging.getLogger(__name__)

HTTP_STATUS: Mapping[ErrorCode, int] = {
    ErrorCode.UNAUTHENTICATED: 401,
    ErrorCode.FORBIDDEN: 403,
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.METHOD_NOT_ALLOWED: 405,
    ErrorCode.IDEMPOTENCY_CONFLICT: 409,
    ErrorCode.PAYLOAD_TOO_LARGE: 413,
    ErrorCode.INVALID_REQUEST: 422,
    ErrorCode.RATE_LIMITED: 429,
    ErrorCode.OVERLOADED: 429,
    ErrorCode.INTERNAL_ERROR: 500,
    ErrorCode.UNAVAILABLE: 503,
    ErrorCode.RUN_LOST: 503,
    ErrorCode.RUN_NOT_ACTIVE: 503,
    ErrorCode.DEADLINE_EXCEEDED: 504,
}
"""The status of every code an HTTP request can fail with; any other code answers 500."""

PUBLIC_MESSAGES: Mapping[ErrorCode, str] = {
    ErrorCode.UNAUTHENTICATED: "a valid API key is required (Authorization: Bearer <key>)",
    ErrorCode.FORBIDDEN: "the API key lacks the permission this request needs",
    ErrorCode.NOT_FOUND: "no such resource",
    ErrorCode.METHOD_NOT_ALLOWED: "method not allowed on this resource",
    ErrorCode.IDEMPOTENCY_CONFLICT: "the Idempotency-Key was used with a different request",
    ErrorCode.PAYLOAD_TOO_LARGE: "the request body is too large",
    ErrorCode.INVALID_REQUEST: "the request does not match the API's schema",
    ErrorCode.RATE_LIMITED: "too many requests; retry after the time in Retry-After",
    ErrorCode.OVERLOADED: "the service is at capacity; retry after the time in Retry-After",
    ErrorCode.INTERNAL_ERROR: "internal error",
    ErrorCode.UNAVAILABLE: "a service this request needs is unavailable; retry later",
    ErrorCode.RUN_LOST: "a service this request needs is unavailable; retry later",
    ErrorCode.RUN_NOT_ACTIVE: "the service is shutting down; retry later",
    ErrorCode.DEADLINE_EXCEEDED: "the request took too long",
}
_GENERIC = "internal error"
_MAX_ISSUES = 5
_MAX_LOC_CHARS = 64


def status_of(code: ErrorCode) -> int:
    """The HTTP status of ``code`` (the table above; 500 for any code not in it)."""
    return HTTP_STATUS.get(code, 500)


class ErrorBody(BaseModel):
    """Every error response: a stable code to branch on and a human-readable message."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    error_code: ErrorCode = Field(description="Stable code; callers branch on it, never on text.")
    message: str = Field(description="Public explanation; carries no internals.")


def error_response(
    code: ErrorCode,
    *,
    message: str | None = None,
    retry_after_s: float | None = None,
    allow: str | None = None,
) -> JSONResponse:
    """The response for ``code``: its status, the body, and the headers its status needs
    (``allow``: the methods a 405's resource has, its required ``Allow`` header)."""
    if code not in HTTP_STATUS:
        code = ErrorCode.INTERNAL_ERROR  # a run-internal code never names a request's failure
    status = status_of(code)
    headers: dict[str, str] = {}
    if status == 405 and allow is not None:
        headers["Allow"] = allow
    if status == 401:
        headers["WWW-Authenticate"] = "Bearer"
    if status == 429 or (retry_after_s is not None and status == 503):
        headers["Retry-After"] = str(max(1, math.ceil(retry_after_s or 1)))
    body = ErrorBody(error_code=code, message=message or PUBLIC_MESSAGES.get(code, _GENERIC))
    return JSONResponse(body.model_dump(mode="json"), status_code=status, headers=headers)


def install_error_handlers(app: FastAPI) -> None:
    """Route the exceptions the app raises on purpose to :func:`error_response`; anything else
    is contained by :class:`serve.edge.ContainErrors`."""
    app.add_exception_handler(HarnessError, _harness_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)


async def _harness_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HarnessError)
    if status_of(exc.error_code) >= 500:
        log.warning("request failed code=%s path=%s", exc.error_code.value, request.url.path)
    retry = exc.context.get("retry_after_s")
    return error_response(
        exc.error_code, retry_after_s=float(retry) if isinstance(retry, int | float) else None
    )


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    return error_response(ErrorCode.INVALID_REQUEST, message=schema_message(exc.errors()))


def schema_message(errors: Sequence[Any]) -> str:
    """Where a request broke the schema: field locations and error kinds, never values.

    A location names only what the schema declares: the name of a field the schema does not
    know is the caller's own text (a key shaped like a secret comes back otherwise), so it is
    shown as ``(unknown field)``; a part that is no plain name is shown as ``(…)``.
    """
    issues = []
    for error in list(errors)[:_MAX_ISSUES]:
        parts = [_loc_part(part) for part in error.get("loc", ())]
        if error.get("type") == "extra_forbidden" and parts:
            parts[-1] = "(unknown field)"
        loc = ".".join(parts)
        issues.append(f"{loc}: {error.get('type', 'invalid')}")
    more = len(errors) - len(issues)
    text = "; ".join(issues) + (f"; and {more} more" if more > 0 else "")
    return f"{PUBLIC_MESSAGES[ErrorCode.INVALID_REQUEST]} ({text})"


def _loc_part(part: object) -> str:
    if isinstance(part, int):
        return str(part)
    text = str(part)
    return text if _NAME.fullmatch(text) else "(…)"


_NAME = re.compile(rf"[A-Za-z_][A-Za-z0-9_\-]{{0,{_MAX_LOC_CHARS - 1}}}")
_HTTP_CODES = {404: ErrorCode.NOT_FOUND, 405: ErrorCode.METHOD_NOT_ALLOWED}


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code = _HTTP_CODES.get(exc.status_code, ErrorCode.INVALID_REQUEST)
    if exc.status_code >= 500:
        code = ErrorCode.INTERNAL_ERROR
    # Starlette's 405 names the route's methods; RFC 9110 requires them in ``Allow``.
    return error_response(code, allow=(exc.headers or {}).get("Allow"))
