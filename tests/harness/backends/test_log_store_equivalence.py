"""The indexed log store answers exactly as a plain scan does, and reads only what it selects.

The reference below is the straightforward reading of the ``query_logs`` contract, written
independently of the store: sort the events by time (stable), keep those in ``[start, end)``
whose service is named (or any, when none is), whose level ranks at least the minimum, and —
for a ``query`` — whose *redacted* message holds it (``LogQuery.matches(match_view(redact(m)))``,
no raw prefilter, no cache); return the first ``max_events`` as stored, count them all. The
backend's raw response must equal it byte for byte (as JSON, key order included), for random
queries over the bundled demo store and over a second, hostile store: unsorted input, events of
the same millisecond, level aliases and unknown levels, events without a service or level,
secrets, hosts and IPs that only the raw text holds, ``?``, multi-line messages, extra fields.
"""

from __future__ import annotations

import copy
import gzip
import json
import pickle
import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from functools import cache
from pathlib import Path
from typing import Any

import pydantic_core
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.backends._log_store import FrozenEvent, LogStore
from harness.backends.log_query import LogQuery, match_view
from harness.backends.logs_embedded import EMBEDDED_LOGS_FORMAT, EmbeddedLogBackend, level_rank
from harness.backends.logs_files import FileLogBackend
from harness.contracts.errors import ProjectionError
from harness.contracts.rawcap import RawCap
from harness.projectors._logs_raw import _embedded_columns, parse_raw
from harness.redaction import Redactor, redact
from harness.testing.tools import RAW_CAP
from harness.tools.arguments import LOG_LEVELS, MAX_LOG_RANGE, QueryLogsRequest

# ----------------------------------------------------------------------------- the reference

# The whole demo store (28 MB of events) is more than a default call may fill.
WHOLE_STORE = 1 << 30


def _ms(value: datetime) -> int:
    # The contract's time resolution: epoch milliseconds, truncated.
    return int(value.timestamp() * 1000)


def _ts(event: dict[str, Any]) -> datetime:
    stamp = datetime.fromisoformat(str(event["ts"]))
    return stamp if stamp.tzinfo is not None else stamp.replace(tzinfo=UTC)


@cache
def _redacted_view(message: str) -> str:
    return match_view(redact(message))


@dataclass(frozen=True)
class Reference:
    """A plain scan over the events in time order (the sort is Python's stable sort)."""

    # (epoch ms, service, level rank, message, event), in time order.
    rows: list[tuple[int, Any, int, str, dict[str, Any]]]

    @classmethod
    def of(cls, events: Sequence[dict[str, Any]]) -> Reference:
        rows = [
            (
                _ms(_ts(e)),
                e.get("service"),
                level_rank(e.get("level")),
                str(e.get("message", "")),
                e,
            )
            for e in events
        ]
        return cls(sorted(rows, key=lambda row: row[0]))

    @property
    def ordered(self) -> list[dict[str, Any]]:
        return [row[-1] for row in self.rows]

    def found(self, request: QueryLogsRequest) -> list[dict[str, Any]]:
        """Every event that passes the request's filters, in time order."""
        start, end = _ms(request.start), _ms(request.end)
        services = set(request.services)
        lowest = level_rank(request.level) if request.level else None
        query = LogQuery.of(request.query) if request.query else None
        found = []
        for stamp, service, rank, message, event in self.rows:
            if not start <= stamp < end:
                continue
            if services and not (isinstance(service, str) and service in services):
                continue
            if lowest is not None and rank < lowest:
                continue
            if query is not None and not query.matches(_redacted_view(message)):
                continue
            found.append(event)
        return found

    def raw(self, request: QueryLogsRequest, max_events: int) -> dict[str, Any]:
        return _raw(self.found(request), max_events)


def _raw(found: list[dict[str, Any]], max_events: int) -> dict[str, Any]:
    return {
        "format": EMBEDDED_LOGS_FORMAT,
        "events": found[:max_events],
        "matched": len(found),
        "limit_hit": len(found) > max_events,
    }


def _bytes(raw: dict[str, Any]) -> str:
    return json.dumps(raw, ensure_ascii=False)


# ----------------------------------------------------------------------------- the datasets

