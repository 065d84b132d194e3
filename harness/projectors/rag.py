"""The ``search_knowledge`` projector: bounded evidence blocks with stable identities.

Input is one of the two raw formats the knowledge backends produce:

* ``embedded-bm25/v1``: ``{"format", "query", "results": [...]}``
  (:mod:`harness.backends.knowledge_embedded`);
* ``rag-http/v1``: ``{"format", "response": {"results": [...]}}``
  (:mod:`harness.adapters.rag_http`), the external service's JSON verbatim.

Results are parsed leniently: ``doc_id``/``id``/``docId``; ``chunks`` (objects or strings) or a
single ``excerpt``/``content``/``text``; ``relevanceLevel``/``relevance_level``/``relevance``.

Relevance rule: the level is matched case-insensitively against HIGH / MEDIUM / REFERENCE; a
missing or unrecognised level becomes REFERENCE, the lowest level, because a projector may
demote what it cannot read but must never promote it. When several recognised levels are
present and disagree, the lowest wins for the same reason; unrecognised values are ignored. REFERENCE documents are kept like any other: an answer
made only of REFERENCE documents is still EVIDENCE_FOUND (seed tool-dual-view §6.1).

Document identity is the backend's ``doc_id``; a result without one is named
``h<sha256(title, source)>`` so that the same document gets the same identity on every call.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError, field_validator

from harness.approval import declares_review
from harness.contracts.errors import ErrorCode, ProjectionError
from harness.contracts.invocation import EvidenceStatus
from harness.contracts.observation import (
    EvidenceBlock,
    Projection,
    ProjectionFacts,
    RagObservation,
    RagScope,
    RelevanceLevel,
)
from harness.projectors._marks import marked_values
from harness.redaction import PseudonymMarks, without_partial_mark
from harness.redaction import redact as default_redact
from harness.tools.arguments import SearchKnowledgeRequest

__all__ = ["RagProjector", "RagProjectorLimits", "normalize_relevance"]

ELLIPSIS = "…"
_RANK = {RelevanceLevel.REFERENCE: 0, RelevanceLevel.MEDIUM: 1, RelevanceLevel.HIGH: 2}
_FORMATS = ("embedded-bm25/v1", "rag-http/v1")


@dataclass(frozen=True, kw_only=True)
class RagProjectorLimits:
    """Bounds of one knowledge observation.

    Attributes:
        max_documents: Documents shown (also capped by the request's ``top_k``).
        max_excerpts_per_document: Evidence blocks per document.
        max_excerpt_chars: Characters per excerpt, ``…`` included.
        max_observation_bytes: Serialized observation size (UTF-8 JSON).
    """

    max_documents: int = 5
    max_excerpts_per_document: int = 2
    max_excerpt_chars: int = 600
    max_observation_bytes: int = 8192

    def __post_init__(self) -> None:
        if min(self.max_documents, self.max_excerpts_per_document) < 1:
            raise ValueError("document and excerpt limits must be at least 1")
        if self.max_excerpt_chars < 2:
            raise ValueError("max_excerpt_chars must leave room for text and the ellipsis")


def normalize_relevance(*values: Any) -> RelevanceLevel:
    """The lowest recognised level among ``values``; REFERENCE when none is recognised."""
    levels = []
    for value in values:
        if isinstance(value, str):
            try:
                levels.append(RelevanceLevel(value.strip().upper()))
            except ValueError:
                continue
    return min(levels, key=_RANK.__getitem__) if levels else RelevanceLevel.REFERENCE


# ---------------------------------------------------------------- lenient raw shapes


class _RawChunk(BaseModel):
    model_config = ConfigDict(extra="ignore")

    n: int | None = Field(
        default=None,
        ge=0,
        validation_alias=AliasChoices("n", "index", "chunk_index", "chunkIndex"),
        description="Chunk number within its document.",
    )
    text: str = Field(
        default="",
        validation_alias=AliasChoices("text", "content", "excerpt"),
        description="Chunk text.",
    )


class _RawResult(BaseModel):
    model_config = ConfigDict(extra="ignore")

    doc_id: str | None = Field(
        default=None,
        validation_alias=AliasChoices("doc_id", "docId", "id"),
        description="The backend's document identity.",
    )
    title: str = Field(default="", description="Document title.")
    source: str = Field(
        default="",
        validation_alias=AliasChoices("source", "url", "path"),
        description="Where the document lives.",
    )
    chunks: list[_RawChunk] | None = Field(default=None, description="Scored chunks.")
    excerpt: str | None = Field(
        default=None,
        validation_alias=AliasChoices("excerpt", "content", "text"),
        description="A single excerpt, when the service returns no chunks.",
    )
    reviewed: Any = Field(default=None, description="embedded-bm25/v1: the approval's verdict.")
    metadata: Any = Field(default=None, description="rag-http/v1: the document's metadata.")
    relevance_camel: Any = Field(default=None, validation_alias="relevanceLevel")
    relevance_snake: Any = Field(default=None, validation_alias="relevance_level")
    relevance_plain: Any = Field(default=None, validation_alias="relevance")

    @field_validator("doc_id", mode="before")
    @classmethod
    def _id_text(cls, value: Any) -> Any:
        # Services return numeric ids as often as strings; the identity is their text.
        if isinstance(value, bool):
            raise ValueError("a boolean is not a document id")
        if isinstance(value, int):
            return str(value)
        if isinstance(value, str):
            return value.strip() or None
        return value

    @field_validator("title", "source", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return "" if value is None else value

    @field_validator("chunks", mode="before")
    @classmethod
    def _string_chunks(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [{"text": item} if isinstance(item, str) else item for item in value]
        return value


class _RawResponse(BaseModel):
    model_config = ConfigDict(extra="ignore")

    results: list[_RawResult] = Field(description="Ranked results, best first.")


@dataclass(frozen=True, kw_only=True)
class _Document:
    doc_id: str
    title: str
    level: RelevanceLevel
    chunks: tuple[tuple[int, str], ...]
    reviewed: bool


def _identity(result: _RawResult) -> str:
    if result.doc_id:
        return result.doc_id
    basis = f"{result.title}\x00{result.source}"
    if not result.title and not result.source:
        basis += "\x00" + "".join(c.text for c in result.chunks or []) + (result.excerpt or "")
    return "h" + hashlib.sha256(basis.encode()).hexdigest()[:16]


def _numbered(result: _RawResult) -> list[tuple[int | None, str]]:
    if result.chunks:
        return [(chunk.n, chunk.text) for chunk in result.chunks]
    return [(None, result.excerpt)] if result.excerpt is not None else []


def _parse(raw: Any) -> list[_Document]:
    if not isinstance(raw, dict) or raw.get("format") not in _FORMATS:
        raise ProjectionError(ErrorCode.PROJECTION_ERROR, "unknown knowledge raw format")
    body = raw if raw["format"] == "embedded-bm25/v1" else raw.get("response")
    try:
        response = _RawResponse.model_validate(body)
    except ValidationError as exc:
        raise ProjectionError(
            ErrorCode.PROJECTION_ERROR,
            "malformed knowledge results",
            {"errors": exc.error_count()},
        ) from exc
    # Many services return one result per chunk; results of one document are merged under its
    # first (best) rank, and its level is the best level the service gave any of them.
    merged: dict[str, tuple[_RawResult, list[tuple[int | None, str]], RelevanceLevel]] = {}
    reviewed: dict[str, bool] = {}
    embedded = raw["format"] == "embedded-bm25/v1"
    for result in response.results:
        doc_id = _identity(result)
        # Review is the embedded backend's approval check, or the knowledge base's own
        # metadata field; a document is reviewed only when every result of it says so.
        said = result.reviewed is True if embedded else declares_review(result.metadata)
        reviewed[doc_id] = reviewed.get(doc_id, True) and said
        level = normalize_relevance(
            *(
                v
                for v in (result.relevance_camel, result.relevance_snake, result.relevance_plain)
                if v is not None
            )
        )
        if doc_id in merged:
            first, chunks, best = merged[doc_id]
            merged[doc_id] = (
                first,
                chunks + _numbered(result),
                max(best, level, key=_RANK.__getitem__),
            )
        else:
            merged[doc_id] = (result, _numbered(result), level)
    documents = []
    for doc_id, (first, chunks, level) in merged.items():
        documents.append(
            _Document(
                doc_id=doc_id,
                title=first.title,
                level=level,
                chunks=_renumber(chunks),
                reviewed=reviewed[doc_id],
            )
        )
    return documents


def _renumber(chunks: list[tuple[int | None, str]]) -> tuple[tuple[int, str], ...]:
    """Give unnumbered chunks the smallest free numbers; drop repeated numbers."""
    used = {n for n, _ in chunks if n is not None}
    out: list[tuple[int, str]] = []
    seen: set[int] = set()
    free = 0
    for n, text in chunks:
        if n is None:
            while free in used:
                free += 1
            n = free
            used.add(n)
        if n not in seen:
            seen.add(n)
            out.append((n, text))
    return tuple(out)


# ---------------------------------------------------------------- bounding


def _cut(text: str, max_chars: int) -> tuple[str, bool]:
    """Cut ``text`` to ``max_chars`` (ellipsis included) at a word boundary."""
    if len(text) <= max_chars:
        return text, False
    head = without_partial_mark(text[: max_chars - len(ELLIPSIS)])
    space = head.rfind(" ")
    # Cutting at the last space only when it keeps most of the budget; one huge token (a URL,
    # a stack frame) is cut mid-word rather than dropped.
    if space >= (max_chars - len(ELLIPSIS)) // 2:
        head = head[:space]
    return head.rstrip() + ELLIPSIS, True


class RagProjector:
    """``Projector`` for ``search_knowledge`` raw responses.

    Args:
        limits: Bounds of the observation.
        redact: Text redactor applied to titles and excerpts before they are cut; defaults to
            :func:`harness.redaction.redact`.
    """

    def __init__(
        self,
        limits: RagProjectorLimits | None = None,
        *,
        redact: Callable[[str], str] = default_redact,
    ) -> None:
        self._limits = limits or RagProjectorLimits()
        self._redact = redact

    def project(self, tool_call_id: str, request: BaseModel, raw: Any) -> Projection:
        """Build the bounded observation and the gain facts.

        Raises:
            ProjectionError: PROJECTION_ERROR for malformed raw or an observation that cannot
                fit ``max_observation_bytes`` even with one shortened block.
        """
        if not isinstance(request, SearchKnowledgeRequest):
            raise ProjectionError(ErrorCode.PROJECTION_ERROR, "unexpected request type")
        documents = _parse(raw)
        limits = self._limits
        shown = documents[: min(limits.max_documents, request.top_k)]
        truncated = len(shown) < len(documents)
        marks = PseudonymMarks()

        def redacted(text: str) -> str:
            return marks.mark(text, self._redact(text))

        blocks: list[tuple[int, int, EvidenceBlock]] = []  # (excerpt position, doc rank, block)
        for rank, document in enumerate(shown):
            chunks = document.chunks or ((0, ""),)
            if len(chunks) > limits.max_excerpts_per_document:
                truncated = True
            title = redacted(document.title)
            for position, (n, text) in enumerate(chunks[: limits.max_excerpts_per_document]):
                excerpt, cut = _cut(" ".join(redacted(text).split()), limits.max_excerpt_chars)
                truncated = truncated or cut
                block = EvidenceBlock(
                    ref=f"doc:{document.doc_id}#{n}",
                    doc_id=document.doc_id,
                    title=title,
                    excerpt=excerpt,
                    relevance_level=document.level,
                    reviewed=document.reviewed,
                )
                blocks.append((position, rank, block))
        observation = self._fit(tool_call_id, request, blocks, truncated)
        facts = ProjectionFacts(
            returned_count=len(documents),
            evidence_identities=frozenset(f"doc:{d.doc_id}" for d in documents),
        )
        return Projection(
            observation=observation,
            facts=facts,
            marks=marked_values(marks),
        )

    def _observation(
        self,
        tool_call_id: str,
        request: SearchKnowledgeRequest,
        blocks: list[tuple[int, int, EvidenceBlock]],
        truncated: bool,
    ) -> RagObservation:
        evidence = [block for _, _, block in blocks]
        return RagObservation(
            tool_call_id=tool_call_id,
            evidence_status=(
                EvidenceStatus.EVIDENCE_FOUND if evidence else EvidenceStatus.NO_EVIDENCE
            ),
            scope=RagScope(query=request.query, top_k=request.top_k),
            relevance_level=(
                max((b.relevance_level for b in evidence), key=_RANK.__getitem__)
                if evidence
                else None
            ),
            evidence=evidence,
            truncated=truncated,
        )

    def _fit(
        self,
        tool_call_id: str,
        request: SearchKnowledgeRequest,
        blocks: list[tuple[int, int, EvidenceBlock]],
        truncated: bool,
    ) -> RagObservation:
        """Drop lowest-ranked blocks until the observation fits the byte limit.

        Secondary excerpts go first (last document first), then whole documents from the
        bottom, so the model keeps seeing as many distinct documents as possible. A single
        remaining block that is still too large has its excerpt shortened.
        """
        max_bytes = self._limits.max_observation_bytes
        observation = self._observation(tool_call_id, request, blocks, truncated)
        if _size(observation) <= max_bytes:
            return observation
        kept = list(blocks)
        for victim in sorted(blocks, key=lambda b: (b[0], b[1]), reverse=True):
            if len(kept) == 1:
                break
            kept.remove(victim)
            observation = self._observation(tool_call_id, request, kept, True)
            if _size(observation) <= max_bytes:
                return observation
        if kept:
            position, rank, block = kept[0]
            excerpt = block.excerpt
            while excerpt:
                target = len(excerpt) // 2
                excerpt = _cut(excerpt, target)[0] if target >= 2 else ""
                shortened = block.model_copy(update={"excerpt": excerpt})
                observation = self._observation(
                    tool_call_id, request, [(position, rank, shortened)], True
                )
                if _size(observation) <= max_bytes:
                    return observation
        raise ProjectionError(
            ErrorCode.PROJECTION_ERROR,
            "observation cannot fit max_observation_bytes",
            {"max_observation_bytes": max_bytes},
        )


def _size(observation: RagObservation) -> int:
    return len(observation.model_dump_json().encode("utf-8"))
