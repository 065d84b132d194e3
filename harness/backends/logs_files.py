"""The ``query_logs`` backend over a user's own log files and folders.

The same store and query as the bundled demo logs (:class:`EmbeddedLogBackend`: read once,
kept in memory sorted by time and indexed by service and level, a query bisects its range;
raw format ``embedded-jsonl/v1``), fed from files instead of the bundled JSONL: plain text
with a timestamp header, JSON lines or syslog, each optionally gzipped (detected by its magic
bytes, not its name). The formats are read by :mod:`harness.backends.log_formats`.

The files are read on the first query and kept (in the store) for every later one. What one
query returns is counted against its call's raw cap, as for the bundled logs; what the store
may hold is bounded by its own cap, ``max_store_bytes`` (``HARNESS_LOG_STORE_MAX_BYTES``): every
byte read, after gunzipping, is counted against it while it is read
(:mod:`harness.backends._capped_read`), and the files are measured before a line is parsed (a
plain file by its size, a gzip file by decompressing it once without keeping anything), so a log
source larger than the store's cap — one huge file, one huge line, a gzip bomb — ends the call
RAW_TOO_LARGE having held at most a chunk of it. Nothing is kept from a read that stopped; the
next query reads again. A source that fits is kept: the store then holds about nine times its
size in memory (events, index, their JSON), which is what the cap bounds.

A folder is searched recursively for log-like names (``*.log``, ``*.log.1``, ``*.txt``,
``*.jsonl``, ``*.json``, ``*.ndjson``, ``*.out``, each optionally ``.gz``; hidden files are
skipped); a file in a folder whose format cannot be recognised is skipped, while a file named
explicitly must be readable.

The service of an event is the one its line names (a JSON field, the syslog application),
else the ``service`` given to the backend, else the file's name without its log and rotation
suffixes (``invoice-consumer.log.2.gz`` → ``invoice-consumer``). Lines that are not events (a
JSON line without a time, text before the first header) are counted, never invented into
events.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from harness.backends._capped_read import admit_files, head_lines, open_capped
from harness.backends._log_store import FrozenEvent, LogStore
from harness.backends.log_formats import LogFormat, LogRecord, detect_format, parse_lines
from harness.backends.logs_embedded import EmbeddedLogBackend, _epoch_ms
from harness.errors import BackendError, ErrorCode
from harness.rawcap import RawCap

__all__ = [
    "DEFAULT_MAX_STORE_BYTES",
    "FileLogBackend",
    "LogFile",
    "discover_log_files",
    "open_text",
    "service_name",
    "service_of_file",
    "sniff_format",
]

log = logging.getLogger(__name__)

DEFAULT_MAX_STORE_BYTES = 64 * 1024 * 1024
"""What a store of log files reads at most by default (``HARNESS_LOG_STORE_MAX_BYTES``)."""

# What format detection reads of a file: ample for the 20 lines it samples.
_SNIFF_BYTES = 256 * 1024
_LOG_NAME = re.compile(r"\.(?:log|txt|jsonl|json|ndjson|out)(?:\.\d+)?$", re.IGNORECASE)
# What a file name carries besides the service, stripped from its end in this order:
# compression, rotation numbers, log suffixes, dates (app.log.2.gz, app-2026-03-10.log).
_NOT_SERVICE = (
    re.compile(r"\.gz$", re.IGNORECASE),
    re.compile(r"\.\d{1,3}$"),
    re.compile(r"(?:\.(?:log|txt|jsonl|json|ndjson|out))+$", re.IGNORECASE),
    re.compile(r"[-_.](?:\d{4}-?\d{2}-?\d{2}(?:[T_-]?\d{2,6})?|\d{1,3})$"),
)
_SERVICE_CHARS = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True, kw_only=True)
class LogFile:
    """One file to read, and whether it was named explicitly (then it must be readable)."""

    path: Path
    explicit: bool


def discover_log_files(paths: Sequence[Path]) -> list[LogFile]:
    """The files ``paths`` name: files as given, folders searched for log-like names.

    Raises:
        FileNotFoundError: A path does not exist.
    """
    found: dict[Path, LogFile] = {}
    for path in paths:
        if path.is_file():
            found.setdefault(path.resolve(), LogFile(path=path, explicit=True))
        elif path.is_dir():
            for child in sorted(path.rglob("*")):
                relative = child.relative_to(path)
                if any(part.startswith(".") for part in relative.parts) or not child.is_file():
                    continue
                if _LOG_NAME.search(child.name.removesuffix(".gz")):
                    found.setdefault(child.resolve(), LogFile(path=child, explicit=False))
        else:
            raise FileNotFoundError(str(path))
    return list(found.values())


def service_of_file(path: Path) -> str:
    """The service a file's name suggests: its name without log, rotation and date suffixes."""
    name = path.name
    for pattern in _NOT_SERVICE:
        name = pattern.sub("", name) or name
    return service_name(name)


def service_name(text: str) -> str:
    """``text`` as a queryable service name: 1-64 characters of ``[A-Za-z0-9._-]``."""
    return _SERVICE_CHARS.sub("-", text).strip("-._")[:64] or "unknown"


def open_text(path: Path, cap: RawCap) -> IO[str]:
    """The file as text, gunzipped when its first bytes say it is gzip, every byte read
    charged to ``cap`` (reading raises RawTooLarge past it)."""
    return open_capped(path, cap)