T0 = datetime(2026, 3, 10, 9, 0, tzinfo=UTC)
CEST = timezone(timedelta(hours=2))
HOSTILE_SERVICES = ("billing-api", "invoice-consumer", "ledger.worker", "edge_proxy")
HOSTILE_LEVELS = (*LOG_LEVELS, "WARNING", "err", "Critical", "notice", "verbose", "", None, 3)
HOSTILE_MESSAGES = (
    "POST /v1/invoices 201 in 12 ms",
    "persist failed for invoice INV-{n}: Timeout after 3000ms",
    "api_key=sk_live_51u8QmZx9KpL2wR7tY3vB{n} rejected",
    "upstream 10.0.3.{n}:8080 connection reset",
    "host=ip-10-0-9-44.ec2.internal latency_ms={n}",
    "SELECT id FROM invoices WHERE id = {n} AND status = 'OPEN'",
    "java.sql.SQLException: timeout\n\tat com.billing.Repo.save(Repo.java:{n})\n\tat x.Y(Y.java:1)",
    "ΟΔΟΣ Straße İstanbul timeout {n}",
    "user bob@example.com password=hunter2{n} login failed",
    "lag {n} messages; consumer group billing?",
)
HOSTILE_WORDS = (
    "timeout",
    "TIMEOUT",
    "invoice",
    "inv-1",
    "failed for",
    "10.0.3",
    "ec2.internal",
    "sk_live",
    "hunter2",
    "status = ?",
    "= ?",
    "?",
    "οδοσ",
    "straße",
    "i̇stanbul",
    "at com.billing",
    "repo.java:",
    "<secret>",
    "bob@",
    "lag 1",
    "no such text",
)


def hostile_events(seed: int = 11, n: int = 3000) -> list[dict[str, Any]]:
    """A store in file order (not sorted by time) with a burst of events in one millisecond."""
    rng = random.Random(seed)
    events = []
    for i in range(n):
        offset_ms = rng.randrange(0, 2 * 3600 * 1000) if rng.random() < 0.8 else 3_600_000
        stamp = T0 + timedelta(milliseconds=offset_ms)
        iso = stamp.isoformat(timespec="milliseconds")
        elsewhere = stamp.astimezone(CEST).isoformat(timespec="milliseconds")
        ts = rng.choice([iso.replace("+00:00", "Z"), iso, elsewhere])
        event: dict[str, Any] = {"ts": ts}
        roll = rng.random()
        if roll < 0.9:
            event["service"] = rng.choice(HOSTILE_SERVICES)
        elif roll < 0.95:
            event["service"] = None
        elif roll < 0.97:
            event["service"] = 7
        level = rng.choice(HOSTILE_LEVELS)
        if rng.random() < 0.95:
            event["level"] = level
        event["message"] = rng.choice(HOSTILE_MESSAGES).format(n=i % 17)
        if rng.random() < 0.3:
            event["attrs"] = {"n": i, "tags": ["a", i % 3]}
        events.append(event)
    return events


def demo_events() -> list[dict[str, Any]]:
    path = Path(str(EmbeddedLogBackend().path))
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


