"""The catalog: every named log format, from the most to the least specific, and the formats a
user writes as a pattern.

Order matters only for detection's tie rule (:mod:`harness.logformats.detect`): a format
earlier in the catalog is chosen over a later one that reads nearly as many lines, so a
specific format (PostgreSQL) wins over the generic one that also reads its lines (an ISO time
and some words).

A user may name a row (``postgresql``, or an alias such as ``nginx-access``) or write the
format as a pattern: a regex with named groups (``(?P<time>…) (?P<level>…) (?P<message>.*)``)
or a loghub-style header (``<Date> <Time> <Level> <Component>: <Content>``), whose fields are
mapped to the groups the engine knows (Content is the message).
"""

from __future__ import annotations

import re

from harness.logformats.catalog_apps import APP_FORMATS
from harness.logformats.catalog_generic import GENERIC_FORMATS, STRUCTURED_FORMATS
from harness.logformats.catalog_system import SYSTEM_FORMATS
from harness.logformats.catalog_web import WEB_FORMATS
from harness.logformats.spec import Family, LogFormatSpec, RegexGrammar

__all__ = ["AUTO", "CATALOG", "choose_format", "format_named", "is_format_choice"]

AUTO = "auto"
"""The choice that detects each file's format."""

CATALOG: tuple[LogFormatSpec, ...] = (
    *STRUCTURED_FORMATS[:1],  # bunyan before the JSON rows that would read it generically
    *SYSTEM_FORMATS[:2],  # Kubernetes events, journald export
    *STRUCTURED_FORMATS[1:],
    *WEB_FORMATS,
    *SYSTEM_FORMATS[2:4],  # syslog 5424, 3164
    *APP_FORMATS,
    *SYSTEM_FORMATS[4:],  # logcat, klog, dmesg
    *GENERIC_FORMATS,
)
"""Every row, from the most to the least specific."""

_BY_NAME = {name: spec for spec in CATALOG for name in (spec.name, *spec.aliases)}
_HEADER_FIELD = re.compile(r"<([^<>]+)>")
# Loghub header fields, by the group they fill.
_FIELD_GROUPS = {
    "content": "message", "level": "level", "time": "clock", "date": "date",
    "timestamp": "time", "datetime": "time", "service": "service", "app": "service",
    "program": "service", "application": "service",
}  # fmt: skip


def format_named(name: str) -> LogFormatSpec | None:
    """The row a name or alias names, or None."""
    return _BY_NAME.get(name.strip().lower())


def is_format_choice(value: str) -> bool:
    """Whether ``value`` is ``auto``, a row's name or alias, or a pattern that compiles."""
    if value.strip().lower() == AUTO or format_named(value) is not None:
        return True
    try:
        return _pattern_format(value) is not None
    except re.error:
        return False


def choose_format(value: str) -> LogFormatSpec | None:
    """The row ``value`` chooses: None for ``auto``, a named row, or a row built from a pattern.

    Raises:
        ValueError: ``value`` is neither ``auto``, a name nor a pattern.
    """
    if value.strip().lower() == AUTO:
        return None
    named = format_named(value)
    if named is not None:
        return named
    try:
        built = _pattern_format(value)
    except re.error as exc:
        raise ValueError(f"invalid log format pattern: {exc}") from None
    if built is None:
        names = ", ".join(spec.name for spec in CATALOG)
        raise ValueError(
            f"unknown log format {value!r}: use auto, one of {names}, a regex with named "
            "groups (time, level, service, message) or a header such as "
            "'<Date> <Time> <Level> <Content>'"
        )
    return built


def _pattern_format(value: str) -> LogFormatSpec | None:
    if "(?P<" in value:
        pattern = re.compile(value if value.startswith("^") else "^" + value)
    elif _HEADER_FIELD.search(value):
        pattern = re.compile(_header_regex(value))
    else:
        return None
    if "message" not in pattern.groupindex:
        raise re.error("a log format pattern needs a message (or Content) field")
    return LogFormatSpec(
        name="pattern",
        family=Family.GENERIC,
        summary=f"the user's pattern {value}",
        grammar=RegexGrammar((pattern,)),
    )


def _header_regex(value: str) -> str:
    # As logparser's generate_logformat_regex: literal text between fields, any whitespace
    # run for a run of spaces; fields the engine does not know are kept as groups of their own.
    regex = ""
    used: set[str] = set()
    # A header with a date field has its time of day in the time field; without, the time
    # field holds the whole time.
    dated = any(p.strip().lower() == "date" for p in _HEADER_FIELD.findall(value))
    for index, part in enumerate(_HEADER_FIELD.split(value)):
        if index % 2 == 0:
            regex += re.sub(r" +", r"\\s+", part)
            continue
        name = _FIELD_GROUPS.get(part.strip().lower(), "")
        if name == "clock" and not dated:
            name = "time"
        if not name or name in used:
            name = "f_" + re.sub(r"\W", "_", part.strip())
        used.add(name)
        regex += f"(?P<{name}>.*)" if name == "message" else f"(?P<{name}>.*?)"
    return "^" + regex + "$"
