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
from typing import NamedTuple

__all__ = ["CanonicalLine", "canonical_line", "with_status"]

_ACCESS = re.compile(
    r'"(?P<method>GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS|CONNECT|TRACE) (?P<path>[^\s"?]+)[^\s"]*'
    r' HTTP/[\d.]+" (?P<status>[1-5]\d\d)(?: (?P<flags>[A-Z]{1,4}(?:,[A-Z]{1,4})*|-))?'
)
_STATUS = re.compile(r"\bstatus(?:_code)?\"?\s*[=:]\s*\"?(?P<status>[1-5]\d\d)\b")
# A path segment that names one object: all digits, a UUID/hex id, or any run of 3+ digits
# (ord_10444, SKU-10444). Version segments such as v1 or oauth2 stay.
_ID_SEGMENT = re.compile(r"(?<=/)(?:\d+|[0-9a-fA-F-]{8,}|[^/]*\d{3}[^/]*)(?=/|$)")
_STATUS_SLOT = re.compile(r"(\bstatus(?:_code)?\"?\s*[=:]\s*\"?)<\*>")


class CanonicalLine(NamedTuple):
    """What to mine (or, when ``fixed``, the finished template) and the line's HTTP status."""

    text: str
    status: str | None
    fixed: bool


def canonical_line(line: str) -> CanonicalLine:
    """The canonical form of a log message's first line."""
    if "HTTP/" in line:
        found = _ACCESS.search(line)
        if found is not None:
            path = _ID_SEGMENT.sub("<id>", found["path"])
            flags = found["flags"] or "-"
            status = found["status"]
            return CanonicalLine(
                f"{found['method']} {path} HTTP status={status} flags={flags}", status, True
            )
    if "status" in line:
        found = _STATUS.search(line)
        if found is not None:
            return CanonicalLine(line, found["status"], False)
    return CanonicalLine(line, None, False)


def with_status(template: str, status: str | None) -> str:
    """Write ``status`` into the template's first status slot (no slot: unchanged)."""
    if status is None:
        return template
    return _STATUS_SLOT.sub(lambda m: m.group(1) + status, template, count=1)
