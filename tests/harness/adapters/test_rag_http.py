"""The HTTP RAG backend: the request it sends, raw it returns, and how failures map to codes."""

from __future__ import annotations

import gzip
import json
import pickle
from collections.abc import Callable, Iterator

import httpx
import pytest

from harness.adapters.rag_http import RAG_HTTP_FORMAT, HttpRagBackend
from harness.contracts.errors import BackendError, ErrorCode, RawTooLarge
from harness.contracts.invocation import EvidenceStatus
from harness.contracts.observation import RelevanceLevel
from harness.projectors.rag import RagProjector
from harness.testing.tools import RAW_CAP
from harness.tools.arguments import QueryMysqlRequest, SearchKnowledgeRequest
from tests.paths import FIXTURES

RAG_FIXTURES = FIXTURES / "rag"
REQUEST = SearchKnowledgeRequest(query="HikariPool Connection is not available", top_k=3)


def fixture(name: str) -> bytes:
    return (RAG_FIXTURES / name).read_bytes()


def backend_with(
    handler: Callable[[httpx.Request], httpx.Response], **kwargs: object
) -> tuple[HttpRagBackend, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return handler(request)

    client = httpx.Client(transport=httpx.MockTransport(record))
    return HttpRagBackend("https://rag.example/api/", client=client, **kwargs), seen


@pytest.mark.parametrize("name", ["search_snake_case.json", "search_camel_case.json"])
def test_sends_the_documented_request_and_returns_the_body_verbatim(name: str) -> None:
    body = fixture(name)
    backend, seen = backend_with(
        lambda _: httpx.Response(200, content=body), api_key="k-123", timeout_s=2.5
    )
    raw = backend.fetch(REQUEST, max_raw_bytes=RAW_CAP)
    assert raw == {"format": RAG_HTTP_FORMAT, "response": json.loads(body)}
    [sent] = seen
    assert (sent.method, str(sent.url)) == ("POST", "https://rag.example/api/v1/search")
    assert json.loads(sent.content) == {"query": REQUEST.query, "top_k": 3}
    assert sent.headers["authorization"] == "Bearer k-123"
    assert sent.headers["content-type"] == "application/json"
    assert sent.extensions["timeout"] == {"connect": 2.5, "read": 2.5, "write": 2.5, "pool": 2.5}


def test_no_authorization_header_without_a_key() -> None:
    backend, seen = backend_with(lambda _: httpx.Response(200, json={"results": []}))
    backend.fetch(REQUEST, max_raw_bytes=RAW_CAP)
    assert "authorization" not in seen[0].headers


def test_snake_case_fixture_projects_with_normalised_levels() -> None:
    backend, _ = backend_with(
        lambda _: httpx.Response(200, content=fixture("search_snake_case.json"))
    )
    observation = (
        RagProjector()
        .project("call_9", REQUEST, backend.fetch(REQUEST, max_raw_bytes=RAW_CAP))
        .observation
    )
    assert [(b.ref, b.relevance_level) for b in observation.evidence] == [
        ("doc:kb-7731#0", RelevanceLevel.HIGH),
        ("doc:kb-1180#0", RelevanceLevel.MEDIUM),
        ("doc:kb-0042#0", RelevanceLevel.REFERENCE),
    ]
    assert observation.evidence_status is EvidenceStatus.EVIDENCE_FOUND


def test_camel_case_fixture_projects_with_chunk_numbers() -> None:
    backend, _ = backend_with(
        lambda _: httpx.Response(200, content=fixture("search_camel_case.json"))
    )
    projection = RagProjector().project(
        "call_9", REQUEST, backend.fetch(REQUEST, max_raw_bytes=RAW_CAP)
    )
    assert [(b.ref, b.relevance_level) for b in projection.observation.evidence] == [
        ("doc:confluence-88213#3", RelevanceLevel.HIGH),
        ("doc:confluence-88213#7", RelevanceLevel.HIGH),
        ("doc:confluence-90004#0", RelevanceLevel.REFERENCE),
    ]
    assert projection.facts.evidence_identities == {"doc:confluence-88213", "doc:confluence-90004"}


@pytest.mark.parametrize("status", [400, 401, 404, 429, 500, 503])
def test_non_2xx_is_backend_error(status: int) -> None:
    backend, _ = backend_with(lambda _: httpx.Response(status, json={"error": "secret detail"}))
    with pytest.raises(BackendError) as caught:
        backend.fetch(REQUEST, max_raw_bytes=RAW_CAP)
    assert (caught.value.error_code, caught.value.context) == (
        ErrorCode.BACKEND_ERROR,
        {"status_code": status},
    )


@pytest.mark.parametrize("content", [b"<html>oops</html>", b"", b"[1, 2]", b'"text"', b"{"])
def test_invalid_or_non_object_json_is_backend_error(content: bytes) -> None:
    backend, _ = backend_with(lambda _: httpx.Response(200, content=content))
    with pytest.raises(BackendError) as caught:
        backend.fetch(REQUEST, max_raw_bytes=RAW_CAP)
    assert caught.value.error_code is ErrorCode.BACKEND_ERROR


def test_timeout_is_backend_timeout() -> None:
    def slow(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out", request=request)

    backend, _ = backend_with(slow)
    with pytest.raises(BackendError) as caught:
        backend.fetch(REQUEST, max_raw_bytes=RAW_CAP)
    assert (caught.value.error_code, caught.value.retryable) == (ErrorCode.BACKEND_TIMEOUT, True)


def test_connection_failure_is_backend_error() -> None:
    def down(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    backend, _ = backend_with(down)
    with pytest.raises(BackendError) as caught:
        backend.fetch(REQUEST, max_raw_bytes=RAW_CAP)
    assert caught.value.error_code is ErrorCode.BACKEND_ERROR


class _Chunks(httpx.SyncByteStream):
    """A body that arrives in chunks, as a network transport streams it; counts the chunks
    handed over."""

    def __init__(self, *chunks: bytes) -> None:
        self.chunks = chunks
        self.read = 0

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.chunks:
            self.read += 1
            yield chunk


def _streamed(body: bytes, *, pieces: int = 4, **headers: str) -> tuple[_Chunks, httpx.Response]:
    size = -(-len(body) // pieces)
    stream = _Chunks(*(body[i : i + size] for i in range(0, len(body), size)))
    return stream, httpx.Response(200, stream=stream, headers=headers)


BODY = json.dumps({"results": [{"id": "x", "content": "y" * 5000}]}).encode()


def test_a_streamed_body_of_exactly_the_cap_passes_and_one_byte_more_is_raw_too_large() -> None:
    _, exact = _streamed(BODY)
    backend, _ = backend_with(lambda _: exact)
    raw = backend.fetch(REQUEST, max_raw_bytes=len(BODY))
    assert raw["response"] == json.loads(BODY)
    stream, over = _streamed(BODY)
    backend, _ = backend_with(lambda _: over)
    with pytest.raises(RawTooLarge) as caught:
        backend.fetch(REQUEST, max_raw_bytes=len(BODY) - 1)
    assert caught.value.error_code is ErrorCode.RAW_TOO_LARGE
    assert stream.read == 4  # the count passed the cap in the last chunk


def test_a_declared_length_past_the_cap_is_refused_before_the_body_is_read() -> None:
    stream, response = _streamed(BODY, **{"content-length": str(len(BODY))})
    backend, seen = backend_with(lambda _: response)
    with pytest.raises(RawTooLarge):
        backend.fetch(REQUEST, max_raw_bytes=len(BODY) - 1)
    assert (stream.read, seen[0].headers["accept-encoding"]) == (0, "identity")


def test_a_compressed_body_is_counted_as_it_inflates() -> None:
    bomb = gzip.compress(b'{"results": [], "pad": "' + b" " * 4_000_000 + b'"}')
    stream, response = _streamed(bomb, pieces=8, **{"content-encoding": "gzip"})
    backend, _ = backend_with(lambda _: response)
    with pytest.raises(RawTooLarge) as caught:
        backend.fetch(REQUEST, max_raw_bytes=100_000)
    # Stopped within one inflate step of the cap, in the first chunk of the body.
    assert caught.value.context["read_bytes"] <= 100_000 + 64 * 1024
    assert stream.read == 1
    small = gzip.compress(BODY)
    _, response = _streamed(small, **{"content-encoding": "gzip"})
    backend, _ = backend_with(lambda _: response)
    assert backend.fetch(REQUEST, max_raw_bytes=len(BODY))["response"] == json.loads(BODY)


def test_an_encoding_that_cannot_be_read_within_the_cap_is_backend_error() -> None:
    _, response = _streamed(BODY, **{"content-encoding": "br"})
    backend, _ = backend_with(lambda _: response)
    with pytest.raises(BackendError) as caught:
        backend.fetch(REQUEST, max_raw_bytes=RAW_CAP)
    assert caught.value.context == {"encoding": "br"}


def test_other_requests_are_refused_without_a_call() -> None:
    backend, seen = backend_with(lambda _: httpx.Response(200, json={"results": []}))
    with pytest.raises(BackendError):
        backend.fetch(QueryMysqlRequest(datasource="shop", sql="SELECT 1"), max_raw_bytes=RAW_CAP)
    assert seen == []


def test_backend_with_its_own_client_pickles() -> None:
    # Ray ships backends to worker processes; an owned client holds sockets and locks.
    backend = HttpRagBackend("http://rag.invalid", timeout_s=1.0, api_key="k")
    backend._http()  # the client exists after the first call
    clone = pickle.loads(pickle.dumps(backend))
    assert clone.__getstate__() == backend.__getstate__()
    assert clone.__getstate__()["_client"] is None
    backend.close()
