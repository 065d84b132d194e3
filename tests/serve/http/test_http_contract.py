"""The HTTP contract's edges through a real client against the running Serve app: a credential
sent twice, counts and times the schema does not allow, invisible questions, refusals that never
echo the caller's field names, event ids a reconnect can use, the proxy's own routes, and the
one answer the HTTP server gives before any of our code runs."""

from __future__ import annotations

import socket
from urllib.parse import urlparse

import httpx
import pytest

from serve.sse import MAX_EVENT_ID
from tests.serve.http.conftest import Api
from tests.serve.http.http_helpers import create, events, session

SECRET_SHAPED_KEY = "AKIAIOSFODNN7EXAMPLE"


def _refused(response: httpx.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error_code", "message"} and body["error_code"] == code
    return str(body["message"])


def test_a_credential_sent_twice_is_refused_whichever_comes_first(api: Api) -> None:
    good = f"Bearer {api.keys['alice']}"
    twice = [
        [("Authorization", good), ("Authorization", "Bearer junk")],
        [("Authorization", "Bearer junk"), ("Authorization", good)],
        [("Authorization", good), ("Authorization", good)],
        [("X-API-Key", api.keys["alice"]), ("X-API-Key", api.keys["bob"])],
        [("Authorization", good), ("X-API-Key", api.keys["alice"])],
    ]
    with api.client(None) as client:
        for headers in twice:
            response = client.get("/v1/runs", headers=headers)
            _refused(response, 401, "UNAUTHENTICATED")
            assert response.headers["www-authenticate"] == "Bearer"
        assert client.get("/v1/runs", headers=[("Authorization", good)]).status_code == 200


@pytest.mark.parametrize(
    "fields",
    [
        {"limits": {"max_tool_calls": 1.5}},
        {"limits": {"max_model_calls": "2"}},
        {"limits": {"max_total_tokens": True}},
        {"as_of": "0001-01-01T00:00:00Z"},
        {"as_of": "1969-12-31T23:59:59Z"},
        {"as_of": "2262-04-11T00:00:00Z"},
        {"as_of": "9999-12-31T23:59:59+00:00"},
    ],
)
def test_counts_that_are_no_integers_and_times_outside_the_log_span_are_422(
    api: Api, fields: dict[str, object]
) -> None:
    with api.client() as client:
        _refused(create(client, "hello", **fields), 422, "INVALID_REQUEST")


@pytest.mark.parametrize(
    "question", ["\u200b\u200b\u200b", " \u2060\ufeff ", "\u202e\u2066", "\U000e0041\U000e0042"]
)
def test_a_question_with_nothing_visible_is_422(api: Api, question: str) -> None:
    with api.client() as client:
        _refused(create(client, question), 422, "INVALID_REQUEST")


def test_the_span_of_as_of_admits_its_first_instant_and_an_integral_count(api: Api) -> None:
    # 2.0 is an integer in JSON Schema, which the published document is written in: a
    # client whose encoder writes whole numbers with a fraction is not refused.
    with api.client() as client:
        response = create(
            client, "hello", as_of="1970-01-01T00:00:00Z", limits={"max_tool_calls": 2.0}
        )
    assert response.status_code in (200, 202), response.text


def test_a_refusal_never_echoes_a_field_name_the_schema_does_not_declare(api: Api) -> None:
    with api.client() as client:
        top = client.post(
            "/v1/diagnoses",
            json={"question": "q", "session_id": session(), SECRET_SHAPED_KEY: 1},
        )
        nested = client.post(
            "/v1/diagnoses",
            json={"question": "q", "session_id": session(), "limits": {SECRET_SHAPED_KEY: 1}},
        )
    for response in (top, nested):
        message = _refused(response, 422, "INVALID_REQUEST")
        assert SECRET_SHAPED_KEY not in response.text
        assert "(unknown field): extra_forbidden" in message
    assert "body.limits.(unknown field)" in nested.json()["message"]


def test_no_stream_sends_an_event_id_its_route_would_refuse(api: Api) -> None:
    with api.client() as client:
        run_id = create(client, "hello", wait=True).json()["run_id"]
        for last in (MAX_EVENT_ID - 1, MAX_EVENT_ID):
            with client.stream(
                "GET", f"/v1/runs/{run_id}/events", headers={"Last-Event-ID": str(last)}
            ) as response:
                assert response.status_code == 200
                (terminal,) = [e for e in events(response) if e.event == "result"]
            assert terminal.id is not None and terminal.id <= MAX_EVENT_ID
            # Reconnecting with the id the stream sent is accepted, not refused as too long.
            resumed = client.get(
                f"/v1/runs/{run_id}/events", headers={"Last-Event-ID": str(terminal.id)}
            )
            assert resumed.status_code == 200
        too_long = client.get(
            f"/v1/runs/{run_id}/events", headers={"Last-Event-ID": str(MAX_EVENT_ID + 1)}
        )
    _refused(too_long, 422, "INVALID_REQUEST")


def test_the_proxys_own_routes_answer_the_apis_404_but_the_probe_from_the_node(api: Api) -> None:
    with api.client(None) as anonymous:
        routes = anonymous.get("/-/routes")
        other = anonymous.get("/-/anything")
        probe = anonymous.get("/-/healthz")  # the test runs on the node, as KubeRay's probe does
    _refused(routes, 404, "NOT_FOUND")
    _refused(other, 404, "NOT_FOUND")
    assert "/v1" not in routes.text
    assert probe.status_code == 200


def test_a_request_the_server_cannot_parse_gets_its_plain_400_and_reaches_no_route(
    api: Api,
) -> None:
    # Documented (docs/http-api.md): uvicorn refuses it before any ASGI code runs.
    url = urlparse(api.url)
    with socket.create_connection((url.hostname or "127.0.0.1", url.port or 80), timeout=10) as s:
        s.sendall(
            b"POST /v1/diagnoses HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: abc\r\n\r\n{}"
        )
        reply = s.recv(4096)
    assert reply.startswith(b"HTTP/1.1 400")
    assert b"UNAUTHENTICATED" not in reply and b"error_code" not in reply
