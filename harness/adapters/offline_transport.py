"""The offline demo model as an OpenAI-compatible endpoint inside the process.

:class:`OfflineModelTransport` is an httpx transport that answers ``POST /v1/chat/completions``
and ``GET /v1/models`` by calling the rules engine, so the ``openai`` SDK talks to the offline
model exactly as it talks to a provider: same request serialisation, same response parsing.
The shared :func:`handle` function is also what the HTTP server serves.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

import httpx
import openai

from harness.contracts.models import CallSignal
from harness.embedded.offline import OFFLINE_MODEL_NAME, OfflineDemoModel, OfflineRequestError

__all__ = ["OFFLINE_BASE_URL", "OfflineModelTransport", "handle", "offline_openai_client"]

OFFLINE_BASE_URL = "http://offline-model.invalid/v1"
OFFLINE_API_KEY = "offline-demo"


def handle(
    model: OfflineDemoModel,
    method: str,
    path: str,
    body: bytes,
    headers: Mapping[str, str] | None = None,
) -> tuple[int, dict[str, Any]]:
    """One HTTP exchange with the offline model: (status, JSON body). The request's
    ``X-Harness-*`` headers say which component calls (:class:`~harness.contracts.models.CallSignal`)."""
    route = "/" + path.split("?", 1)[0].strip("/")
    if method == "GET" and route == "/v1/models":
        return 200, {
            "object": "list",
            "data": [
                {"id": OFFLINE_MODEL_NAME, "object": "model", "created": 0, "owned_by": "harness"}
            ],
        }
    if route != "/v1/chat/completions":
        return 404, _error("not_found", "unknown path")
    if method != "POST":
        return 405, _error("method_not_allowed", "use POST")
    try:
        request = json.loads(body or b"null")
        if isinstance(request, dict) and request.get("stream"):
            return 400, _error("invalid_request_error", "streaming is not supported")
        signal = CallSignal.from_headers(headers or {})
        return 200, model.complete(request, signal=signal, created=int(time.time()))
    except (ValueError, OfflineRequestError):
        return 400, _error("invalid_request_error", "not a chat-completions request")


def _error(kind: str, message: str) -> dict[str, Any]:
    return {"error": {"type": kind, "message": message, "code": kind}}


class OfflineModelTransport(httpx.AsyncBaseTransport):
    """An httpx transport whose only server is the offline demo model."""

    def __init__(self, model: OfflineDemoModel | None = None) -> None:
        self.model = model or OfflineDemoModel()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        status, payload = handle(
            self.model, request.method, request.url.path, body, dict(request.headers)
        )
        return httpx.Response(status, json=payload, request=request)


def offline_openai_client(model: OfflineDemoModel | None = None) -> openai.AsyncOpenAI:
    """An ``AsyncOpenAI`` client wired to the in-process offline model; the SDK never retries."""
    return openai.AsyncOpenAI(
        base_url=OFFLINE_BASE_URL,
        api_key=OFFLINE_API_KEY,
        max_retries=0,
        # The SDK types name httpx2 but accept a (legacy) httpx client, which our transport is.
        http_client=httpx.AsyncClient(transport=OfflineModelTransport(model)),  # type: ignore[arg-type]
    )
