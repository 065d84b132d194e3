"""A log format as data: one named row of the catalog, and what a row reads from a line.

A row (:class:`LogFormatSpec`) holds a format's grammar (a regex with named groups, or a small
parser for structured lines), the time notations its time field is written in, the notation
of its level, where its service comes from, its multiline rule and its examples: lines it must
read (with the time, level, service and message expected of them) and look-alikes it must not
claim. The engine (:mod:`harness.logformats.reader`, :mod:`harness.logformats.detect`) knows
no format; the tests walk the rows and check each against its own examples.

A regex grammar's groups name what they hold: ``time`` (or ``date`` and ``clock``), ``zone``,
``level``, ``pri`` (a syslog priority), ``status`` (an HTTP status), ``service``, ``message``.
Any other group is a field of the format's family (thread, logger, pid) that the message
leaves out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Any, Protocol

from harness.logformats._levels import LevelNotation, read_level
from harness.logformats._times import ANY_NOTATION, WallTime, read_time

__all__ = [
    "Example",
    "Family",
    "Grammar",
    "LogFormatSpec",
    "Multiline",
    "Parsed",
    "RegexGrammar",
    "regex",
]


class Family(str, Enum):
    """What kind of system writes a format."""

    ACCESS = "access"
    SYSLOG = "syslog"
    STRUCTURED = "structured"
    APPLICATION = "application"
    DATABASE = "database"
    PLATFORM = "platform"
    GENERIC = "generic"


class Multiline(str, Enum):
    """How lines that start no event are read."""

    NONE = "none"
    """Every event is one line; a line the grammar does not read is unparsed."""
    CONTINUATION = "continuation"
    """A line the grammar does not read continues the event before it (a stack trace)."""
    BLOCK = "block"
    """An event is a block of lines up to a blank line (journald's export format)."""


@dataclass(frozen=True, kw_only=True)
class Parsed:
    """What a grammar read from the line that starts an event."""

    time: WallTime | None
    level: str | None
    service: str | None
    message: str


@dataclass(frozen=True, kw_only=True)
class Example:
    """A line a format must read, and what it must read from it.

    Attributes:
        line: The line (``\\n`` joins the lines of a multiline event).
        time: The wall-clock time as written (``2026-03-10T09:41:07.120``), with the offset the
            line carries (``+02:00``) when it carries one; None when the line has no time.
        level: The canonical level, or None.
        service: The service the line names, or None.
        message: The message.
    """

    line: str
    time: str | None
    level: str | None
    message: str
    service: str | None = None


class Grammar(Protocol):
    """Reads the line that starts an event (``state`` is per file: W3C's ``#Fields``)."""

    def parse(self, line: str, state: dict[str, Any], reference: datetime) -> Parsed | None:
        """What ``line`` starts, or None when it starts no event of this format."""
        ...

    def finish(self, first: Parsed, more: list[str]) -> Parsed:
        """The event once its continuation lines ``more`` are known."""
        ...


@dataclass(frozen=True)
class RegexGrammar:
    """A grammar written as one regex with named groups (see the module docstring).

    Args:
        patterns: The regex, or its variants tried in order (a format's common layouts); each
            must match the whole line (``match``, not ``search``).
        times: Time notations of the ``time`` group (all of them when empty).
        level: Notation of the ``level`` group.
        fixed_level: A level every line of the format has (when it writes none).
        services: Turns the ``service`` group into a service name (``nginx.service`` → nginx).
    """

    patterns: tuple[re.Pattern[str], ...]
    times: tuple[str, ...] = ()
    level: LevelNotation = LevelNotation.WORD
    fixed_level: str | None = None
    services: Callable[[str], str | None] | None = None

    def parse(self, line: str, state: dict[str, Any], reference: datetime) -> Parsed | None:
        """See :class:`Grammar`."""
        found = next((m for p in self.patterns if (m := p.match(line))), None)
        if found is None:
            return None
        groups = found.groupdict()
        time = self._time(groups, reference)
        if time is None and (groups.get("time") or groups.get("date")):
            return None  # a time field that reads as no time: not this format
        return Parsed(
            time=time,
            level=self._level(groups),
            service=self._service(groups.get("service")),
            message=groups.get("message") or "",
        )

    def finish(self, first: Parsed, more: list[str]) -> Parsed:
        """See :class:`Grammar`: continuation lines join the message."""
        if not more:
            return first
        return Parsed(
            time=first.time,
            level=first.level,
            service=first.service,
            message="\n".join([first.message, *more]),
        )

    def _time(self, groups: Mapping[str, str | None], reference: datetime) -> WallTime | None:
        text = groups.get("time")
        if text is None and groups.get("date") and groups.get("clock"):
            text = f"{groups['date']} {groups['clock']}"
        if not text:
            return None
        zone = groups.get("zone")
        if zone:
            text = f"{text} {zone}"
        return read_time(text, self.times or ANY_NOTATION, reference)

    def _level(self, groups: Mapping[str, str | None]) -> str | None:
        if groups.get("level"):
            level = read_level(groups["level"], self.level)
            if level is not None:
                return level
        # An access log's status says more than the priority its syslog header carries.
        if groups.get("status"):
            return read_level(groups["status"], LevelNotation.HTTP_STATUS)
        if groups.get("pri"):
            return read_level(groups["pri"], LevelNotation.SYSLOG_PRI)
        return self.fixed_level

    def _service(self, value: str | None) -> str | None:
        if not value or value == "-":
            return None
        return self.services(value) if self.services is not None else value


@dataclass(frozen=True, kw_only=True)
class LogFormatSpec:
    """One named format of the catalog.

    Attributes:
        name: The name users give (``--log-format``, ``format`` in harness.toml).
        family: What kind of system writes it.
        summary: One line on what writes it.
        grammar: How an event's first line is read.
        multiline: How lines that start no event are read.
        examples: Lines the format must read, with what it must read from them.
        rejects: Look-alike lines the format must not claim.
        aliases: Other names that choose it (``nginx-access`` for ``access-log``).
        zone: The zone the format's convention gives zone-less times (W3C logs: UTC).
        service_from_path: Whether the file's path names the service when a line names none.
        comment: A line prefix that marks a directive, neither event nor unparsed (``#``).
        source: Where the examples come from.
    """

    name: str
    family: Family
    summary: str
    grammar: Grammar
    multiline: Multiline = Multiline.CONTINUATION
    examples: tuple[Example, ...] = ()
    rejects: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    zone: str | None = None
    comment: str | None = None
    source: str = "written for this catalog"
    body: re.Pattern[str] | None = None
    """For a block format, the lines a block is made of (detection counts them as read)."""
    continuation: re.Pattern[str] | None = field(default=None)
    """A line this pattern matches continues the event before it even when the grammar reads
    it (PostgreSQL's ``DETAIL:`` and ``STATEMENT:`` lines carry the full prefix)."""

    def parse(
        self, line: str, reference: datetime, state: dict[str, Any] | None = None
    ) -> Parsed | None:
        """What ``line`` starts as this format, or None (comments and continuations: None)."""
        if self.comment is not None and line.startswith(self.comment):
            # A directive may set the file's state (W3C's #Fields) but starts no event.
            self.grammar.parse(line, {} if state is None else state, reference)
            return None
        if self.continuation is not None and self.continuation.match(line):
            return None
        return self.grammar.parse(line, {} if state is None else state, reference)


def regex(
    *patterns: str,
    times: tuple[str, ...] = (),
    level: LevelNotation = LevelNotation.WORD,
    services: Callable[[str], str | None] | None = None,
) -> RegexGrammar:
    """A :class:`RegexGrammar` of ``patterns`` (compiled, tried in order)."""
    return RegexGrammar(
        tuple(re.compile(p) for p in patterns), times=times, level=level, services=services
    )
