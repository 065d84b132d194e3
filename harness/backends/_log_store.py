"""The in-memory log store behind the file backends: events indexed by service, level and time.

Private to :mod:`harness.backends`. A store holds its events sorted by time (a stable sort, so
events of the same millisecond keep their order) and, built once when it is loaded, one
*partition* per (service, level rank): the positions of its events in the store, ascending,
with their epoch milliseconds beside them. A query picks the partitions its services and
minimum level select, bisects each to the ``[start, end)`` range and merges the positions back
into store order — so a query costs the events its service, level and time filters select,
never a walk over the whole store:

* without a ``query``, the count is the sum of the slices' lengths and only the first
  ``limit`` positions are merged (each slice contributes at most ``limit``);
* with a ``query``, every selected event is decided in store order, on its *redacted* match
  view (:class:`harness.backends.log_query.LogQuery`), after the raw-text prefilter; both the folded raw
  text and the match view are computed once per event, on first use, and kept.

A query that selects every partition (no service or level filter that excludes any) takes its
range of the store directly. Events whose service is not a string (absent, null, a number)
form one partition of their own, which only a query without a service filter selects.

Per-event constants — the level rank, the service, the sort key — are computed once, at build.
Events are shared, never copied by the index. A caller that edits its raw must not edit the
store: a store whose events are all :class:`FrozenEvent` (what the file backends build) hands
its own events out, since none can be edited; any other store hands out shallow copies
(``dict(event)``, at most ``limit`` of them).

A selection's events come as an :class:`EventList`, and beside them the fields a logs projector
reads from every event (time, service, level, message, first line) as columns, read out of the
store once (its times parsed, its first lines cut) rather than out of each event on every query.
They are the events' own values, so a projector in the same process reads the same events
either way;
a store with an event whose time is not an ISO-8601 string offers no columns (the projector
then reads the events one by one and reports what is wrong with them).

A store is a :class:`harness.contracts.raw.SharedSource`: a response's raw is made of its events'
JSON, and may cross to another process that holds the same store (its :attr:`LogStore.identity`,
a digest of its events' JSON) by reference instead of as a compressed frame.

The answer is, event for event, the one a scan of the store would give: the positions a
partition holds are exactly its events in store order, and partitions are disjoint, so merging
their selected slices by position is that scan's output.
"""

from __future__ import annotations

import hashlib
import itertools
import operator
import threading
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NamedTuple, NoReturn

import pydantic_core

from harness.backends.log_query import LogQuery, lower_chars, match_view
from harness.contracts.raw import share_source
from harness.redaction import Redactor
from harness.tools.arguments import LOG_LEVELS

__all__ = ["EventFields", "EventList", "FrozenEvent", "LogStore", "Selection", "level_rank"]

_RANK = {name: index for index, name in enumerate(LOG_LEVELS)}
_RANKS = len(LOG_LEVELS)
# Spellings other systems use for the same levels.
_ALIASES = {"WARNING": "WARN", "ERR": "ERROR", "CRITICAL": "FATAL", "SEVERE": "ERROR",
            "FINE": "DEBUG", "PANIC": "FATAL", "NOTICE": "INFO"}  # fmt: skip


def level_rank(level: Any) -> int:
    """Rank of a level name in :data:`~harness.tools.arguments.LOG_LEVELS` (unknown: INFO)."""
    name = str(level or "").strip().upper()
    name = _ALIASES.get(name, name)
    return _RANK.get(name, _RANK["INFO"])


_ONLY_STR = {str}
_ONLY_UTC = {UTC}


