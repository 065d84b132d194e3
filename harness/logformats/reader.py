"""Reading a file's lines into events with a format of the catalog.

Each event keeps where it is (its first line, 1-based, and how many lines it spans), its time,
level, service and message, and the format that read it. A line no event claims is never
dropped: it becomes an *unparsed* event of its own (format ``unparsed``, no time, no level,
the line as its message), so that it stays searchable as text.

Times: a line's own zone wins; else the format's convention (W3C logs are UTC); else the
workspace's ``timezone``; else UTC, and the event says it was assumed (:class:`ZoneSource`).
A year-less time takes the year that puts it closest before the reference date (the
workspace's ``as_of``, else the file's modification time).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from enum import Enum
from typing import Any

from harness.logformats._times import WallTime, zone_named
from harness.logformats.spec import LogFormatSpec, Multiline, Parsed

__all__ = ["UNPARSED", "LogEvent", "ReadOptions", "ZoneSource", "read_events"]

UNPARSED = "unparsed"
"""The format name of a line no event claims."""


class ZoneSource(str, Enum):
    """Where an event's zone comes from."""

    LINE = "line"
    FORMAT = "format"
    WORKSPACE = "workspace"
    ASSUMED_UTC = "assumed-utc"
    NONE = "none"
    """The event has no time."""


@dataclass(frozen=True, kw_only=True)
class ReadOptions:
    """How zone-less and year-less times are completed.

    Attributes:
        zone: The workspace's time zone for lines that carry none (None: UTC, said so).
        reference: The date year-less times are placed before.
    """

    zone: tzinfo | None = None
    reference: datetime = field(default_factory=lambda: datetime.now(UTC))


@dataclass(frozen=True, kw_only=True)
class LogEvent:
    """One event of a file.

    Attributes:
        line: Its first line, 1-based.
        lines: How many lines it spans (trailing blank lines not counted).
        time: Its time (aware), or None when the line has none.
        zone: Where the zone of ``time`` comes from.
        has_year: Whether the line wrote the year.
        level: DEBUG, INFO, WARN, ERROR or FATAL; None when the line states none.
        service: The service the line names, or None.
        message: The message (continuation lines joined with newlines).
        format: The name of the row that read it, or ``unparsed``.
    """

    line: int
    lines: int
    time: datetime | None
    zone: ZoneSource
    has_year: bool
    level: str | None
    service: str | None
    message: str
    format: str


def read_events(
    lines: Iterable[str], spec: LogFormatSpec | None, options: ReadOptions | None = None
) -> Iterator[LogEvent]:
    """The events of ``lines`` read as ``spec``, in file order (see the module docstring).

    Args:
        lines: The file's lines (line ends are ignored).
        spec: The format; None reads every non-empty line as unparsed text.
        options: How to complete zone-less and year-less times.
    """
    options = options or ReadOptions()
    reference = (
        options.reference.replace(tzinfo=None) if options.reference.tzinfo else options.reference
    )
    reader = _Reader(spec, options)
    for number, raw in enumerate(lines, start=1):
        yield from reader.feed(number, raw.rstrip("\r\n"), reference)
    yield from reader.flush()


class _Reader:
    def __init__(self, spec: LogFormatSpec | None, options: ReadOptions) -> None:
        self.spec = spec
        self.options = options
        self.state: dict[str, Any] = {}
        self.start = 0
        self.first: Parsed | None = None
        self.more: list[str] = []

    def feed(self, number: int, line: str, reference: datetime) -> Iterator[LogEvent]:
        spec = self.spec
        blank = not line.strip()
        if spec is None:
            if not blank:
                yield _unparsed(number, line)
            return
        if spec.multiline is Multiline.BLOCK and blank:
            yield from self.flush()
            return
        if spec.comment is not None and line.startswith(spec.comment):
            spec.parse(line, reference, self.state)  # a directive: it only sets state
            return
        parsed = None if blank else spec.parse(line, reference, self.state)
        if parsed is not None:
            yield from self.flush()
            self.start, self.first, self.more = number, parsed, []
        elif self.first is not None and spec.multiline is not Multiline.NONE:
            self.more.append(line)
        elif not blank:
            yield from self.flush()
            yield _unparsed(number, line)

    def flush(self) -> Iterator[LogEvent]:
        if self.first is None or self.spec is None:
            return
        more = self.more
        while more and not more[-1].strip():
            more = more[:-1]
        parsed = self.spec.grammar.finish(self.first, more)
        self.first, self.more = None, []
        time, source = _placed(parsed.time, self.spec, self.options)
        yield LogEvent(
            line=self.start,
            lines=1 + len(more),
            time=time,
            zone=source,
            has_year=parsed.time.has_year if parsed.time is not None else True,
            level=parsed.level,
            service=parsed.service,
            message=parsed.message,
            format=self.spec.name,
        )


def _placed(
    time: WallTime | None, spec: LogFormatSpec, options: ReadOptions
) -> tuple[datetime | None, ZoneSource]:
    if time is None:
        return None, ZoneSource.NONE
    if time.zone is not None:
        return time.wall.replace(tzinfo=time.zone), ZoneSource.LINE
    convention = zone_named(spec.zone) if spec.zone else None
    if convention is not None:
        return time.wall.replace(tzinfo=convention), ZoneSource.FORMAT
    if options.zone is not None:
        return time.wall.replace(tzinfo=options.zone), ZoneSource.WORKSPACE
    return time.wall.replace(tzinfo=UTC), ZoneSource.ASSUMED_UTC


def _unparsed(number: int, line: str) -> LogEvent:
    return LogEvent(
        line=number,
        lines=1,
        time=None,
        zone=ZoneSource.NONE,
        has_year=True,
        level=None,
        service=None,
        message=line,
        format=UNPARSED,
    )
