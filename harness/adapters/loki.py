"""``query_logs`` over Grafana Loki's HTTP API (``GET /loki/api/v1/query_range``).

The typed request becomes one LogQL log query::

    {service=~"checkout-api|payment-service"} |~ "(?i)timeout" | level=~"ERROR|FATAL"

* the stream selector uses the ``service`` label (``service=~".+"`` when no service is given,
  since LogQL needs at least one non-empty matcher);
* the substring filter is decided on the *redacted* line (a raw match inside a masked value
  would be an oracle for it, see :class:`harness.backends.log_query.LogQuery`). Loki only receives its
  superset: ``(?i)`` plus the query's :attr:`~harness.backends.log_query.LogQuery.prefilter` (the
  query itself unless it holds a ``?``) with every RE2 metacharacter escaped, then escaped
  again as a LogQL string. Every returned line is then redacted and kept only when its match
  view holds the query; lines that matched only inside a secret are dropped before anything
  is counted or stored;
* the minimum level keeps the levels at or above it, by the ``level`` label that Loki's
  structured metadata or a ``logfmt``/``json`` stage provides (configurable as ``level_label``).

Time bounds are nanoseconds since the epoch, ``direction=forward`` and ``limit=max_events``, as
a log system returns the first matches in time order. Without a query the raw response is the
Loki JSON verbatim: ``{"format": "loki/query_range", "response": {...}, "limit": N}``. With
one, Loki is paged forward (from the last timestamp seen, boundary duplicates skipped) until
``max_events`` lines pass the redacted filter or the range is exhausted, so that lines which
matched only raw cannot crowd real matches out of a page; the response then holds exactly the
passing lines, in Loki's JSON shape. At most ``max_pages`` pages are read (a bound on the work
a raw-only flood can cause; reaching it marks the result as limited).

Bounded memory: every page's body is streamed with a byte count against the call's raw cap
(:mod:`harness.adapters._http_body`; a declared ``Content-Length`` past it is refused before the
body is read), and the lines a filtered query keeps are counted against the cap as they are
kept, so a page or a result past the cap ends the call RAW_TOO_LARGE, never truncated.

Failures: non-2xx, a body that is not JSON, or ``status != "success"`` → BACKEND_ERROR; an
httpx timeout → BACKEND_TIMEOUT; any other transport error → BACKEND_ERROR. Response bodies
and exception texts never leave this module except as the error's local-log message.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

import httpx
from pydantic import BaseModel

from harness.adapters._http_body import ACCEPT_IDENTITY, read_body
from harness.backends.log_query import LogQuery, match_view
from harness.contracts.errors import BackendError, ErrorCode
from harness.contracts.rawcap import RawCap
from harness.redaction import Redactor
from harness.tools.arguments import LOG_LEVELS, QueryLogsRequest

__all__ = ["LOKI_FORMAT", "LokiLogBackend", "build_logql"]

LOKI_FORMAT = "loki/query_range"
QUERY_RANGE_PATH = "/loki/api/v1/query_range"

_RE2_META = re.compile(r"([\\.+*?()|\[\]{}^$])")


def _logql_string(text: str) -> str:
    """A LogQL double-quoted string literal (Go string escaping)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    escaped = escaped.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    return f'"{escaped}"'


def build_logql(request: QueryLogsRequest, *, level_label: str = "level") -> str:
    """Return the LogQL log query for a typed request (see the module docstring)."""
    if request.services:
        # Service names are [A-Za-z0-9._-]; only the dot is an RE2 metacharacter.
        alternatives = "|".join(_RE2_META.sub(r"\\\1", s) for s in request.services)
        selector = "{service=~" + _logql_string(alternatives) + "}"
    else:
        selector = '{service=~".+"}'
    parts = [selector]
    prefilter = LogQuery.of(request.query).prefilter if request.query else ""
    if prefilter:
        parts.append("|~ " + _logql_string("(?i)" + _RE2_META.sub(r"\\\1", prefilter)))
    if request.level:
        allowed = LOG_LEVELS[LOG_LEVELS.index(request.level) :]
        # Common spellings of the same levels, so WARN also finds "warning".
        variants = {"WARN": "WARN|WARNING", "FATAL": "FATAL|CRITICAL"}
        pattern = "(?i)(" + "|".join(variants.get(level, level) for level in allowed) + ")"
        parts.append(f"| {level_label}=~" + _logql_string(pattern))
    return " ".join(parts)


