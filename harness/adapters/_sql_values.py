"""Database values as JSON-compatible scalars: what a SQL raw response holds.

Private to :mod:`harness.adapters` (the read-only executor re-exports :func:`json_safe_value`).
Numbers stay numbers, times become ISO 8601 text, binary becomes ``{"$base64": "..."}``.
"""

from __future__ import annotations

import base64
import datetime as dt
import math
from decimal import Decimal
from typing import Any

__all__ = ["json_safe_value"]

_BYTES_MARKER = "$base64"


def json_safe_value(value: Any) -> Any:
    """One database value as a JSON-compatible scalar, keeping numbers numeric.

    Decimals become ``int`` when integral and ``float`` when the float round-trips exactly, else
    their exact text; non-finite floats become text; dates and times become ISO 8601 text;
    binary becomes ``{"$base64": "..."}`` so it cannot be mistaken for a string.
    """
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, Decimal):
        return _decimal(value)
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return _mysql_time(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return {_BYTES_MARKER: base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, set | frozenset):
        return ",".join(sorted(str(v) for v in value))  # MySQL SET columns
    return str(value)


def _decimal(value: Decimal) -> int | float | str:
    if not value.is_finite():
        return str(value)
    # MySQL DECIMAL holds at most 65 digits; the bound keeps hostile exponents from
    # materialising astronomically large integers.
    if value.adjusted() < 66 and value == value.to_integral_value():
        return int(value)
    as_float = float(value)
    if math.isfinite(as_float) and Decimal(repr(as_float)) == value:
        return as_float
    return str(value)


def _mysql_time(value: dt.timedelta) -> str:
    # PyMySQL returns TIME columns as timedelta; render them as MySQL does, e.g. "-01:02:03".
    sign = "-" if value < dt.timedelta(0) else ""
    total_us = abs(value) // dt.timedelta(microseconds=1)
    seconds, micros = divmod(total_us, 1_000_000)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    text = f"{sign}{hours:02d}:{minutes:02d}:{secs:02d}"
    return f"{text}.{micros:06d}" if micros else text
