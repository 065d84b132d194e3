"""Header shapes of log lines: detecting a file's shape and splitting a line's header off.

A log line is a header (time, level, process, thread, logger) and a message. Only the message
says which event happened, so the miner should see only the message: a header mined with it
splits one event by thread or logger and adds a timestamp to every template. When no format
is given, :func:`detect_format` samples the first lines of a file, tries every shape below
and keeps the one most lines fit; :meth:`DetectedFormat.split` then returns a line's message,
or the whole line when the line does not fit (a stack trace, a wrapped message).

Shapes, from the most to the least specific:

* ``json`` — one object per line; the message is the usual message field (``message``,
  ``msg``, ``log``…), and every other field but the time and the level follows it as
  ``key=value``;
* ``logfmt`` — ``ts=… level=… msg="…" key=value…``: the unquoted message, then the other
  pairs but the time and the level;
* ``rfc5424`` — ``<pri>1 ts host app procid msgid [sd] message``;
* ``syslog`` — BSD syslog (RFC 3164): ``[<pri>]Mar 10 09:41:07 host app[pid]: message``, also
  behind a collector's own fields (up to five: ``- 1773133200 2026.03.10 host Mar 10 …``);
* ``spring`` — Spring Boot: ``ts LEVEL pid --- [thread] logger : message``;
* ``log4j`` — log4j/logback patterns: ``ts [-] LEVEL [thread] [logger: | -] message``, or
  ``ts LEVEL qualified.Logger: message``;
* ``compact`` — a date and time in digits only (``081109 203615``, ``20260310-094107``), an
  optional pid, a level and an optional qualified logger with a colon;
* ``logcat`` — Android's threadtime: ``MM-DD time pid tid L tag: message``;
* ``klog`` — Kubernetes' klog/glog: ``I0310 09:41:07.123456   4242 file.go:123] message``;
* ``ctime`` — the bracketed time of web servers: ``[Wed Mar 10 09:41:07 2026] [level] message``;
* ``iso`` — an ISO 8601 time, optionally in brackets or followed by a comma, then an
  optional level word (``ERROR``, ``[warn]``, ``level=info``; ``Warning`` in a padded column);
* ``fields`` — up to eight header fields (dates like ``26/03/10``, ``2026/03/10``,
  ``2026.03.10``, epoch seconds, nodes, pids, types and components in capitals), a time of
  day among them, ending at a level word; then a pid (``1234#5:``) or a qualified logger
  before a colon or a bracketed context, and that context;
* ``pipes`` — ``|``-separated fields, the first holding a time: ``20260310-09:41:07:123|Name|42|``;
* ``bracketed`` — a time of day in brackets, then an optional program before a dash:
  ``[03.10 09:41:07] app.exe - message``;
* ``dmesg`` — seconds since boot in brackets: ``[  12.345678] message``;
* ``level`` — a line that starts with a level word alone (``[error] …``, ``WARN: …``).

The time, level and key-name vocabularies here are shared with the file log loader
(:mod:`harness.backends.log_formats`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any

__all__ = [
    "BSD_SYSLOG_HEADER",
    "ISO_TIMESTAMP",
    "LEVEL_KEYS",
    "LEVEL_WORDS",
    "MESSAGE_KEYS",
    "RFC5424_HEADER",
    "TIME_KEYS",
    "DetectedFormat",
    "HeaderShape",
    "detect_format",
]

# Field names that hold an event's time, level and message in structured lines (JSON,
# logfmt), in the order they are looked for.
TIME_KEYS = ("ts", "timestamp", "time", "@timestamp", "datetime", "date", "t")
LEVEL_KEYS = ("level", "severity", "lvl", "loglevel", "log.level", "levelname", "severity_text")
MESSAGE_KEYS = ("message", "msg", "log", "text", "event", "@message")

LEVEL_WORDS = (
    "TRACE|FINEST|FINER|DEBUG|FINE|INFO|INFORMATION|NOTICE|WARN|WARNING|ERROR|ERR|SEVERE|"
    "CRITICAL|CRIT|ALERT|EMERG|FATAL|PANIC"
)
ISO_TIMESTAMP = (
    r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?(?:\s?(?:Z|[+-]\d{2}:?\d{2}|UTC))?"
)
RFC5424_HEADER = re.compile(
    rf"^<(?P<pri>\d{{1,3}})>1 (?P<ts>{ISO_TIMESTAMP}) (?P<host>\S+) (?P<app>\S+) \S+ \S+ "
    r"(?:-|(?:\[[^\]]*\])+) ?(?P<message>.*)$"
)
BSD_SYSLOG_HEADER = re.compile(
    r"^(?:<(?P<pri>\d{1,3})>)?(?P<ts>[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}) (?P<host>\S+) "
    r"(?P<app>[^\s:\[]+)(?:\[\d+\])?: ?(?P<message>.*)$"
)

# How many leading non-empty lines decide a file's shape.
_SAMPLE_LINES = 200
# A more specific shape is kept over the shape most lines fit when it fits this share of them.
_SPECIFIC_SHARE = 0.9
# Below this share of the sample no shape is taken: lines are mined whole.
_MIN_SHARE = 0.5

# A level word: any case in brackets or as level=…, upper case when bare, title case only in a
# padded column or before a colon (prose such as "Error while …" at the start of a message
# is not a level).
_LEVEL = (
    rf"(?:(?i:level=(?:{LEVEL_WORDS}))|(?i:\[\s*(?:{LEVEL_WORDS})\s*\])"
    rf"|(?:{LEVEL_WORDS})(?=[\s:|]|$)|(?:{LEVEL_WORDS.title()})(?=\s{{2}}|:))"
)
_BARE_LEVEL = rf"(?:{LEVEL_WORDS}|{LEVEL_WORDS.title()})"
# A bracketed thread name, which may hold spaces and one level of nested brackets.
_THREAD = r"\[(?:[^\[\]]|\[[^\[\]]*\])*\]"
_QUALIFIED = r"[A-Za-z_$][\w$]*(?:\.[\w$]+)+"
# A logger after a thread: a qualified name, or a class name with an inner part (``Foo$Bar``).
# Taken whole (possessive parts, ``$`` only inside a part): ``a$a$a$…`` used to split
# every way there is before the line was refused, exponential in its length.
_LOGGER = r"(?:(?=[A-Za-z_$][\w$]*[.$][\w$])[A-Za-z_$][\w$]*+(?:\.[\w$]++)*+)"
_CTIME = r"[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}(?:\.\d+)? \d{4}"
# A time of day, in any of the usual separators (``09:41:07``, ``09.41.07``).
_CLOCK = r"\d{1,2}[:.]\d{2}[:.]\d{2}"
# A header field: a word holding a digit (a date, a time, a pid, a node) or one without a
# lower-case letter (``-``, an alert tag, a type or component in capitals).
# Each field is taken whole (``\S++``: possessive), so a line that has no level in its first
# fields is refused in linear time.
_FIELD = r"(?:(?=\S*\d)|(?=[^\sa-z]+\s))\S++"
# BSD syslog behind a collector's own fields (``- 1773133200 2026.03.10 host Mar 10 …``).
_FIELDS_SYSLOG = re.compile(r"^(?:\S+ ){0,5}?" + BSD_SYSLOG_HEADER.pattern.removeprefix("^"))


class HeaderShape(str, Enum):
    """The header shape of a file's lines (``NONE``: lines are mined whole)."""

    JSON = "json"
    LOGFMT = "logfmt"
    RFC5424 = "rfc5424"
    SYSLOG = "syslog"
    SPRING = "spring"
    LOG4J = "log4j"
    COMPACT = "compact"
    LOGCAT = "logcat"
    KLOG = "klog"
    CTIME = "ctime"
    ISO = "iso"
    FIELDS = "fields"
    PIPES = "pipes"
    BRACKETED = "bracketed"
    DMESG = "dmesg"
    LEVEL = "level"
    NONE = "none"


