"""Detecting a file's format: every row of the catalog scored on a sample of its lines.

A row's score is the share of sampled lines it reads: lines that start an event, directives of
the format (W3C's ``#`` lines), lines its continuation rule claims (PostgreSQL's ``DETAIL:``)
and the body lines of a block format. Lines that only ever
continue an event (indented lines, a traceback's head, ``Caused by:``) are left out of the
sample, so a Java or Python log full of stack traces is judged by its event lines. The row that
reads the most lines wins, unless a row earlier in the catalog (more specific) reads nearly as
many (:data:`SPECIFIC_SHARE` of them); when no row reads half the sample, the file has no
recognised format and its lines are kept whole as unparsed text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from harness.logformats.catalog import CATALOG
from harness.logformats.spec import LogFormatSpec, Multiline

__all__ = ["MIN_SHARE", "SAMPLE_LINES", "SPECIFIC_SHARE", "Detection", "detect", "sample_of"]

SAMPLE_LINES = 200
"""How many leading non-empty lines decide a file's format."""
SPECIFIC_SHARE = 0.9
"""A more specific row is kept over the best one when it reads this share of its lines."""
MIN_SHARE = 0.5
"""Below this share of the sample no row is taken."""

# Lines that only ever continue an event: indented, a traceback's or a chained exception's head.
_CONTINUATION = re.compile(
    r"^(?:\s|Traceback \(most recent call last\)|Caused by:|During handling of|"
    r"The above exception|\.\.\. \d+ (?:more|common frames))"
)
# Detection reads no year: any leap year lets a year-less 29 February through.
_REFERENCE = datetime(2024, 12, 31)


@dataclass(frozen=True, kw_only=True)
class Detection:
    """A file's detected format.

    Attributes:
        format: The row, or None when no row reads enough of the sample.
        share: The share of sampled lines the row reads, between 0 and 1.
    """

    format: LogFormatSpec | None
    share: float

    @property
    def name(self) -> str:
        """The row's name, or ``none``."""
        return self.format.name if self.format is not None else "none"


def sample_of(lines: Iterable[str]) -> list[str]:
    """The first :data:`SAMPLE_LINES` non-empty lines, without their line ends."""
    sample: list[str] = []
    for raw in lines:
        line = raw.rstrip("\r\n")
        if line.strip():
            sample.append(line)
            if len(sample) == SAMPLE_LINES:
                break
    return sample


def detect(lines: Iterable[str], catalog: Sequence[LogFormatSpec] = CATALOG) -> Detection:
    """The format of a file from its first lines (see the module docstring).

    Args:
        lines: The file's lines (only the first ones are read).
        catalog: The rows to score, from the most to the least specific.
    """
    sample = sample_of(lines)
    considered = [line for line in sample if not _CONTINUATION.match(line)] or sample
    if not considered:
        return Detection(format=None, share=0.0)
    counts = [(spec, _reads(spec, considered)) for spec in catalog]
    best = max(count for _, count in counts)
    if best < MIN_SHARE * len(considered):
        return Detection(format=None, share=0.0)
    spec, count = next((s, c) for s, c in counts if c >= SPECIFIC_SHARE * best)
    return Detection(format=spec, share=round(count / len(considered), 4))


def _reads(spec: LogFormatSpec, lines: list[str]) -> int:
    state: dict[str, Any] = {}
    count = 0
    for line in lines:
        if spec.comment is not None and line.startswith(spec.comment):
            spec.parse(line, _REFERENCE, state)
            count += 1
        elif (
            spec.parse(line, _REFERENCE, state) is not None
            or (spec.continuation is not None and spec.continuation.match(line))
            or (
                spec.multiline is Multiline.BLOCK
                and spec.body is not None
                and spec.body.match(line)
            )
        ):
            count += 1
    return count
