"""``build_app(deps)``: the HTTP API as a FastAPI app.

The routes live in :mod:`serve.routes`, one router per concern; their handlers translate HTTP
to one call each — the run desk's (:class:`serve.plane.RunPlane`) or a lookup of
:mod:`serve.lookups` — and ErrorCodes to statuses (:mod:`serve.errors`); nothing more. Every
``/v1`` route authenticates (``Authorization: Bearer <key>``), counts the request against the
principal's quota (429 + ``Retry-After`` beyond it), then checks the route's permission (403).
A run is its creator's: any other principal's run answers exactly like a run that does not
exist (404 NOT_FOUND, same body, same path through the desk).

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

from fastapi import FastAPI

from serve.deps import ApiDeps
from serve.edge import BodyLimit, ContainErrors
from serve.errors import install_error_handlers
from serve.openapi import publish_maxima
from serve.routes import ROUTERS

__all__ = ["API_VERSION", "build_app"]

API_VERSION = "1.0.0"


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
    for router in ROUTERS:
        app.include_router(router)
    return app
