"""The bundled demo incident data: reproducible logs that tell the story, and indexed runbooks."""

from __future__ import annotations

import gzip
import json
import re
from collections import Counter

import pytest

from harness.embedded.demo import (
    INCIDENT_QUESTION,
    INCIDENT_START,
    SERVICES,
    WINDOW_END,
    WINDOW_START,
    logs_path,
    runbooks_dir,
)
from harness.embedded.demo.generate_logs import (
    DEFAULT_EVENTS,
    content_sha256,
    generate_events,
    iter_jsonl,
)

HIKARI_TIMEOUT = "Connection is not available, request timed out"
LEVELS = {"TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"}


def _iso(moment) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.000Z")


@pytest.fixture(scope="module")
def raw_lines() -> list[bytes]:
    with gzip.open(logs_path(), "rb") as fh:
        return fh.readlines()


@pytest.fixture(scope="module")
def events(raw_lines: list[bytes]) -> list[dict[str, str]]:
    return [json.loads(line) for line in raw_lines]


def test_committed_logs_are_what_the_generator_produces(raw_lines: list[bytes]) -> None:
    assert content_sha256(raw_lines) == content_sha256(iter_jsonl(generate_events()))


def test_events_have_the_schema_and_enough_volume(events: list[dict[str, str]]) -> None:
    assert len(events) == DEFAULT_EVENTS >= 50_000
    assert {tuple(event) for event in events} == {
        ("ts", "service", "level", "pod", "host", "message")
    }
    assert {event["level"] for event in events} <= LEVELS
    assert {event["service"] for event in events} == set(SERVICES)
    assert all(event["pod"].startswith(event["service"] + "-") for event in events)


def test_events_are_sorted_and_cover_the_window(events: list[dict[str, str]]) -> None:
    stamps = [event["ts"] for event in events]
    assert stamps == sorted(stamps)
    assert _iso(WINDOW_START) <= stamps[0] < "2026-11-02T13:00:10"
    assert "2026-11-02T14:59:50" < stamps[-1] < _iso(WINDOW_END)


def test_pool_timeouts_start_at_1405_and_not_before(events: list[dict[str, str]]) -> None:
    incident = _iso(INCIDENT_START)
    timeouts = [e for e in events if HIKARI_TIMEOUT in e["message"]]
    before = [e for e in timeouts if e["ts"] < incident]
    assert before == []
    assert len(timeouts) > 500
    assert {e["service"] for e in timeouts} == {"checkout-api"}
    assert timeouts[0]["ts"] < "2026-11-02T14:06:00"
    # The signal is real but a minority: most lines are routine noise.
    assert len(timeouts) < 0.15 * len(events)


def test_config_refresh_precedes_the_first_timeout(events: list[dict[str, str]]) -> None:
    resized = [e for e in events if "maximumPoolSize changed 40 -> 4" in e["message"]]
    assert len(resized) == 3
    assert all(e["ts"].startswith("2026-11-02T14:04:1") for e in resized)
    refreshed = [e for e in events if "Refreshing keys [spring.datasource.hikari.maximum-pool-size]" in e["message"]]  # fmt: skip
    assert [e["pod"] for e in refreshed] == [e["pod"] for e in resized]


def test_gateway_checkout_500s_rise_after_1405(events: list[dict[str, str]]) -> None:
    incident = _iso(INCIDENT_START)
    status = re.compile(r'"POST /api/v1/checkout HTTP/1\.1" (\d{3}) ')
    shares = {}
    for name, keep in [("before", lambda ts: ts < incident), ("after", lambda ts: ts >= incident)]:
        codes = Counter(
            match.group(1)
            for e in events
            if e["service"] == "api-gateway" and keep(e["ts"])
            for match in [status.search(e["message"])]
            if match
        )
        shares[name] = codes["500"] / sum(codes.values())
    assert shares["before"] == 0
    assert shares["after"] > 0.5


