"""Runs through a real HTTP client against the running Serve app: create and wait, async and
poll, listing, trace, idempotent retries, cancel of a slow run."""

from __future__ import annotations

import httpx

from tests.serve.http.conftest import Api
from tests.serve.http.http_helpers import create, session, until_terminal


def test_create_and_wait_answers_the_released_result(api: Api) -> None:
    with api.client() as client:
        response = create(client, "hello @answer=hi", wait=True)
    assert response.status_code == 200
    view = response.json()
    assert response.headers["location"] == f"/v1/runs/{view['run_id']}"
    assert (view["status"], view["progress"]["phase"]) == ("COMPLETED", "DONE")
    assert view["result"] == {
        "schema_version": 3,
        "run_id": view["run_id"],
        "kind": "Answer",
        "intent": "SYSTEM_CHAT",
        "text": "hi",
        "citations": [],
    }


def test_async_create_answers_202_and_the_run_is_polled_to_its_end(api: Api) -> None:
    with api.client() as client:
        response = create(client, "hello @answer=later @answer_s=1")
        assert response.status_code == 202
        view = response.json()
        assert view["status"] in {"PENDING", "RUNNING"} and view["result"] is None
        done = until_terminal(client, view["run_id"])
    assert done["status"] == "COMPLETED"
    assert done["result"]["kind"] == "Answer" and done["result"]["text"] == "later"


def test_a_diagnosis_shows_its_tools_and_budget_use(api: Api) -> None:
    with api.client() as client:
        view = create(client, "why @intent=DIAGNOSIS", wait=True).json()
    progress = view["progress"]
    assert view["status"] == "COMPLETED" and progress["intent"] == "DIAGNOSIS"
    assert sorted((t["tool_name"], t["status"]) for t in progress["tools"]) == [
        ("query_logs", "READY"),
        ("query_mysql", "READY"),
        ("search_knowledge", "READY"),
    ]  # in the order they finished, which concurrent calls do not fix
    assert progress["tool_calls"] == progress["executions"] == 3
    assert progress["model_calls"] >= 3 and progress["total_tokens"] > 0


def test_the_caller_lists_its_own_runs_by_session(api: Api) -> None:
    mine, other = session(), session()
    with api.client() as alice, api.client("bob") as bob:
        first = create(alice, "hello one", session_id=mine, wait=True).json()["run_id"]
        second = create(alice, "hello two", session_id=mine, wait=True).json()["run_id"]
        create(alice, "hello three", session_id=other, wait=True)
        create(bob, "hello bob", session_id=mine, wait=True)
        listed = alice.get("/v1/runs", params={"session_id": mine}).json()["runs"]
        assert bob.get("/v1/runs", params={"session_id": mine}).json()["runs"][0]["run_id"] not in {
            first,
            second,
        }
    assert [(r["run_id"], r["status"], r["result_kind"]) for r in listed] == [
        (second, "COMPLETED", "Answer"),
        (first, "COMPLETED", "Answer"),
    ]


def test_trace_is_the_run_timeline_metadata_only(api: Api) -> None:
    with api.client() as client:
        run_id = create(client, "hello @answer=traced", wait=True).json()["run_id"]
        response = client.get(f"/v1/runs/{run_id}/trace")
    assert response.status_code == 200
    trace = response.json()
    kinds = [e["event_type"] for e in trace["events"]]
    assert (trace["run_id"], trace["source"]) == (run_id, "live")
    assert kinds[0] == "RUN_STARTED" and kinds[-1] == "RUN_FINISHED" and "ROUTED" in kinds
    assert [e["sequence_no"] for e in trace["events"]] == list(range(1, len(kinds) + 1))
    assert "traced" not in response.text  # the answer's text is content, never trace


def test_a_retry_with_the_idempotency_key_returns_the_same_run(api: Api) -> None:
    key = {"Idempotency-Key": "retry-1"}
    body = {"question": "hello @answer=once @answer_s=0.5", "session_id": session()}
    with api.client() as alice, api.client("bob") as bob:
        first = alice.post("/v1/diagnoses", json=body, headers=key)
        again = alice.post("/v1/diagnoses", json=body | {"wait": True}, headers=key)
        conflict = alice.post("/v1/diagnoses", json=body | {"question": "other"}, headers=key)
        bobs = bob.post("/v1/diagnoses", json=body, headers=key)  # keys are per principal
    assert first.status_code == 202 and "idempotent-replayed" not in first.headers
    assert again.status_code == 200 and again.headers["idempotent-replayed"] == "true"
    assert again.json()["run_id"] == first.json()["run_id"]
    assert again.json()["result"]["text"] == "once"
    assert conflict.status_code == 409
    assert conflict.json() == {
        "error_code": "IDEMPOTENCY_CONFLICT",
        "message": "the Idempotency-Key was used with a different request",
    }
    assert bobs.status_code == 202 and bobs.json()["run_id"] != first.json()["run_id"]


def test_cancel_during_a_slow_run_ends_it_cancelled(api: Api) -> None:
    with api.client() as client:
        run_id = create(client, "hello @answer_s=20").json()["run_id"]
        while client.get(f"/v1/runs/{run_id}").json()["progress"]["phase"] != "ANSWERING":
            pass  # the model call is under way
        cancelled = client.post(f"/v1/runs/{run_id}/cancel")
        again = client.post(f"/v1/runs/{run_id}/cancel")
        view = client.get(f"/v1/runs/{run_id}").json()
    assert cancelled.status_code == 200 and cancelled.json()["cancelled"] is True
    assert again.json()["cancelled"] is False  # it had ended: a no-op
    assert view["status"] == "CANCELLED"
    assert view["result"] == {"schema_version": 3, "run_id": run_id, "kind": "Cancelled"}


def test_a_waiting_create_outlives_a_client_timeout_header(api: Api) -> None:
    """The proxy drops x-request-timeout-seconds: a client cannot cut its own request (or
    disable the deployment's timeout)."""
    headers = {"x-request-timeout-seconds": "0.3", "x-request-disconnect-disabled": "?1"}
    with api.client(headers=headers) as client:
        response = create(client, "hello @answer=slow @answer_s=1.5", wait=True)
    assert response.status_code == 200
    assert response.json()["result"]["text"] == "slow"


def test_a_run_of_another_principal_can_be_neither_read_nor_cancelled(api: Api) -> None:
    with api.client() as alice, api.client("bob") as bob:
        run_id = create(alice, "hello @answer_s=1").json()["run_id"]
        attempts = [
            bob.get(f"/v1/runs/{run_id}"),
            bob.post(f"/v1/runs/{run_id}/cancel"),
            bob.get(f"/v1/runs/{run_id}/trace"),
            bob.get(f"/v1/runs/{run_id}/events"),
        ]
        assert until_terminal(alice, run_id)["status"] == "COMPLETED"
    assert {(r.status_code, r.text) for r in attempts} == {
        (404, '{"error_code":"NOT_FOUND","message":"no such resource"}')
    }


def test_health_and_readiness(api: Api) -> None:
    with httpx.Client(base_url=api.url) as client:
        health = client.get("/healthz")
        ready = client.get("/readyz")
    assert (health.status_code, health.json()) == (200, {"status": "ok"})
    assert (ready.status_code, ready.json()) == (
        200,
        {"status": "ready", "redis": "ok", "run_pool": "ok", "audit": "ok"},
    )
