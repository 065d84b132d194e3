"""Reading a user's log lines into events: JSON lines, or text lines with a leading timestamp.

One module, on purpose: it is the loader's whole idea of a log format. Its vocabulary (time,
level and message field names, level words, the ISO and syslog header shapes) is shared with
the miner's header detector (:mod:`harness.logmining.headers`), which knows more shapes but
only splits headers off; this loader also reads each event's time and level. It recognises

* **JSON lines** — one object per line; the time, level, service and message are read from the
  usual field names (``ts``/``timestamp``/``time``/``@timestamp``; ``level``/``severity``/
  ``lvl``; ``service``/``app``/``service.name``; ``message``/``msg``/``log``/``event``), epoch
  numbers and pino/bunyan numeric levels included; every other field is appended to the
  message as ``key=value``, so that it is redacted and mined with it;
* **text** — a line that starts with an ISO 8601 timestamp (``2026-03-10T09:41:07.120Z``,
  ``2026-03-10 09:41:07,120``, optionally in brackets) followed by an optional level word
  (``ERROR``, ``[warn]``, ``level=info``), or with an RFC 5424 / BSD syslog header (whose
  application name is the service and whose priority gives the level). A line without such a
  header continues the previous event (a stack trace, a wrapped message).

Naive timestamps are UTC, as every time of the harness. A BSD syslog timestamp has no year; the
loader supplies one. The service of a text line is not guessed from its header (a bracketed
word is as often a thread as a service): the loader takes it from a flag or the file name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import Enum
from typing import Any

from harness.logmining.headers import (
    BSD_SYSLOG_HEADER,
    ISO_TIMESTAMP,
    LEVEL_KEYS,
    LEVEL_WORDS,
    MESSAGE_KEYS,
    RFC5424_HEADER,
    TIME_KEYS,
)

__all__ = [
    "LogFormat",
    "LogRecord",
    "canonical_level",
    "detect_format",
    "parse_json_line",
    "parse_lines",
    "parse_text_header",
]


class LogFormat(str, Enum):
    """How a file's lines are read; AUTO detects JSONL or TEXT from its first lines."""

    AUTO = "auto"
    JSONL = "jsonl"
    TEXT = "text"


@dataclass(frozen=True, kw_only=True)
class LogRecord:
    """One event as read from a file; ``service`` and ``level`` are None when not stated."""

    ts: datetime
    message: str
    level: str | None = None
    service: str | None = None


# How many leading non-empty lines decide a file's format.
_SAMPLE_LINES = 20
# A level is a bare upper-case word, or any case when bracketed or written as level=…: prose
# such as "Error while …" at the start of a message is not a level.
_LEVEL = (
    rf"(?:(?i:level=(?P<{{0}}1>{LEVEL_WORDS}))|(?i:\[(?P<{{0}}2>{LEVEL_WORDS})\])"
    rf"|(?P<{{0}}3>{LEVEL_WORDS}))(?=[\s:|]|$)[\s:|-]*"
)
_TEXT_HEADER = re.compile(
    rf"^\[?(?P<ts>{ISO_TIMESTAMP})\]?\s+(?:{_LEVEL.format('level')})?(?P<message>.*)$"
)
_MESSAGE_LEVEL = re.compile("^" + _LEVEL.format("level"))
# Canonical names (harness.tools.arguments.LOG_LEVELS) of the spellings systems use.
_CANONICAL = {
    "FINEST": "TRACE", "FINER": "TRACE", "FINE": "DEBUG", "INFORMATION": "INFO",
    "NOTICE": "INFO", "WARNING": "WARN", "ERR": "ERROR", "SEVERE": "ERROR",
    "CRITICAL": "FATAL", "CRIT": "FATAL", "ALERT": "FATAL", "EMERG": "FATAL",
    "EMERGENCY": "FATAL", "PANIC": "FATAL",
}  # fmt: skip
_LEVELS = frozenset({"TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"})
_SYSLOG_SEVERITY = ("FATAL", "FATAL", "FATAL", "ERROR", "WARN", "INFO", "INFO", "DEBUG")
_PINO_LEVELS = {10: "TRACE", 20: "DEBUG", 30: "INFO", 40: "WARN", 50: "ERROR", 60: "FATAL"}

_SERVICE_KEYS = ("service", "service.name", "service_name", "app", "application", "component")


def detect_format(lines: Iterable[str]) -> LogFormat | None:
    """JSONL when most sampled lines are JSON events (objects with a readable time), TEXT when
    one of them starts with a timestamp header, else None."""
    sample = [line for line in (raw.strip() for raw in lines) if line][:_SAMPLE_LINES]
    if not sample:
        return None
    events = sum(1 for line in sample if parse_json_line(line) is not None)
    if events * 2 > len(sample):
        return LogFormat.JSONL
    if any(parse_text_header(line, year=2000) is not None for line in sample):
        return LogFormat.TEXT
    return None


def parse_lines(
    lines: Iterable[str], log_format: LogFormat, *, year: int
) -> Iterator[LogRecord | str]:
    """Records of ``lines`` in file order; a line that is not a record is yielded as text.

    For TEXT such a line continues the previous record (the caller appends it); for JSONL it is
    an unreadable line. ``year`` completes BSD syslog timestamps, which carry none.
    """
    if log_format is LogFormat.AUTO:
        raise ValueError("detect the format first")
    pending: LogRecord | None = None
    continuation: list[str] = []
    for raw in lines:
        line = raw.rstrip("\r\n")
        if log_format is LogFormat.JSONL:
            if line.strip():
                record = parse_json_line(line)
                yield record if record is not None else line
            continue
        record = parse_text_header(line, year=year)
        if record is None:
            if pending is None:
                if line.strip():
                    yield line
            else:
                continuation.append(line)
            continue
        if pending is not None:
            yield _continued(pending, continuation)
        pending, continuation = record, []
    if pending is not None:
        yield _continued(pending, continuation)