_TEXT_SHAPES: tuple[tuple[HeaderShape, re.Pattern[str]], ...] = (
    (HeaderShape.RFC5424, RFC5424_HEADER),
    (HeaderShape.SYSLOG, _FIELDS_SYSLOG),
    (
        HeaderShape.SPRING,
        re.compile(
            rf"^(?:{ISO_TIMESTAMP})\s+{_BARE_LEVEL}\s+\d+\s+---\s+(?:\[[^\]]*\]\s*){{1,2}}"
            rf"\s*\S+\s+:\s(?P<message>.*)$"
        ),
    ),
    (
        HeaderShape.LOG4J,
        re.compile(
            rf"^\[?(?:{ISO_TIMESTAMP})\]?\s+(?:-\s+)?{_LEVEL}\s+"
            rf"(?:{_THREAD}\s+(?:-\s+|{_LOGGER}:\s+|\S+\s+-\s+)?|{_QUALIFIED}:\s+)(?P<message>.*)$"
        ),
    ),
    (
        HeaderShape.COMPACT,
        re.compile(
            rf"^\d{{6,8}}[ T-]\d{{2}}:?\d{{2}}:?\d{{2}}(?:[.,:]\d+)?(?:\s+\d+)?\s+{_LEVEL}\s+"
            rf"(?:{_LOGGER}:\s+)?(?P<message>.*)$"
        ),
    ),
    (
        HeaderShape.LOGCAT,
        re.compile(
            r"^\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}\s+\d+\s+\d+ [VDIWEFA] [^:]*?:\s(?P<message>.*)$"
        ),
    ),
    (
        HeaderShape.KLOG,
        re.compile(r"^[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+ [^\s\]]+\] ?(?P<message>.*)$"),
    ),
    (
        HeaderShape.CTIME,
        re.compile(rf"^\[{_CTIME}\]\s+(?:\[[A-Za-z]+\]\s+)?(?P<message>.*)$"),
    ),
    (
        HeaderShape.ISO,
        re.compile(rf"^\[?(?:{ISO_TIMESTAMP})\]?,?\s+(?:{_LEVEL}[\s:|-]*)?(?P<message>.*)$"),
    ),
    (
        # Header fields holding a time of day, up to a level word; then a process id
        # (``1234:``, ``1234#5:``), or a qualified logger (before a colon or a bracketed
        # context) and that context.
        HeaderShape.FIELDS,
        re.compile(
            rf"^(?=(?:\S+\s+){{0,7}}\S*{_CLOCK})(?:{_FIELD}\s+){{1,8}}?{_LEVEL}\s+"
            rf"(?:\d+(?:#\d+)?:\s+|(?:{_LOGGER}(?::\s+|\s+(?=\[)))?(?:\[[^\]]*\]\s+)?)"
            r"(?P<message>.*)$"
        ),
    ),
    (
        # Fields separated by ``|``, the first holding a time: ``20260310-09:41:07:123|Name|42|…``.
        HeaderShape.PIPES,
        re.compile(rf"^[^|\s]*{_CLOCK}[^|\s]*\|(?:[^|\s]*\|){{0,3}}(?P<message>.*)$"),
    ),
    (
        # A time in brackets, then an optional program and a dash: ``[03.10 09:41:07] app.exe -``.
        HeaderShape.BRACKETED,
        re.compile(
            rf"^\[[^\]\n]{{0,30}}{_CLOCK}[^\]\n]{{0,12}}\]\s+(?:[\w.-]+(?: \*\d+)? - )?"
            r"(?P<message>.*)$"
        ),
    ),
    (HeaderShape.DMESG, re.compile(r"^\[\s*\d+\.\d+\]\s?(?P<message>.*)$")),
    (HeaderShape.LEVEL, re.compile(rf"^{_LEVEL}[\s:|-]*(?P<message>.*)$")),
)


