"""Helpers of the HTTP tests: create runs, poll them, read Server-Sent Events."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx

__all__ = ["Event", "create", "events", "session", "until_terminal"]

TERMINAL = {"COMPLETED", "FAILED", "CANCELLED", "TIMED_OUT"}


def session() -> str:
    """A session id no other test shares."""
    return f"s-{uuid.uuid4().hex[:12]}"


def create(client: httpx.Client, question: str, **fields: Any) -> httpx.Response:
    body = {"question": question, "session_id": fields.pop("session_id", None) or session()}
    return client.post("/v1/diagnoses", json=body | fields)


def until_terminal(client: httpx.Client, run_id: str, *, timeout_s: float = 30.0) -> dict[str, Any]:
    """Poll the run until it reached a terminal state; its last view."""
    deadline = time.monotonic() + timeout_s
    while True:
        view: dict[str, Any] = client.get(f"/v1/runs/{run_id}").json()
        if view.get("status") in TERMINAL:
            return view
        if time.monotonic() > deadline:
            raise AssertionError(f"run {run_id} not terminal within {timeout_s} s: {view}")
        time.sleep(0.05)


@dataclass(frozen=True)
class Event:
    """One SSE frame: a comment (``comment`` set) or an event."""

    event: str | None = None
    id: int | None = None
    data: dict[str, Any] | None = None
    comment: str | None = None
    retry: int | None = None


def events(response: httpx.Response) -> Iterator[Event]:
    """The frames of an event stream, as they arrive."""
    fields: dict[str, str] = {}
    for line in response.iter_lines():
        if line == "":
            if fields:
                yield Event(
                    event=fields.get("event"),
                    id=int(fields["id"]) if "id" in fields else None,
                    data=json.loads(fields["data"]) if "data" in fields else None,
                    comment=fields.get(""),
                    retry=int(fields["retry"]) if "retry" in fields else None,
                )
            fields = {}
            continue
        name, _, value = line.partition(":")
        fields[name] = value[1:] if value.startswith(" ") else value
