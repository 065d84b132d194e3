"""The HTTP API's routes, one router per concern; ``serve.app.build_app`` includes them.

Each handler only translates HTTP: it checks the route's permission, makes one call (the run
desk's, or a lookup of :mod:`serve.lookups`) and shapes the answer; ErrorCodes become statuses
in :mod:`serve.errors`. :data:`ROUTERS` is in the order of ``/openapi.json``'s paths.
"""

from fastapi import APIRouter

from serve.routes import diagnoses, events, health, reasoning, runs, trace

__all__ = ["ROUTERS"]

ROUTERS: tuple[APIRouter, ...] = (
    diagnoses.router,
    runs.router,
    events.router,
    trace.router,
    reasoning.router,
    health.router,
)
