"""Reading the raw results of the log backends into time-ordered events (private)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from harness.errors import ErrorCode, ProjectionError
from harness.tools.arguments import LOG_LEVELS

__all__ = ["EMBEDDED_FORMAT", "LOKI_FORMAT", "RANK", "Event", "normalize_level", "parse_raw"]

EMBEDDED_FORMAT = "embedded-jsonl/v1"
LOKI_FORMAT = "loki/query_range"
RANK = {name: index for index, name in enumerate(LOG_LEVELS)}
_ALIASES = {"WARNING": "WARN", "ERR": "ERROR", "CRITICAL": "FATAL", "SEVERE": "ERROR",
            "FINE": "DEBUG", "PANIC": "FATAL", "NOTICE": "INFO", "INFORMATION": "INFO"}  # fmt: skip
_SERVICE_LABELS = ("service", "service_name", "app", "application", "job", "container")
_LEVEL_LABELS = ("level", "detected_level", "severity", "lvl")
_LINE_LEVEL = re.compile(
    r"(?:\blevel\"?[=:]\s*\"?|\b)(TRACE|DEBUG|INFO|WARN(?:ING)?|ERROR|FATAL|CRITICAL)\b",
    re.IGNORECASE,
)


@dataclass(slots=True, kw_only=True)
class Event:
    """One raw event (slots, not frozen: built 100k times per large result)."""

    index: int
    ts: datetime
    service: str
    level: str
    message: str


def normalize_level(value: Any) -> str:
    """Canonical level name (one of LOG_LEVELS); unknown values become INFO."""
    name = str(value or "").strip().upper()
    name = _ALIASES.get(name, name)
    return name if name in RANK else "INFO"


def parse_raw(raw: Any) -> tuple[list[Event], bool]:
    """Return the raw result's events (index = position in the raw result) and limit_hit."""
    if not isinstance(raw, dict):
        raise _malformed("raw is not an object")
    fmt = raw.get("format")
    try:
        if fmt == EMBEDDED_FORMAT:
            return _parse_embedded(raw)
        if fmt == LOKI_FORMAT:
            return _parse_loki(raw)
    except ProjectionError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
        raise _malformed(f"unreadable {fmt} result ({type(exc).__name__})") from exc
    raise _malformed("unknown raw format")


def _malformed(message: str) -> ProjectionError:
    return ProjectionError(ErrorCode.PROJECTION_ERROR, message)


def _parse_embedded(raw: dict[str, Any]) -> tuple[list[Event], bool]:
    items = raw["events"]
    if not isinstance(items, list):
        raise _malformed("events is not a list")
    events = []
    levels: dict[Any, str] = {}
    for index, item in enumerate(items):
        message = item["message"]
        if not isinstance(message, str):
            raise _malformed("message is not a string")
        raw_level = item.get("level")
        level = levels.get(raw_level)
        if level is None:
            level = levels[raw_level] = normalize_level(raw_level)
        events.append(
            Event(
                index=index,
                ts=_parse_ts(item["ts"]),
                service=str(item.get("service") or "unknown"),
                level=level,
                message=message,
            )
        )
    return events, bool(raw.get("limit_hit", False))


def _parse_ts(value: Any) -> datetime:
    if not isinstance(value, str):
        raise _malformed("ts is not a string")
    parsed = datetime.fromisoformat(value)
    tz = parsed.tzinfo
    if tz is None:
        return parsed.replace(tzinfo=UTC)
    return parsed if tz is UTC else parsed.astimezone(UTC)


def _parse_loki(raw: dict[str, Any]) -> tuple[list[Event], bool]:
    response = raw["response"]
    if not isinstance(response, dict) or response.get("status") != "success":
        raise _malformed("loki response is not a success")
    data = response["data"]
    if data.get("resultType") != "streams":
        raise _malformed("loki result is not streams")
    events: list[Event] = []
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
            ts = datetime.fromtimestamp(seconds, tz=UTC).replace(microsecond=nanos // 1000)
            events.append(
                Event(
                    index=len(events),
                    ts=ts,
                    service=service,
                    level=normalize_level(level),
                    message=line,
                )
            )
    limit = raw.get("limit")
    limit_hit = isinstance(limit, int) and limit > 0 and len(events) >= limit
    return events, limit_hit
