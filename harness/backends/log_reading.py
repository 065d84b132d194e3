"""Reading one log file with the format layer: its encoding, its format, its events.

Shared by the file log backend (:mod:`harness.backends.logs_files`) and ``harness workspace
check``, so the check reports exactly what a run reads. A file's encoding is told from its
first bytes (:func:`harness.logformats.detect_encoding`); a binary file is not read and says
why. Its format is the one chosen for it (by name or pattern) or detected from its first lines;
a file of no recognised format is read all the same, every line kept as unparsed text. Every
byte read is charged to the caller's cap (:mod:`harness.backends._capped_read`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from pathlib import Path

from harness.backends._capped_read import head_bytes, open_capped
from harness.contracts.rawcap import RawCap
from harness.logformats import (
    UNPARSED,
    LogEvent,
    LogFormatSpec,
    ReadOptions,
    detect,
    detect_encoding,
    read_events,
)

__all__ = ["FileReading", "read_log_file"]

# What format and encoding detection read of a file: ample for the lines they sample.
SNIFF_BYTES = 256 * 1024


@dataclass(frozen=True, kw_only=True)
class FileReading:
    """What was read of one file.

    Attributes:
        path: The file.
        format: The format's name (``none`` when no row fits: lines are unparsed text).
        chosen: Whether the format was chosen for the file rather than detected.
        encoding: The codec the file was read with, or None when it was not read.
        events: Its events in file order (unparsed lines among them).
        error: Why the file could not be read at all (``binary``, an OS error's name), or None.
    """

    path: Path
    format: str
    chosen: bool
    encoding: str | None
    events: Sequence[LogEvent]
    error: str | None = None

    @property
    def unparsed(self) -> int:
        """How many lines no event of the format claims."""
        return sum(1 for event in self.events if event.format == UNPARSED)


def read_log_file(
    path: Path,
    cap: RawCap,
    *,
    spec: LogFormatSpec | None,
    chosen: bool,
    zone: tzinfo | None = None,
    reference: datetime | None = None,
) -> FileReading:
    """Read one file into events.

    Args:
        path: The file (plain or gzip).
        cap: Charged with every byte read (raises RawTooLarge past it).
        spec: The format chosen for the file; with ``chosen`` False it is detected instead.
        chosen: Whether ``spec`` was chosen (by name or pattern) for this file.
        zone: The workspace's time zone for lines that carry none.
        reference: The date year-less times are placed before (default: the file's
            modification time).

    Raises:
        RawTooLarge: The bytes read passed the cap.
    """
    try:
        encoding = detect_encoding(head_bytes(path, SNIFF_BYTES))
        if encoding.name is None:
            return FileReading(
                path=path, format="none", chosen=chosen, encoding=None, events=(), error="binary"
            )
        if reference is None:
            reference = datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)
        with open_capped(path, cap, encoding.name) as text:
            lines = list(text)
    except (OSError, EOFError) as exc:
        return FileReading(
            path=path,
            format="none",
            chosen=chosen,
            encoding=None,
            events=(),
            error=type(exc).__name__,
        )
    if not chosen:
        spec = detect(lines).format
    events = list(read_events(lines, spec, ReadOptions(zone=zone, reference=reference)))
    return FileReading(
        path=path,
        format=spec.name if spec is not None else "none",
        chosen=chosen,
        encoding=encoding.name,
        events=events,
    )
