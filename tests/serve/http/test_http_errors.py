"""Refusals through a real client: 401/403/404/405/409/413/422/429 with stable codes, error
bodies without internals, a stranger's run answering exactly like a missing one, the
reasoning audit for its owner only, and overload answered 429 with Retry-After."""

from __future__ import annotations

import asyncio
import json
import time

import httpx
import pytest

from harness.contracts.errors import ErrorCode
from serve.errors import PUBLIC_MESSAGES
from tests.serve.http.conftest import MAX_ONGOING, MAX_QUEUED, REPLICAS, Api
from tests.serve.http.http_helpers import create, session, until_terminal

MISSING = "run-0123456789abcdef0123"


def _assert_error_body(response: httpx.Response, code: str) -> None:
    """The one error shape: exactly these keys, the public message, no internals."""
    body = response.json()
    assert set(body) == {"error_code", "message"}
    assert body["error_code"] == code
    assert body["message"].startswith(PUBLIC_MESSAGES[ErrorCode(code)])
    for leak in ("Traceback", "Error:", "Exception", 'File "', "ray.", "pydantic", "/work/"):
        assert leak not in response.text


def test_no_key_or_an_unknown_key_is_401(api: Api) -> None:
    with (
        api.client(None) as anonymous,
        api.client(None, headers={"Authorization": "Bearer hk_" + "x" * 43}) as unknown,
        api.client(None, headers={"Authorization": "Basic abc"}) as basic,
    ):
        responses = [
            anonymous.get("/v1/runs"),
            unknown.get(f"/v1/runs/{MISSING}"),
            basic.post("/v1/diagnoses", json={"question": "q", "session_id": "s"}),
        ]
    for response in responses:
        assert response.status_code == 401
        assert response.headers["www-authenticate"] == "Bearer"
        _assert_error_body(response, "UNAUTHENTICATED")


def test_a_key_without_the_permission_is_403(api: Api) -> None:
    with api.client("reader") as reader:
        create_ = create(reader, "hello")
        cancel = reader.post(f"/v1/runs/{MISSING}/cancel")
        listing = reader.get("/v1/runs")
    for response in (create_, cancel):
        assert response.status_code == 403
        _assert_error_body(response, "FORBIDDEN")
    assert listing.status_code == 200  # READ is what it has


def test_a_strangers_run_is_indistinguishable_from_a_missing_run(api: Api) -> None:
    with api.client() as alice, api.client("bob") as bob:
        run_id = create(alice, "hello", wait=True).json()["run_id"]
        foreign = [bob.get(f"/v1/runs/{run_id}") for _ in range(5)]
        missing = [bob.get(f"/v1/runs/{MISSING}") for _ in range(5)]
    assert {(r.status_code, r.content) for r in foreign} == {
        (r.status_code, r.content) for r in missing
    }
    assert foreign[0].status_code == 404
    _assert_error_body(foreign[0], "NOT_FOUND")
    drop = {"date", "x-request-id"}
    assert {k: v for k, v in foreign[0].headers.items() if k not in drop} == {
        k: v for k, v in missing[0].headers.items() if k not in drop
    }


def test_unknown_routes_and_methods(api: Api) -> None:
    with api.client() as client:
        route = client.get("/v2/nothing")
        method = client.delete(f"/v1/runs/{MISSING}")
        bad_id = client.get("/v1/runs/not-a-run-id")
    assert route.status_code == 404
    _assert_error_body(route, "NOT_FOUND")
    assert method.status_code == 405
    _assert_error_body(method, "METHOD_NOT_ALLOWED")
    assert bad_id.status_code == 422
    _assert_error_body(bad_id, "INVALID_REQUEST")


@pytest.mark.parametrize(
    "body",
    [
        {"question": "q", "session_id": "s", "owner": "bob"},  # not a field: owner is the caller
        {"question": "q"},
        {"question": "q", "session_id": "bad id with spaces"},
        {"question": "", "session_id": "s"},
        {"question": "q", "session_id": "s", "deadline_s": 61},  # over the server's 60
        {"question": "q", "session_id": "s", "limits": {"max_tool_calls": 13}},  # over 12
        {"question": "q", "session_id": "s", "limits": {"max_tools": 1}},
    ],
)
def test_a_body_that_breaks_the_schema_or_a_maximum_is_422(
    api: Api, body: dict[str, object]
) -> None:
    with api.client() as client:
        response = client.post("/v1/diagnoses", json=body)
    assert response.status_code == 422
    _assert_error_body(response, "INVALID_REQUEST")
    assert "bob" not in response.text  # where, never what: values are not echoed


def test_invalid_json_and_a_bad_idempotency_key_are_422(api: Api) -> None:
    with api.client() as client:
        broken = client.post(
            "/v1/diagnoses", content=b"{not json", headers={"Content-Type": "application/json"}
        )
        key = client.post(
            "/v1/diagnoses",
            json={"question": "q", "session_id": "s"},
            headers={"Idempotency-Key": "has space"},
        )
    for response in (broken, key):
        assert response.status_code == 422
        _assert_error_body(response, "INVALID_REQUEST")


