"""The embedded ``query_logs`` backend: a JSONL event store held in memory.

The store is one JSON object per line, sorted by time (gzip when the name ends in ``.gz``)::

    {"ts": "2026-11-02T14:05:03.123Z", "service": "checkout-api", "level": "ERROR",
     "pod": "checkout-api-7d9f8b6c5-x2kqp", "host": "ip-10-0-3-17.ec2.internal",
     "message": "... may be multi-line ..."}

It is read once, on the first query, and kept in memory with a parallel array of epoch
milliseconds, so a query bisects to its ``[start, end)`` range and scans only that slice. The
backend behaves like a real log system: it returns the *first* ``max_events`` matches in time
order, counts all of them and says whether the limit was hit; spreading a sample over the range
is the projector's job.

A ``query`` is decided on the *redacted* message (:class:`harness.redaction.LogQuery`): a match
inside a masked value would let a model confirm a secret one character at a time. The raw
text only prefilters (a superset, see :mod:`harness.redaction`); the messages that pass are
redacted once each and their match views kept, so a repeated query costs a scan.

Raw response (stored verbatim as the canonical record's ``raw``)::

    {"format": "embedded-jsonl/v1", "events": [...matching events as stored...],
     "matched": N, "limit_hit": bool}
"""

from __future__ import annotations

import bisect
import gzip
import itertools
import json
import threading
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from harness.errors import BackendError, ErrorCode
from harness.redaction import LogQuery, Redactor, fold
from harness.tools.arguments import LOG_LEVELS, QueryLogsRequest

__all__ = ["EMBEDDED_LOGS_FORMAT", "EmbeddedLogBackend", "default_logs_path", "level_rank"]

EMBEDDED_LOGS_FORMAT = "embedded-jsonl/v1"

_RANK = {name: index for index, name in enumerate(LOG_LEVELS)}
# Spellings other systems use for the same levels.
_ALIASES = {"WARNING": "WARN", "ERR": "ERROR", "CRITICAL": "FATAL", "SEVERE": "ERROR",
            "FINE": "DEBUG", "PANIC": "FATAL", "NOTICE": "INFO"}  # fmt: skip


def level_rank(level: Any) -> int:
    """Rank of a level name in :data:`~harness.requests.LOG_LEVELS`; unknown levels rank INFO."""
    name = str(level or "").strip().upper()
    name = _ALIASES.get(name, name)
    return _RANK.get(name, _RANK["INFO"])


def default_logs_path() -> Path:
    """The bundled demo incident's log store (``harness.demo`` package data)."""
    return Path(str(resources.files("harness.demo") / "data" / "logs.jsonl.gz"))


def _epoch_ms(value: datetime) -> int:
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return int(value.timestamp() * 1000)


class _Store:
    """The loaded events, their sort keys (epoch ms), folded messages and match views."""

    __slots__ = ("events", "folded", "keys", "views")

    def __init__(self, events: list[dict[str, Any]], keys: list[int]) -> None:
        self.events = events
        self.keys = keys
        self.folded: list[str] | None = None
        self.views: list[str | None] = [None] * len(events)

    def fold(self) -> list[str]:
        # Built on the first substring query only; many queries filter by service/level only.
        if self.folded is None:
            self.folded = [fold(str(e.get("message", ""))) for e in self.events]
        return self.folded

    def view(self, index: int, redactor: Redactor) -> str:
        """The match view of one message, computed once (a race computes it twice, harmlessly)."""
        view = self.views[index]
        if view is None:
            view = self.views[index] = redactor.match_view(
                str(self.events[index].get("message", ""))
            )
        return view


class EmbeddedLogBackend:
    """``ToolBackend`` for ``query_logs`` over a bundled JSONL(.gz) store.

    Args:
        path: The store; the bundled demo logs when omitted.
        max_events: Most events one response carries (the first ones in time order).
    """

    def __init__(self, path: Path | None = None, max_events: int = 20000) -> None:
        if max_events < 1:
            raise ValueError("max_events must be positive")
        self.path = Path(path) if path is not None else default_logs_path()
        self.max_events = max_events
        self._store: _Store | None = None
        self._lock = threading.Lock()
        self._redactor = Redactor()

    # The loaded store stays in this process; a pickled copy (a Ray task argument) loads anew.
    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "max_events": self.max_events}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["path"], state["max_events"])  # type: ignore[misc]

    def fetch(self, request: BaseModel) -> dict[str, Any]:
        """Return the raw response for one ``QueryLogsRequest``.

        Raises:
            BackendError: BACKEND_ERROR when the store cannot be read or the request is not a
                log query.
        """
        if not isinstance(request, QueryLogsRequest):
            raise BackendError(ErrorCode.BACKEND_ERROR, "not a QueryLogsRequest")
        store = self._load()
        low = bisect.bisect_left(store.keys, _epoch_ms(request.start))
        high = bisect.bisect_left(store.keys, _epoch_ms(request.end))
        services = set(request.services)
        min_rank = level_rank(request.level) if request.level else None
        query = LogQuery.of(request.query) if request.query else None
        folded = store.fold() if query is not None else None

        events: list[dict[str, Any]] = []
        matched = 0
        for index in range(low, high):
            event = store.events[index]
            if services and event.get("service") not in services:
                continue
            if min_rank is not None and level_rank(event.get("level")) < min_rank:
                continue
            if query is not None:
                assert folded is not None
                if not query.may_match(folded[index]):
                    continue
                if not query.matches(store.view(index, self._redactor)):
                    continue
            matched += 1
            if len(events) < self.max_events:
                events.append(dict(event))
        return {
            "format": EMBEDDED_LOGS_FORMAT,
            "events": events,
            "matched": matched,
            "limit_hit": matched > self.max_events,
        }

    def _load(self) -> _Store:
        store = self._store
        if store is not None:
            return store
        with self._lock:
            if self._store is None:
                self._store = self._read()
            return self._store

    def _read(self) -> _Store:
        # The one place a subclass changes: where the events come from (see logs_files).
        return _read_store(self.path)


def _read_store(path: Path) -> _Store:
    opener = gzip.open if path.name.endswith(".gz") else open
    events: list[dict[str, Any]] = []
    keys: list[int] = []
    try:
        with opener(path, "rt", encoding="utf-8") as lines:
            for line in lines:
                if not line.strip():
                    continue
                event = json.loads(line)
                if not isinstance(event, dict):
                    raise ValueError("an event is not a JSON object")
                keys.append(_epoch_ms(datetime.fromisoformat(str(event["ts"]))))
                events.append(event)
    except (OSError, EOFError, ValueError, KeyError, TypeError) as exc:
        raise BackendError(
            ErrorCode.BACKEND_ERROR,
            "the embedded log store cannot be read",
            context={"path": str(path), "error": type(exc).__name__},
        ) from exc
    return _sorted_store(events, keys)


def _sorted_store(events: list[dict[str, Any]], keys: list[int]) -> _Store:
    if any(a > b for a, b in itertools.pairwise(keys)):
        # A hand-edited store may be out of order; bisect needs sorted keys.
        order = sorted(range(len(keys)), key=keys.__getitem__)
        events = [events[i] for i in order]
        keys = [keys[i] for i in order]
    return _Store(events, keys)
