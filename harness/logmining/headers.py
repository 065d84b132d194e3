"""Header detection for the miner: a file's format from the shared catalog, its header split off.

A log line is a header (time, level, process, thread, logger) and a message. Only the message
says which event happened, so the miner should see only the message: a header mined with it
splits one event by thread or logger and adds a timestamp to every template. The headers are
those of the format layer (:mod:`harness.logformats`), the same catalog the log loader reads
with: :func:`detect_format` scores the catalog on a file's first lines, and
:meth:`DetectedFormat.split` returns a line's message, or the whole line when the line starts
no event of the format (a stack frame, a wrapped message).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from harness.logformats import LogFormatSpec, detect

__all__ = ["DetectedFormat", "detect_format"]

# Splitting reads no year; any leap year lets a year-less 29 February through.
_REFERENCE = datetime(2024, 12, 31)


@dataclass(frozen=True, kw_only=True)
class DetectedFormat:
    """A file's format, and how to split its header off a line.

    Attributes:
        format: The catalog's row most sampled lines fit, or None when too few fit any.
        share: The share of sampled lines that fit it, between 0 and 1.
    """

    format: LogFormatSpec | None
    share: float

    @property
    def name(self) -> str:
        """The format's name, or ``none`` when lines are mined whole."""
        return self.format.name if self.format is not None else "none"

    def split(self, line: str) -> str:
        """The message of ``line``; the whole line when it starts no event of the format."""
        if self.format is None:
            return line
        parsed = self.format.parse(line, _REFERENCE)
        return line if parsed is None else parsed.message


def detect_format(lines: Iterable[str]) -> DetectedFormat:
    """Detect the format of a file from its first non-empty lines (see
    :func:`harness.logformats.detect`).

    Args:
        lines: The file's lines (only the first ones are read).

    Returns:
        The detected format; ``format`` None when no row reads half the sample.
    """
    detection = detect(lines)
    return DetectedFormat(format=detection.format, share=detection.share)