def test_a_body_over_the_limit_is_413_declared_or_chunked(api: Api) -> None:
    big = json.dumps({"question": "q" * 5000, "session_id": "s"}).encode()

    def chunks() -> object:
        for start in range(0, len(big), 1000):
            yield big[start : start + 1000]

    with api.client() as client:
        declared = client.post(
            "/v1/diagnoses", content=big, headers={"Content-Type": "application/json"}
        )
        chunked = client.post(
            "/v1/diagnoses", content=chunks(), headers={"Content-Type": "application/json"}
        )
    for response in (declared, chunked):
        assert response.status_code == 413
        _assert_error_body(response, "PAYLOAD_TOO_LARGE")


def test_past_its_quota_a_principal_gets_429_with_retry_after(api: Api) -> None:
    with api.client("limited") as limited, api.client() as alice:
        answers = [limited.get("/v1/runs") for _ in range(5)]
        others = alice.get("/v1/runs")
    assert [r.status_code for r in answers] == [200, 200, 200, 429, 429]
    refused = answers[3]
    _assert_error_body(refused, "RATE_LIMITED")
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    assert others.status_code == 200  # quotas are per principal


def test_reasoning_for_its_owner_only(api: Api) -> None:
    sid = session()
    with api.client() as alice, api.client("bob") as bob, api.client("noreason") as noreason:
        run_id = create(alice, "hello @answer=why", session_id=sid, wait=True).json()["run_id"]
        url = f"/v1/sessions/{sid}/runs/{run_id}/reasoning"
        deadline = time.monotonic() + 20
        owner = alice.get(url)
        while owner.status_code == 404 and time.monotonic() < deadline:
            time.sleep(0.2)  # the audit writer flushes the run's record first
            owner = alice.get(url)
        refusals = [
            bob.get(url),
            alice.get(f"/v1/sessions/other-session/runs/{run_id}/reasoning"),
            noreason.get(url),
        ]
    assert owner.status_code == 200, owner.text
    body = owner.json()
    assert (body["run_id"], body["session_id"]) == (run_id, sid)
    assert [(e["component"], e["available"], e["text"]) for e in body["entries"]] == [
        ("ROUTER", False, None),
        ("SYSTEM_CHAT", False, None),
    ]  # the directed model returns no reasoning: recorded as unavailable, never invented
    assert {(r.status_code, r.content) for r in refusals} == {
        (404, b'{"error_code":"NOT_FOUND","message":"no such resource"}')
    }


def test_overload_is_answered_429_with_retry_after_and_the_error_body(api: Api) -> None:
    """Open streams hold their replica slots: with every slot held and the proxy's queue full,
    Serve refuses at once (back-pressure), and the edge gives that refusal the API's body."""
    slots = REPLICAS * MAX_ONGOING

    async def scenario() -> tuple[list[int], list[httpx.Response]]:
        async with api.async_client() as client:
            run = await client.post(
                "/v1/diagnoses", json={"question": "hello @answer_s=30", "session_id": session()}
            )
            run_id = run.json()["run_id"]
            url = f"/v1/runs/{run_id}/events"
            held = []
            try:
                for _ in range(slots):  # one at a time: each holds a slot once it answered
                    held.append(await client.send(client.build_request("GET", url), stream=True))

                async def extra() -> httpx.Response:
                    response = await client.send(client.build_request("GET", url), stream=True)
                    await response.aread()
                    return response

                extras = [asyncio.create_task(extra()) for _ in range(MAX_QUEUED + 4)]
                pending: set[asyncio.Task[httpx.Response]] = set(extras)
                deadline = asyncio.get_running_loop().time() + 10
                while len(pending) > MAX_QUEUED:  # the queue holds MAX_QUEUED; the rest bounce
                    left = deadline - asyncio.get_running_loop().time()
                    if left <= 0:
                        break
                    _, pending = await asyncio.wait(
                        pending, timeout=left, return_when=asyncio.FIRST_COMPLETED
                    )
                done = [t for t in extras if t not in pending]
                for task in pending:
                    task.cancel()  # queued behind the held streams
                await asyncio.gather(*pending, return_exceptions=True)
                return [r.status_code for r in held], [t.result() for t in done]
            finally:
                for response in held:
                    await response.aclose()
                await client.post(f"/v1/runs/{run_id}/cancel")

    held, extras = asyncio.run(scenario())
    assert held == [200] * slots
    assert extras and {r.status_code for r in extras} == {429}, [r.status_code for r in extras]
    for response in extras:
        _assert_error_body(response, "OVERLOADED")
        assert response.headers["retry-after"] == "2"


def test_after_the_overload_the_service_serves_again(api: Api) -> None:
    with api.client() as client:
        response = create(client, "hello @answer=again", wait=True)
        assert response.status_code == 200, response.text
        assert until_terminal(client, response.json()["run_id"])["result"]["text"] == "again"
