"""The ``query_logs`` backend over a user's own log files and folders.

The same store and query as the bundled demo logs (:class:`EmbeddedLogBackend`: read once,
kept in memory sorted by time and indexed by service and level, a query bisects its range;
raw format ``embedded-jsonl/v1``), fed from files instead of the bundled JSONL, each optionally
gzipped (detected by its magic bytes, not its name). Each file is read by the format layer
(:mod:`harness.logformats`, through :mod:`harness.backends.log_reading`): its encoding and
format detected (or its format chosen by name or pattern, for every file or per path), its
lines read into events with a time, a level (None when the line states none), a service and a
message.

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
``*.jsonl``, ``*.json``, ``*.ndjson``, ``*.out``, ``*.err``, each optionally ``.gz``, and the
names system logs have without a suffix: ``syslog``, ``messages``, ``current``…; hidden files
are skipped). Nothing is dropped silently: a line no format claims is kept as an unparsed
event (its text searchable, its time that of the event before it in the file, else after it,
else the file's modification time, marked ``ts_inferred``), and a file that cannot be read at
all (binary, unreadable) is named in every response's ``unread_files``.

The service of an event is the one its line names (a JSON key, the syslog program, the
involved object of a Kubernetes event), else the ``service`` given to the backend, else the
file's path (:func:`harness.logformats.service_of_path`: the file name without its suffixes,
or its folder's name when the file name is generic, ``edge-gateway/access.log``).
"""

from __future__ import annotations

import fnmatch
import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from harness.backends._capped_read import admit_files, open_capped
from harness.backends._log_store import FrozenEvent, LogStore
from harness.backends.log_reading import FileReading, read_log_file
from harness.backends.logs_embedded import EmbeddedLogBackend, _epoch_ms
from harness.contracts.errors import BackendError, ErrorCode
from harness.contracts.raw import RawResponse
from harness.contracts.rawcap import RawCap
from harness.logformats import (
    AUTO,
    UNPARSED,
    LogEvent,
    LogFormatSpec,
    choose_format,
    resolve_zone,
    service_name,
    service_of_path,
)

__all__ = [
    "DEFAULT_MAX_STORE_BYTES",
    "FileLogBackend",
    "LogFile",
    "discover_log_files",
    "format_for",
    "open_text",
    "service_name",
    "service_of_file",
]

log = logging.getLogger(__name__)

DEFAULT_MAX_STORE_BYTES = 64 * 1024 * 1024
"""What a store of log files reads at most by default (``HARNESS_LOG_STORE_MAX_BYTES``)."""

_LOG_NAME = re.compile(
    r"(?:\.(?:log|txt|jsonl|json|ndjson|out|err)(?:\.\d+)?|^(?:syslog|messages|current|"
    r"kern|auth|daemon|secure|maillog|cron|dmesg)(?:\.\d+)?)$",
    re.IGNORECASE,
)


@dataclass(frozen=True, kw_only=True)
class LogFile:
    """One file to read, and whether it was named explicitly."""

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
                if _LOG_NAME.search(re.sub(r"\.(?:gz|bz2|xz)$", "", child.name)):
                    found.setdefault(child.resolve(), LogFile(path=child, explicit=False))
        else:
            raise FileNotFoundError(str(path))
    return list(found.values())


def service_of_file(path: Path) -> str:
    """The service a file's path suggests (see :func:`harness.logformats.service_of_path`)."""
    return service_of_path(path)


def open_text(path: Path, cap: RawCap) -> Any:
    """The file as UTF-8 text, gunzipped when its first bytes say it is gzip, every byte read
    charged to ``cap`` (reading raises RawTooLarge past it)."""
    return open_capped(path, cap)


def format_for(path: Path, default: str, per_path: Mapping[str, str]) -> str:
    """The format choice for one file: the first ``per_path`` glob its path (or name) matches,
    else ``default``."""
    for pattern, choice in per_path.items():
        if fnmatch.fnmatch(str(path), pattern) or fnmatch.fnmatch(path.name, pattern):
            return choice
    return default