def _continued(record: LogRecord, lines: Sequence[str]) -> LogRecord:
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    if not lines:
        return record
    return LogRecord(
        ts=record.ts,
        message="\n".join([record.message, *lines]),
        level=record.level,
        service=record.service,
    )


def parse_text_header(line: str, *, year: int) -> LogRecord | None:
    """The record a text line starts, or None when the line has no timestamp header."""
    found = RFC5424_HEADER.match(line)
    if found:
        ts = _iso(found["ts"])
        if ts is None:
            return None
        message, level = _split_level(found["message"])
        return LogRecord(
            ts=ts,
            message=message,
            level=level or _syslog_level(found["pri"]),
            service=_nil(found["app"]),
        )
    found = BSD_SYSLOG_HEADER.match(line)
    if found:
        try:
            ts = datetime.strptime(f"{year} {found['ts']}", "%Y %b %d %H:%M:%S").replace(tzinfo=UTC)
        except ValueError:
            return None
        message, level = _split_level(found["message"])
        return LogRecord(
            ts=ts,
            message=message,
            level=level or _syslog_level(found["pri"]),
            service=found["app"],
        )
    found = _TEXT_HEADER.match(line)
    if found:
        ts = _iso(found["ts"])
        if ts is None:
            return None
        return LogRecord(ts=ts, message=found["message"], level=_level_of(found))
    return None


def parse_json_line(line: str) -> LogRecord | None:
    """The record of one JSON line, or None when it is not an object with a readable time."""
    body = _json_object(line)
    if body is None:
        return None
    flat = _flatten(body)
    ts_key = next((k for k in TIME_KEYS if k in flat), None)
    ts = _json_time(flat[ts_key]) if ts_key else None
    if ts is None:
        return None
    level_key = next((k for k in LEVEL_KEYS if flat.get(k) not in (None, "")), None)
    service_key = next((k for k in _SERVICE_KEYS if flat.get(k) not in (None, "")), None)
    message_key = next((k for k in MESSAGE_KEYS if isinstance(flat.get(k), str)), None)
    used = {ts_key, level_key, service_key, message_key}
    message = str(flat[message_key]) if message_key else ""
    extras: list[str] = []
    trailing: list[str] = []
    for key, value in flat.items():
        if key in used or value is None:
            continue
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        if "\n" in text:  # a stack trace field reads best below the message
            trailing.append(f"{key}:\n{text}")
        else:
            extras.append(f"{key}={text}")
    message = " ".join(part for part in [message, *extras] if part)
    if trailing:
        message = "\n".join([message, *trailing])
    return LogRecord(
        ts=ts,
        message=message,
        level=_json_level(flat[level_key]) if level_key else None,
        service=str(flat[service_key]) if service_key else None,
    )


def _json_object(line: str) -> dict[str, Any] | None:
    if not line.startswith("{"):
        return None
    try:
        body = json.loads(line)
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def _flatten(body: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    # ECS-style nesting ({"service": {"name": ...}, "log": {"level": ...}}) reads as dotted keys.
    flat: dict[str, Any] = {}
    for key, value in body.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            flat.update(_flatten(value, f"{name}."))
        else:
            flat[name] = value
    return flat


def _iso(text: str) -> datetime | None:
    value = text.strip().replace(",", ".")
    if value.endswith("UTC"):
        value = value[:-3].rstrip() + "+00:00"
    if value.endswith(("Z", "z")):
        value = value[:-1] + "+00:00"
    value = re.sub(r"\s(?=[+-]\d{2}:?\d{2}$)", "", value)
    # Python reads at most microseconds; a longer fraction (nanoseconds) is cut.
    value = re.sub(r"(\.\d{6})\d+", r"\1", value)
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed.astimezone(UTC) if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _json_time(value: Any) -> datetime | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        seconds = float(value)
        # Epoch seconds, milliseconds, microseconds or nanoseconds, by magnitude.
        for scale in (1, 1e3, 1e6, 1e9):
            if abs(seconds / scale) < 1e11:
                try:
                    return datetime.fromtimestamp(seconds / scale, tz=UTC)
                except (OverflowError, OSError, ValueError):
                    return None
        return None
    if isinstance(value, str):
        return _iso(value)
    return None


def canonical_level(value: str) -> str | None:
    """The canonical level of a level word (``warning`` → WARN), None when it is none."""
    name = value.strip().upper()
    name = _CANONICAL.get(name, name)
    return name if name in _LEVELS else None


def _level_of(found: re.Match[str]) -> str | None:
    word = found["level1"] or found["level2"] or found["level3"]
    return canonical_level(word) if word else None


def _json_level(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return _PINO_LEVELS.get(value - value % 10)
    return canonical_level(str(value))


def _split_level(message: str) -> tuple[str, str | None]:
    found = _MESSAGE_LEVEL.match(message)
    if not found:
        return message, None
    return message[found.end() :], _level_of(found)


def _syslog_level(pri: str | None) -> str | None:
    if pri is None:
        return None
    return _SYSLOG_SEVERITY[int(pri) % 8]


def _nil(value: str) -> str | None:
    return None if value == "-" else value
