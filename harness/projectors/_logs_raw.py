"""Reading the raw results of the log backends into time-ordered columns (private).

A large result is read column by column (``map`` and comprehensions, no object per event), which
is several times cheaper than a loop that builds one event at a time. That fast path only reads
well-formed input; anything it cannot read is read again by the per-event loop, which raises
the precise error (or, for an input the fast path was merely too strict for, returns the same
columns).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import islice
from typing import Any

from harness.contracts.errors import ErrorCode, ProjectionError
from harness.tools.arguments import LOG_LEVELS

__all__ = ["EMBEDDED_FORMAT", "LOKI_FORMAT", "RANK", "LogColumns", "normalize_level", "parse_raw"]

EMBEDDED_FORMAT = "embedded-jsonl/v1"
LOKI_FORMAT = "loki/query_range"
RANK: dict[str | None, int] = {name: index for index, name in enumerate(LOG_LEVELS)}
# An event whose line names no level is ranked as INFO, and shown with no level (null): a
# level the log never wrote is not evidence.
RANK[None] = RANK["INFO"]
_ALIASES = {"WARNING": "WARN", "ERR": "ERROR", "CRITICAL": "FATAL", "SEVERE": "ERROR",
            "FINE": "DEBUG", "PANIC": "FATAL", "NOTICE": "INFO", "INFORMATION": "INFO"}  # fmt: skip
_SERVICE_LABELS = ("service", "service_name", "app", "application", "job", "container")
_LEVEL_LABELS = ("level", "detected_level", "severity", "lvl")
_LINE_LEVEL = re.compile(
    r"(?:\blevel\"?[=:]\s*\"?|\b)(TRACE|DEBUG|INFO|WARN(?:ING)?|ERROR|FATAL|CRITICAL)\b",
    re.IGNORECASE,
)
_READ_ERRORS = (KeyError, TypeError, ValueError, AttributeError, OverflowError)
_ONLY_STR = {str}
_ONLY_UTC = {UTC}
_TZINFO = operator.attrgetter("tzinfo")


@dataclass(slots=True, kw_only=True)
class LogColumns:
    """A raw result's events as parallel columns, in time order.

    Events of the same instant keep their raw order (the sort is stable).

    Attributes:
        index: Each event's position in the raw result.
        ts: Event times (aware, UTC).
        service: Service names as the backend gave them (not yet redacted).
        level: Canonical level names (one of ``LOG_LEVELS``), None where the event has none.
        message: Full messages (not yet redacted).
        limit_hit: Whether the backend stopped at its own limit.
        first_line: Each message up to its first line break, when the backend handed them
            over (the embedded store reads them once); None: :meth:`first_lines` cuts them.
    """

    index: list[int]
    ts: Sequence[datetime]
    service: Sequence[str]
    level: list[str | None]
    message: Sequence[str]
    limit_hit: bool
    first_line: Sequence[str] | None = None

    def __len__(self) -> int:
        return len(self.index)

    def first_lines(self) -> Sequence[str]:
        """Each message up to its first line break."""
        if self.first_line is not None:
            return self.first_line
        return [m if "\n" not in m else m.partition("\n")[0] for m in self.message]

    def in_time_order(self) -> LogColumns:
        """These columns sorted by time, stably (already sorted: ``self``)."""
        ts = self.ts
        if all(map(operator.le, ts, islice(ts, 1, None))):
            return self
        order = sorted(range(len(ts)), key=ts.__getitem__)

        def pick(column: Sequence[Any]) -> list[Any]:
            return list(map(column.__getitem__, order))

        return LogColumns(
            index=pick(self.index),
            ts=pick(ts),
            service=pick(self.service),
            level=pick(self.level),
            message=pick(self.message),
            limit_hit=self.limit_hit,
            first_line=None if self.first_line is None else pick(self.first_line),
        )


def normalize_level(value: Any) -> str | None:
    """Canonical level name (one of LOG_LEVELS); unknown values become INFO, and no level
    (null, empty) stays None."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    name = str(value).strip().upper()
    name = _ALIASES.get(name, name)
    return name if name in RANK else "INFO"


def parse_raw(raw: Any) -> LogColumns:
    """Return the raw result's events in time order (``index`` = position in the raw result).

    Raises:
        ProjectionError: PROJECTION_ERROR when ``raw`` is not a result of a known format.
    """
    if not isinstance(raw, dict):
        raise _malformed("raw is not an object")
    fmt = raw.get("format")
    try:
        if fmt == EMBEDDED_FORMAT:
            return _parse_embedded(raw).in_time_order()
        if fmt == LOKI_FORMAT:
            return _parse_loki(raw).in_time_order()
    except ProjectionError:
        raise
    except _READ_ERRORS as exc:
        raise _malformed(f"unreadable {fmt} result ({type(exc).__name__})") from exc
    raise _malformed("unknown raw format")


def _malformed(message: str) -> ProjectionError:
    return ProjectionError(ErrorCode.PROJECTION_ERROR, message)


