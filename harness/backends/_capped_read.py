"""Reading a user's files with a byte count: every byte charged to a fetch's cap as it is read.

Private to :mod:`harness.backends`. A log file or a runbook may be of any size, and one line
of it may be the whole file. :func:`open_capped` puts a counting reader under the text layer:
every byte that comes off the disk — after gunzipping, for a gzip file (detected by its magic
bytes, not its name) — is charged to the fetch's :class:`~harness.contracts.rawcap.RawCap` before the
text layer sees it, so a read stops with RAW_TOO_LARGE once the count passes the cap, however
the file is shaped. A line is never read whole first: the text layer assembles it from what
the counting reader hands over, and that reader hands over no more than the cap. Text is
decoded as UTF-8 with undecodable bytes replaced, and line ends are read universally
(``\\n``, ``\\r\\n``, ``\\r``), as Python's ``open`` reads them.

:func:`admit_files` refuses files that would pass the cap before any is parsed (a parse holds
several times the bytes it has read), and :func:`head_lines` reads the start of a file for
format detection, bounded by its own byte budget instead of a fetch's: it never fails, it only
stops.
"""

from __future__ import annotations

import gzip
import io
from collections.abc import Iterable
from pathlib import Path
from typing import IO, TYPE_CHECKING, BinaryIO

from harness.contracts.rawcap import RawCap

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

__all__ = ["admit_files", "head_bytes", "head_lines", "is_gzip", "open_capped", "read_capped"]

_GZIP_MAGIC = b"\x1f\x8b"
# Bytes read from the disk at a time; the text layer reads its own chunks out of them.
_BUFFER_BYTES = 64 * 1024


class _Counted(io.RawIOBase):
    """A binary stream that charges every byte it hands over to a cap."""

    def __init__(self, inner: BinaryIO, cap: RawCap) -> None:
        super().__init__()
        self._inner = inner
        self._cap = cap

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer, /) -> int:
        n = self._inner.readinto(buffer)  # type: ignore[attr-defined]  # every binary file has it
        self._cap.charge(n)
        return int(n)

    def close(self) -> None:
        if not self.closed:
            self._inner.close()
        super().close()


def is_gzip(path: Path) -> bool:
    """Whether the file starts with the gzip magic bytes."""
    with path.open("rb") as probe:
        return probe.read(2) == _GZIP_MAGIC


def _open_binary(path: Path) -> BinaryIO:
    if is_gzip(path):
        return gzip.open(path, "rb")  # type: ignore[return-value]  # a GzipFile is binary
    return path.open("rb")


def open_capped(path: Path, cap: RawCap, encoding: str = "utf-8") -> IO[str]:
    """The file as text in ``encoding``, gunzipped when it is gzip, every byte read charged to
    ``cap``.

    Raises:
        OSError: The file cannot be opened.
        RawTooLarge: (while reading) the bytes read passed the cap.
    """
    counted = io.BufferedReader(_Counted(_open_binary(path), cap), buffer_size=_BUFFER_BYTES)
    return io.TextIOWrapper(counted, encoding=encoding, errors="replace")


def read_capped(path: Path, cap: RawCap) -> str:
    """The whole file as text (see :func:`open_capped`).

    Raises:
        OSError: The file cannot be read.
        RawTooLarge: The bytes read passed the cap; what was read is dropped.
    """
    with open_capped(path, cap) as text:
        return text.read()


def admit_files(paths: Iterable[Path], cap: RawCap) -> None:
    """Refuse, before any of them is parsed, files whose content passes what ``cap`` still
    admits; nothing is charged.

    A plain file counts by its size; a gzip file is decompressed once, a chunk at a time, and
    counted without keeping anything (its trailer's size is not to be trusted), so that a
    gzip bomb stops within a chunk of the cap. Reading the files afterwards still counts what
    it reads (a log file may grow in between).

    Raises:
        OSError: A file cannot be read.
        RawTooLarge: The files pass what the cap admits.
    """
    total = 0
    for path in paths:
        if not is_gzip(path):
            total += path.stat().st_size
            cap.admit(total)
            continue
        with gzip.open(path, "rb") as stream:
            while chunk := stream.read(_BUFFER_BYTES):
                total += len(chunk)
                cap.admit(total)


def head_bytes(path: Path, max_bytes: int) -> bytes:
    """The first ``max_bytes`` bytes of the file (gunzipped when it is gzip)."""
    with _open_binary(path) as binary:
        return binary.read(max_bytes)


def head_lines(path: Path, max_bytes: int, encoding: str = "utf-8") -> list[str]:
    """The lines among the first ``max_bytes`` bytes of the file (gunzipped when it is gzip);
    the last may be cut at the budget (its start still says what kind of line it is)."""
    head = head_bytes(path, max_bytes)
    return list(io.TextIOWrapper(io.BytesIO(head), encoding=encoding, errors="replace"))
