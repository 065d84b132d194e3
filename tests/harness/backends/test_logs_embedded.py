"""The embedded log backend: range bisect, filters, first-N limit, raw shape, errors."""

from __future__ import annotations

import gzip
import json
import pickle
from pathlib import Path

import pytest

from harness.backends.logs_embedded import EMBEDDED_LOGS_FORMAT, EmbeddedLogBackend
from harness.contracts.errors import BackendError, ErrorCode
from harness.testing.tools import RAW_CAP
from harness.tools.arguments import QueryLogsRequest, SearchKnowledgeRequest

EVENTS = [
    {"ts": "2026-11-02T14:00:00.000Z", "service": "checkout-api", "level": "INFO", "pod": "p", "host": "h", "message": "started"},
    {"ts": "2026-11-02T14:05:03.123Z", "service": "checkout-api", "level": "ERROR", "pod": "p", "host": "h", "message": "HikariPool-1 - Connection is not available\n\tat x.Y(Y.java:1)"},
    {"ts": "2026-11-02T14:05:04.000Z", "service": "payment-service", "level": "WARNING", "pod": "p", "host": "h", "message": "slow call TIMEOUT"},
    {"ts": "2026-11-02T14:06:00.000Z", "service": "inventory-service", "level": "DEBUG", "pod": "p", "host": "h", "message": "cache hit"},
    {"ts": "2026-11-02T14:07:00.000Z", "service": "checkout-api", "level": "FATAL", "pod": "p", "host": "h", "message": "out of memory: timeout"},
    {"ts": "2026-11-02T15:00:00.000Z", "service": "checkout-api", "level": "ERROR", "pod": "p", "host": "h", "message": "at the end bound"},
]  # fmt: skip


@pytest.fixture()
def store(tmp_path: Path) -> Path:
    path = tmp_path / "logs.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as out:
        for event in EVENTS:
            out.write(json.dumps(event) + "\n")
    return path


def query(**kwargs: object) -> QueryLogsRequest:
    return QueryLogsRequest(
        start=kwargs.pop("start", "2026-11-02T14:00:00Z"),
        end=kwargs.pop("end", "2026-11-02T15:00:00Z"),
        **kwargs,
    )


def test_range_is_half_open_and_events_are_returned_as_stored(store: Path) -> None:
    raw = EmbeddedLogBackend(store).fetch(query(), max_raw_bytes=RAW_CAP).value()
    assert raw == {
        "format": EMBEDDED_LOGS_FORMAT,
        "events": EVENTS[:5],
        "matched": 5,
        "limit_hit": False,
    }


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({"services": ["payment-service", "inventory-service"]}, [2, 3]),
        ({"query": "timeout"}, [2, 4]),
        ({"level": "WARN"}, [1, 2, 4]),
        ({"level": "ERROR", "services": ["checkout-api"]}, [1, 4]),
        ({"start": "2026-11-02T14:05:03.123Z", "end": "2026-11-02T14:05:04Z"}, [1]),
        ({"query": "no such text"}, []),
    ],
)
def test_filters(store: Path, filters: dict[str, object], expected: list[int]) -> None:
    raw = EmbeddedLogBackend(store).fetch(query(**filters), max_raw_bytes=RAW_CAP).value()
    assert raw["events"] == [EVENTS[i] for i in expected]
    assert raw["matched"] == len(expected)


def test_limit_returns_the_first_events_and_says_so(store: Path) -> None:
    raw = EmbeddedLogBackend(store, max_events=2).fetch(query(), max_raw_bytes=RAW_CAP).value()
    assert raw == {
        "format": EMBEDDED_LOGS_FORMAT,
        "events": EVENTS[:2],
        "matched": 5,
        "limit_hit": True,
    }


def test_plain_jsonl_and_unsorted_stores_are_read(tmp_path: Path) -> None:
    path = tmp_path / "logs.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in reversed(EVENTS)) + "\n\n")
    assert (
        EmbeddedLogBackend(path).fetch(query(), max_raw_bytes=RAW_CAP).value()["events"]
        == EVENTS[:5]
    )


def test_returned_events_cannot_edit_the_store(store: Path) -> None:
    backend = EmbeddedLogBackend(store)
    event = backend.fetch(query(), max_raw_bytes=RAW_CAP).value()["events"][0]
    for edit in (
        lambda: event.__setitem__("message", "changed"),
        lambda: event.update(message="changed"),
        lambda: event.pop("message"),
        lambda: event.setdefault("extra", 1),
        lambda: event.clear(),
    ):
        with pytest.raises(TypeError):
            edit()
    copy = dict(event)  # a copy is an ordinary dict
    copy["message"] = "changed"
    assert (
        backend.fetch(query(), max_raw_bytes=RAW_CAP).value()["events"][0]["message"] == "started"
    )


@pytest.mark.parametrize("content", ["not json\n", '["a list"]\n', '{"no_ts": 1}\n'])
def test_unreadable_store_is_backend_error(tmp_path: Path, content: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(BackendError) as caught:
        EmbeddedLogBackend(path).fetch(query(), max_raw_bytes=RAW_CAP).value()
    assert caught.value.error_code is ErrorCode.BACKEND_ERROR


def test_missing_store_and_wrong_request_are_backend_errors(tmp_path: Path) -> None:
    with pytest.raises(BackendError):
        EmbeddedLogBackend(tmp_path / "absent.jsonl").fetch(query(), max_raw_bytes=RAW_CAP).value()
    with pytest.raises(BackendError):
        EmbeddedLogBackend(tmp_path / "absent.jsonl").fetch(
            SearchKnowledgeRequest(query="x"), max_raw_bytes=RAW_CAP
        ).value()


def test_pickled_backend_reloads_and_answers_the_same(store: Path) -> None:
    backend = EmbeddedLogBackend(store, max_events=3)
    first = backend.fetch(query(), max_raw_bytes=RAW_CAP).value()
    clone = pickle.loads(pickle.dumps(backend))
    assert clone.fetch(query(), max_raw_bytes=RAW_CAP).value() == first


def test_bundled_demo_store_is_the_default() -> None:
    backend = EmbeddedLogBackend(max_events=10)
    raw = backend.fetch(
        query(start="2026-11-02T14:00:00Z", end="2026-11-02T14:10:00Z", level="ERROR"),
        max_raw_bytes=RAW_CAP,
    ).value()
    assert raw["matched"] > 10 and raw["limit_hit"] is True and len(raw["events"]) == 10
    stamps = [e["ts"] for e in raw["events"]]
    assert stamps == sorted(stamps) and stamps[0] >= "2026-11-02T14:00:00"


def test_a_result_is_made_of_the_event_json_the_store_keeps(store: Path) -> None:
    """Its raw is of *shared* parts: the same bytes objects on every query, which a store in
    this process may hold by reference instead of compressing (LocalCanonicalStore)."""
    backend = EmbeddedLogBackend(store)
    first, second = (
        backend.fetch(query(), max_raw_bytes=RAW_CAP),
        backend.fetch(query(), max_raw_bytes=RAW_CAP),
    )
    assert first.shared and second.shared
    kept_first, kept_second = first.shared_parts(), second.shared_parts()
    assert kept_first is not None and kept_second is not None
    assert kept_first.json == first.json == second.json
    assert first._parts is not None and second._parts is not None
    assert all(a is b for a, b in zip(first._parts.items, second._parts.items, strict=True))