def sniff_format(path: Path) -> LogFormat | None:
    """The format of a file from its first lines (None when neither JSONL nor text); at most
    ``_SNIFF_BYTES`` of it are read, however long its lines."""
    return detect_format(head_lines(path, _SNIFF_BYTES)[:200])


class FileLogBackend(EmbeddedLogBackend):
    """``ToolBackend`` for ``query_logs`` over log files and folders.

    Args:
        paths: Files and folders to read.
        log_format: AUTO detects each file's format; JSONL or TEXT forces one.
        service: Service of events whose line names none (else the file name gives it).
        year: Year of BSD syslog timestamps (they carry none); default: each file's
            modification year.
        max_events: Most events one response carries (the first ones in time order).
        max_store_bytes: Most bytes of log files (after gunzipping) the store reads and
            keeps; a larger source ends every query RAW_TOO_LARGE (the store holds about nine
            times what it reads).
    """

    def __init__(
        self,
        paths: Sequence[Path],
        *,
        log_format: LogFormat = LogFormat.AUTO,
        service: str | None = None,
        year: int | None = None,
        max_events: int = 20000,
        max_store_bytes: int = DEFAULT_MAX_STORE_BYTES,
    ) -> None:
        if not paths:
            raise ValueError("give at least one log file or folder")
        super().__init__(Path(paths[0]), max_events)
        self.paths = tuple(Path(p) for p in paths)
        self.log_format = LogFormat(log_format)
        self.service = service
        self.year = year
        self.max_store_bytes = max_store_bytes

    def __getstate__(self) -> dict[str, Any]:
        return {
            "paths": self.paths,
            "log_format": self.log_format,
            "service": self.service,
            "year": self.year,
            "max_events": self.max_events,
            "max_store_bytes": self.max_store_bytes,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(  # type: ignore[misc]
            state["paths"],
            log_format=state["log_format"],
            service=state["service"],
            year=state["year"],
            max_events=state["max_events"],
            max_store_bytes=state["max_store_bytes"],
        )

    def _read(self, max_raw_bytes: int) -> LogStore:
        # The store outlives the call that fills it: its own cap bounds what it reads (the
        # call's raw cap bounds what the call returns, in ``fetch``).
        try:
            files = discover_log_files(self.paths)
            formats = [(item, self._format(item)) for item in files]
            readable = [(item, fmt) for item, fmt in formats if fmt is not None]
            cap = RawCap(self.max_store_bytes)
            # Files past the cap are refused before a line is parsed.
            admit_files((item.path for item, _ in readable), cap)
        except FileNotFoundError as exc:
            raise BackendError(
                ErrorCode.BACKEND_ERROR, "a log path does not exist", {"error": "not_found"}
            ) from exc
        except OSError as exc:
            raise BackendError(
                ErrorCode.BACKEND_ERROR,
                "a log file cannot be read",
                {"error": type(exc).__name__},
            ) from exc
        events: list[dict[str, Any]] = []
        for item, fmt in readable:
            events.extend(self._read_file(item, fmt, cap))
        if not events:
            raise BackendError(
                ErrorCode.BACKEND_ERROR, "no log events in the given files", {"files": len(files)}
            )
        keys = [_epoch_ms(datetime.fromisoformat(e["ts"])) for e in events]
        return LogStore.of(list(map(FrozenEvent, events)), keys)

    def _format(self, item: LogFile) -> LogFormat | None:
        """The file's format; None for a file of a folder that is to be skipped.

        Raises:
            BackendError: A file named explicitly is of no recognised format.
        """
        if self.log_format is not LogFormat.AUTO:
            return self.log_format
        fmt = sniff_format(item.path)
        if fmt is None:
            if item.explicit:
                raise BackendError(
                    ErrorCode.BACKEND_ERROR,
                    "log format not recognised",
                    {"file": item.path.name},
                )
            log.info("skipping a file of no recognised log format: %s", item.path.name)
        return fmt

    def _read_file(self, item: LogFile, fmt: LogFormat, cap: RawCap) -> list[dict[str, Any]]:
        context = {"file": item.path.name}
        try:
            default_service = service_name(self.service or service_of_file(item.path))
            year = self.year or datetime.fromtimestamp(item.path.stat().st_mtime, tz=UTC).year
            with open_text(item.path, cap) as text:
                events, skipped = _events(parse_lines(text, fmt, year=year), default_service)
        except (OSError, EOFError, UnicodeError) as exc:
            raise BackendError(
                ErrorCode.BACKEND_ERROR,
                "a log file cannot be read",
                {**context, "error": type(exc).__name__},
            ) from exc
        if skipped:
            log.info("%s: %d lines are not events (no time header)", item.path.name, skipped)
        if not events and item.explicit:
            raise BackendError(ErrorCode.BACKEND_ERROR, "a log file holds no events", context)
        return events


def _events(
    records: Iterator[LogRecord | str], default_service: str
) -> tuple[list[dict[str, Any]], int]:
    events: list[dict[str, Any]] = []
    skipped = 0
    for record in records:
        if isinstance(record, str):
            skipped += 1
            continue
        events.append(
            {
                "ts": record.ts.astimezone(UTC).isoformat(timespec="milliseconds"),
                "service": service_name(record.service) if record.service else default_service,
                "level": record.level or "INFO",
                "message": record.message,
            }
        )
    return events, skipped
