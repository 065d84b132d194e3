"""Grammars of structured lines: JSON objects, logfmt pairs, W3C fields, journald export blocks
(private to the format layer).

A structured line names its fields, so its grammar is a parser and a list of the key names
that hold the time, the level, the service and the message, in the order they are looked for.
Every other field follows the message as ``key=value`` (a value that spans lines below it), so
that it is redacted, searched and mined with the message.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from harness.logformats._levels import LevelNotation, read_level
from harness.logformats._times import ANY_NOTATION, WallTime, epoch_time, read_time
from harness.logformats.spec import Parsed

__all__ = [
    "LEVEL_KEYS",
    "MESSAGE_KEYS",
    "SERVICE_KEYS",
    "TIME_KEYS",
    "JournaldExportGrammar",
    "KeyedGrammar",
    "W3CGrammar",
    "json_fields",
    "logfmt_fields",
]

TIME_KEYS = (
    "ts", "timestamp", "time", "@timestamp", "datetime", "date", "t", "@t", "eventTime",
    "lastTimestamp", "firstTimestamp", "metadata.creationTimestamp", "__REALTIME_TIMESTAMP",
    "asctime", "created", "timeMillis", "instant.epochSecond",
)  # fmt: skip
LEVEL_KEYS = (
    "level", "severity", "lvl", "loglevel", "log.level", "levelname", "severity_text",
    "@l", "log_level", "PRIORITY", "levelno",
)  # fmt: skip
MESSAGE_KEYS = (
    "message", "msg", "log", "text", "event", "@message", "@m", "MESSAGE", "textPayload",
    "short_message", "body", "@mt",
)  # fmt: skip
SERVICE_KEYS = (
    "service", "service.name", "service_name", "app", "application", "component",
    "resource.service.name", "kubernetes.labels.app", "kubernetes.container_name",
    "kubernetes.pod_name", "SYSLOG_IDENTIFIER", "_SYSTEMD_UNIT", "appname", "program",
)  # fmt: skip
# Keys whose numeric level is not pino's scale.
_LEVEL_NOTATIONS = {
    "PRIORITY": LevelNotation.SYSLOG_PRI,
    "levelno": LevelNotation.PYTHON_LEVELNO,
    "type": LevelNotation.K8S_TYPE,
}
# Keys holding epoch seconds or microseconds written as strings.
_EPOCH_KEYS = {"__REALTIME_TIMESTAMP", "created", "timeMillis", "instant.epochSecond"}
_UNIT_SUFFIX = re.compile(r"\.(?:service|socket|timer|scope|slice|mount)$")


def unit_service(name: str) -> str:
    """A systemd unit's service name (``nginx.service`` → ``nginx``)."""
    return _UNIT_SUFFIX.sub("", name)


def json_fields(line: str) -> dict[str, Any] | None:
    """The flattened fields of a JSON object line (nested keys dotted), or None."""
    text = line.strip()
    if not text.startswith("{"):
        return None
    try:
        body = json.loads(text)
    except ValueError:
        return None
    return _flatten(body) if isinstance(body, dict) else None


