"""The embedded ``search_knowledge`` backend: BM25 over a local runbook directory.

The index is built once, on the first query, from ``index.json`` (a list of
``{"doc_id", "title", "path", "tags", "updated_at"}``) and the markdown files it names — or,
for a plain folder of markdown runbooks without an index, from every ``*.md`` below it (doc_id
from the file's path, title from its first heading). Reading them is that query's fetch: the
index and every document are read with a byte count against the call's raw cap (and measured
before any is read), so a folder larger than the cap ends the call RAW_TOO_LARGE having held
at most the cap, and nothing is kept from a read that stopped. Each
document is cut into chunks along headings and paragraphs; chunk numbers are the chunk's
position in its document, so ``doc:<doc_id>#<n>`` names the same text as long as the document
is unchanged. BM25 (``bm25s``) scores title + tags + chunk text.

A query returns, per matching document, its best chunk plus up to two more chunks that also
score, and a relevance level assigned the way a real RAG service would (see
:class:`RelevanceRule`). The raw response deliberately uses ``relevanceLevel`` (camelCase), as
many external services do; the projector normalises both spellings.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bm25s
from pydantic import BaseModel

from harness.approval import bundled_hashes
from harness.backends._runbook_folder import (
    Chunk,
    Document,
    default_runbooks_dir,
    load_documents,
    runbook_texts,
)
from harness.backends._runbook_text import chunk_markdown, tokenize
from harness.contracts.errors import BackendError, ErrorCode
from harness.contracts.observation import RelevanceLevel
from harness.contracts.rawcap import RawCap
from harness.tools.arguments import SearchKnowledgeRequest

# bm25s logs every index build at DEBUG through its own handler; a CLI run should stay quiet.
logging.getLogger("bm25s").setLevel(logging.WARNING)

__all__ = [
    "EMBEDDED_FORMAT",
    "EmbeddedKnowledgeBackend",
    "RelevanceRule",
    "chunk_markdown",
    "runbook_texts",
    "tokenize",
]

EMBEDDED_FORMAT = "embedded-bm25/v1"

# Extra chunks beyond the best one that a document may contribute to a result.
_EXTRA_CHUNKS_PER_DOCUMENT = 2
# Scores are rounded before sorting so that float32 noise can never reorder equal documents.
_SCORE_DECIMALS = 4

# ---------------------------------------------------------------- relevance


@dataclass(frozen=True, kw_only=True)
class RelevanceRule:
    """How a score becomes HIGH / MEDIUM / REFERENCE.

    ``ratio`` is the document's score over the best score of the query; ``coverage`` is the
    share of distinct query tokens found in the document's title, tags or returned chunks.
    A document is

    * HIGH when ``ratio >= high_ratio``, ``coverage >= high_coverage`` and
      ``score >= high_min_score``;
    * MEDIUM when ``ratio >= medium_ratio``, ``coverage >= medium_coverage`` and
      ``score >= medium_min_score``;
    * REFERENCE otherwise. A document that scores at all is returned, never dropped.

    The absolute floors keep a lone weak match from being HIGH merely because it is the best
    of a poor result set.
    """

    high_ratio: float = 0.7
    high_coverage: float = 0.5
    high_min_score: float = 1.5
    medium_ratio: float = 0.35
    medium_coverage: float = 0.25
    medium_min_score: float = 0.5

    def level(self, *, score: float, best_score: float, coverage: float) -> RelevanceLevel:
        ratio = score / best_score if best_score > 0 else 0.0
        high = (self.high_ratio, self.high_coverage, self.high_min_score)
        medium = (self.medium_ratio, self.medium_coverage, self.medium_min_score)
        for level, (min_ratio, min_coverage, min_score) in (
            (RelevanceLevel.HIGH, high),
            (RelevanceLevel.MEDIUM, medium),
        ):
            if ratio >= min_ratio and coverage >= min_coverage and score >= min_score:
                return level
        return RelevanceLevel.REFERENCE


# ---------------------------------------------------------------- index


@dataclass(frozen=True, kw_only=True)
class _Index:
    """The documents of a runbook folder, their chunks in index order and the BM25 index."""

    documents: dict[str, Document]
    chunks: list[Chunk]
    bm25: bm25s.BM25

    @classmethod
    def build(cls, root: Path, chunk_chars: int, cap: RawCap) -> _Index:
        documents = {d.doc_id: d for d in load_documents(root, chunk_chars, cap)}
        chunks = [c for d in documents.values() for c in d.chunks]
        corpus = [
            tokenize(f"{doc.header}\n{chunk.text}")
            for doc in documents.values()
            for chunk in doc.chunks
        ]
        bm25 = bm25s.BM25()
        if chunks:
            bm25.index(corpus, show_progress=False)
        return cls(documents=documents, chunks=chunks, bm25=bm25)


class EmbeddedKnowledgeBackend:
    """``ToolBackend`` for ``search_knowledge`` over bundled markdown runbooks.

    The runbooks are read and indexed on the first query (see the module docstring).

    Args:
        runbooks_dir: Directory holding ``index.json`` and the markdown files; defaults to the
            bundled demo runbooks.
        chunk_chars: Maximum characters per chunk.
        relevance: The rule that assigns relevance levels.
        approved: Content hashes of approved documents (:mod:`harness.approval`); a result
            says ``reviewed`` only when its document's hash is one of them. None: the bundled
            approvals only.
    """

    def __init__(
        self,
        runbooks_dir: Path | None = None,
        chunk_chars: int = 800,
        *,
        relevance: RelevanceRule | None = None,
        approved: frozenset[str] | None = None,
    ) -> None:
        if chunk_chars < 50:
            raise ValueError("chunk_chars must be at least 50")
        self._root = Path(runbooks_dir) if runbooks_dir is not None else default_runbooks_dir()
        self._chunk_chars = chunk_chars
        self._relevance = relevance or RelevanceRule()
        self._approved = approved if approved is not None else bundled_hashes()
        self._index: _Index | None = None
        self._lock = threading.Lock()

    # The index stays in this process; a pickled copy (a Ray task argument) reads anew.
    def __getstate__(self) -> dict[str, Any]:
        return {
            "root": self._root,
            "chunk_chars": self._chunk_chars,
            "relevance": self._relevance,
            "approved": self._approved,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(  # type: ignore[misc]
            state["root"],
            state["chunk_chars"],
            relevance=state["relevance"],
            approved=state["approved"],
        )

    def document_count(self, *, max_raw_bytes: int) -> int:
        """Documents in the index (read first, within ``max_raw_bytes``, when not yet read).

        Raises:
            BackendError: BACKEND_ERROR when the index or a runbook cannot be read.
            RawTooLarge: The runbooks pass ``max_raw_bytes``.
        """
        return len(self._load(max_raw_bytes).documents)

    def catalog_names(self, *, max_raw_bytes: int) -> dict[str, frozenset[str]]:
        """The runbooks' titles, for the world's catalog (harness.contracts.catalog)."""
        return {
            "runbooks": frozenset(d.title for d in self._load(max_raw_bytes).documents.values())
        }

    def fetch(self, request: BaseModel, *, max_raw_bytes: int) -> dict[str, Any]:
        """Search the runbooks; return the ``embedded-bm25/v1`` raw response.

        Raises:
            BackendError: BACKEND_ERROR when the request is not a search_knowledge request,
                or the index or a runbook cannot be read.
            RawTooLarge: The runbooks, read on the first query, pass ``max_raw_bytes`` (a
                response is at most ``top_k`` documents of three chunks each: far less).
        """
        if not isinstance(request, SearchKnowledgeRequest):
            raise BackendError(ErrorCode.BACKEND_ERROR, "unexpected request type")
        index = self._load(max_raw_bytes)
        query_tokens = list(dict.fromkeys(tokenize(request.query)))
        return {
            "format": EMBEDDED_FORMAT,
            "query": request.query,
            "results": self._search(index, query_tokens, request.top_k) if query_tokens else [],
        }

    def _load(self, max_raw_bytes: int) -> _Index:
        index = self._index
        if index is not None:
            return index
        with self._lock:
            if self._index is None:
                self._index = _Index.build(self._root, self._chunk_chars, RawCap(max_raw_bytes))
            return self._index

    def _search(
        self, index: _Index, query_tokens: Sequence[str], top_k: int
    ) -> list[dict[str, Any]]:
        if not index.chunks:
            return []
        scores = index.bm25.get_scores(list(query_tokens))
        wanted = frozenset(query_tokens)
        by_doc: dict[str, list[tuple[float, Chunk]]] = {}
        for chunk, raw_score in zip(index.chunks, scores, strict=True):
            score = round(float(raw_score), _SCORE_DECIMALS)
            if score > 0:
                by_doc.setdefault(chunk.doc_id, []).append((score, chunk))
        ranked: list[tuple[float, str, list[tuple[float, Chunk]]]] = []
        for doc_id, scored in by_doc.items():
            scored.sort(key=lambda item: (-item[0], item[1].n))
            # Title and tags are indexed with every chunk, so a further chunk counts only when
            # its own text matches the query; otherwise it would ride on the title's score.
            extra = [item for item in scored[1:] if item[1].tokens & wanted]
            kept = [scored[0], *extra[:_EXTRA_CHUNKS_PER_DOCUMENT]]
            ranked.append((kept[0][0], doc_id, kept))
        ranked.sort(key=lambda item: (-item[0], item[1]))
        ranked = ranked[:top_k]
        if not ranked:
            return []
        best_score = ranked[0][0]
        results: list[dict[str, Any]] = []
        for score, doc_id, kept in ranked:
            found = set().union(*(chunk.tokens for _, chunk in kept))
            found |= set(tokenize(index.documents[doc_id].header))
            coverage = len(wanted & found) / len(wanted)
            level = self._relevance.level(score=score, best_score=best_score, coverage=coverage)
            document = index.documents[doc_id]
            results.append(
                {
                    "doc_id": doc_id,
                    "title": document.title,
                    "source": document.source,
                    "chunks": [{"n": c.n, "text": c.text, "score": s} for s, c in kept],
                    "score": score,
                    "relevanceLevel": level.value,
                    "reviewed": document.sha256 in self._approved,
                }
            )
        return results