def _parse_embedded(raw: dict[str, Any]) -> LogColumns:
    items = raw["events"]
    if not isinstance(items, list):
        raise _malformed("events is not a list")
    limit_hit = bool(raw.get("limit_hit", False))
    try:
        columns = _embedded_columns(items, limit_hit)
    except _READ_ERRORS:
        columns = None
    if columns is None:
        columns = _embedded_events(items, limit_hit)
    return columns


def _embedded_columns(items: list[Any], limit_hit: bool) -> LogColumns | None:
    """The fast path: well-formed items read a column at a time; ``None`` for anything else.

    A backend in this process may hand its events over with their fields already read out
    (``items.fields``: the embedded store's ``EventList``, whose times it parsed once with
    ``fromisoformat``); they are then taken from there instead of from every event, and
    checked and normalised the same way — unless the store vouches (``items.regular``) that
    every one of its events has a string message, a named service and a time in UTC.
    """
    fields = getattr(items, "fields", None)
    regular = fields is not None and getattr(items, "regular", False)
    first_line = None
    if fields is not None:
        ts, services, raw_levels, messages, first_line = fields
        if not regular:
            if not set(map(type, messages)) <= _ONLY_STR:
                return None
            services = [service or "unknown" for service in services]
    else:
        messages = [item["message"] for item in items]
        stamps = [item["ts"] for item in items]
        raw_levels = [item.get("level") for item in items]
        services = [item.get("service") or "unknown" for item in items]
        if not set(map(type, messages)) <= _ONLY_STR or not set(map(type, stamps)) <= _ONLY_STR:
            return None
        ts = list(map(datetime.fromisoformat, stamps))
    if not regular:
        if not set(map(_TZINFO, ts)) <= _ONLY_UTC:
            ts = list(map(_as_utc, ts))
        if not set(map(type, services)) <= _ONLY_STR:
            services = list(map(str, services))
    names = {value: normalize_level(value) for value in set(raw_levels)}
    return LogColumns(
        index=list(range(len(items))),
        ts=ts,
        service=services,
        level=list(map(names.__getitem__, raw_levels)),
        message=messages,
        limit_hit=limit_hit,
        first_line=first_line,
    )


def _embedded_events(items: list[Any], limit_hit: bool) -> LogColumns:
    """The per-event reading: checks every field in order and raises on the first bad one."""
    ts: list[datetime] = []
    services: list[str] = []
    levels: list[str | None] = []
    messages: list[str] = []
    names: dict[Any, str | None] = {}
    for item in items:
        message = item["message"]
        if not isinstance(message, str):
            raise _malformed("message is not a string")
        raw_level = item.get("level")
        level = names.get(raw_level)
        if level is None:
            level = names[raw_level] = normalize_level(raw_level)
        ts.append(_parse_ts(item["ts"]))
        services.append(str(item.get("service") or "unknown"))
        levels.append(level)
        messages.append(message)
    return LogColumns(
        index=list(range(len(items))),
        ts=ts,
        service=services,
        level=levels,
        message=messages,
        limit_hit=limit_hit,
    )


def _parse_ts(value: Any) -> datetime:
    if not isinstance(value, str):
        raise _malformed("ts is not a string")
    return _as_utc(datetime.fromisoformat(value))


def _as_utc(parsed: datetime) -> datetime:
    tz = parsed.tzinfo
    if tz is None:
        return parsed.replace(tzinfo=UTC)
    return parsed if tz is UTC else parsed.astimezone(UTC)


def _parse_loki(raw: dict[str, Any]) -> LogColumns:
    response = raw["response"]
    if not isinstance(response, dict) or response.get("status") != "success":
        raise _malformed("loki response is not a success")
    data = response["data"]
    if data.get("resultType") != "streams":
        raise _malformed("loki result is not streams")
    ts: list[datetime] = []
    services: list[str] = []
    levels: list[str | None] = []
    messages: list[str] = []
    for stream in data["result"]:
        labels = stream.get("stream") or {}
        if not isinstance(labels, dict):
            raise _malformed("stream labels are not an object")
        service = next((str(labels[k]) for k in _SERVICE_LABELS if labels.get(k)), "unknown")
        label_level = next((labels[k] for k in _LEVEL_LABELS if labels.get(k)), None)
        for ns, line in stream["values"]:
            if not isinstance(line, str):
                raise _malformed("loki line is not a string")
            level = label_level
            if level is None:
                found = _LINE_LEVEL.search(line, 0, 300)
                level = found.group(1) if found else None
            seconds, nanos = divmod(int(ns), 1_000_000_000)
            ts.append(datetime.fromtimestamp(seconds, tz=UTC).replace(microsecond=nanos // 1000))
            services.append(service)
            levels.append(normalize_level(level))
            messages.append(line)
    limit = raw.get("limit")
    limit_hit = isinstance(limit, int) and limit > 0 and len(ts) >= limit
    return LogColumns(
        index=list(range(len(ts))),
        ts=ts,
        service=services,
        level=levels,
        message=messages,
        limit_hit=limit_hit,
    )
