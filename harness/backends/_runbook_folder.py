"""Reading a runbook folder: ``index.json`` and the markdown files it names, or every ``*.md``
below a plain folder, each read with a byte count against the call's raw cap, and each
document cut into chunks (:mod:`._runbook_text`) with its content hash."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from harness.approval import content_hash
from harness.backends._capped_read import admit_files, read_capped
from harness.backends._runbook_text import chunk_markdown, tokenize
from harness.contracts.errors import BackendError, ErrorCode
from harness.contracts.rawcap import RawCap

__all__ = ["Chunk", "Document", "default_runbooks_dir", "load_documents", "runbook_texts"]

_SLUG = re.compile(r"[^a-z0-9]+")


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
class Chunk:
    doc_id: str
    n: int
    text: str
    tokens: frozenset[str]


@dataclass(frozen=True, kw_only=True)
class Document:
    doc_id: str
    title: str
    source: str
    # Title and tags are indexed with every chunk, so that a query naming the document finds
    # it whichever section holds the details.
    header: str
    chunks: tuple[Chunk, ...]
    sha256: str


def default_runbooks_dir() -> Path:
    from harness.embedded.demo import runbooks_dir

    return Path(runbooks_dir())


def load_documents(root: Path, chunk_chars: int, cap: RawCap) -> list[Document]:
    indexed = (root / "index.json").exists()
    entries = _index_entries(root, cap) if indexed else _folder_entries(root)
    if len({e.doc_id for e in entries}) != len(entries):
        raise BackendError(ErrorCode.BACKEND_ERROR, "duplicate doc_id in runbook index")
    try:
        # Documents past the cap are refused before one is read.
        admit_files((root / entry.path for entry in entries), cap)
    except OSError as exc:
        raise BackendError(ErrorCode.BACKEND_ERROR, "runbook file unreadable") from exc
    documents: list[Document] = []
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
            Chunk(doc_id=entry.doc_id, n=n, text=text, tokens=frozenset(tokenize(text)))
            for n, text in enumerate(texts)
        )
        documents.append(
            Document(
                doc_id=entry.doc_id,
                title=entry.title,
                source=entry.path,
                header=" ".join([entry.title, *entry.tags]),
                chunks=chunks,
                sha256=content_hash(markdown),
            )
        )
    return documents