@dataclass(frozen=True, kw_only=True)
class DetectedFormat:
    """A file's header shape, and how to split it off a line.

    Attributes:
        shape: The header shape most sampled lines fit (``NONE`` when too few fit any).
        share: The share of sampled lines that fit it, between 0 and 1.
    """

    shape: HeaderShape
    share: float

    def split(self, line: str) -> str:
        """The message of ``line``; the whole line when it does not fit the shape."""
        splitter = _SPLITTERS.get(self.shape)
        message = splitter(line) if splitter is not None else None
        return line if message is None else message


def detect_format(lines: Iterable[str]) -> DetectedFormat:
    """Detect the header shape of a file from its first non-empty lines.

    Every shape is tried on a sample; the shape most lines fit is taken, or a more specific
    one (earlier in the module's list) that fits nearly as many. Too few fitting lines
    (under half) mean no header: lines are mined whole.

    Args:
        lines: The file's lines (only the first ones are read).

    Returns:
        The detected format.
    """
    sample: list[str] = []
    for raw in lines:
        line = raw.rstrip("\r\n")
        if line.strip():
            sample.append(line)
            if len(sample) == _SAMPLE_LINES:
                break
    if not sample:
        return DetectedFormat(shape=HeaderShape.NONE, share=0.0)
    counts = [
        (shape, sum(split(line) is not None for line in sample))
        for shape, split in _SPLITTERS.items()
    ]
    best = max(count for _, count in counts)
    if best < _MIN_SHARE * len(sample):
        return DetectedFormat(shape=HeaderShape.NONE, share=0.0)
    shape, count = next((s, c) for s, c in counts if c >= _SPECIFIC_SHARE * best)
    return DetectedFormat(shape=shape, share=round(count / len(sample), 4))