def test_multiline_stack_traces_are_present(events: list[dict[str, str]]) -> None:
    java = [e for e in events if "\n\tat " in e["message"] and "Caused by: " in e["message"]]
    python = [e for e in events if "Traceback (most recent call last):\n  File " in e["message"]]
    assert {e["service"] for e in java} == {"checkout-api"}
    assert any("\t... 42 more" in e["message"] for e in java)
    assert any(e["ts"] < _iso(INCIDENT_START) for e in java)  # red-herring traces exist too
    assert {e["service"] for e in python} == {"payment-service"}
    assert len(python) >= 5


SECRET_CLASSES = {
    "jdbc_url_with_credentials": r"jdbc:mysql://checkout_app:[^@\s]+@db-primary\.internal:3306/shop",
    "password_assignment": r"\bpassword=Xk9\w+",
    "bearer_jwt": r"Bearer eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+",
    "stripe_live_key": r"\bapi_key=sk_live_\w{20,}",
    "aws_access_key_id": r"\bAKIA[A-Z2-7]{16}\b",
    "aws_secret_access_key": r"aws_secret_access_key=[A-Za-z0-9/+]{40}",
    "sql_literal": r"WHERE customer_id = \d+ AND ci\.status = 'ACTIVE'|WHERE sku = 'SKU-\d+'",
    "ipv4_with_port": r"\b10\.0\.\d{1,3}\.\d{1,3}:\d{2,5}\b",
    "pid": r"with PID \d+|\(pid:\d+\)",
}


def test_each_secret_and_identifier_class_is_present(events: list[dict[str, str]]) -> None:
    text = "\n".join(e["message"] for e in events)
    counts = {name: len(re.findall(pattern, text)) for name, pattern in SECRET_CLASSES.items()}
    assert {name: count > 0 for name, count in counts.items()} == dict.fromkeys(counts, True)
    secrets = sum(counts[k] for k in list(SECRET_CLASSES)[:6])
    assert 20 <= secrets <= 100  # "a few dozen", not a wall of secrets


def test_generator_scales_with_the_same_mix() -> None:
    small = list(generate_events(12_000, seed=3))
    assert len(small) == 12_000
    assert [e["ts"] for e in small] == sorted(e["ts"] for e in small)
    assert {e["service"] for e in small} == set(SERVICES)
    assert any(HIKARI_TIMEOUT in e["message"] for e in small)
    assert list(generate_events(12_000, seed=3)) == small


def test_generator_refuses_fewer_events_than_the_skeleton() -> None:
    with pytest.raises(ValueError, match="at least"):
        list(generate_events(100))


@pytest.fixture(scope="module")
def index() -> list[dict[str, object]]:
    return json.loads((runbooks_dir() / "index.json").read_text())


def test_runbooks_are_indexed_with_unique_slug_ids(index: list[dict[str, object]]) -> None:
    documents = sorted(p.name for p in runbooks_dir().glob("*.md"))
    assert len(documents) >= 20
    assert sorted(str(row["path"]) for row in index) == documents
    ids = [str(row["doc_id"]) for row in index]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"rb-[a-z0-9]+(-[a-z0-9]+)*", doc_id) for doc_id in ids)
    for row in index:
        first_line = (runbooks_dir() / str(row["path"])).read_text().splitlines()[0]
        assert first_line == f"# {row['title']}"
        assert set(row) == {"doc_id", "title", "path", "tags", "updated_at"}
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(row["updated_at"]))


def test_runbooks_name_the_symptom_and_hold_no_secrets(index: list[dict[str, object]]) -> None:
    by_id = {row["doc_id"]: (runbooks_dir() / str(row["path"])).read_text() for row in index}
    assert HIKARI_TIMEOUT in by_id["rb-hikari-pool-exhaustion"]
    assert "maximum-pool-size" in by_id["rb-hikari-pool-exhaustion"]
    assert "ops.config_changes" in by_id["rb-config-change-rollback"]
    leaked = [
        doc_id
        for doc_id, text in by_id.items()
        for pattern in list(SECRET_CLASSES.values())[:6]
        if re.search(pattern, text)
    ]
    assert leaked == []


def test_incident_question_names_the_symptom() -> None:
    assert "checkout-api" in INCIDENT_QUESTION
    assert "14:05" in INCIDENT_QUESTION
