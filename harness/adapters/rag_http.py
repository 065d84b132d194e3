"""``search_knowledge`` over an external RAG service, through httpx.

Assumed service contract (the common shape of hosted RAG search APIs)::

    POST {base_url}/v1/search
    Authorization: Bearer <api_key>          (only when an api_key is configured)
    Content-Type: application/json

    {"query": "<text>", "top_k": <1..10>}

    200 OK
    {"results": [
        {"doc_id" | "id": "...",
         "title": "...",
         "excerpt" | "content": "..."  or  "chunks": [{"n", "text", "score"}, ...],
         "score": 12.3,
         "relevanceLevel" | "relevance_level": "HIGH" | "MEDIUM" | "REFERENCE"},
        ...]}

The backend does not interpret the results: it returns the service's JSON verbatim inside
``{"format": "rag-http/v1", "response": ...}`` and leaves spelling differences to the projector,
so the canonical record keeps exactly what the service said. The body is streamed with a byte
count against the call's raw cap (:mod:`harness.adapters._http_body`): a declared length or a
body past the cap ends the call RAW_TOO_LARGE before more than the cap is held.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
from pydantic import BaseModel

from harness.adapters._http_body import ACCEPT_IDENTITY, read_body
from harness.contracts.errors import BackendError, ErrorCode
from harness.contracts.rawcap import RawCap
from harness.tools.arguments import SearchKnowledgeRequest

__all__ = ["RAG_HTTP_FORMAT", "HttpRagBackend"]

RAG_HTTP_FORMAT = "rag-http/v1"
_SEARCH_PATH = "/v1/search"


class HttpRagBackend:
    """``ToolBackend`` that queries an external RAG search service.

    Args:
        base_url: Service root, e.g. ``https://rag.internal``; ``/v1/search`` is appended.
        client: A shared ``httpx.Client``; when omitted the backend creates (and owns) one.
        timeout_s: Whole-request timeout in seconds.
        api_key: Sent as ``Authorization: Bearer <api_key>`` when set.
    """

    def __init__(
        self,
        base_url: str,
        client: httpx.Client | None = None,
        timeout_s: float = 10.0,
        api_key: str | None = None,
    ) -> None:
        if timeout_s <= 0:
            raise ValueError("timeout_s must be positive")
        self._url = base_url.rstrip("/") + _SEARCH_PATH
        self._client = client
        self._owns_client = client is None
        self._timeout_s = timeout_s
        self._api_key = api_key

    def __getstate__(self) -> dict[str, Any]:
        # An owned client holds sockets and cannot cross a process boundary; the copy builds
        # its own on first use.
        state = self.__dict__.copy()
        if state["_owns_client"]:
            state["_client"] = None
        return state

    def _http(self) -> httpx.Client:
        if self._client is None:
            self._client = httpx.Client()
        return self._client

    def close(self) -> None:
        """Close the client if this backend created it."""
        if self._owns_client and self._client is not None:
            self._client.close()
            self._client = None

    def fetch(self, request: BaseModel, *, max_raw_bytes: int) -> dict[str, Any]:
        """POST the query and return ``{"format": "rag-http/v1", "response": <JSON>}``.

        Raises:
            BackendError: BACKEND_TIMEOUT when the service does not answer in time;
                BACKEND_ERROR on transport failures, non-2xx statuses and bodies that are not
                a JSON object.
            RawTooLarge: The body (declared or read) passes ``max_raw_bytes``.
        """
        if not isinstance(request, SearchKnowledgeRequest):
            raise BackendError(ErrorCode.BACKEND_ERROR, "unexpected request type")
        headers = {"Accept": "application/json", **ACCEPT_IDENTITY}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        body = {"query": request.query, "top_k": request.top_k}
        try:
            with self._http().stream(
                "POST", self._url, json=body, headers=headers, timeout=self._timeout_s
            ) as response:
                if not response.is_success:
                    raise BackendError(
                        ErrorCode.BACKEND_ERROR,
                        "rag service returned a non-2xx status",
                        {"status_code": response.status_code},
                    )
                content = read_body(response, RawCap(max_raw_bytes))
        except httpx.TimeoutException as exc:
            raise BackendError(
                ErrorCode.BACKEND_TIMEOUT,
                "rag service timed out",
                {"timeout_s": self._timeout_s},
                retryable=True,
            ) from exc
        except httpx.HTTPError as exc:
            raise BackendError(
                ErrorCode.BACKEND_ERROR,
                f"rag service transport failure: {type(exc).__name__}",
                retryable=True,
            ) from exc
        try:
            payload = json.loads(content)
        except ValueError as exc:
            raise BackendError(ErrorCode.BACKEND_ERROR, "rag service sent invalid JSON") from exc
        if not isinstance(payload, dict):
            raise BackendError(ErrorCode.BACKEND_ERROR, "rag service sent a non-object body")
        return {"format": RAG_HTTP_FORMAT, "response": payload}
