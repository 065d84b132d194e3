"""``query_logs`` over Grafana Loki's HTTP API (``GET /loki/api/v1/query_range``).

The typed request becomes one LogQL log query::

    {service=~"checkout-api|payment-service"} |~ "(?i)timeout" | level=~"ERROR|FATAL"

* the stream selector uses the ``service`` label (``service=~".+"`` when no service is given,
  since LogQL needs at least one non-empty matcher);
* the substring filter is case-insensitive: ``(?i)`` plus the query with every RE2
  metacharacter escaped, then escaped again as a LogQL string;
* the minimum level keeps the levels at or above it, by the ``level`` label that Loki's
  structured metadata or a ``logfmt``/``json`` stage provides (configurable as ``level_label``).

Time bounds are nanoseconds since the epoch, ``direction=forward`` and ``limit=max_events``, as
a log system returns the first matches in time order. The raw response is the Loki JSON
verbatim: ``{"format": "loki/query_range", "response": {...}, "limit": N}``.

Failures: non-2xx, a body that is not JSON, or ``status != "success"`` → BACKEND_ERROR; an
httpx timeout → BACKEND_TIMEOUT; any other transport error → BACKEND_ERROR. Response bodies
and exception texts never leave this module except as the error's local-log message.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import httpx
from pydantic import BaseModel

from harness.errors import BackendError, ErrorCode
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
    if request.query:
        parts.append("|~ " + _logql_string("(?i)" + _RE2_META.sub(r"\\\1", request.query)))
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
    """

    def __init__(
        self,
        base_url: str,
        client: httpx.Client | None = None,
        timeout_s: float = 10.0,
        tenant: str | None = None,
        max_events: int = 5000,
        level_label: str = "level",
    ) -> None:
        if max_events < 1:
            raise ValueError("max_events must be positive")
        self.base_url = base_url.rstrip("/")
        self.timeout_s = timeout_s
        self.tenant = tenant
        self.max_events = max_events
        self.level_label = level_label
        self._client = client or httpx.Client(timeout=timeout_s)

    def close(self) -> None:
        """Close the underlying httpx client."""
        self._client.close()

    def params(self, request: QueryLogsRequest) -> dict[str, str]:
        """The query parameters sent for ``request`` (exposed for tests and debugging)."""
        return {
            "query": build_logql(request, level_label=self.level_label),
            "start": str(_ns(request.start)),
            "end": str(_ns(request.end)),
            "limit": str(self.max_events),
            "direction": "forward",
        }

    def fetch(self, request: BaseModel) -> dict[str, Any]:
        """Run the query; return ``{"format", "response", "limit"}`` or raise BackendError."""
        if not isinstance(request, QueryLogsRequest):
            raise BackendError(ErrorCode.BACKEND_ERROR, "not a QueryLogsRequest")
        headers = {"Accept": "application/json"}
        if self.tenant:
            headers["X-Scope-OrgID"] = self.tenant
        try:
            response = self._client.get(
                self.base_url + QUERY_RANGE_PATH,
                params=self.params(request),
                headers=headers,
                timeout=self.timeout_s,
            )
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
        if not response.is_success:
            raise BackendError(
                ErrorCode.BACKEND_ERROR,
                "loki returned a non-2xx status",
                context={"status_code": response.status_code},
                retryable=response.status_code >= 500 or response.status_code == 429,
            )
        try:
            body = response.json()
        except ValueError as exc:
            raise BackendError(ErrorCode.BACKEND_ERROR, "loki returned invalid JSON") from exc
        if not isinstance(body, dict) or body.get("status") != "success":
            raise BackendError(ErrorCode.BACKEND_ERROR, "loki status is not success")
        return {"format": LOKI_FORMAT, "response": body, "limit": self.max_events}
