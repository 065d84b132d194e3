"""Fake tool backends and a small projector for boundary tests.

They follow the real ports exactly; a test composes them instead of patching modules.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from harness.errors import BackendError, ErrorCode, ProjectionError
from harness.invocation import EvidenceStatus
from harness.observation import (
    EvidenceBlock,
    Projection,
    ProjectionFacts,
    RagObservation,
    RagScope,
    RelevanceLevel,
)

__all__ = ["DocsProjector", "FailingBackend", "RecordingBackend", "SlowBackend", "docs_raw"]


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
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def fetch(self, request: BaseModel) -> Any:
        with self._lock:
            self.seen.append(request)
        return self.raw(request) if callable(self.raw) else self.raw


@dataclass
class FailingBackend:
    """Always fails with the given code."""

    code: ErrorCode = ErrorCode.BACKEND_ERROR

    def fetch(self, request: BaseModel) -> Any:
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

    def fetch(self, request: BaseModel) -> Any:
        self.started.set()
        self.release.wait(self.max_wait_s)
        return docs_raw("late")


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
