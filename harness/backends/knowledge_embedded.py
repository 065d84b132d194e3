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

import json
import logging
import re
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bm25s
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from harness.approval import bundled_hashes, content_hash
from harness.backends._capped_read import admit_files, read_capped
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

# A word list reads best as text.
_STOPWORDS = frozenset(
    """
    a an and are as at be but by can do does for from has have how i if in into is it its not of
    on or our out so such than that the their then there these this to was we were what when
    where which who why will with you your
    """.split()  # noqa: SIM905
)
# A compound token keeps its inner punctuation (``hikaripool-1``, ``10.0.0.7``, ``user_id``);
# its alphanumeric parts and camelCase words are indexed as sub-tokens as well.
_COMPOUND = re.compile(r"[A-Za-z0-9]+(?:[-_.:/][A-Za-z0-9]+)*")
_PART = re.compile(r"[A-Za-z0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_HEADING = re.compile(r"^#{1,6}\s+\S")
_FENCE = re.compile(r"^\s*(```|~~~)")
_SLUG = re.compile(r"[^a-z0-9]+")


def _normalize(word: str) -> str:
    # A minimal plural fold so "connections" meets "connection"; heavier stemming would merge
    # identifiers that operators search for verbatim.
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def tokenize(text: str) -> list[str]:
    """Lower-case BM25 tokens of ``text``: compounds, their parts and camelCase words.

    ``"HikariPool-1 5xx"`` yields ``hikaripool-1``, ``hikaripool``, ``hikari``, ``pool``,
    ``5xx``. Stopwords and one-character sub-tokens are dropped; a compound is kept whole.
    """
    tokens: list[str] = []
    for match in _COMPOUND.finditer(text):
        compound = match.group(0)
        seen: set[str] = set()
        candidates = [compound.lower()]
        for part in _PART.findall(compound):
            candidates.append(part.lower())
            if any(c.isupper() for c in part[1:]):  # camelCase or ACRONYMWord, not "5xx"
                candidates.extend(word.lower() for word in _CAMEL.findall(part))
        for index, raw in enumerate(candidates):
            word = _normalize(raw)
            if word in seen or word in _STOPWORDS or (index > 0 and len(word) < 2):
                continue
            seen.add(word)
            tokens.append(word)
    return tokens


# ---------------------------------------------------------------- chunking


def _blocks(markdown: str) -> Iterator[tuple[bool, str]]:
    """Yield ``(is_heading, text)`` blocks: headings, paragraphs and whole code fences."""
    paragraph: list[str] = []
    in_fence = False
    for line in markdown.splitlines():
        if _FENCE.match(line):
            paragraph.append(line)
            in_fence = not in_fence
            if not in_fence:
                yield False, "\n".join(paragraph)
                paragraph = []
            continue
        if in_fence:
            paragraph.append(line)
        elif _HEADING.match(line):
            if paragraph:
                yield False, "\n".join(paragraph)
                paragraph = []
            yield True, line.strip()
        elif not line.strip():
            if paragraph:
                yield False, "\n".join(paragraph)
                paragraph = []
        else:
            paragraph.append(line.rstrip())
    if paragraph:
        yield False, "\n".join(paragraph)


def _split_long(text: str, chunk_chars: int) -> list[str]:
    # Prefer line breaks, then spaces; a single unbroken run is hard-cut.
    pieces: list[str] = []
    rest = text
    while len(rest) > chunk_chars:
        cut = rest.rfind("\n", 0, chunk_chars + 1)
        if cut <= 0:
            cut = rest.rfind(" ", 0, chunk_chars + 1)
        if cut <= 0:
            cut = chunk_chars
        pieces.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    if rest:
        pieces.append(rest)
    return pieces


def chunk_markdown(markdown: str, chunk_chars: int = 800) -> list[str]:
    """Split markdown into chunks of at most ``chunk_chars`` characters.

    A heading starts a new chunk; paragraphs under it are packed until the next one would
    overflow. The first line (``# Title``) is dropped since the title is indexed separately.
    """
    chunks: list[str] = []
    current: list[str] = []

    def flush() -> None:
        text = "\n\n".join(current).strip()
        if text:
            chunks.append(text)
        current.clear()

    blocks = list(_blocks(markdown))
    if blocks and blocks[0][0] and blocks[0][1].startswith("# "):
        blocks = blocks[1:]
    heading_only = False
    for is_heading, text in blocks:
        # An overlong heading is packed like a paragraph, so that no chunk exceeds the limit.
        if is_heading and len(text) <= chunk_chars // 2:
            flush()
            current.append(text)
            heading_only = True
            continue
        if len("\n\n".join([*current, text])) > chunk_chars and not heading_only:
            flush()
        # A long paragraph right after its heading shares the heading's chunk, so that no
        # chunk is a bare heading.
        room = chunk_chars - (len(current[0]) + 2 if current else 0)
        if room < chunk_chars // 2:
            flush()
            room = chunk_chars
        for piece in _split_long(text, room):
            if current and len("\n\n".join([*current, piece])) > chunk_chars:
                flush()
            current.append(piece)
        heading_only = False
    flush()
    return chunks


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


class _IndexEntry(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    doc_id: str = Field(min_length=1, description="Stable document identity.")
    title: str = Field(description="Document title.")
    path: str = Field(min_length=1, description="Markdown file, relative to the index.")
    tags: list[str] = Field(default_factory=list, description="Free-form tags, indexed.")


def _index_entries(root: Path, cap: RawCap) -> list[_IndexEntry]:
    index = root / "index.json"
    try:
        admit_files([index], cap)
        raw_entries = json.loads(read_capped(index, cap))
        return [_IndexEntry.model_validate(item) for item in raw_entries]
    except (OSError, ValueError, TypeError, ValidationError) as exc:
        raise BackendError(
            ErrorCode.BACKEND_ERROR, f"runbook index unreadable: {type(exc).__name__}"
        ) from exc


def _folder_entries(root: Path) -> list[_IndexEntry]:
    """Entries of a plain folder of markdown files (no ``index.json``): one per ``*.md``.

    The doc_id is the file's path below the folder as a slug (``db/migrations.md`` →
    ``db-migrations``), the title (read with the document) its first ``# `` heading, else its
    name; no tags.
    """
    if not root.is_dir():
        raise BackendError(ErrorCode.BACKEND_ERROR, "runbook folder not found")
    entries = []
    for path in sorted(root.rglob("*.md")):
        relative = path.relative_to(root)
        if any(part.startswith(".") for part in relative.parts) or not path.is_file():
            continue
        slug = _SLUG.sub("-", relative.with_suffix("").as_posix().lower()).strip("-")
        entries.append(_IndexEntry(doc_id=slug or "doc", title="", path=relative.as_posix()))
    if not entries:
        raise BackendError(ErrorCode.BACKEND_ERROR, "no index.json and no markdown runbook")
    return entries


def runbook_texts(root: Path, max_raw_bytes: int = 64 * 1024 * 1024) -> list[tuple[str, str]]:
    """Every document of a runbook folder as the backend reads it: ``(path, text)`` in path
    order (what ``harness runbooks approve`` hashes and ``check`` reads).

    Raises:
        BackendError: BACKEND_ERROR when the index or a runbook cannot be read.
    """
    cap = RawCap(max_raw_bytes)
    entries = _index_entries(root, cap) if (root / "index.json").exists() else _folder_entries(root)
    documents = []
    for entry in sorted(entries, key=lambda e: e.path):
        try:
            documents.append((entry.path, read_capped(root / entry.path, cap)))
        except (OSError, UnicodeError) as exc:
            raise BackendError(
                ErrorCode.BACKEND_ERROR, "runbook file unreadable", {"doc_id": entry.doc_id}
            ) from exc
    return documents


def _first_heading(markdown: str, fallback: str) -> str:
    head = markdown.lstrip("\ufeff").splitlines()
    return next((line[2:].strip() for line in head if line.startswith("# ")), fallback) or fallback


@dataclass(frozen=True, kw_only=True)
class _Chunk:
    doc_id: str
    n: int
    text: str
    tokens: frozenset[str]


@dataclass(frozen=True, kw_only=True)
class _Document:
    doc_id: str
    title: str
    source: str
    # Title and tags are indexed with every chunk, so that a query naming the document finds
    # it whichever section holds the details.
    header: str
    chunks: tuple[_Chunk, ...]
    sha256: str


def _default_runbooks_dir() -> Path:
    from harness.embedded.demo import runbooks_dir

    return Path(runbooks_dir())


def _load_documents(root: Path, chunk_chars: int, cap: RawCap) -> list[_Document]:
    indexed = (root / "index.json").exists()
    entries = _index_entries(root, cap) if indexed else _folder_entries(root)
    if len({e.doc_id for e in entries}) != len(entries):
        raise BackendError(ErrorCode.BACKEND_ERROR, "duplicate doc_id in runbook index")
    try:
        # Documents past the cap are refused before one is read.
        admit_files((root / entry.path for entry in entries), cap)
    except OSError as exc:
        raise BackendError(ErrorCode.BACKEND_ERROR, "runbook file unreadable") from exc
    documents: list[_Document] = []
    for entry in sorted(entries, key=lambda e: e.doc_id):
        try:
            markdown = read_capped(root / entry.path, cap)
        except (OSError, UnicodeError) as exc:
            raise BackendError(
                ErrorCode.BACKEND_ERROR, "runbook file unreadable", {"doc_id": entry.doc_id}
            ) from exc
        if not indexed:
            stem = Path(entry.path).stem
            entry = entry.model_copy(update={"title": _first_heading(markdown, stem)})
        texts = chunk_markdown(markdown, chunk_chars) or [entry.title]
        chunks = tuple(
            _Chunk(doc_id=entry.doc_id, n=n, text=text, tokens=frozenset(tokenize(text)))
            for n, text in enumerate(texts)
        )
        documents.append(
            _Document(
                doc_id=entry.doc_id,
                title=entry.title,
                source=entry.path,
                header=" ".join([entry.title, *entry.tags]),
                chunks=chunks,
                sha256=content_hash(markdown),
            )
        )
    return documents


@dataclass(frozen=True, kw_only=True)
class _Index:
    """The documents of a runbook folder, their chunks in index order and the BM25 index."""

    documents: dict[str, _Document]
    chunks: list[_Chunk]
    bm25: bm25s.BM25

    @classmethod
    def build(cls, root: Path, chunk_chars: int, cap: RawCap) -> _Index:
        documents = {d.doc_id: d for d in _load_documents(root, chunk_chars, cap)}
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
        self._root = Path(runbooks_dir) if runbooks_dir is not None else _default_runbooks_dir()
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
        by_doc: dict[str, list[tuple[float, _Chunk]]] = {}
        for chunk, raw_score in zip(index.chunks, scores, strict=True):
            score = round(float(raw_score), _SCORE_DECIMALS)
            if score > 0:
                by_doc.setdefault(chunk.doc_id, []).append((score, chunk))
        ranked: list[tuple[float, str, list[tuple[float, _Chunk]]]] = []
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