class FileLogBackend(EmbeddedLogBackend):
    """``ToolBackend`` for ``query_logs`` over log files and folders.

    Args:
        paths: Files and folders to read.
        log_format: ``auto`` detects each file's format; a catalog name or a pattern forces
            one (``jsonl`` and ``text``, the choices of old, are names of the catalog).
        formats: Per-path choices, ``{glob: name or pattern}``, over ``log_format``.
        service: Service of events whose line names none (else the file's path gives it).
        year: Year of year-less timestamps (BSD syslog, klog): they are placed in it.
        timezone: Zone of times written without one (a name such as ``Europe/Berlin``);
            default: UTC, said so.
        as_of: The investigation's "now": year-less times are placed before it.
        max_events: Most events one response carries (the first ones in time order).
        max_store_bytes: Most bytes of log files (after gunzipping) the store reads and
            keeps; a larger source ends every query RAW_TOO_LARGE (the store holds about nine
            times what it reads).
    """

    def __init__(
        self,
        paths: Sequence[Path],
        *,
        log_format: str = AUTO,
        formats: Mapping[str, str] | None = None,
        service: str | None = None,
        year: int | None = None,
        timezone: str | None = None,
        as_of: datetime | None = None,
        max_events: int = 20000,
        max_store_bytes: int = DEFAULT_MAX_STORE_BYTES,
    ) -> None:
        if not paths:
            raise ValueError("give at least one log file or folder")
        super().__init__(Path(paths[0]), max_events)
        self.paths = tuple(Path(p) for p in paths)
        self.log_format = str(log_format)
        self.formats = dict(formats or {})
        for choice in (self.log_format, *self.formats.values()):
            choose_format(choice)  # refuse an unknown name or a broken pattern now
        self.service = service
        self.year = year
        self.timezone = timezone
        self.zone = resolve_zone(timezone) if timezone else None
        self.as_of = as_of
        self.max_store_bytes = max_store_bytes
        self.unread: tuple[str, ...] = ()

    def __getstate__(self) -> dict[str, Any]:
        return {
            "paths": self.paths,
            "log_format": self.log_format,
            "formats": self.formats,
            "service": self.service,
            "year": self.year,
            "timezone": self.timezone,
            "as_of": self.as_of,
            "max_events": self.max_events,
            "max_store_bytes": self.max_store_bytes,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(  # type: ignore[misc]
            state["paths"],
            log_format=state["log_format"],
            formats=state["formats"],
            service=state["service"],
            year=state["year"],
            timezone=state["timezone"],
            as_of=state["as_of"],
            max_events=state["max_events"],
            max_store_bytes=state["max_store_bytes"],
        )

    def fetch(self, request: Any, *, max_raw_bytes: int) -> RawResponse:
        """The embedded backend's response, naming the files that could not be read at all.

        Raises:
            BackendError: BACKEND_ERROR when no file holds an event.
            RawTooLarge: See :class:`EmbeddedLogBackend`.
        """
        raw = super().fetch(request, max_raw_bytes=max_raw_bytes)
        if not self.unread:
            return raw
        value = dict(raw.value())
        value["unread_files"] = list(self.unread)
        return RawResponse.of(value)

    def read_files(self, cap: RawCap) -> list[FileReading]:
        """Every file the paths name, read with its format (see the module docstring).

        Raises:
            FileNotFoundError: A path does not exist.
            RawTooLarge: The files pass ``cap``.
        """
        files = discover_log_files(self.paths)
        # Files past the cap are refused before a line is parsed.
        admit_files((item.path for item in files), cap)
        readings = []
        for item in files:
            choice = format_for(item.path, self.log_format, self.formats)
            spec: LogFormatSpec | None = choose_format(choice)
            readings.append(
                read_log_file(
                    item.path,
                    cap,
                    spec=spec,
                    chosen=choice.strip().lower() != AUTO,
                    zone=self.zone,
                    reference=self._reference(),
                )
            )
        return readings

    def _reference(self) -> datetime | None:
        if self.year is not None:
            return datetime(self.year, 12, 31, 23, 59, 59)
        return self.as_of

    def _read(self, max_raw_bytes: int) -> LogStore:
        # The store outlives the call that fills it: its own cap bounds what it reads (the
        # call's raw cap bounds what the call returns, in ``fetch``).
        try:
            readings = self.read_files(RawCap(self.max_store_bytes))
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
        unread: list[str] = []
        for reading in readings:
            if reading.error is not None:
                log.warning("%s cannot be read: %s", reading.path.name, reading.error)
                unread.append(reading.path.name)
                continue
            if reading.unparsed:
                log.info("%s: %d lines no format claims", reading.path.name, reading.unparsed)
            events.extend(self.stored_events(reading))
        self.unread = tuple(unread)
        if not events:
            raise BackendError(
                ErrorCode.BACKEND_ERROR,
                "no log events in the given files",
                {"files": len(readings)},
            )
        keys = [_epoch_ms(datetime.fromisoformat(e["ts"])) for e in events]
        return LogStore.of(list(map(FrozenEvent, events)), keys)

    def stored_events(self, reading: FileReading) -> list[dict[str, Any]]:
        """The store's events of one file: times in UTC (inferred ones marked), services named."""
        default_service = service_name(self.service or service_of_file(reading.path))
        fallback = datetime.fromtimestamp(reading.path.stat().st_mtime, tz=UTC)
        return [
            _store_event(event, time, inferred, default_service)
            for event, time, inferred in _timed(reading.events, fallback)
        ]


def _timed(events: Sequence[LogEvent], fallback: datetime) -> list[tuple[LogEvent, datetime, bool]]:
    """Each event with its time; an event without one takes the time of the event before it,
    else of the one after it, else ``fallback`` (and is marked inferred)."""
    times = [event.time for event in events]
    after: list[datetime | None] = [None] * len(events)
    following: datetime | None = None
    for index in range(len(events) - 1, -1, -1):
        after[index] = following
        following = times[index] or following
    out: list[tuple[LogEvent, datetime, bool]] = []
    previous: datetime | None = None
    for index, event in enumerate(events):
        if event.time is not None:
            previous = event.time
            out.append((event, event.time, False))
        else:
            out.append((event, previous or after[index] or fallback, True))
    return out


def _store_event(
    event: LogEvent, time: datetime, inferred: bool, default_service: str
) -> dict[str, Any]:
    stored: dict[str, Any] = {
        "ts": time.astimezone(UTC).isoformat(timespec="milliseconds"),
        "service": service_name(event.service) if event.service else default_service,
        "level": event.level,
        "message": event.message,
    }
    if inferred:
        stored["ts_inferred"] = True
    if event.format == UNPARSED:
        stored["unparsed"] = True
    return stored
