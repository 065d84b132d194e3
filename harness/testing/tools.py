"""Fake tool backends and a small projector for boundary tests.

They follow the real ports exactly; a test composes them instead of patching modules.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from harness.contracts.errors import BackendError, ErrorCode, ProjectionError
from harness.contracts.invocation import EvidenceStatus
from harness.contracts.observation import (
    EvidenceBlock,
    Projection,
    ProjectionFacts,
    RagObservation,
    RagScope,
    RelevanceLevel,
)
from harness.contracts.rawcap import RawCap
from harness.run.budget import Budgets

__all__ = [
    "RAW_CAP",
    "DocsProjector",
    "FailingBackend",
    "RecordingBackend",
    "SlowBackend",
    "StreamingBackend",
    "docs_raw",
]

RAW_CAP = Budgets().max_raw_bytes_per_call
"""The per-call raw cap of default budgets: the ``max_raw_bytes`` a test that calls a backend
directly passes when the cap is not what it tests."""


def docs_raw(*doc_ids: str, secret: str = "RAW-ONLY-MARKER", padding: int = 0) -> dict[str, Any]:
    """A raw response listing documents; ``secret`` and ``padding`` exist only in the raw."""
    return {
        "docs": [{"doc_id": d, "title": f"Title {d}", "text": f"text of {d}"} for d in doc_ids],
        "internal": secret,
        "padding": "x" * padding,
    }


@dataclass
class RecordingBackend:
    """Returns a fixed raw (or one per call) and records the requests it saw."""

    raw: Any = field(default_factory=lambda: docs_raw("a"))
    seen: list[BaseModel] = field(default_factory=list)
    caps: list[int] = field(default_factory=list)
    """The ``max_raw_bytes`` of each fetch, in call order."""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def fetch(self, request: BaseModel, *, max_raw_bytes: int) -> Any:
        with self._lock:
            self.seen.append(request)
            self.caps.append(max_raw_bytes)
        return self.raw(request) if callable(self.raw) else self.raw


@dataclass
class FailingBackend:
    """Always fails with the given code."""

    code: ErrorCode = ErrorCode.BACKEND_ERROR

    def fetch(self, request: BaseModel, *, max_raw_bytes: int) -> Any:
        raise BackendError(self.code, "simulated failure")


@dataclass
class SlowBackend:
    """Blocks until released (or ``max_wait_s``), to exercise timeouts.

    ``started`` is set once a fetch is blocking, so a test can wait for it and then move a
    fake clock past the timeout; release it in ``finally`` so no worker thread is left behind.
    """

    release: threading.Event = field(default_factory=threading.Event)
    started: threading.Event = field(default_factory=threading.Event)
    max_wait_s: float = 5.0

    def fetch(self, request: BaseModel, *, max_raw_bytes: int) -> Any:
        self.started.set()
        self.release.wait(self.max_wait_s)
        return docs_raw("late")


@dataclass
class StreamingBackend:
    """Streams ``chunks`` chunks of ``chunk_bytes`` bytes, counting them against the call's
    cap as a real backend does; returns ``docs_raw`` padded with what it read.

    ``read_bytes`` is how many bytes the last fetch had read when it returned or stopped.
    """

    chunks: int = 4
    chunk_bytes: int = 1024
    read_bytes: int = 0

    def fetch(self, request: BaseModel, *, max_raw_bytes: int) -> Any:
        cap = RawCap(max_raw_bytes)
        self.read_bytes = 0
        for _ in range(self.chunks):
            self.read_bytes += self.chunk_bytes
            cap.charge(self.chunk_bytes)
        return docs_raw("streamed", padding=self.read_bytes)


@dataclass
class DocsProjector:
    """Projects ``docs_raw`` into a RagObservation; drops everything else of the raw."""

    fail: bool = False
    pad_excerpt: int = 0

    def project(self, tool_call_id: str, request: BaseModel, raw: Any) -> Projection:
        if self.fail or not isinstance(raw, dict) or "docs" not in raw:
            raise ProjectionError(ErrorCode.PROJECTION_ERROR, "bad raw")
        blocks = [
            EvidenceBlock(
                ref=f"doc:{d['doc_id']}#0",
                doc_id=d["doc_id"],
                title=d["title"],
                excerpt=d["text"] + "y" * self.pad_excerpt,
                relevance_level=RelevanceLevel.HIGH,
            )
            for d in raw["docs"]
        ]
        query = getattr(request, "query", "q")
        top_k = getattr(request, "top_k", 5)
        observation = RagObservation(
            tool_call_id=tool_call_id,
            evidence_status=EvidenceStatus.EVIDENCE_FOUND if blocks else EvidenceStatus.NO_EVIDENCE,
            scope=RagScope(query=query, top_k=top_k),
            relevance_level=RelevanceLevel.HIGH if blocks else None,
            evidence=blocks,
            truncated=False,
        )
        facts = ProjectionFacts(
            returned_count=len(blocks),
            evidence_identities=frozenset(f"doc:{d['doc_id']}" for d in raw["docs"]),
        )
        return Projection(observation=observation, facts=facts)
