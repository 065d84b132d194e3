"""The logs projector answers byte for byte as the plain per-event reference does.

The reference (``logs_reference.py``) reads one event at a time, searches each line with the
canonical regexes, looks templates up event by event and walks every event of every sampling
stratum; the projector may compute otherwise (columns, distinct lines, cached batches) as long
as every observation and every fact is the same. Both share the template miner, so the
comparison holds for whatever the miner makes of the lines. Inputs: random queries over the
bundled demo store, and hostile results — unsorted events, events of the same instant, offsets
other than UTC, naive times, level aliases and unknown levels, missing services, secrets,
multi-line messages, access-log lines whose quotes mislead a search, Loki streams.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.backends.logs_embedded import EmbeddedLogBackend
from harness.contracts.errors import ProjectionError
from harness.contracts.observation import Projection
from harness.embedded.demo import WINDOW_END, WINDOW_START
from harness.projectors._log_lines import canonical_line, canonical_lines
from harness.projectors._logs_cache import MinedBatchCache
from harness.projectors.logs import LogsProjector, LogsProjectorLimits
from harness.redaction import Pseudonyms
from harness.testing.tools import RAW_CAP
from harness.tools.arguments import QueryLogsRequest
from tests.harness.projectors.logs_reference import reference_canonical_line, reference_project

T0 = datetime(2026, 11, 2, 14, 0, tzinfo=UTC)
ALL = QueryLogsRequest(start=WINDOW_START, end=WINDOW_END)
LIMITS = [
    LogsProjectorLimits(),
    LogsProjectorLimits(max_events=30, max_observation_bytes=64000),
    LogsProjectorLimits(max_observation_bytes=2500),
    LogsProjectorLimits(max_templates=5, max_message_chars=80, max_stack_lines=2),
    LogsProjectorLimits(max_events=0),
    LogsProjectorLimits(max_events=1),
]

# The whole demo store (28 MB of events) is more than a default call may fill.
WHOLE_STORE = 1 << 30


@cache
def _demo_backend() -> EmbeddedLogBackend:
    return EmbeddedLogBackend(max_events=5000)


def assert_same(raw: Any, request: QueryLogsRequest, limits: LogsProjectorLimits) -> None:
    """The projector (cold cache, then warm) and the reference give the same bytes."""
    expected = reference_project("call_1", request, raw, limits)
    projector = LogsProjector(limits, cache=MinedBatchCache())
    for _ in ("cold", "warm"):
        got = projector.project("call_1", request, raw)
        assert _shown(got) == _shown(expected)
        assert got.facts == expected.facts


def _shown(projection: Projection) -> str:
    """The observation as a new run shows it: marks numbered from 1 (each projection marks
    with its own nonce)."""
    return projection.resolved(Pseudonyms()).model_dump_json()


# ----------------------------------------------------------------------------- the demo store


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    start_min=st.integers(min_value=0, max_value=119),
    length_min=st.sampled_from([1, 5, 20, 60, 120]),
    services=st.sets(
        st.sampled_from(["checkout-api", "payment-service", "inventory-service", "api-gateway"]),
        max_size=2,
    ),
    level=st.sampled_from([None, "DEBUG", "INFO", "WARN", "ERROR"]),
    query=st.sampled_from([None, "timeout", "500", "order", "HTTP/1.1"]),
    limits=st.sampled_from(LIMITS),
)
def test_demo_store_queries_project_as_the_reference(
    start_min: int,
    length_min: int,
    services: set[str],
    level: str | None,
    query: str | None,
    limits: LogsProjectorLimits,
) -> None:
    start = WINDOW_START + timedelta(minutes=start_min)
    request = QueryLogsRequest(
        start=start,
        end=min(start + timedelta(minutes=length_min), WINDOW_END),
        services=sorted(services),
        level=level,  # type: ignore[arg-type]
        query=query,
    )
    assert_same(_demo_backend().fetch(request, max_raw_bytes=RAW_CAP).value(), request, limits)


# ----------------------------------------------------------------------------- hostile results

LINES = [
    "cache hit key=a{n} took {n}ms",
    "HikariPool-1 - Connection is not available, request timed out after {n}ms.",
    "POST /api/v1/checkout order_id={n} status=500 latency_ms={n}",
    "POST /api/v1/checkout order_id={n} status=402 latency_ms={n}",
    '{{"level":"warn","status": 503,"msg":"upstream {n}"}}',
    "status check ok; status_code: 200 after {n} tries",
    "statusless line {n} with status word only",
    '[2026-11-02T14:05:00.000Z] "GET /api/v1/cart/{n} HTTP/1.1" 200 - 10 20 30 29 "10.0.0.{n}"',
    '10.0.1.87 - - [02/Nov/2026] "POST /api/v1/pay/ord_{n}/x?token=abc HTTP/2" 502 UC,URX "-"',
    'a "GET bad HTTP/1.1" "POST /ok/{n} HTTP/1.0" 404 - trailing',
    '"GET /v1 HTTP/x" 200 then "GET /v2/{n} HTTP/1.1" 201 -',
    "login failed user=bob password=hunter2xyz from 10.0.3.{n}",
    "token=xoxb-123456789012-098765432109-AbCdEfGhIjKlMnOpQrStUvWx used {n}",
    "Request failed {n}\njava.lang.IllegalStateException: boom\n\tat a.b.C.d(C.java:1)"
    "\n\tat a.b.C.e(C.java:2)\n\tat a.b.C.f(C.java:3)\nCaused by: java.io.IOException: x",
    "pod checkout-api-7d9f8b6c5-x2kqp on ip-10-0-3-17.ec2.internal restarted {n} times",
    "unicode µs={n} naïve ✓ {n}",
    "",
]
LEVELS = ["INFO", "warning", "ERR", "fatal", "debug", "TRACE", "bogus", None, 5, "CRITICAL"]
OFFSETS = ["Z", "+00:00", "+02:00", "-05:30", ""]


def _hostile_events(rng: random.Random, count: int) -> list[dict[str, Any]]:
    events = []
    for _ in range(count):
        seconds = rng.choice([0, 0, 1, rng.randrange(7200), rng.random() * 7200])
        offset = rng.choice(OFFSETS)
        stamp = (T0 + timedelta(seconds=seconds)).replace(tzinfo=None).isoformat()
        event: dict[str, Any] = {
            "ts": stamp + offset,
            "message": rng.choice(LINES).format(n=rng.choice([1, 2, 17, rng.randrange(10**6)])),
        }
        if rng.random() < 0.9:
            event["level"] = rng.choice(LEVELS)
        if rng.random() < 0.9:
            event["service"] = rng.choice(["checkout-api", "ip-10-0-3-17.ec2.internal", "", None])
        events.append(event)
    return events


def _embedded(events: list[dict[str, Any]], limit_hit: bool = False) -> dict[str, Any]:
    return {"format": "embedded-jsonl/v1", "events": events, "matched": len(events),
            "limit_hit": limit_hit}  # fmt: skip


def _loki(events: list[dict[str, Any]], limit: int) -> dict[str, Any]:
    streams: dict[tuple[Any, Any], list[list[str]]] = {}
    for event in events:
        stamp = datetime.fromisoformat(event["ts"])
        if stamp.tzinfo is None:
            stamp = stamp.replace(tzinfo=UTC)
        nanos = int(stamp.timestamp()) * 10**9 + stamp.microsecond * 1000
        key = (event.get("service"), event.get("level"))
        streams.setdefault(key, []).append([str(nanos), event["message"]])
    result = []
    for (service, level), values in streams.items():
        labels = {"app": service} if service else {}
        if isinstance(level, str):
            labels["level"] = level
        result.append({"stream": labels, "values": values})
    response = {"status": "success", "data": {"resultType": "streams", "result": result}}
    return {"format": "loki/query_range", "response": response, "limit": limit}


@settings(max_examples=120, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=2**32),
    count=st.sampled_from([1, 2, 3, 12, 13, 40, 300]),
    limits=st.sampled_from(LIMITS),
    loki=st.booleans(),
)
def test_hostile_results_project_as_the_reference(
    seed: int, count: int, limits: LogsProjectorLimits, loki: bool
) -> None:
    rng = random.Random(seed)
    events = _hostile_events(rng, count)
    raw = _loki(events, limit=count) if loki else _embedded(events, limit_hit=seed % 5 == 0)
    request = QueryLogsRequest(
        start=T0, end=T0 + timedelta(hours=2), services=["checkout-api"], query="password=x"
    )
    try:
        expected = reference_project("call_1", request, raw, limits)
    except ProjectionError:
        with pytest.raises(ProjectionError):
            LogsProjector(limits, cache=MinedBatchCache()).project("call_1", request, raw)
        return
    assert expected is not None
    assert_same(raw, request, limits)


def test_the_whole_demo_day_projects_as_the_reference() -> None:
    raw = EmbeddedLogBackend(max_events=1_000_000).fetch(ALL, max_raw_bytes=WHOLE_STORE).value()
    assert_same(raw, ALL, LogsProjectorLimits())


# ----------------------------------------------------------------------------- malformed input


@pytest.mark.parametrize(
    "events",
    [
        [{"ts": "2026-11-02T14:00:00Z", "message": "ok"}, {"ts": 5, "message": 7}],
        [{"ts": "2026-11-02T14:00:00Z", "message": "ok"}, {"ts": "late", "message": 7}],
        [{"ts": "2026-11-02T14:00:00Z", "message": "ok"}, {"ts": "late", "message": "x"}],
        [{"ts": "2026-11-02T14:00:00Z", "message": "ok", "level": ["unhashable"]}],
        [{"ts": "2026-11-02T14:00:00Z", "message": "ok"}, ["not", "an", "object"]],
        [{"ts": "2026-11-02T14:00:00Z"}],
    ],
)
def test_malformed_events_fail_with_the_reference_message(events: list[Any]) -> None:
    request = QueryLogsRequest(start=T0, end=T0 + timedelta(hours=1))
    with pytest.raises(ProjectionError) as expected:
        reference_project("c", request, _embedded(events))
    with pytest.raises(ProjectionError) as got:
        LogsProjector().project("c", request, _embedded(events))
    assert (got.value.error_code, got.value.message) == (
        expected.value.error_code,
        expected.value.message,
    )


# ----------------------------------------------------------------------------- canonical lines

_FRAGMENTS = [
    '"', " ", "GET", "POST", "DELETE", " HTTP/", "1.1", '" ', "200", "500", " UC", ",URX",
    " -", "/", "api", "v1", "12345", "ord_10444", "deadbeef", "SKU-104", "?q=1", "status",
    "status_code", "=", ":", " = ", '"status": ', "502", "9", "x", "\t", "µ", "status=",
]  # fmt: skip


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=24).map("".join))
def test_canonical_lines_are_those_of_the_reference_regex_search(line: str) -> None:
    assert canonical_line(line) == reference_canonical_line(line)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=120))
def test_canonical_lines_of_any_text_are_those_of_the_reference(line: str) -> None:
    assert canonical_line(line) == reference_canonical_line(line)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_FRAGMENTS), max_size=24).map("".join), max_size=12))
def test_canonical_columns_are_the_reference_line_by_line(lines: list[str]) -> None:
    """The column form (substring prefilters, shared path cache) is the per-line reference."""
    columns = canonical_lines(lines)
    assert list(zip(*columns, strict=True)) == [reference_canonical_line(line) for line in lines]


def test_canonical_lines_of_the_demo_day_are_those_of_the_reference() -> None:
    raw = EmbeddedLogBackend(max_events=1_000_000).fetch(ALL, max_raw_bytes=WHOLE_STORE).value()
    lines = list(dict.fromkeys(e["message"].partition("\n")[0] for e in raw["events"]))
    assert list(zip(*canonical_lines(lines), strict=True)) == [
        reference_canonical_line(line) for line in lines
    ]
