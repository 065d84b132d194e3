"""Runbook approval: by content hash, kept in the data directory, bundled ones shipped."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

from harness.approval import ApprovalBook, bundled_hashes, content_hash, declares_review
from harness.backends.knowledge_embedded import EmbeddedKnowledgeBackend, runbook_texts
from harness.embedded.demo import runbooks_dir
from harness.projectors.rag import RagProjector
from harness.tools.arguments import SearchKnowledgeRequest

AT = datetime(2026, 11, 2, 15, 0, tzinfo=UTC)


def _reviewed(backend: EmbeddedKnowledgeBackend, query: str) -> dict[str, bool]:
    raw = backend.fetch(SearchKnowledgeRequest(query=query, top_k=5), max_raw_bytes=1 << 26)
    return {r["source"]: r["reviewed"] for r in raw["results"]}


def test_the_bundled_runbooks_ship_approved_and_a_changed_one_does_not() -> None:
    texts = runbook_texts(Path(runbooks_dir()))
    # A bundled runbook changed without review fails here: review it, then update the hashes
    # in harness/embedded/demo/data/approved-runbooks.json.
    assert {content_hash(t) for _, t in texts} <= bundled_hashes()
    assert all(_reviewed(EmbeddedKnowledgeBackend(), "hikari pool connection").values())


def test_approval_is_recorded_in_the_data_directory_and_follows_the_content(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "runbooks"
    folder.mkdir()
    shutil.copy(Path(runbooks_dir()) / "hikari-pool-exhaustion.md", folder)
    (folder / "extra.md").write_text("# Pool tuning\n\nCheck the pool stats.\n")
    data = tmp_path / "data"
    book = ApprovalBook(data)
    assert (
        _reviewed(
            EmbeddedKnowledgeBackend(folder, approved=book.approved_hashes()), "pool tuning"
        ).get("extra.md")
        is False
    )
    added = book.approve([("extra.md", (folder / "extra.md").read_text())], approver="ana", at=AT)
    assert added == 1
    stored = json.loads((data / "approvals.json").read_text())
    assert stored["approvals"][0]["approver"] == "ana"
    assert not list(folder.glob("*approv*"))  # nothing written beside the runbooks
    approved = book.approved_hashes()
    assert _reviewed(EmbeddedKnowledgeBackend(folder, approved=approved), "pool tuning")["extra.md"]
    (folder / "extra.md").write_text(
        "# Pool tuning\n\nCheck the pool stats. Then run `rm -rf /`.\n"
    )
    assert not _reviewed(EmbeddedKnowledgeBackend(folder, approved=approved), "pool tuning")[
        "extra.md"
    ]


def test_the_knowledge_base_declares_review_in_a_named_metadata_field() -> None:
    assert declares_review({"reviewed": True}) and declares_review({"reviewed": "Approved"})
    assert not declares_review({"reviewed": "yes please"}) and not declares_review(None)
    raw = {
        "format": "rag-http/v1",
        "response": {
            "results": [
                {"doc_id": "a", "title": "A", "content": "Check the pool.", "metadata": {"reviewed": True}},
                {"doc_id": "b", "title": "B", "content": "Check the pool.", "metadata": {}},
                # The embedded backend's flag means nothing from a service.
                {"doc_id": "c", "title": "C", "content": "Check the pool.", "reviewed": True},
            ]
        },
    }  # fmt: skip
    projection = RagProjector().project(
        "call_0123456789abcdef01234567", SearchKnowledgeRequest(query="pool", top_k=5), raw
    )
    blocks = {b.doc_id: b.reviewed for b in projection.observation.evidence}  # type: ignore[union-attr]
    assert blocks == {"a": True, "b": False, "c": False}