class FrozenEvent(dict[str, Any]):
    """A stored log event: a dict to read (JSON, ``isinstance(event, dict)``, ``dict(event)``)
    that refuses every change, so a store can hand the same object to every query that
    returns it instead of a copy per query (about 4.5k dict copies, 2-3 MB, per query of the
    demo run). A copy (``dict(event)``, ``copy.copy``, a pickle) is an ordinary dict.

    Its values are the event's own: a nested list or object is shared, as a shallow copy
    shares it.
    """

    __slots__ = ()

    def _read_only(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("a stored log event is read-only: edit a copy, dict(event)")

    __setitem__ = __delitem__ = __ior__ = _read_only
    clear = pop = popitem = setdefault = update = _read_only

    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __reduce__(self) -> tuple[type[dict[str, Any]], tuple[dict[str, Any]]]:
        return dict, (dict(self),)


class _Unnamed:
    """The partition key of events whose service is not a string: no service filter names them."""

    __slots__ = ()


_UNNAMED = _Unnamed()


@dataclass(frozen=True, slots=True)
class _Partition:
    """The events of one (service, level rank): store positions ascending, their epoch ms."""

    positions: array[int]
    keys: array[int]


class EventFields(NamedTuple):
    """Per event of a selection, in its order: the fields a logs projector reads."""

    ts: Sequence[datetime]
    """``datetime.fromisoformat`` of the event's ``ts`` (as written: naive or in any zone)."""
    service: Sequence[Any]
    """``event.get("service")``."""
    level: Sequence[Any]
    """``event.get("level")``."""
    message: Sequence[Any]
    """``event.get("message")``."""
    first_line: Sequence[Any]
    """The message up to its first line break (what a logs projector mines); a message that
    is not a string, as it is."""


class EventList(list[dict[str, Any]]):
    """A selection's events (in time order: the store's own when they are frozen, else
    copies) with their :class:`EventFields` beside them, or ``fields`` None when the store has
    none to offer.

    ``regular`` is True when every event of the *store* (so of any selection) has a string
    message, a non-empty string service and a time in UTC: a reader of the fields need not
    check those again, event by event, for each query.
    """

    __slots__ = ("fields", "regular")

    def __init__(
        self, events: Iterable[dict[str, Any]], fields: EventFields | None, *, regular: bool = False
    ) -> None:
        super().__init__(events)
        self.fields = fields
        self.regular = regular and fields is not None


@dataclass(frozen=True, kw_only=True, slots=True)
class Selection:
    """What one query found: the events it returns (in time order) and how many matched."""

    events: EventList
    matched: int
    events_json: list[bytes]
    """Each returned event's JSON, serialised once per store: a response's raw JSON is
    assembled from them (``RawResponse.of_parts``), never serialised again."""
    positions: Sequence[int]
    """The returned events' positions in the store (what a raw refers to by reference)."""


class LogStore:
    """Events sorted by time with an index by service and level (see the module docstring).

    Build one with :meth:`of`; it is read-only afterwards apart from its lazily filled
    per-event caches, which concurrent readers may fill twice, harmlessly.
    """

    __slots__ = (
        "__weakref__",
        "_by_service",
        "_fields",
        "_folded",
        "_frozen",
        "_identity",
        "_json",
        "_keys",
        "_lock",
        "_partitions",
        "_views",
        "events",
    )

    def __init__(self, events: list[dict[str, Any]], keys: array[int]) -> None:
        # ``events`` sorted by ``keys``; use :meth:`of`, which sorts and indexes.
        self.events = events
        self._keys = keys
        self._folded: list[str | None] = [None] * len(events)
        self._views: list[str | None] = [None] * len(events)
        self._json: list[bytes | None] = [None] * len(events)
        self._identity: str | None = None
        self._lock = threading.Lock()
        share_source(self)
        # Every event's fields and whether they are all regular (see EventList), read on
        # first use; False: the store has none to offer.
        self._fields: tuple[EventFields, bool] | bool | None = None
        # Whether every event is a FrozenEvent: a selection then hands out the events themselves.
        self._frozen = all(type(event) is FrozenEvent for event in events)
        # Per service (or _UNNAMED), per level rank: store positions and their epoch ms.
        buckets: dict[object, list[tuple[list[int], list[int]]]] = {}
        for position, (event, key) in enumerate(zip(events, keys, strict=True)):
            service = event.get("service")
            name = service if isinstance(service, str) else _UNNAMED
            bucket = buckets.get(name)
            if bucket is None:
                bucket = buckets[name] = [([], []) for _ in range(_RANKS)]
            positions, stamps = bucket[level_rank(event.get("level"))]
            positions.append(position)
            stamps.append(key)
        self._by_service: dict[object, tuple[_Partition | None, ...]] = {
            service: tuple(
                _Partition(array("q", positions), array("q", stamps)) if positions else None
                for positions, stamps in bucket
            )
            for service, bucket in buckets.items()
        }
        self._partitions = sum(p is not None for ps in self._by_service.values() for p in ps)

    @property
    def identity(self) -> str:
        """A SHA-256 of every event's JSON in store order, computed once (~0.13 s for the
        demo's 60,000 events): two stores of equal identity give equal JSON at every position."""
        if self._identity is None:
            with self._lock:
                if self._identity is None:
                    self._identity = hashlib.sha256(pydantic_core.to_json(self.events)).hexdigest()
        return self._identity

    def json_at(self, positions: Sequence[int], picked: Sequence[Any] | None = None) -> list[bytes]:
        """The JSON of the events at ``positions`` (``picked``: those events, when the caller
        has them already), each serialised once per store."""
        serialised = self._json
        pieces = list(_pick(serialised, positions)) if positions else []
        if None in pieces:
            events = _pick(self.events, positions) if picked is None else picked
            for index, position in enumerate(positions):
                if pieces[index] is None:
                    pieces[index] = serialised[position] = pydantic_core.to_json(events[index])
        return pieces  # every None was filled

    def services(self) -> frozenset[str]:
        """Every service an event names."""
        return frozenset(s for s in self._by_service if isinstance(s, str))

    def field_values(self, name: str) -> frozenset[str]:
        """Every string value of field ``name`` (e.g. ``host``) across the events."""
        return frozenset(v for e in self.events if isinstance(v := e.get(name), str) and v)

    @classmethod
    def of(cls, events: list[dict[str, Any]], keys: list[int]) -> LogStore:
        """The store of ``events`` whose sort keys (epoch ms) are ``keys``, sorted by time."""
        if any(a > b for a, b in itertools.pairwise(keys)):
            # A hand-edited store may be out of order; bisect needs sorted keys (stable sort).
            order = sorted(range(len(keys)), key=keys.__getitem__)
            events = [events[i] for i in order]
            keys = [keys[i] for i in order]
        return cls(events, array("q", keys))

    def select(
        self,
        *,
        start_ms: int,
        end_ms: int,
        services: frozenset[str],
        min_rank: int | None,
        query: LogQuery | None,
        redactor: Redactor,
        limit: int,
    ) -> Selection:
        """The first ``limit`` events of ``[start_ms, end_ms)`` that pass every filter, and the
        number that do.

        Args:
            services: Services to include; empty means all (also events without one).
            min_rank: Lowest :func:`level_rank` to include; None includes every level.
            query: Substring decided on each message's redacted match view.
            limit: Most events returned (the first ones in time order).
        """
        slices = self._slices(start_ms, end_ms, services, min_rank)
        if query is None:
            matched = sum(len(s) for s in slices)
            positions = _merge(slices, limit)
        else:
            positions = self._matching(_merge(slices, None), query, redactor)
            matched = len(positions)
            del positions[limit:]
        picked = _pick(self.events, positions)
        # Each event is serialised once per store, on the first query that returns it.
        pieces = self.json_at(positions, picked)
        if not self._frozen:  # an event the caller could edit: hand out a copy
            picked = [dict(event) for event in picked]
        fields, regular = self._fields_at(positions)
        return Selection(
            events=EventList(picked, fields, regular=regular),
            matched=matched,
            events_json=pieces,
            positions=positions,
        )

    def _fields_at(self, positions: list[int] | range) -> tuple[EventFields | None, bool]:
        """The fields of the events at ``positions`` (None: the store has none), and whether
        every event of the store is regular."""
        known = self._fields
        if known is None:
            read = _read_fields(self.events)
            known = self._fields = False if read is None else (read, _regular(read))
        if known is False:
            return None, False
        assert isinstance(known, tuple)
        fields, regular = known
        return EventFields(*(_pick(column, positions) for column in fields)), regular

    def _slices(
        self, start_ms: int, end_ms: int, services: frozenset[str], min_rank: int | None
    ) -> list[array[int] | range]:
        """Store positions of the selected events, as ascending, disjoint runs."""
        lowest = min_rank or 0
        if services:
            chosen = [self._by_service[s] for s in services if s in self._by_service]
        else:
            chosen = list(self._by_service.values())
        partitions = [p for ranks in chosen for p in ranks[lowest:] if p is not None]
        if len(partitions) == self._partitions:  # every event is a candidate: one range
            low, high = bisect_left(self._keys, start_ms), bisect_left(self._keys, end_ms)
            return [range(low, high)] if high > low else []
        slices: list[array[int] | range] = []
        for partition in partitions:
            low = bisect_left(partition.keys, start_ms)
            high = bisect_left(partition.keys, end_ms)
            if high > low:
                slices.append(partition.positions[low:high])
        return slices

    def _matching(
        self, candidates: list[int] | range, query: LogQuery, redactor: Redactor
    ) -> list[int]:
        """The candidates whose match view holds the query (the hot loop of a substring query)."""
        events, folded, views = self.events, self._folded, self._views
        may_match, matches = query.may_match, query.matches
        found: list[int] = []
        for position in candidates:
            text = folded[position]
            if text is None:
                text = folded[position] = lower_chars(_message(events[position]))
            if not may_match(text):
                continue
            view = views[position]
            if view is None:
                view = views[position] = match_view(redactor.redact(_message(events[position])))
            if matches(view):
                found.append(position)
        return found


def _read_fields(events: list[dict[str, Any]]) -> EventFields | None:
    """Every event's fields, or None when one's ``ts`` is not an ISO-8601 string."""
    stamps = [event.get("ts") for event in events]
    if not all(isinstance(stamp, str) for stamp in stamps):
        return None
    try:
        ts = [datetime.fromisoformat(stamp) for stamp in stamps if isinstance(stamp, str)]
    except ValueError:
        return None
    messages = [event.get("message") for event in events]
    return EventFields(
        ts=ts,
        service=[event.get("service") for event in events],
        level=[event.get("level") for event in events],
        message=messages,
        first_line=[m.partition("\n")[0] if type(m) is str and "\n" in m else m for m in messages],
    )


def _regular(fields: EventFields) -> bool:
    """Whether every message is a string, every service a non-empty string, every time UTC."""
    return (
        set(map(type, fields.message)) <= _ONLY_STR
        and set(map(type, fields.service)) <= _ONLY_STR
        and all(fields.service)
        and {stamp.tzinfo for stamp in fields.ts} <= _ONLY_UTC
    )


def _pick(column: Sequence[Any], positions: Sequence[int]) -> Sequence[Any]:
    """``[column[p] for p in positions]``, at C speed (a slice, or a tuple)."""
    if isinstance(positions, range):
        return column[positions.start : positions.stop]
    if len(positions) < 2:  # itemgetter of one position gives the item, not a tuple
        return [column[p] for p in positions]
    picked: tuple[Any, ...] = operator.itemgetter(*positions)(column)  # ~2x a map of getitem
    return picked


def _message(event: dict[str, Any]) -> str:
    return str(event.get("message", ""))


def _merge(slices: list[array[int] | range], limit: int | None) -> list[int] | range:
    """The positions of disjoint ascending runs in ascending order; the first ``limit`` only."""
    if not slices:
        return []
    if len(slices) == 1:
        return slices[0][:limit] if isinstance(slices[0], range) else list(slices[0][:limit])
    # Each run's first ``limit`` positions hold the merged first ``limit``. The list sort
    # finds the ascending runs in the concatenation and merges them (O(n log runs)).
    merged: list[int] = []
    for run in slices:
        merged.extend(run[:limit])
    merged.sort()
    return merged if limit is None else merged[:limit]
