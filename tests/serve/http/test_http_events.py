"""Progress as Server-Sent Events through a real client: until the terminal state, resumed
with Last-Event-ID, heartbeats while the model thinks, and a client that disconnects
mid-stream stops its stream, never the run."""

from __future__ import annotations

from tests.serve.http.conftest import Api
from tests.serve.http.http_helpers import Event, create, events, until_terminal

SLOW_DIAGNOSIS = "why @intent=DIAGNOSIS @answer_s=0.6"


def _stream(api: Api, run_id: str, last_event_id: int | None = None) -> list[Event]:
    headers = {} if last_event_id is None else {"Last-Event-ID": str(last_event_id)}
    with (
        api.client() as client,
        client.stream("GET", f"/v1/runs/{run_id}/events", headers=headers) as response,
    ):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        return list(events(response))


def test_the_stream_shows_progress_until_the_terminal_result(api: Api) -> None:
    with api.client() as client:
        run_id = create(client, SLOW_DIAGNOSIS).json()["run_id"]
    frames = _stream(api, run_id)
    assert frames[0].retry == 2000
    named = [f for f in frames if f.event is not None]
    ids = [f.id for f in named]
    assert ids == sorted(set(ids)), "event ids strictly increase"
    assert [f.event for f in named[:-1]] == ["progress"] * (len(named) - 1)
    last = named[-1]
    assert last.event == "result" and last.data is not None
    assert last.data["status"] == "COMPLETED" and last.data["result"]["run_id"] == run_id
    assert last.id == last.data["progress"]["sequence_no"]
    phases = [f.data["progress"]["phase"] for f in named if f.data]
    assert "INVESTIGATING" in phases and phases[-1] == "DONE"
    tools = [len(f.data["progress"]["tools"] or []) for f in named if f.data]
    assert tools == sorted(tools) and tools[-1] == 3  # tool calls appear as they finish
    assert any(f.comment == " keep-alive" or f.comment == "keep-alive" for f in frames), (
        "heartbeats while the model thinks"
    )


def test_a_stream_resumed_with_last_event_id_sends_only_what_is_newer(api: Api) -> None:
    with api.client() as client:
        run_id = create(client, SLOW_DIAGNOSIS).json()["run_id"]
        with client.stream("GET", f"/v1/runs/{run_id}/events") as response:
            first = next(f for f in events(response) if f.event == "progress")
        assert first.id is not None
        resumed = [f for f in _stream(api, run_id, last_event_id=first.id) if f.event]
        assert all(f.id is not None and f.id > first.id for f in resumed)
        assert resumed[-1].event == "result"
        # Resuming after the terminal event still closes with the result, and nothing else: a
        # terminal view carries the run's final sequence_no (fixed when the pool settled the
        # run), so the client has seen the last id there is and the result comes one past it.
        again = [f for f in _stream(api, run_id, last_event_id=resumed[-1].id) if f.event]
    assert [(f.event, f.id) for f in again] == [("result", (resumed[-1].id or 0) + 1)]


def test_a_client_that_disconnects_mid_stream_leaves_the_run_running(api: Api) -> None:
    with api.client() as client:
        run_id = create(client, SLOW_DIAGNOSIS).json()["run_id"]
        with client.stream("GET", f"/v1/runs/{run_id}/events") as response:
            seen = next(f for f in events(response) if f.event == "progress")
            assert seen.data is not None and seen.data["status"] in {"PENDING", "RUNNING"}
        # The connection is closed here, mid-run.
        done = until_terminal(client, run_id)
    assert done["status"] == "COMPLETED" and done["result"]["kind"] in {
        "DiagnosisReport",
        "SafeFallback",
    }


def test_a_bad_last_event_id_is_a_schema_error(api: Api) -> None:
    with api.client() as client:
        run_id = create(client, "hello", wait=True).json()["run_id"]
        response = client.get(f"/v1/runs/{run_id}/events", headers={"Last-Event-ID": "x1"})
    assert response.status_code == 422
    assert response.json()["error_code"] == "INVALID_REQUEST"
