"""The embedded ``query_logs`` backend: a JSONL event store held in memory.

The store is one JSON object per line, sorted by time (gzip when the name ends in ``.gz``)::

    {"ts": "2026-11-02T14:05:03.123Z", "service": "checkout-api", "level": "ERROR",
     "pod": "checkout-api-7d9f8b6c5-x2kqp", "host": "ip-10-0-3-17.ec2.internal",
     "message": "... may be multi-line ..."}

It is read once, on the first query, and kept in memory sorted by time with an index by
service, level and time (:mod:`harness.backends._log_store`), so a query costs the events its
service, level and time filters select, not the size of the store. The bundled store is package
data of a known size (28 MB of JSON lines), so reading it is not counted against a call's raw
cap; what a query returns is (each event's JSON is kept by the store, so the response's size is
known before it is assembled), and a selection past the cap ends the call RAW_TOO_LARGE. The backend behaves like a
real log system: it returns the *first* ``max_events`` matches in time order, counts all of
them and says whether the limit was hit; spreading a sample over the range is the projector's
job.

A ``query`` is decided on the *redacted* message (:class:`harness.backends.log_query.LogQuery`): a match
inside a masked value would let a model confirm a secret one character at a time. The raw
text only prefilters (a superset, see :mod:`harness.redaction`); the messages that pass are
redacted once each and their match views kept, so a repeated query costs no redaction.

Raw response (stored verbatim as the canonical record's ``raw``)::

    {"format": "embedded-jsonl/v1", "events": [...matching events as stored...],
     "matched": N, "limit_hit": bool}
"""

from __future__ import annotations

import gzip
import json
import threading
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from harness.backends._log_store import FrozenEvent, LogStore, level_rank
from harness.backends.log_query import LogQuery
from harness.contracts.errors import BackendError, ErrorCode
from harness.contracts.raw import RawResponse
from harness.contracts.rawcap import RawCap
from harness.redaction import Redactor
from harness.tools.arguments import QueryLogsRequest

__all__ = ["EMBEDDED_LOGS_FORMAT", "EmbeddedLogBackend", "default_logs_path", "level_rank"]

EMBEDDED_LOGS_FORMAT = "embedded-jsonl/v1"


def default_logs_path() -> Path:
    """The bundled demo incident's log store (``harness.embedded.demo`` package data)."""
    return Path(str(resources.files("harness.embedded.demo") / "data" / "logs.jsonl.gz"))


def _epoch_ms(value: datetime) -> int:
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return int(value.timestamp() * 1000)


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
        self._store: LogStore | None = None
        self._lock = threading.Lock()
        self._redactor = Redactor()

    # The loaded store stays in this process; a pickled copy (a Ray task argument) loads anew.
    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "max_events": self.max_events}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["path"], state["max_events"])  # type: ignore[misc]

    def fetch(self, request: BaseModel, *, max_raw_bytes: int) -> RawResponse:
        """Return the raw response for one ``QueryLogsRequest``.

        Raises:
            BackendError: BACKEND_ERROR when the store cannot be read or the request is not a
                log query.
            RawTooLarge: The selected events (or, for a store read from the user's files,
                the files read on the first query) pass ``max_raw_bytes``.
        """
        if not isinstance(request, QueryLogsRequest):
            raise BackendError(ErrorCode.BACKEND_ERROR, "not a QueryLogsRequest")
        store = self._load(max_raw_bytes)
        selection = store.select(
            start_ms=_epoch_ms(request.start),
            end_ms=_epoch_ms(request.end),
            services=frozenset(request.services),
            min_rank=level_rank(request.level) if request.level else None,
            query=LogQuery.of(request.query) if request.query else None,
            redactor=self._redactor,
            limit=self.max_events,
        )
        value = {
            "format": EMBEDDED_LOGS_FORMAT,
            "events": selection.events,
            "matched": selection.matched,
            "limit_hit": selection.matched > self.max_events,
        }
        # Each event's JSON is kept by the store: the raw is assembled, never re-serialised,
        # and a record in this process may hold it by reference (shared), as may a process
        # that holds the same store (source). Its size is known from the parts, so the cap is
        # checked before anything is joined or compressed.
        raw = RawResponse.of_parts(
            value,
            "events",
            selection.events_json,
            shared=True,
            source=(store, selection.positions),
        )
        RawCap(max_raw_bytes).charge(raw.size)
        return raw

    def catalog_names(self, *, max_raw_bytes: int) -> dict[str, frozenset[str]]:
        """The services and hosts the logs name, for the world's catalog (harness.contracts.catalog)."""
        store = self._load(max_raw_bytes)
        return {"services": store.services(), "hosts": store.field_values("host")}

    def _load(self, max_raw_bytes: int) -> LogStore:
        store = self._store
        if store is not None:
            return store
        with self._lock:
            if self._store is None:
                self._store = self._read(max_raw_bytes)
            return self._store

    def _read(self, max_raw_bytes: int) -> LogStore:
        """The store's events. The one place a subclass changes: where the events come from
        and whether reading them counts against the cap of the call that reads them (see
        logs_files); the bundled store does not (see the module docstring)."""
        return _read_store(self.path)


def _read_store(path: Path) -> LogStore:
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
                events.append(FrozenEvent(event))
    except (OSError, EOFError, ValueError, KeyError, TypeError) as exc:
        raise BackendError(
            ErrorCode.BACKEND_ERROR,
            "the embedded log store cannot be read",
            context={"path": str(path), "error": type(exc).__name__},
        ) from exc
    return LogStore.of(events, keys)
