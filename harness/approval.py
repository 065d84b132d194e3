"""Runbook approval: which documents an operator reviewed, kept where their authors cannot write.

A next step is released only when an approved runbook backs it (docs/architecture.md, "Trust:
approved runbooks"). Approval is of *content*: ``harness runbooks approve DIR`` records, for
every markdown document below DIR, the SHA-256 of its text (as the knowledge backend reads
it), who approved it and when, in ``approvals.json`` of the harness data directory
(``HARNESS_DATA_DIR``), never beside the runbooks. A document changed after its approval has
another hash and is unapproved until approved again. The bundled demo runbooks ship approved:
their hashes are package data (``harness/embedded/demo/data/approved-runbooks.json``), written by the
harness's maintainers, not read from the runbook folder.

The HTTP knowledge base declares review itself, in a named field of each document's metadata
(:data:`REVIEW_FIELD`): ``true`` or ``"approved"``.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = [
    "APPROVALS_FILE",
    "REVIEW_FIELD",
    "Approval",
    "ApprovalBook",
    "ApprovalError",
    "bundled_hashes",
    "content_hash",
    "declares_review",
]

APPROVALS_FILE = "approvals.json"
REVIEW_FIELD = "reviewed"
_BUNDLED = Path(__file__).parent / "embedded" / "demo" / "data" / "approved-runbooks.json"


class ApprovalError(Exception):
    """The approvals file cannot be read or written."""


def content_hash(text: str) -> str:
    """The SHA-256 of a document's text as the knowledge backend reads it."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def declares_review(metadata: Any) -> bool:
    """Whether a knowledge base document's metadata declares it reviewed."""
    if not isinstance(metadata, Mapping):
        return False
    value = metadata.get(REVIEW_FIELD)
    return value is True or (isinstance(value, str) and value.strip().lower() == "approved")


class Approval(BaseModel):
    """One approved document: its content hash, where it was, who approved it and when."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    path: str = Field(description="The document's path when it was approved.")
    approver: str = Field(min_length=1, max_length=200)
    approved_at: datetime


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid")

    schema_version: int = 1
    approvals: list[Approval] = Field(default_factory=list)


def bundled_hashes() -> frozenset[str]:
    """The content hashes of the bundled demo runbooks, shipped approved."""
    try:
        return frozenset(json.loads(_BUNDLED.read_text(encoding="utf-8"))["sha256"])
    except (OSError, ValueError, KeyError, TypeError):
        return frozenset()


@dataclass
class ApprovalBook:
    """The approvals of one harness data directory, plus the bundled ones.

    Args:
        data_dir: The harness data directory; its ``approvals.json`` holds the approvals.
    """

    data_dir: Path

    @property
    def path(self) -> Path:
        return self.data_dir / APPROVALS_FILE

    def approvals(self) -> list[Approval]:
        """The recorded approvals (the bundled ones are not listed)."""
        try:
            raw = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise ApprovalError(f"cannot read {self.path}: {type(exc).__name__}") from exc
        try:
            return _File.model_validate_json(raw).approvals
        except ValidationError as exc:
            raise ApprovalError(f"{self.path} is not an approvals file") from exc

    def approved_hashes(self) -> frozenset[str]:
        """Every approved content hash: recorded here, or shipped with the harness."""
        return frozenset(a.sha256 for a in self.approvals()) | bundled_hashes()

    def approve(self, documents: Iterable[tuple[str, str]], *, approver: str, at: datetime) -> int:
        """Record ``(path, text)`` documents as approved by ``approver`` at ``at``; returns
        how many were new. Written atomically (a reader never sees half a file)."""
        current = {a.sha256: a for a in self.approvals()}
        added = 0
        for path, text in documents:
            digest = content_hash(text)
            if digest not in current:
                added += 1
            current[digest] = Approval(sha256=digest, path=path, approver=approver, approved_at=at)
        body = _File(approvals=sorted(current.values(), key=lambda a: (a.path, a.sha256)))
        self.data_dir.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=self.data_dir, prefix=".approvals-")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(body.model_dump_json(indent=2))
            os.replace(temporary, self.path)
        except OSError as exc:
            Path(temporary).unlink(missing_ok=True)
            raise ApprovalError(f"cannot write {self.path}: {type(exc).__name__}") from exc
        return added