# ----------------------------------------------------------------------------- splitters


def _json_message(line: str) -> str | None:
    text = line.strip()
    if not text.startswith("{"):
        return None
    try:
        body = json.loads(text)
    except ValueError:
        return None
    if not isinstance(body, dict):
        return None
    message_key = next((k for k in MESSAGE_KEYS if isinstance(body.get(k), str)), None)
    if message_key is None:
        return None
    skipped = {message_key, *TIME_KEYS, *LEVEL_KEYS}
    extras = [f"{key}={_json_text(value)}" for key, value in body.items() if key not in skipped]
    return " ".join([body[message_key], *extras])


def _json_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


_LOGFMT_PAIR = re.compile(r'\s*([\w.@-]+)=("(?:[^"\\]|\\.)*"|\S*)')


def _logfmt_message(line: str) -> str | None:
    pairs: list[tuple[str, str]] = []
    position = 0
    text = line.rstrip()
    while position < len(text):
        found = _LOGFMT_PAIR.match(text, position)
        if found is None:
            return None
        pairs.append((found.group(1), found.group(2)))
        position = found.end()
    keys = [key for key, _ in pairs]
    message_key = next((k for k in MESSAGE_KEYS if k in keys), None)
    if message_key is None or not any(k in keys for k in (*TIME_KEYS, *LEVEL_KEYS)):
        return None
    skipped = {*TIME_KEYS, *LEVEL_KEYS}
    message = ""
    rest: list[str] = []
    for key, value in pairs:
        if key == message_key and not message:
            message = _unquote(value)
        elif key not in skipped:
            rest.append(f"{key}={value}")
    return " ".join([message, *rest]) if rest else message


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return re.sub(r"\\(.)", r"\1", value[1:-1])
    return value


def _text_splitter(pattern: re.Pattern[str]) -> Callable[[str], str | None]:
    def split(line: str) -> str | None:
        found = pattern.match(line)
        return None if found is None else found.group("message")

    return split


# Every shape's splitter, from the most to the least specific.
_SPLITTERS: dict[HeaderShape, Callable[[str], str | None]] = {
    HeaderShape.JSON: _json_message,
    HeaderShape.LOGFMT: _logfmt_message,
    **{shape: _text_splitter(pattern) for shape, pattern in _TEXT_SHAPES},
}
