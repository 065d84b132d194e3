"""What of a log line's first line goes into template mining (private).

Two kinds of fields decide what an operator reads off a log result, and a generic miner
erases both:

* HTTP access-log lines (envoy, nginx, Apache common/combined): their template should be the
  request — method, route, status, response flags — not the timestamp, client, user agent or
  request id that make every line different. Such a line's template is its canonical form
  ``GET /api/v1/cart/<id> HTTP status=500 flags=UC`` (ids in the path replaced), without
  mining: a miner would fold routes that differ in one token. Shown events keep the full line.
* HTTP status codes (``status=500``, ``"status": 502``, an access log's status): a miner
  folds ``status=402`` and ``status=500`` into ``status=<*>``, merging "payment declined"
  with "server error" and hiding when the errors began. Templates are therefore split by
  status after mining, and the status is written back into the template text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import compress, repeat
from operator import ge
from typing import NamedTuple

__all__ = [
    "CanonicalColumns",
    "CanonicalLine",
    "canonical_line",
    "canonical_lines",
    "with_status",
]

_ACCESS = re.compile(
    r'"(?P<method>GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS|CONNECT|TRACE) (?P<path>[^\s"?]+)[^\s"]*'
    r' HTTP/[\d.]+" (?P<status>[1-5]\d\d)(?: (?P<flags>[A-Z]{1,4}(?:,[A-Z]{1,4})*|-))?'
)
_STATUS = re.compile(r"\bstatus(?:_code)?\"?\s*[=:]\s*\"?(?P<status>[1-5]\d\d)\b")
# A path segment that names one object: all digits, a UUID/hex id, or any run of 3+ digits
# (ord_10444, SKU-10444). Version segments such as v1 or oauth2 stay.
# The slash is matched (and written back) rather than looked behind at, so that the regex engine
# can scan for it; the lookahead leaves the next slash for the next segment.
_ID_SEGMENT = re.compile(r"/(?:\d+|[0-9a-fA-F-]{8,}|[^/]*\d{3}[^/]*)(?=/|$)")
_STATUS_SLOT = re.compile(r"(\bstatus(?:_code)?\"?\s*[=:]\s*\"?)<\*>")


class CanonicalColumns(NamedTuple):
    """:class:`CanonicalLine` of many lines, a column per field."""

    texts: list[str]
    statuses: list[str | None]
    fixed: list[bool]


class CanonicalLine(NamedTuple):
    """What to mine (or, when ``fixed``, the finished template) and the line's HTTP status."""

    text: str
    status: str | None
    fixed: bool


def canonical_line(line: str) -> CanonicalLine:
    """The canonical form of a log message's first line."""
    return _canonical(line, {})


def canonical_lines(lines: Sequence[str]) -> CanonicalColumns:
    """The canonical form of each line, as :func:`canonical_line`, as three columns.

    Columns instead of one tuple per line, and each kind of line found by a substring search
    over the whole column first (``str.find`` mapped over it, at C speed; the offset found is
    where the line's own search starts): only lines that hold ``HTTP/`` are tried as
    access-log lines, only lines that hold ``status`` are searched for a status. Access-log
    lines share few routes (47k of them in a 100k-line demo result held ~1.6k distinct paths),
    so each distinct path has its ids replaced once per call.
    """
    texts = list(lines)
    statuses: list[str | None] = [None] * len(texts)
    fixed = [False] * len(texts)
    paths: dict[str, str] = {}
    request_at = list(map(str.find, texts, repeat("HTTP/")))
    for i in compress(range(len(texts)), map(ge, request_at, repeat(0))):
        found = _access(texts[i], request_at[i])
        if found is None:
            continue
        method, raw_path, status, flags = found.groups()
        path = paths.get(raw_path)
        if path is None:
            path = paths[raw_path] = _ID_SEGMENT.sub("/<id>", raw_path)
        texts[i] = f"{method} {path} HTTP status={status} flags={flags or '-'}"
        statuses[i] = status
        fixed[i] = True
    # Only lines left as they were are searched for a status (an access line's is known).
    status_at = list(map(str.find, texts, repeat("status")))
    for i in compress(range(len(texts)), map(ge, status_at, repeat(0))):
        if not fixed[i]:
            statuses[i] = _status(texts[i], status_at[i])
    return CanonicalColumns(texts, statuses, fixed)


def _canonical(line: str, paths: dict[str, str]) -> CanonicalLine:
    request = line.find("HTTP/")
    if request >= 0:
        found = _access(line, request)
        if found is not None:
            raw_path = found["path"]
            path = paths.get(raw_path)
            if path is None:
                path = paths[raw_path] = _ID_SEGMENT.sub("/<id>", raw_path)
            flags = found["flags"] or "-"
            status = found["status"]
            return CanonicalLine(
                f"{found['method']} {path} HTTP status={status} flags={flags}", status, True
            )
    return CanonicalLine(line, _status(line, line.find("status")), False)


def _access(line: str, request: int) -> re.Match[str] | None:
    """The leftmost access-log request of a line whose first ``HTTP/`` is at ``request``.

    A request's opening quote is the last quote before its first ``HTTP/`` (no quote can sit
    between them), so a match there is the leftmost one; trying the pattern there first spares
    the search its attempt at every earlier quote. Any other line is searched as before.
    """
    quote = line.rfind('"', 0, request)
    if quote >= 0:
        found = _ACCESS.match(line, quote)
        if found is not None:
            return found
    return _ACCESS.search(line)


def _status(line: str, start: int) -> str | None:
    # A status match starts where the word ``status`` does (its first one is at ``start``, -1
    # when there is none): trying the pattern only there finds the same leftmost match as a
    # search, without the search's attempt at every position (``\b`` at the start of the
    # pattern defeats the regex engine's literal scan).
    while start >= 0:
        found = _STATUS.match(line, start)
        if found is not None:
            return found["status"]
        start = line.find("status", start + 1)
    return None


def with_status(template: str, status: str | None) -> str:
    """Write ``status`` into the template's first status slot (no slot: unchanged)."""
    if status is None:
        return template
    return _STATUS_SLOT.sub(lambda m: m.group(1) + status, template, count=1)
