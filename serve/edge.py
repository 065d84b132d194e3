"""ASGI middlewares at the edges: of the app (error containment, body limit) and of Serve's HTTP
proxy (control headers, Serve's own error bodies).

Serve's proxy reads two headers from the client before any replica sees the request:
``x-request-timeout-seconds`` (a per-request end-to-end timeout, or none) and
``x-request-disconnect-disabled`` (keep the request running after the client went away). A
client must not choose either: one cuts its own stream short or disables the deployment's
timeout, the other keeps abandoned work alive. :class:`ServeEdge` removes both before the proxy
reads them; it runs inside the proxy, installed through Serve's proxy callback
(``RAY_SERVE_HTTP_PROXY_CALLBACK_IMPORT_PATH=serve.edge.proxy_middlewares``, which
``serve.deployment.start`` sets on the Serve controller, whose proxies inherit it).

The proxy also answers some requests itself, in plain text: back-pressure (429, Serve's queue
limit), a timeout (408), no replica (503). :class:`ServeEdge` rewrites those into the API's
error body, with the status of the code's row in :data:`serve.errors.HTTP_STATUS`, keeping
``Retry-After``.

And the proxy has routes of its own, outside the API and its keys: ``/-/routes`` (the route
table) and ``/-/healthz``. :class:`ServeEdge` answers every ``/-/`` path with the API's 404,
but ``/-/healthz`` asked from the proxy's own host (a Kubernetes probe runs inside the pod):
operators probe the API's documented ``/healthz`` and ``/readyz``.

What no middleware can reach: a request the HTTP server cannot parse (a malformed
``Content-Length``, a broken request line) is refused by uvicorn itself with a plain-text 400
before any ASGI code runs; no body is read and no route is reached (docs/http-api.md).
"""

from __future__ import annotations

import logging
from typing import Any

from starlette.middleware import Middleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from harness.contracts.errors import ErrorCode
from serve.errors import error_response

__all__ = [
    "CONTROL_HEADERS",
    "BodyLimit",
    "ContainErrors",
    "ServeEdge",
    "proxy_middlewares",
]

log = logging.getLogger(__name__)

CONTROL_HEADERS = frozenset({b"x-request-timeout-seconds", b"x-request-disconnect-disabled"})
"""Headers Serve's proxy obeys that a client must not set."""

_SERVE_STATUS_CODES = {
    404: ErrorCode.NOT_FOUND,
    408: ErrorCode.DEADLINE_EXCEEDED,
    429: ErrorCode.OVERLOADED,
    503: ErrorCode.UNAVAILABLE,
}


def proxy_middlewares() -> list[Middleware]:
    """Serve's proxy callback: the middlewares its HTTP proxy applies."""
    return [Middleware(ServeEdge)]


def _header(headers: Any, name: bytes) -> bytes | None:
    for key, value in headers or ():
        if key.lower() == name:
            return bytes(value)
    return None


_LOOPBACK = frozenset({"127.0.0.1", "::1", "localhost"})


def _local(scope: Scope) -> bool:
    """Whether the request came from the proxy's own host."""
    client = scope.get("client") or ("", 0)
    return str(client[0]) in _LOOPBACK


class ServeEdge:
    """Inside Serve's proxy: drop the client's control headers; give Serve's own plain-text
    error responses the API's error body; keep the proxy's own routes to itself."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        if path.startswith("/-/") and not (path == "/-/healthz" and _local(scope)):
            await error_response(ErrorCode.NOT_FOUND)(scope, receive, send)
            return
        scope = dict(scope)
        scope["headers"] = [(k, v) for k, v in scope["headers"] if k.lower() not in CONTROL_HEADERS]
        held: Message | None = None

        async def guarded(message: Message) -> None:
            nonlocal held
            if message["type"] == "http.response.start":
                content_type = _header(message.get("headers"), b"content-type") or b""
                if message["status"] >= 400 and not content_type.startswith(b"application/json"):
                    held = message
                    return
            elif message["type"] == "http.response.body" and held is not None:
                if message.get("more_body", False):
                    return
                start, held = held, None
                code = _SERVE_STATUS_CODES.get(start["status"], ErrorCode.INTERNAL_ERROR)
                retry = _header(start.get("headers"), b"retry-after")
                response = error_response(
                    code, retry_after_s=float(retry) if retry and retry.isdigit() else None
                )
                await response(scope, receive, send)
                return
            await send(message)

        await self.app(scope, receive, guarded)


class ContainErrors:
    """Inside the app: any exception no handler took becomes a 500 with the API's error body.

    Only the exception's class is logged: its text can quote data, hosts or credentials.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracked(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except Exception as exc:
            log.error("unhandled error=%s path=%s", type(exc).__name__, scope.get("path"))
            if not started:
                await error_response(ErrorCode.INTERNAL_ERROR)(scope, receive, send)


class BodyLimit:
    """Refuse bodies over ``max_bytes`` with 413, whether declared (Content-Length) or sent in
    chunks; a body within the limit is read once and replayed to the app."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _header(scope.get("headers"), b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            code = ErrorCode.PAYLOAD_TOO_LARGE if declared.isdigit() else ErrorCode.INVALID_REQUEST
            await error_response(code)(scope, receive, send)
            return
        if scope.get("method") not in ("POST", "PUT", "PATCH"):
            await self.app(scope, receive, send)
            return
        body = bytearray()
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client left before it finished sending
            body += message.get("body", b"")
            more = bool(message.get("more_body", False))
            if len(body) > self.max_bytes:
                await error_response(ErrorCode.PAYLOAD_TOO_LARGE)(scope, receive, send)
                return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)
