"""Time notations of log lines: one parser per notation family (private to the format layer).

A format's row names the notations its time field may be written in; :func:`read_time` tries
them in order. Each parser reads the wall-clock time *as written* and, separately, the zone the
text itself carries (an offset, ``Z``, an abbreviation such as ``CEST``, or a zone name such as
``Europe/Berlin``): choosing a zone for a line that carries none is the reader's business, not
the parser's. A notation without a year (BSD syslog's ``Mar 10 09:41:07``, klog's ``0310``)
takes the year that puts the time closest before a reference date.

Families: ``iso`` (RFC 3339 and its log relatives: a space for ``T``, a comma before the
fraction, a zone after a space), ``slash`` (``2026/03/10 09:41:07``), ``dotted``
(``2026.03.10 09:41:07``), ``clf`` (``10/Oct/2000:13:55:36 -0700``), ``ctime`` (``Tue Mar 10
09:41:07 2026``), ``bsd`` (``Mar 10 09:41:07``), ``dmy`` (``10 Mar 2026 09:41:07`` and
``10-Mar-2026 09:41:07``), ``klog`` (``0310 09:41:07.123456``), ``day-month`` (``10 Mar 09:41:07``), ``month-day`` (``03-10
09:41:07.120``), ``compact`` (``260310
094107``, ``20260310-09:41:07``), ``epoch`` (seconds, milliseconds, microseconds or
nanoseconds, told apart by magnitude).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

__all__ = [
    "ANY_NOTATION",
    "TIME_NOTATIONS",
    "WallTime",
    "epoch_time",
    "read_time",
    "resolve_zone",
    "zone_named",
]

_MONTHS = {
    name: number
    for number, name in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1
    )
}
# Zone abbreviations logs write (PostgreSQL's %t, Java's z, date(1)), as fixed offsets in
# hours. An abbreviation used for more than one zone is taken in its most common sense
# (IST: India, CST: US Central) — the zone a line names is still said to come from the line.
_ABBREVIATIONS = {
    "UTC": 0, "UT": 0, "GMT": 0, "Z": 0, "WET": 0, "WEST": 1, "BST": 1, "IST": 5.5,
    "CET": 1, "CEST": 2, "MET": 1, "MEST": 2, "EET": 2, "EEST": 3, "MSK": 3,
    "EST": -5, "EDT": -4, "CST": -6, "CDT": -5, "MST": -7, "MDT": -6, "PST": -8, "PDT": -7,
    "AKST": -9, "AKDT": -8, "HST": -10, "AST": -4, "ADT": -3, "NST": -3.5, "NDT": -2.5,
    "BRT": -3, "ART": -3, "JST": 9, "KST": 9, "HKT": 8, "SGT": 8, "AWST": 8, "PHT": 8,
    "ACST": 9.5, "ACDT": 10.5, "AEST": 10, "AEDT": 11, "NZST": 12, "NZDT": 13, "SAST": 2,
    "WIB": 7, "ICT": 7, "PKT": 5, "CAT": 2, "EAT": 3, "WAT": 1,
}  # fmt: skip
# A zone after the time: an offset (``+02:00``, ``+0200``, ``+02``), an abbreviation, or a
# zone name (``Europe/Berlin``).
_ZONE = r"(?P<zone>Z|[+-]\d{2}(?::?\d{2})?|[A-Z]{2,5}|[A-Z][A-Za-z_]+/[A-Za-z_/+-]+)"
_FRACTION = r"(?:[.,:](?P<fraction>\d{1,9}))?"
_CLOCK = r"(?P<hour>\d{1,2}):(?P<minute>\d{2}):(?P<second>\d{2})" + _FRACTION
_MONTH = r"(?P<month_name>[A-Za-z]{3})"


@dataclass(frozen=True, kw_only=True)
class WallTime:
    """A time as written in a line.

    Attributes:
        wall: The wall-clock time as written (naive); a year-less notation's year is the one
            the reference date gives.
        zone: The zone the text carries, or None when it carries none.
        has_year: Whether the text wrote the year.
    """

    wall: datetime
    zone: tzinfo | None
    has_year: bool = True


def zone_named(text: str) -> tzinfo | None:
    """The zone of an offset (``+02:00``, ``-0700``, ``+02``), an abbreviation (``CEST``) or a
    zone name (``Europe/Berlin``); None for anything else."""
    text = text.strip()
    if not text:
        return None
    found = re.fullmatch(r"([+-])(\d{2}):?(\d{2})?", text)
    if found:
        sign = -1 if found[1] == "-" else 1
        delta = timedelta(hours=int(found[2]), minutes=int(found[3] or 0))
        return UTC if not delta else timezone(sign * delta)
    upper = text.upper()
    if upper in _ABBREVIATIONS:
        hours = _ABBREVIATIONS[upper]
        return UTC if hours == 0 else timezone(timedelta(hours=hours), upper)
    if "/" in text:
        try:
            return ZoneInfo(text)
        except (ZoneInfoNotFoundError, ValueError):
            return None
    return None


def resolve_zone(name: str) -> tzinfo:
    """The zone a workspace names (``Europe/Berlin``, ``UTC``, ``+02:00``).

    Raises:
        ValueError: The name is no zone.
    """
    zone = zone_named(name)
    if zone is None:
        raise ValueError(f"unknown time zone {name!r} (use a name such as Europe/Berlin)")
    return zone


def _micro(fraction: str | None) -> int:
    # Python keeps microseconds; a longer fraction (nanoseconds) is cut, a shorter one padded.
    return int((fraction or "0")[:6].ljust(6, "0"))


def _build(
    year: int, month: int, day: int, found: re.Match[str], zone: str | None
) -> WallTime | None:
    try:
        wall = datetime(
            year,
            month,
            day,
            int(found["hour"]),
            int(found["minute"]),
            int(found["second"]),
            _micro(found["fraction"]),
        )
    except ValueError:
        return None
    tz = zone_named(zone) if zone else None
    if zone and tz is None:
        return None
    return WallTime(wall=wall, zone=tz)


def _year_before(reference: datetime, month: int, day: int) -> int:
    """The year that puts ``month``/``day`` closest before (or a day after) ``reference``."""
    year = reference.year
    try:
        candidate = datetime(year, month, day)
    except ValueError:
        return year  # 29 February of a common year: let the caller's build refuse it
    return year - 1 if candidate > reference.replace(tzinfo=None) + timedelta(days=1) else year


def _pattern(body: str, zone: bool = True) -> re.Pattern[str]:
    tail = rf"(?:\s?{_ZONE})?" if zone else ""
    return re.compile(rf"^\s*{body}{tail}\s*$")


_ISO = _pattern(r"(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})[T ]" + _CLOCK)
_SLASH = _pattern(r"(?P<year>\d{4})/(?P<month>\d{2})/(?P<day>\d{2})[ T-]" + _CLOCK)
_DOTTED = _pattern(r"(?P<year>\d{4})\.(?P<month>\d{2})\.(?P<day>\d{2})[ T-]" + _CLOCK)
_CLF = _pattern(rf"(?P<day>\d{{2}})/{_MONTH}/(?P<year>\d{{4}}):" + _CLOCK)
_CTIME = _pattern(rf"[A-Za-z]{{3}},? {_MONTH} +(?P<day>\d{{1,2}}) {_CLOCK} (?P<year>\d{{4}})")
_BSD = _pattern(rf"{_MONTH} +(?P<day>\d{{1,2}}) {_CLOCK}")
_DMY = _pattern(rf"(?P<day>\d{{1,2}})[ -]{_MONTH}[ -](?P<year>\d{{4}})[ :]{_CLOCK}")
_DAY_MONTH = _pattern(rf"(?P<day>\d{{1,2}}) {_MONTH} {_CLOCK}")
_MONTH_DAY = _pattern(r"(?P<month>\d{2})-(?P<day>\d{2}) " + _CLOCK, zone=False)
_KLOG = _pattern(r"(?P<month>\d{2})(?P<day>\d{2}) " + _CLOCK, zone=False)
_COMPACT = _pattern(
    r"(?P<year>\d{2}|\d{4})(?P<month>\d{2})(?P<day>\d{2})[ T-]"
    r"(?P<hour>\d{2}):?(?P<minute>\d{2}):?(?P<second>\d{2})" + _FRACTION
)
_EPOCH = re.compile(r"^\s*(?P<number>\d{9,19}(?:\.\d+)?)\s*$")


def _month(found: re.Match[str]) -> int | None:
    name = found.groupdict().get("month_name")
    if name is not None:
        return _MONTHS.get(name.lower())
    return int(found["month"])


def _dated(pattern: re.Pattern[str]) -> Callable[[str, datetime], WallTime | None]:
    def parse(text: str, reference: datetime) -> WallTime | None:
        found = pattern.match(text)
        if found is None:
            return None
        month = _month(found)
        if month is None:
            return None
        year = int(found["year"])
        if year < 100:  # two-digit years (HDFS's 081109, MySQL 5's 160309) are this century's
            year += 2000
        return _build(year, month, int(found["day"]), found, found.groupdict().get("zone"))

    return parse


def _yearless(pattern: re.Pattern[str]) -> Callable[[str, datetime], WallTime | None]:
    def parse(text: str, reference: datetime) -> WallTime | None:
        found = pattern.match(text)
        if found is None:
            return None
        month = _month(found)
        if month is None:
            return None
        day = int(found["day"])
        year = _year_before(reference, month, day)
        built = _build(year, month, day, found, found.groupdict().get("zone"))
        return None if built is None else WallTime(wall=built.wall, zone=built.zone, has_year=False)

    return parse


def _epoch(text: str, reference: datetime) -> WallTime | None:
    found = _EPOCH.match(text)
    if found is None:
        return None
    return epoch_time(float(found["number"]))


def epoch_time(value: float) -> WallTime | None:
    """An epoch number in seconds, milliseconds, microseconds or nanoseconds, by magnitude."""
    for scale in (1, 1e3, 1e6, 1e9):
        if abs(value / scale) < 1e11:
            try:
                moment = datetime.fromtimestamp(value / scale, tz=UTC)
            except (OverflowError, OSError, ValueError):
                return None
            return WallTime(wall=moment.replace(tzinfo=None), zone=UTC)
    return None


TIME_NOTATIONS: dict[str, Callable[[str, datetime], WallTime | None]] = {
    "iso": _dated(_ISO),
    "slash": _dated(_SLASH),
    "dotted": _dated(_DOTTED),
    "clf": _dated(_CLF),
    "ctime": _dated(_CTIME),
    "dmy": _dated(_DMY),
    "compact": _dated(_COMPACT),
    "bsd": _yearless(_BSD),
    "klog": _yearless(_KLOG),
    "day-month": _yearless(_DAY_MONTH),
    "month-day": _yearless(_MONTH_DAY),
    "epoch": _epoch,
}
"""Every notation family's parser: ``(text, reference) -> WallTime | None``."""

ANY_NOTATION = tuple(TIME_NOTATIONS)
"""Every notation, the order :func:`read_time` tries when a row names none."""


def read_time(text: str, notations: tuple[str, ...], reference: datetime) -> WallTime | None:
    """The time ``text`` writes in the first of ``notations`` that reads it, or None.

    Args:
        text: The time field of a line.
        notations: Names of :data:`TIME_NOTATIONS`, in the order to try them.
        reference: The date a year-less notation's year is chosen before.
    """
    for name in notations:
        parsed = TIME_NOTATIONS[name](text, reference)
        if parsed is not None:
            return parsed
    return None