def _flatten(body: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    # ECS-style nesting ({"service": {"name": ...}, "log": {"level": ...}}) reads as dotted keys.
    flat: dict[str, Any] = {}
    for key, value in body.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            flat.update(_flatten(value, f"{name}."))
        else:
            flat[name] = value
    return flat


_LOGFMT_PAIR = re.compile(r'\s*([\w.@/-]+)=("(?:[^"\\]|\\.)*"|\S*)')


def logfmt_fields(line: str) -> dict[str, Any] | None:
    """The pairs of a logfmt line (``key=value``, values quoted when they hold spaces), or None
    when the line is not pairs from end to end."""
    fields: dict[str, Any] = {}
    position = 0
    text = line.rstrip()
    while position < len(text):
        found = _LOGFMT_PAIR.match(text, position)
        if found is None:
            return None
        value = found.group(2)
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = re.sub(r"\\(.)", r"\1", value[1:-1])
        fields.setdefault(found.group(1), value)
        position = found.end()
    return fields or None


def _keyed_time(key: str, value: Any, reference: datetime) -> WallTime | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return epoch_time(float(value))
    if isinstance(value, str):
        text = value.strip()
        if key in _EPOCH_KEYS or re.fullmatch(r"\d{9,19}(?:\.\d+)?", text):
            return epoch_time(float(text)) if re.fullmatch(r"\d+(?:\.\d+)?", text) else None
        return read_time(text, ANY_NOTATION, reference)
    return None


@dataclass(frozen=True)
class KeyedGrammar:
    """Lines of named fields: JSON objects or logfmt pairs.

    Args:
        fields: Reads a line's fields (``json_fields`` or ``logfmt_fields``), None when it is
            not such a line.
        require: Keys every line of the format has (a Kubernetes event's ``involvedObject``).
        service_keys: Keys naming the service, in the order they are looked for.
        level_keys: Keys holding the level, in order.
        message_keys: Keys holding the message, in order.
        services: Turns a service value into a name (a unit's ``.service`` cut).
        claim_without_time: Whether a line with a message but no time still starts an event.
    """

    fields: Callable[[str], dict[str, Any] | None]
    require: tuple[str, ...] = ()
    service_keys: tuple[str, ...] = SERVICE_KEYS
    level_keys: tuple[str, ...] = LEVEL_KEYS
    message_keys: tuple[str, ...] = MESSAGE_KEYS
    time_keys: tuple[str, ...] = TIME_KEYS
    services: Callable[[str], str] = unit_service
    needs_level_or_time: bool = False

    def parse(self, line: str, state: dict[str, Any], reference: datetime) -> Parsed | None:
        """See :class:`harness.logformats.spec.Grammar`."""
        flat = self.fields(line)
        if flat is None or any(key not in flat for key in self.require):
            return None
        time_key = next((k for k in self.time_keys if flat.get(k) not in (None, "")), None)
        time = _keyed_time(time_key, flat[time_key], reference) if time_key else None
        level_key = next((k for k in self.level_keys if flat.get(k) not in (None, "")), None)
        message_key = next((k for k in self.message_keys if isinstance(flat.get(k), str)), None)
        service_key = next((k for k in self.service_keys if flat.get(k) not in (None, "")), None)
        if time is None and message_key is None:
            return None
        if self.needs_level_or_time and time is None and level_key is None:
            return None  # prose with a key=value in it is not logfmt
        level = None
        if level_key is not None:
            notation = _LEVEL_NOTATIONS.get(level_key, LevelNotation.WORD)
            level = read_level(flat[level_key], notation)
        used = {time_key, level_key, service_key, message_key}
        return Parsed(
            time=time,
            level=level,
            service=self.services(str(flat[service_key])) if service_key else None,
            message=_message(flat, message_key, used),
        )

    def finish(self, first: Parsed, more: list[str]) -> Parsed:
        """See :class:`harness.logformats.spec.Grammar` (one line per event: nothing joins)."""
        return first


def _message(flat: Mapping[str, Any], message_key: str | None, used: set[str | None]) -> str:
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
    return "\n".join([message, *trailing]) if trailing else message


@dataclass(frozen=True)
class W3CGrammar:
    """W3C extended log lines (IIS, its HTTP.sys error log): space-separated fields named by the
    file's latest ``#Fields:`` directive; ``date`` and ``time`` give the time (UTC by the
    format's convention), ``sc-status`` the level, ``s-sitename`` the service."""

    def parse(self, line: str, state: dict[str, Any], reference: datetime) -> Parsed | None:
        """See :class:`harness.logformats.spec.Grammar`; a ``#Fields:`` line sets the state."""
        if line.startswith("#Fields:"):
            state["fields"] = line.removeprefix("#Fields:").split()
            return None
        names: list[str] | None = state.get("fields")
        values = line.split(" ")
        if names is None or len(values) != len(names):
            return None  # a W3C line is read by the #Fields directive before it
        row = dict(zip(names, values, strict=False))
        if "date" not in row or "time" not in row:
            return None
        time = read_time(f"{row['date']} {row['time']}", ("iso",), reference)
        if time is None:
            return None
        rest = [f"{k}={v}" for k, v in row.items() if k not in ("date", "time") and v != "-"]
        site = row.get("s-sitename")
        return Parsed(
            time=time,
            level=read_level(row.get("sc-status"), LevelNotation.HTTP_STATUS),
            service=site if site and site != "-" else None,
            message=" ".join(rest),
        )

    def finish(self, first: Parsed, more: list[str]) -> Parsed:
        """See :class:`harness.logformats.spec.Grammar` (one line per event)."""
        return first


_EXPORT_PAIR = re.compile(r"^([A-Z0-9_]+)=(.*)$")


@dataclass(frozen=True)
class JournaldExportGrammar:
    """``journalctl -o export``: an entry is ``KEY=value`` lines up to a blank line, starting
    with ``__CURSOR=``; ``__REALTIME_TIMESTAMP`` (µs), ``PRIORITY``, ``SYSLOG_IDENTIFIER`` or
    ``_SYSTEMD_UNIT`` and ``MESSAGE`` give the event."""

    def parse(self, line: str, state: dict[str, Any], reference: datetime) -> Parsed | None:
        """See :class:`harness.logformats.spec.Grammar`: the cursor line starts an entry."""
        if not line.startswith("__CURSOR="):
            return None
        return Parsed(time=None, level=None, service=None, message="")

    def finish(self, first: Parsed, more: list[str]) -> Parsed:
        """The entry's event, read from its ``KEY=value`` lines."""
        pairs: dict[str, str] = {}
        for line in more:
            found = _EXPORT_PAIR.match(line)
            if found:
                pairs.setdefault(found[1], found[2])
        stamp = pairs.get("__REALTIME_TIMESTAMP", "")
        time = epoch_time(float(stamp)) if stamp.isdigit() else None
        service = pairs.get("SYSLOG_IDENTIFIER") or pairs.get("_SYSTEMD_UNIT")
        return Parsed(
            time=time,
            level=read_level(pairs.get("PRIORITY"), LevelNotation.SYSLOG_PRI),
            service=unit_service(service) if service else None,
            message=pairs.get("MESSAGE", ""),
        )
