"""The Loki backend: the exact query it sends, the raw it returns, failures as stable codes."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime

import httpx
import pytest

from harness.adapters.loki import LOKI_FORMAT, LokiLogBackend, build_logql
from harness.contracts.errors import BackendError, ErrorCode, RawTooLarge
from harness.contracts.invocation import EvidenceStatus
from harness.projectors.logs import LogsProjector
from harness.testing.tools import RAW_CAP
from harness.tools.arguments import QueryLogsRequest
from tests.paths import FIXTURES

LOKI_FIXTURES = FIXTURES / "loki"
REQUEST = QueryLogsRequest(
    start="2026-11-02T14:00:00Z",
    end="2026-11-02T15:00:00.5Z",
    services=["payment-service", "checkout-api"],
    query='timed out (3000ms) "x"',
    level="WARN",
)


def fixture(name: str) -> bytes:
    return (LOKI_FIXTURES / name).read_bytes()


def backend_with(
    handler: Callable[[httpx.Request], httpx.Response], **kwargs: object
) -> tuple[LokiLogBackend, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return handler(request)

    client = httpx.Client(transport=httpx.MockTransport(record))
    return LokiLogBackend("http://loki:3100/", client=client, **kwargs), seen


def test_sends_the_exact_query_range_request() -> None:
    backend, seen = backend_with(
        lambda _: httpx.Response(200, content=fixture("query_range_streams.json")),
        tenant="shop-prod",
        max_events=500,
    )
    backend.fetch(REQUEST, max_raw_bytes=RAW_CAP)
    [request] = seen
    assert request.method == "GET"
    assert request.url.path == "/loki/api/v1/query_range"
    assert dict(request.url.params) == {
        "query": (
            '{service=~"checkout-api|payment-service"} '
            '|~ "(?i)timed out \\\\(3000ms\\\\) \\"x\\"" '
            '| level=~"(?i)(WARN|WARNING|ERROR|FATAL|CRITICAL)"'
        ),
        "start": str(int(datetime(2026, 11, 2, 14, tzinfo=UTC).timestamp()) * 10**9),
        "end": str(int(datetime(2026, 11, 2, 15, tzinfo=UTC).timestamp()) * 10**9 + 500_000_000),
        "limit": "500",
        "direction": "forward",
    }
    assert request.headers["X-Scope-OrgID"] == "shop-prod"


def test_logql_without_filters_selects_every_service() -> None:
    request = QueryLogsRequest(start="2026-11-02T14:00:00Z", end="2026-11-02T15:00:00Z")
    assert build_logql(request) == '{service=~".+"}'
    dotted = QueryLogsRequest(
        start="2026-11-02T14:00:00Z", end="2026-11-02T15:00:00Z", services=["a.b"], level="FATAL"
    )
    assert build_logql(dotted) == '{service=~"a\\\\.b"} | level=~"(?i)(FATAL|CRITICAL)"'


def test_raw_is_the_verbatim_response_without_a_query() -> None:
    body = fixture("query_range_streams.json")
    backend, _ = backend_with(lambda _: httpx.Response(200, content=body), max_events=50)
    request = REQUEST.model_copy(update={"query": None})
    raw = backend.fetch(request, max_raw_bytes=RAW_CAP)
    assert raw == {"format": LOKI_FORMAT, "response": json.loads(body), "limit": 50}


def test_with_a_query_the_raw_holds_only_lines_matching_on_redacted_text() -> None:
    # Loki's raw filter is a superset: "sup3r" matches the line with the JDBC password
    # raw, but that line shows <SECRET> there, so it is not a match and is not stored.
    body = fixture("query_range_streams.json")
    backend, _ = backend_with(lambda _: httpx.Response(200, content=body), max_events=50)
    found = backend.fetch(REQUEST.model_copy(update={"query": "Sup3r"}), max_raw_bytes=RAW_CAP)
    assert found["response"]["data"]["result"] == []
    hikari = backend.fetch(
        REQUEST.model_copy(update={"query": "hikaripool-1"}), max_raw_bytes=RAW_CAP
    )
    [stream] = hikari["response"]["data"]["result"]
    assert stream["stream"]["service"] == "checkout-api"
    assert [line for _, line in stream["values"]] == [
        "[o-8080-exec-31] o.h.engine.jdbc.spi.SqlExceptionHelper : HikariPool-1 - Connection is "
        "not available, request timed out after 3000ms. jdbc:mysql://checkout:Sup3rS3cret!"
        "@ip-10-0-9-4.ec2.internal:3306/shop"
    ]
    assert hikari["limit"] == 50


@pytest.mark.parametrize(
    ("response", "code"),
    [
        (
            httpx.Response(400, text="parse error at line 1, col 7: syntax error"),
            ErrorCode.BACKEND_ERROR,
        ),
        (httpx.Response(503, text="too many outstanding requests"), ErrorCode.BACKEND_ERROR),
        (httpx.Response(200, text="<html>gateway</html>"), ErrorCode.BACKEND_ERROR),
        (httpx.Response(200, content=b"[1, 2]"), ErrorCode.BACKEND_ERROR),
        (
            httpx.Response(200, content=fixture("query_range_status_error.json")),
            ErrorCode.BACKEND_ERROR,
        ),
    ],
)
def test_failures_map_to_backend_error(response: httpx.Response, code: ErrorCode) -> None:
    backend, _ = backend_with(lambda _: response)
    with pytest.raises(BackendError) as caught:
        backend.fetch(REQUEST, max_raw_bytes=RAW_CAP)
    assert caught.value.error_code is code
    # Nothing from the response body reaches the error.
    assert "parse error" not in str(caught.value) and "outstanding" not in str(caught.value)


def test_timeout_maps_to_backend_timeout() -> None:
    def slow(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out", request=request)

    backend, _ = backend_with(slow)
    with pytest.raises(BackendError) as caught:
        backend.fetch(REQUEST, max_raw_bytes=RAW_CAP)
    assert caught.value.error_code is ErrorCode.BACKEND_TIMEOUT


def test_connection_failure_maps_to_backend_error() -> None:
    def down(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    backend, _ = backend_with(down)
    with pytest.raises(BackendError) as caught:
        backend.fetch(REQUEST, max_raw_bytes=RAW_CAP)
    assert caught.value.error_code is ErrorCode.BACKEND_ERROR


def test_recorded_streams_project_end_to_end() -> None:
    backend, _ = backend_with(
        lambda _: httpx.Response(200, content=fixture("query_range_streams.json"))
    )
    request = QueryLogsRequest(start="2026-11-02T14:00:00Z", end="2026-11-02T15:00:00Z")
    projection = LogsProjector().project(
        "call_1", request, backend.fetch(request, max_raw_bytes=RAW_CAP)
    )
    observation = projection.observation
    assert observation.evidence_status is EvidenceStatus.EVIDENCE_FOUND
    assert projection.facts.returned_count == 6
    # Services come from service / app / service_name; levels from labels or the line.
    assert sorted((e.ref, e.service, e.level) for e in observation.events) == [
        ("evt:0", "checkout-api", "ERROR"),
        ("evt:1", "checkout-api", "ERROR"),
        ("evt:2", "checkout-api", "ERROR"),
        ("evt:3", "payment-service", "ERROR"),
        ("evt:4", "payment-service", "WARN"),
        ("evt:5", "inventory-service", "WARN"),
    ]
    text = observation.model_dump_json()
    for secret in ("Sup3rS3cret", "sk_live_51OuEMLAlTWGaDypq4P5cuDHbuKeG4tAGPYHJpEXQ7zE8mKK3j",
                   "ops@example.com", "10.0.4.31", "ip-10-0-9-4"):  # fmt: skip
        assert secret not in text
    assert observation.actual_start == datetime(2026, 11, 2, 14, 5, 10, 608000, tzinfo=UTC)
    assert observation.actual_end == datetime(2026, 11, 2, 14, 50, 59, 999000, tzinfo=UTC)
    assert observation.truncated is False


def test_recorded_empty_result_is_no_evidence() -> None:
    backend, _ = backend_with(
        lambda _: httpx.Response(200, content=fixture("query_range_empty.json"))
    )
    projection = LogsProjector().project(
        "call_1", REQUEST, backend.fetch(REQUEST, max_raw_bytes=RAW_CAP)
    )
    assert projection.observation.evidence_status is EvidenceStatus.NO_EVIDENCE
    assert projection.facts.returned_count == 0


# ---------------------------------------------------------------- the raw cap


class _Chunks(httpx.SyncByteStream):
    """A body that arrives in chunks, as a network transport streams it."""

    def __init__(self, body: bytes, pieces: int = 4) -> None:
        size = -(-len(body) // pieces)
        self.chunks = [body[i : i + size] for i in range(0, len(body), size)]
        self.read = 0

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.chunks:
            self.read += 1
            yield chunk


def test_a_page_of_exactly_the_cap_is_read_and_one_byte_more_is_raw_too_large() -> None:
    body = fixture("query_range_streams.json")
    unfiltered = REQUEST.model_copy(update={"query": None})
    backend, _ = backend_with(lambda _: httpx.Response(200, stream=_Chunks(body)))
    raw = backend.fetch(unfiltered, max_raw_bytes=len(body))
    assert raw["response"] == json.loads(body)
    stream = _Chunks(body)
    backend, seen = backend_with(lambda _: httpx.Response(200, stream=stream))
    with pytest.raises(RawTooLarge) as caught:
        backend.fetch(unfiltered, max_raw_bytes=len(body) - 1)
    assert caught.value.error_code is ErrorCode.RAW_TOO_LARGE
    assert seen[0].headers["accept-encoding"] == "identity"


def test_a_declared_length_past_the_cap_is_refused_before_the_body_is_read() -> None:
    body = fixture("query_range_streams.json")
    stream = _Chunks(body)
    headers = {"content-length": str(len(body))}
    backend, _ = backend_with(lambda _: httpx.Response(200, stream=stream, headers=headers))
    with pytest.raises(RawTooLarge):
        backend.fetch(REQUEST.model_copy(update={"query": None}), max_raw_bytes=len(body) - 1)
    assert stream.read == 0


def test_the_lines_a_filtered_query_keeps_are_counted_across_pages() -> None:
    # Each page: one matching line of 4 KB among nine that do not match (Loki's filter is
    # a superset). Every page fits the cap; the lines kept from two do not.
    big = "ERROR checkout timeout " + "x" * 4000

    def page(request: httpx.Request) -> httpx.Response:
        start = int(request.url.params["start"])
        values = [[str(start + n + 1), big if n == 0 else "INFO ok"] for n in range(10)]
        body = {"status": "success", "data": {"resultType": "streams", "result": [
            {"stream": {"service": "checkout-api"}, "values": values}
        ]}}  # fmt: skip
        return httpx.Response(200, json=body)

    request = REQUEST.model_copy(update={"query": "timeout"})
    backend, seen = backend_with(page, max_events=10, max_pages=5)
    with pytest.raises(RawTooLarge):
        backend.fetch(request, max_raw_bytes=6_000)
    assert len(seen) == 2  # stopped in the second page, when its line was kept
    kept = backend.fetch(request, max_raw_bytes=RAW_CAP)
    assert [len(v[1]) for v in kept["response"]["data"]["result"][0]["values"]] == [len(big)] * 5
