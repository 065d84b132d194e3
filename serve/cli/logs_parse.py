"""``harness logs parse``: a log file read as a run reads it, one JSON object per event.

``harness logs parse FILE [--log-format NAME|PATTERN] [--timezone ZONE] [--year YEAR] --json``
prints, per event, ``{"line": first line (1-based), "lines": count, "time": ISO-8601 or null,
"level": "DEBUG"|"INFO"|"WARN"|"ERROR"|"FATAL" or null, "service": str or null, "message": str,
"format": name}``. Messages are redacted (:class:`harness.redaction.Redactor`, hosts, pods and
IPs numbered per invocation: ``<HOST#1>``) before they are
printed. Lines no format claims are printed as events of format ``unparsed``; a time that the
line writes without a zone is printed in the zone ``--timezone`` names, else in UTC, and the
summary on stderr says which.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from harness.backends.log_reading import read_log_file
from harness.contracts.rawcap import RawCap
from harness.logformats import AUTO, ZoneSource, choose_format, resolve_zone, service_name
from harness.redaction import Pseudonyms, Redactor

__all__ = ["register_parse", "run_parse"]

_EXIT_USAGE = 2
# What one file may be for `logs parse`: the file backend's default store cap.
_MAX_BYTES = 64 * 1024 * 1024


def register_parse(commands: Any) -> None:
    """Add ``parse`` to the ``logs`` command's subparsers."""
    parse = commands.add_parser(
        "parse",
        help="Read a log file as a run does; print JSONL {line, lines, time, level, service, "
        "message, format} per event.",
        description="Read a log file with the catalog of log formats (detected, or chosen "
        "with --log-format) and print each event; messages are redacted.",
    )
    parse.add_argument("file", metavar="FILE", help="Log file (plain or gzip).")
    parse.add_argument(
        "--log-format",
        default=AUTO,
        metavar="NAME|PATTERN",
        help="auto (default), a format's name, or a pattern (a regex with named groups, or "
        "'<Date> <Time> <Level> <Content>')",
    )
    parse.add_argument("--timezone", metavar="ZONE", help="zone of times written without one")
    parse.add_argument("--year", type=int, metavar="YEAR", help="year of year-less times")
    parse.add_argument("--json", action="store_true", help="JSON lines (the only output)")
    parse.set_defaults(handler=_handle_parse)


def _handle_parse(args: argparse.Namespace) -> int:
    return run_parse(
        Path(args.file),
        args.log_format,
        timezone=args.timezone,
        year=args.year,
        stdout=sys.stdout,
        stderr=sys.stderr,
    )


def run_parse(
    path: Path,
    log_format: str,
    *,
    timezone: str | None = None,
    year: int | None = None,
    stdout: IO[str],
    stderr: IO[str],
) -> int:
    """Print the events of ``path`` as JSON lines.

    Returns:
        The exit code: 0, or 2 for a bad format, zone or an unreadable file.
    """
    try:
        spec = choose_format(log_format)
        zone = resolve_zone(timezone) if timezone else None
    except ValueError as exc:
        stderr.write(f"harness logs parse: {exc}\n")
        return _EXIT_USAGE
    if not path.is_file():
        stderr.write(f"harness logs parse: no such file: {path}\n")
        return _EXIT_USAGE
    reading = read_log_file(
        path,
        RawCap(_MAX_BYTES),
        spec=spec,
        chosen=log_format.strip().lower() != AUTO,
        zone=zone,
        reference=datetime(year, 12, 31, 23, 59, 59) if year else None,
    )
    if reading.error is not None:
        stderr.write(f"harness logs parse: cannot read {path}: {reading.error}\n")
        return _EXIT_USAGE
    redact = Redactor().redact
    # One invocation is one run: its hosts, pods and IPs are numbered from 1 (<HOST#1>).
    pseudonyms = Pseudonyms()
    sources: set[ZoneSource] = set()
    for event in reading.events:
        sources.add(event.zone)
        record = {
            "line": event.line,
            "lines": event.lines,
            "time": event.time.isoformat() if event.time is not None else None,
            "level": event.level,
            "service": service_name(event.service) if event.service else None,
            "message": pseudonyms.apply(event.message, redact(event.message)),
            "format": event.format,
        }
        stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
    stderr.write(
        f"{path.name}: format {reading.format}, encoding {reading.encoding}, "
        f"{len(reading.events)} events, {reading.unparsed} unparsed; "
        f"zones: {', '.join(sorted(s.value for s in sources)) or 'none'}\n"
    )
    return 0
