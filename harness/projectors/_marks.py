"""What a projection hands the run about its pseudonym marks (private)."""

from __future__ import annotations

from harness.contracts.observation import MarkedValues
from harness.redaction import PseudonymMarks

__all__ = ["marked_values"]

_NONE = MarkedValues()


def marked_values(marks: PseudonymMarks) -> MarkedValues:
    """The values behind ``marks``; the empty default when nothing was marked, so projections
    without hosts compare equal whatever nonce their marks drew."""
    if not marks.values:
        return _NONE
    return MarkedValues(nonce=marks.nonce, values=tuple(marks.values))
