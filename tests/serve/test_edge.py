"""The edge middlewares as plain ASGI: Serve's control headers dropped, Serve's own plain-text
errors given the API's body, bodies over the limit refused however they are sent."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from serve.edge import BodyLimit, ServeEdge, proxy_middlewares


def _call(
    app: Any,
    *,
    headers: list[tuple[bytes, bytes]],
    body: list[bytes] | None = None,
    path: str = "/",
    client: tuple[str, int] | None = ("127.0.0.1", 50000),
) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []
    chunks = list(body or [b""])

    async def receive() -> dict[str, Any]:
        if chunks:
            chunk = chunks.pop(0)
            return {"type": "http.request", "body": chunk, "more_body": bool(chunks)}
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": path, "headers": headers, "client": client}
    asyncio.run(app(scope, receive, send))
    return sent


def _plain(status: int, extra: list[tuple[bytes, bytes]] | None = None) -> Any:
    """An app answering like Serve's proxy does itself: plain text."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        app.seen = scope["headers"]  # type: ignore[attr-defined]
        headers = [(b"content-type", b"text/plain; charset=utf-8"), *(extra or [])]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": b"Request dropped due to backpressure"})

    return app


def _body(sent: list[dict[str, Any]]) -> tuple[int, dict[str, str], Any]:
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    headers = {k.decode(): v.decode() for k, v in start["headers"]}
    return start["status"], headers, json.loads(body)


def test_the_proxy_edge_drops_the_control_headers() -> None:
    inner = _plain(200)
    _call(
        ServeEdge(inner),
        headers=[
            (b"x-request-timeout-seconds", b"0.1"),
            (b"X-Request-Disconnect-Disabled", b"?1"),
            (b"x-keep", b"1"),
        ],
    )
    assert inner.seen == [(b"x-keep", b"1")]
    assert [m.cls for m in proxy_middlewares()] == [ServeEdge]


def test_serve_back_pressure_becomes_overloaded_with_its_retry_after() -> None:
    sent = _call(ServeEdge(_plain(429, [(b"retry-after", b"2")])), headers=[])
    status, headers, body = _body(sent)
    assert (status, headers["retry-after"], body) == (
        429,
        "2",
        {
            "error_code": "OVERLOADED",
            "message": "the service is at capacity; retry after the time in Retry-After",
        },
    )


def test_serve_timeout_and_unavailability_get_their_rows() -> None:
    assert _body(_call(ServeEdge(_plain(408)), headers=[]))[::2] == (
        504,
        {"error_code": "DEADLINE_EXCEEDED", "message": "the request took too long"},
    )
    assert _body(_call(ServeEdge(_plain(503)), headers=[]))[2]["error_code"] == "UNAVAILABLE"


def test_the_apps_own_json_errors_pass_unchanged() -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": 404,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": b'{"error_code":"NOT_FOUND"}'})

    assert _body(_call(ServeEdge(app), headers=[]))[::2] == (404, {"error_code": "NOT_FOUND"})


def test_a_body_over_the_limit_is_refused_declared_or_chunked() -> None:
    async def echo(scope: Any, receive: Any, send: Any) -> None:
        message = await receive()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": message["body"]})

    declared = _call(BodyLimit(echo, max_bytes=10), headers=[(b"content-length", b"11")])
    chunked = _call(BodyLimit(echo, max_bytes=10), headers=[], body=[b"123456", b"789012"])
    within = _call(BodyLimit(echo, max_bytes=10), headers=[], body=[b"12345", b"67890"])
    for sent in (declared, chunked):
        assert _body(sent)[::2] == (
            413,
            {"error_code": "PAYLOAD_TOO_LARGE", "message": "the request body is too large"},
        )
    assert within[-1]["body"] == b"1234567890"  # read once, replayed whole


def test_the_proxys_own_routes_answer_404_but_the_health_probe_from_the_node_itself() -> None:
    inner = _plain(200)
    for path, client in [
        ("/-/routes", ("127.0.0.1", 1)),
        ("/-/routes", ("10.0.0.5", 1)),
        ("/-/healthz", ("10.0.0.5", 1)),
        ("/-/healthz", None),
        ("/-/anything", ("::1", 1)),
    ]:
        status, _, body = _body(_call(ServeEdge(inner), headers=[], path=path, client=client))
        assert (status, body["error_code"]) == (404, "NOT_FOUND"), (path, client)
    for client in [("127.0.0.1", 1), ("::1", 1)]:
        sent = _call(ServeEdge(inner), headers=[], path="/-/healthz", client=client)
        assert sent[0]["status"] == 200  # the probe KubeRay runs inside the pod