def _ns(value: datetime) -> int:
    return int(value.timestamp()) * 1_000_000_000 + value.microsecond * 1000


class LokiLogBackend:
    """``ToolBackend`` for ``query_logs`` against a Loki server.

    Args:
        base_url: Loki's base URL, e.g. ``http://loki:3100``.
        client: An httpx client to use (tests pass one with a ``MockTransport``); one is
            created and owned otherwise.
        timeout_s: Per-request timeout.
        tenant: ``X-Scope-OrgID`` for multi-tenant Loki; omitted when None.
        max_events: ``limit`` sent to Loki (the most lines one response may carry).
        level_label: Label (or extracted field) holding the level.
        max_pages: Most pages read for one query with a substring filter.
        redactor: Decides substring filters on redacted lines (the default Redactor).
    """

    def __init__(
        self,
        base_url: str,
        client: httpx.Client | None = None,
        timeout_s: float = 10.0,
        tenant: str | None = None,
        max_events: int = 5000,
        level_label: str = "level",
        max_pages: int = 20,
        redactor: Redactor | None = None,
    ) -> None:
        if max_events < 1 or max_pages < 1:
            raise ValueError("max_events and max_pages must be positive")
        self.base_url = base_url.rstrip("/")
        self.timeout_s = timeout_s
        self.tenant = tenant
        self.max_events = max_events
        self.level_label = level_label
        self.max_pages = max_pages
        self._redactor = redactor or Redactor()
        self._client = client or httpx.Client(timeout=timeout_s)

    def close(self) -> None:
        """Close the underlying httpx client."""
        self._client.close()

    def params(self, request: QueryLogsRequest, start_ns: int | None = None) -> dict[str, str]:
        """The query parameters sent for ``request`` (exposed for tests and debugging)."""
        return {
            "query": build_logql(request, level_label=self.level_label),
            "start": str(_ns(request.start) if start_ns is None else start_ns),
            "end": str(_ns(request.end)),
            "limit": str(self.max_events),
            "direction": "forward",
        }

    def fetch(self, request: BaseModel, *, max_raw_bytes: int) -> dict[str, Any]:
        """Run the query; return ``{"format", "response", "limit"}``.

        Raises:
            BackendError: See the module docstring.
            RawTooLarge: A page's body, or the lines kept, pass ``max_raw_bytes``.
        """
        if not isinstance(request, QueryLogsRequest):
            raise BackendError(ErrorCode.BACKEND_ERROR, "not a QueryLogsRequest")
        if not request.query:
            body = self._get(self.params(request), RawCap(max_raw_bytes))
            return {"format": LOKI_FORMAT, "response": body, "limit": self.max_events}
        return self._fetch_filtered(request, LogQuery.of(request.query), max_raw_bytes)

    def _fetch_filtered(
        self, request: QueryLogsRequest, query: LogQuery, max_raw_bytes: int
    ) -> dict[str, Any]:
        """Page forward through Loki's superset, keeping the lines whose redacted text matches.

        Each page's body may fill the cap on its own (it is dropped once read); the lines
        kept, the response, are counted against the cap as they are kept.
        """
        kept: dict[str, tuple[dict[str, Any], list[list[str]]]] = {}
        kept_cap = RawCap(max_raw_bytes)
        count = 0
        cursor = _ns(request.start)
        boundary: set[tuple[str, str, str]] = set()
        limit_hit = False
        for page in range(self.max_pages):
            body = self._get(self.params(request, start_ns=cursor), RawCap(max_raw_bytes))
            entries = _entries(body)
            fresh = [e for e in entries if (e[0], e[1], e[2]) not in boundary]
            for labels_key, ts, line, labels in fresh:
                if not query.matches(match_view(self._redactor.redact(line))):
                    continue
                stream = kept.get(labels_key)
                if stream is None:
                    stream = kept[labels_key] = (labels, [])
                    kept_cap.charge(len(labels_key))
                # A kept value is ["<ns>","<line>"]: its text and six bytes of JSON around it.
                kept_cap.charge(len(ts) + len(line.encode()) + 6)
                stream[1].append([ts, line])
                count += 1
                if count >= self.max_events:
                    break
            if count >= self.max_events:
                limit_hit = True
                break
            if len(entries) < self.max_events or not fresh:
                break
            last = max(int(e[1]) for e in entries)
            boundary = {(e[0], e[1], e[2]) for e in entries if int(e[1]) == last}
            cursor = last
            if page == self.max_pages - 1:
                limit_hit = True
        result = [
            {"stream": labels, "values": sorted(values, key=lambda v: int(v[0]))}
            for labels, values in kept.values()
        ]
        response = {"status": "success", "data": {"resultType": "streams", "result": result}}
        # ``limit`` is what the projector compares the line count with; a bounded scan that
        # stopped early says so the same way a full page does.
        limit = count if limit_hit and count < self.max_events else self.max_events
        return {"format": LOKI_FORMAT, "response": response, "limit": limit}

    def _get(self, params: dict[str, str], cap: RawCap) -> dict[str, Any]:
        headers = {"Accept": "application/json", **ACCEPT_IDENTITY}
        if self.tenant:
            headers["X-Scope-OrgID"] = self.tenant
        try:
            with self._client.stream(
                "GET",
                self.base_url + QUERY_RANGE_PATH,
                params=params,
                headers=headers,
                timeout=self.timeout_s,
            ) as response:
                if not response.is_success:
                    raise BackendError(
                        ErrorCode.BACKEND_ERROR,
                        "loki returned a non-2xx status",
                        context={"status_code": response.status_code},
                        retryable=response.status_code >= 500 or response.status_code == 429,
                    )
                content = read_body(response, cap)
        except httpx.TimeoutException as exc:
            raise BackendError(
                ErrorCode.BACKEND_TIMEOUT, "loki query timed out", retryable=True
            ) from exc
        except httpx.HTTPError as exc:
            raise BackendError(
                ErrorCode.BACKEND_ERROR,
                "loki transport error",
                context={"error": type(exc).__name__},
                retryable=True,
            ) from exc
        try:
            body = json.loads(content)
        except ValueError as exc:
            raise BackendError(ErrorCode.BACKEND_ERROR, "loki returned invalid JSON") from exc
        if not isinstance(body, dict) or body.get("status") != "success":
            raise BackendError(ErrorCode.BACKEND_ERROR, "loki status is not success")
        return body


def _entries(body: dict[str, Any]) -> list[tuple[str, str, str, dict[str, Any]]]:
    """Every ``(labels key, ns, line, labels)`` of a streams response, in time order.

    Raises:
        BackendError: BACKEND_ERROR when the body is not a streams result.
    """
    data = body.get("data")
    if not isinstance(data, dict) or data.get("resultType") != "streams":
        raise BackendError(ErrorCode.BACKEND_ERROR, "loki result is not streams")
    out: list[tuple[str, str, str, dict[str, Any]]] = []
    try:
        for stream in data.get("result") or []:
            labels = stream.get("stream") or {}
            key = json.dumps(labels, sort_keys=True)
            for ts, line in stream["values"]:
                int(ts)
                out.append((key, str(ts), str(line), labels))
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise BackendError(ErrorCode.BACKEND_ERROR, "loki streams are malformed") from exc
    out.sort(key=lambda e: int(e[1]))
    return out