@dataclass
class World:
    backend: EmbeddedLogBackend
    reference: Reference
    services: tuple[str, ...]
    words: tuple[str, ...]
    stamps: list[datetime]

    def check(
        self,
        request: QueryLogsRequest,
        max_events: int,
        found: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """The backend's raw response, checked against the reference's (``found``: its events)."""
        self.backend.max_events = max_events
        got = self.backend.fetch(request, max_raw_bytes=WHOLE_STORE).value()
        expected = _raw(self.reference.found(request) if found is None else found, max_events)
        assert _bytes(got) == _bytes(expected)
        assert _columns(got) == _columns(json.loads(_bytes(got)))
        return got


def _columns(raw: dict[str, Any]) -> tuple[Any, ...]:
    """What the logs projector reads from a raw response: from the store's fields beside its
    events where the response carries them (``raw`` as fetched), else from every event (``raw``
    parsed from its JSON); ``None`` where that fast reading declines the events."""
    columns = _embedded_columns(raw["events"], bool(raw["limit_hit"]))
    if columns is None:
        return (None,)
    named = ("index", "ts", "service", "level", "message")
    return (*(tuple(getattr(columns, name)) for name in named), tuple(columns.first_lines()))


def _world(
    events: list[dict[str, Any]], backend: EmbeddedLogBackend, words: Sequence[str]
) -> World:
    services = sorted({e["service"] for e in events if isinstance(e.get("service"), str)})
    stamps = sorted({_ts(e) for e in events})
    return World(backend, Reference.of(events), tuple(services), tuple(words), stamps)


@pytest.fixture(scope="module")
def demo() -> World:
    return _world(demo_events(), EmbeddedLogBackend(), DEMO_WORDS)  # the bundled store itself


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> World:
    events = hostile_events()
    path = tmp_path_factory.mktemp("hostile") / "logs.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return _world(events, EmbeddedLogBackend(path), HOSTILE_WORDS)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> World:
    """A user's folder (FileLogBackend): JSON lines and text files of the hostile events."""
    folder = tmp_path_factory.mktemp("files")
    events = hostile_events(seed=5, n=1500)
    for n, part in enumerate((events[:500], events[500:1000])):
        (folder / f"svc-{n}.jsonl").write_text("".join(json.dumps(e) + "\n" for e in part))
    text = "".join(
        f"{_ts(e).isoformat(timespec='milliseconds')} {e.get('level') or 'INFO'} {e['message']}\n"
        for e in events[1000:]
        if isinstance(e.get("level"), str)
    )
    (folder / "invoice-consumer.log").write_text(text)
    backend = FileLogBackend([folder])
    # The reference reads the files as the backend parses them, in discovery order, unsorted.
    parsed: list[dict[str, Any]] = []
    for reading in backend.read_files(RawCap(RAW_CAP)):
        assert reading.error is None
        parsed += backend.stored_events(reading)
    return _world(parsed, backend, HOSTILE_WORDS)


DEMO_WORDS = (
    "hikari",
    "HikariPool-1 - Connection is not available",
    "timeout",
    "checkout",
    "connection",
    " 500 ",
    "order_id=",
    "?",
    "= ?",
    "ec2.internal",
    "10.0.",
    "pool",
    "exception",
    "at com.",
    "<ip>",
    "no such text",
)

# ----------------------------------------------------------------------------- the queries


@st.composite
def requests(draw: st.DrawFn, world: World) -> QueryLogsRequest:
    first, last = world.stamps[0], world.stamps[-1]
    edge = st.integers(0, len(world.stamps) - 1).map(world.stamps.__getitem__)
    jitter = st.sampled_from(
        [timedelta(0), timedelta(milliseconds=1), -timedelta(milliseconds=1),
         timedelta(microseconds=400), timedelta(minutes=5)]
    )  # fmt: skip
    start = draw(
        st.one_of(
            edge,
            st.just(first - timedelta(hours=1)),
            st.just(first),
            st.datetimes(
                min_value=(first - timedelta(minutes=10)).replace(tzinfo=None),
                max_value=(last + timedelta(minutes=10)).replace(tzinfo=None),
                timezones=st.just(UTC),
            ),
        )
    ) + draw(jitter)
    end = draw(
        st.one_of(
            st.sampled_from(
                [timedelta(milliseconds=1), timedelta(minutes=5), timedelta(hours=2), MAX_LOG_RANGE]
            ).map(lambda span: start + span),
            st.timedeltas(min_value=timedelta(microseconds=1), max_value=MAX_LOG_RANGE).map(
                lambda span: start + span
            ),
            # An end exactly at an event: that event is outside.
            edge.map(lambda stamp: stamp if start < stamp <= start + MAX_LOG_RANGE else last),
        )
    )
    if end <= start:
        end = start + timedelta(milliseconds=1)
    services = draw(
        st.one_of(
            st.just([]),
            st.lists(st.sampled_from([*world.services, "no-such-service"]), max_size=4),
        )
    )
    level = draw(st.one_of(st.none(), st.sampled_from(LOG_LEVELS)))
    query = draw(st.one_of(st.none(), st.sampled_from(world.words)))
    return QueryLogsRequest(start=start, end=end, services=services, level=level, query=query)


LIMITS = st.sampled_from(["one", "below", "at", "above", "default"])


def _limit(kind: str, matched: int) -> int:
    return {
        "one": 1,
        "below": max(1, matched - 1),
        "at": max(1, matched),
        "above": matched + 1,
        "default": 20000,
    }[kind]


def _check_twice(world: World, request: QueryLogsRequest, kind: str) -> None:
    found = world.reference.found(request)
    limit = _limit(kind, len(found))
    world.check(request, limit, found)
    # A repeat (the per-event caches now warm) answers the same.
    world.check(request, limit, found)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_the_demo_store_answers_every_query_as_a_scan_does(
    demo: World, data: st.DataObject
) -> None:
    _check_twice(demo, data.draw(requests(demo)), data.draw(LIMITS))


@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_a_hostile_store_answers_every_query_as_a_scan_does(
    hostile: World, data: st.DataObject
) -> None:
    _check_twice(hostile, data.draw(requests(hostile)), data.draw(LIMITS))


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_a_folder_of_log_files_answers_every_query_as_a_scan_does(
    files: World, data: st.DataObject
) -> None:
    assert len(files.services) >= 3  # names from the lines and from the file name
    _check_twice(files, data.draw(requests(files)), data.draw(LIMITS))


# ----------------------------------------------------------------------------- named edges


def _window(start: datetime, end: datetime, **kwargs: Any) -> QueryLogsRequest:
    return QueryLogsRequest(start=start, end=end, **kwargs)


def test_the_demo_run_query_shapes(demo: World) -> None:
    start, end = datetime(2026, 11, 2, 13, tzinfo=UTC), datetime(2026, 11, 2, 15, tzinfo=UTC)
    shapes: list[dict[str, Any]] = [
        {"services": ["checkout-api"], "level": "WARN", "start": start + timedelta(minutes=5)},
        {"services": ["checkout-api"], "level": "ERROR"},
        {"level": "WARN"},
        {"start": start + timedelta(minutes=65), "end": start + timedelta(minutes=70)},
        {"services": ["checkout-api"], "level": "ERROR", "query": "hikari"},
        {"query": "timeout"},
        {},
        {"level": "FATAL"},
    ]  # fmt: skip
    for shape in shapes:
        got = demo.check(QueryLogsRequest(**{"start": start, "end": end, **shape}), 20000)
        assert got["matched"] > 0, shape
        # The bundled store is regular, so its columns were read without per-event checks
        # (and ``check`` compared them with the columns read from the JSON).
        assert got["events"].regular, shape


def test_edges_of_a_millisecond_shared_by_many_events(hostile: World) -> None:
    # The hostile store puts a fifth of its events at exactly T0 + 1 h, of every service/level.
    burst = T0 + timedelta(hours=1)
    inside = hostile.check(_window(burst, burst + timedelta(milliseconds=1)), 20000)
    assert inside["matched"] > 400
    before = hostile.check(_window(burst - timedelta(minutes=1), burst), 20000)
    assert all(_ts(e) < burst for e in before["events"])
    for limit in (1, 2, inside["matched"] - 1, inside["matched"], inside["matched"] + 1):
        got = hostile.check(_window(burst, burst + timedelta(seconds=1)), limit)
        assert len(got["events"]) == min(limit, got["matched"])
    sub_ms = _window(burst + timedelta(microseconds=999), burst + timedelta(seconds=1))
    hostile.check(sub_ms, 20000)  # truncated to the millisecond: the burst is inside


def test_empty_windows_and_unknown_services(hostile: World) -> None:
    first, last = hostile.stamps[0], hostile.stamps[-1]
    for start, end in [
        (first - timedelta(hours=3), first),
        (last + timedelta(milliseconds=1), last + timedelta(hours=1)),
    ]:
        assert hostile.check(_window(start, end), 5)["matched"] == 0
    lone = _window(first, last + timedelta(seconds=1), services=["no-such-service"])
    assert hostile.check(lone, 5)["matched"] == 0
    # Events without a (string) service are seen by an unfiltered query only.
    everything = hostile.check(_window(first, last + timedelta(seconds=1)), 20000)
    assert any(not isinstance(e.get("service"), str) for e in everything["events"])


def test_a_substring_is_decided_on_the_redacted_text(hostile: World) -> None:
    window = {"start": T0, "end": T0 + timedelta(hours=3)}
    # The IP and the key are in the raw text only: never a match.
    for raw_only in ("10.0.3", "sk_live_51u8", "hunter2", "ec2.internal"):
        assert hostile.check(QueryLogsRequest(**window, query=raw_only), 20000)["matched"] == 0
    assert hostile.check(QueryLogsRequest(**window, query="timeout"), 20000)["matched"] > 0


# ----------------------------------------------------------------------------- what it touches


class _CountingEvents(list[dict[str, Any]]):
    """The store's event list, counting the events a query reads."""

    reads = 0

    def __getitem__(self, index: Any) -> Any:
        type(self).reads += 1
        return super().__getitem__(index)


class _CountingRedactor(Redactor):
    __slots__ = ()
    calls = 0

    def redact(self, text: str) -> str:
        type(self).calls += 1
        return super().redact(text)


def _counted_store(events: list[dict[str, Any]]) -> LogStore:
    rows = Reference.of(events).rows
    store = LogStore.of(_CountingEvents(row[-1] for row in rows), [row[0] for row in rows])
    assert isinstance(store.events, _CountingEvents)  # already sorted: kept as given
    return store


def _select(store: LogStore, request: QueryLogsRequest, redactor: Redactor, limit: int) -> Any:
    return store.select(
        start_ms=_ms(request.start),
        end_ms=_ms(request.end),
        services=frozenset(request.services),
        min_rank=level_rank(request.level) if request.level else None,
        query=LogQuery.of(request.query) if request.query else None,
        redactor=redactor,
        limit=limit,
    )


def _selected(events: list[dict[str, Any]], request: QueryLogsRequest) -> int:
    """Events that pass the service, level and time filters (the query aside)."""
    plain = request.model_copy(update={"query": None})
    return len(Reference.of(events).found(plain))


def test_a_query_reads_only_the_events_it_returns() -> None:
    events = demo_events()
    store = _counted_store(events)
    redactor = _CountingRedactor()
    start = datetime(2026, 11, 2, 13, 5, tzinfo=UTC)
    request = QueryLogsRequest(
        start=start, end=start + timedelta(hours=2), services=["checkout-api"], level="ERROR"
    )
    _CountingEvents.reads = 0
    selection = _select(store, request, redactor, limit=50)
    assert selection.matched == _selected(events, request) > 50
    assert _CountingEvents.reads == len(selection.events) == 50
    assert _CountingRedactor.calls == 0


def test_a_substring_query_reads_and_redacts_only_its_candidates_and_only_once() -> None:
    events = demo_events()
    store = _counted_store(events)
    redactor = _CountingRedactor()
    start = datetime(2026, 11, 2, 14, tzinfo=UTC)
    request = QueryLogsRequest(
        start=start, end=start + timedelta(minutes=30), services=["checkout-api"],
        level="ERROR", query="connection",
    )  # fmt: skip
    candidates = _selected(events, request)
    assert 0 < candidates < len(events) // 20
    _CountingEvents.reads, _CountingRedactor.calls = 0, 0
    first = _select(store, request, redactor, limit=20000)
    assert first.matched > 0
    # Each candidate read for its folded text and, past the prefilter, for its view; then
    # each returned event copied.
    assert _CountingEvents.reads <= 2 * candidates + len(first.events)
    assert _CountingRedactor.calls <= candidates
    _CountingEvents.reads, _CountingRedactor.calls = 0, 0
    again = _select(store, request, redactor, limit=20000)
    assert (again.matched, again.events) == (first.matched, first.events)
    assert _CountingRedactor.calls == 0
    assert _CountingEvents.reads == len(again.events)


def test_returned_events_are_copies_and_the_store_is_shared() -> None:
    events = hostile_events(n=200)
    store = _counted_store(events)
    request = QueryLogsRequest(start=T0, end=T0 + timedelta(hours=3))
    selection = _select(store, request, Redactor(), limit=20000)
    ordered = Reference.of(events).ordered
    assert selection.events == ordered
    # The store shares the events it was given; a response carries copies of them.
    assert all(a is b for a, b in zip(store.events, ordered, strict=True))
    assert all(a is not b for a, b in zip(selection.events, ordered, strict=True))


def test_frozen_events_are_handed_out_as_they_are_and_refuse_edits() -> None:
    events = [FrozenEvent(e) for e in hostile_events(n=200)]
    store = LogStore.of(events, [_ms(_ts(e)) for e in events])
    request = QueryLogsRequest(start=T0, end=T0 + timedelta(hours=3))
    selection = _select(store, request, Redactor(), limit=20000)
    assert selection.events == Reference.of(events).ordered
    assert all(type(e) is FrozenEvent for e in selection.events)
    assert all(a is b for a, b in zip(selection.events, store.events, strict=True))
    event = selection.events[0]
    before = dict(event)
    for edit in (
        lambda: event.__setitem__("message", "x"),
        lambda: event.__delitem__("message"),
        lambda: event.update({"message": "x"}),
        lambda: event.__ior__({"message": "x"}),
        lambda: event.pop("message"),
        lambda: event.popitem(),
        lambda: event.setdefault("new", 1),
        lambda: event.clear(),
    ):
        with pytest.raises(TypeError):
            edit()
    assert dict(event) == before
    # Its copies are ordinary dicts, and it reads and serialises as the dict it holds.
    for other in (dict(event), copy.copy(event), pickle.loads(pickle.dumps(event))):
        assert type(other) is dict and other == before
        other["message"] = "edited"
    assert copy.deepcopy(event) == before
    assert json.dumps(event) == json.dumps(before)
    assert selection.events_json[0] == pydantic_core.to_json(before)


def _fetched(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The embedded backend's value for every event of a store of ``events`` (T0's hour)."""
    store = LogStore.of(events, [_ms(_ts(e)) for e in events])
    selection = _select(store, _window(T0, T0 + timedelta(hours=1)), Redactor(), 10)
    return {"format": EMBEDDED_LOGS_FORMAT, "events": selection.events, "limit_hit": False}


def test_the_fields_beside_the_events_are_the_events_own() -> None:
    """Fields are offered only where every time is an ISO-8601 string; a message that is not a
    string makes the projector read event by event (and fail the same way) either way."""
    base = {"service": "api", "level": "warning"}
    good = _fetched(
        [
            dict(base, ts=(T0 + timedelta(minutes=1)).astimezone(CEST).isoformat(), message="a"),
            dict(base, ts=(T0 + timedelta(minutes=2)).replace(tzinfo=None).isoformat(),
                 message="b", service=None),
            dict(base, ts=(T0 + timedelta(minutes=3)).isoformat().replace("+00:00", "Z"),
                 message="c", service=7, level=None),
        ]
    )  # fmt: skip
    fields = good["events"].fields
    assert fields is not None and len(fields.ts) == 3
    assert not good["events"].regular  # a zone, a naive time, no service, a number as one
    columns = _embedded_columns(good["events"], False)
    assert columns is not None and {t.tzinfo for t in columns.ts} == {UTC}
    parsed = json.loads(_bytes(good))
    assert _columns(good) == _columns(parsed) != (None,)

    bad_time = dict(base, ts="yesterday", message="b")
    regular = _fetched([dict(base, ts=T0.isoformat(), message="a")])
    assert regular["events"].fields is not None and regular["events"].regular
    assert _columns(regular) == _columns(json.loads(_bytes(regular))) != (None,)
    for odd in ({"service": ""}, {"ts": T0.replace(tzinfo=None).isoformat()}, {"message": 7}):
        irregular = [dict(base, ts=T0.isoformat(), message="a"), dict(base, message="b") | odd]
        irregular[1].setdefault("ts", T0.isoformat())
        assert not _fetched(irregular)["events"].regular, odd
    store = LogStore.of([dict(base, ts=T0.isoformat(), message="a"), bad_time], [_ms(T0)] * 2)
    selection = _select(store, _window(T0, T0 + timedelta(hours=1)), Redactor(), 10)
    assert selection.events.fields is None and not selection.events.regular

    not_text = _fetched([dict(base, ts=T0.isoformat(), message=7)])
    assert not_text["events"].fields is not None
    for raw in (not_text, json.loads(_bytes(not_text))):
        with pytest.raises(ProjectionError, match="message is not a string"):
            parse_raw(raw)
