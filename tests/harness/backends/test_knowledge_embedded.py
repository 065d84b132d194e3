"""The embedded BM25 knowledge backend: chunking, tokens, ranking, relevance, determinism."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.backends.knowledge_embedded import (
    EMBEDDED_FORMAT,
    EmbeddedKnowledgeBackend,
    RelevanceRule,
    chunk_markdown,
    tokenize,
)
from harness.contracts.errors import BackendError, ErrorCode
from harness.contracts.observation import RelevanceLevel
from harness.testing.tools import RAW_CAP
from harness.tools.arguments import SearchKnowledgeRequest
from tests.paths import FIXTURES, REPO

FIXTURE_RUNBOOKS = FIXTURES / "runbooks"
REPO_ROOT = REPO
BUNDLED_INDEX = REPO_ROOT / "harness" / "embedded" / "demo" / "data" / "runbooks" / "index.json"
POOL_QUERY = "Connection is not available request timed out HikariPool"


@pytest.fixture(scope="module")
def backend() -> EmbeddedKnowledgeBackend:
    return EmbeddedKnowledgeBackend(FIXTURE_RUNBOOKS)


def search(backend: EmbeddedKnowledgeBackend, query: str, top_k: int = 5) -> dict:
    return backend.fetch(SearchKnowledgeRequest(query=query, top_k=top_k), max_raw_bytes=RAW_CAP)


def test_tokenizer_keeps_compounds_and_indexes_their_parts() -> None:
    assert tokenize("HikariPool-1 returned 5xx, then 502 (SQLTransientConnectionException)") == [
        "hikaripool-1",
        "hikaripool",
        "hikari",
        "pool",
        "returned",
        "5xx",
        "502",
        "sqltransientconnectionexception",
        "sql",
        "transient",
        "connection",
        "exception",
    ]


def test_tokenizer_drops_stopwords_and_folds_plurals() -> None:
    assert tokenize("The connections of the pool are exhausted") == [
        "connection",
        "pool",
        "exhausted",
    ]


def test_chunks_follow_headings_and_respect_the_size_limit() -> None:
    markdown = "# Title\n\n## A\n\nalpha one.\n\nalpha two.\n\n## B\n\n" + "word " * 120
    chunks = chunk_markdown(markdown, chunk_chars=200)
    assert chunks[0] == "## A\n\nalpha one.\n\nalpha two."
    assert chunks[1].startswith("## B")
    assert all(len(chunk) <= 200 for chunk in chunks)
    assert " ".join(" ".join(chunks[1:]).split()) == " ".join(("## B " + "word " * 120).split())


def test_code_fences_stay_in_one_chunk() -> None:
    fence = "```sql\nSELECT 1;\n\nSELECT 2;\n```"
    assert chunk_markdown(f"# T\n\n## Q\n\n{fence}\n", chunk_chars=800) == [f"## Q\n\n{fence}"]


_markdown_lines = st.lists(
    st.one_of(
        st.just(""),
        st.just("```"),
        st.builds(
            "{} {}".format, st.sampled_from(["#", "##", "###"]), st.text("ab -", max_size=90)
        ),
        st.text(alphabet=st.sampled_from("ab -`#"), max_size=120),
    ),
    max_size=40,
).map("\n".join)


@settings(max_examples=200, deadline=None)
@given(_markdown_lines, st.integers(50, 300))
def test_chunking_never_exceeds_the_limit_and_is_deterministic(text: str, limit: int) -> None:
    chunks = chunk_markdown(text, chunk_chars=limit)
    assert chunks == chunk_markdown(text, chunk_chars=limit)
    assert all(chunk.strip() and len(chunk) <= limit for chunk in chunks)
    # Nothing is lost but whitespace and the leading "# Title" line.
    lines = text.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and re.match(r"# +\S", lines[first]):
        del lines[first]
    assert "".join("".join(chunks).split()) == "".join("".join(lines).split())


def test_pool_exhaustion_runbook_ranks_first(backend: EmbeddedKnowledgeBackend) -> None:
    raw = search(backend, POOL_QUERY)
    assert raw["format"] == EMBEDDED_FORMAT
    assert raw["query"] == POOL_QUERY
    top = raw["results"][0]
    assert top["doc_id"] == "rb-hikari-pool-exhaustion"
    assert top["relevanceLevel"] == "HIGH"
    assert top["chunks"][0]["n"] == 0
    assert "Connection is not" in top["chunks"][0]["text"]


def test_result_shape_is_the_documented_raw(backend: EmbeddedKnowledgeBackend) -> None:
    raw = search(backend, "502 upstream", top_k=1)
    assert raw["results"] == [
        {
            "doc_id": "rb-nginx-502-upstream",
            "title": "Nginx 502 Bad Gateway from upstream",
            "source": "nginx-502-upstream.md",
            "chunks": raw["results"][0]["chunks"],
            "score": raw["results"][0]["chunks"][0]["score"],
            "relevanceLevel": "HIGH",
            "reviewed": False,  # nobody approved the fixture runbooks
        }
    ]
    chunks = raw["results"][0]["chunks"]
    assert 1 <= len(chunks) <= 3
    assert [c["score"] for c in chunks] == sorted((c["score"] for c in chunks), reverse=True)
    assert all(set(c) == {"n", "text", "score"} and c["score"] > 0 for c in chunks)


def test_ordering_is_score_desc_then_doc_id(backend: EmbeddedKnowledgeBackend) -> None:
    for query in (POOL_QUERY, "connection timeout pool", "error", "OutOfMemoryError heap"):
        results = search(backend, query, top_k=10)["results"]
        keys = [(-r["score"], r["doc_id"]) for r in results]
        assert keys == sorted(keys)
        assert len({r["doc_id"] for r in results}) == len(results)


def test_equal_scores_are_ordered_by_doc_id(tmp_path: Path) -> None:
    body = "# Same\n\n## Body\n\nThe gateway drops sockets under load.\n"
    for name in ("b.md", "a.md"):
        (tmp_path / name).write_text(body)
    index = [
        {"doc_id": "zz-copy", "title": "Same", "path": "b.md"},
        {"doc_id": "aa-copy", "title": "Same", "path": "a.md"},
    ]
    (tmp_path / "index.json").write_text(json.dumps(index))
    results = search(EmbeddedKnowledgeBackend(tmp_path), "gateway sockets")["results"]
    assert [r["doc_id"] for r in results] == ["aa-copy", "zz-copy"]
    assert results[0]["score"] == results[1]["score"]


def test_two_builds_answer_identically(backend: EmbeddedKnowledgeBackend) -> None:
    again = EmbeddedKnowledgeBackend(FIXTURE_RUNBOOKS)
    for query in (POOL_QUERY, "redis", "escalation budget"):
        assert search(again, query) == search(backend, query)


def test_chunk_numbers_are_stable_when_other_documents_change(tmp_path: Path) -> None:
    shutil.copytree(FIXTURE_RUNBOOKS, tmp_path / "rb")
    before = search(EmbeddedKnowledgeBackend(tmp_path / "rb"), POOL_QUERY)["results"][0]
    (tmp_path / "rb" / "kafka-consumer-lag.md").write_text("# Kafka\n\n" + "lag grows\n\n" * 50)
    after = search(EmbeddedKnowledgeBackend(tmp_path / "rb"), POOL_QUERY)["results"][0]
    assert [(c["n"], c["text"]) for c in after["chunks"]] == [
        (c["n"], c["text"]) for c in before["chunks"]
    ]


def test_no_match_means_no_results(backend: EmbeddedKnowledgeBackend) -> None:
    assert search(backend, "zzqx quuxfrob")["results"] == []
    assert search(backend, "the of and")["results"] == []


def test_top_k_bounds_the_documents(backend: EmbeddedKnowledgeBackend) -> None:
    assert len(search(backend, "connection error pool", top_k=2)["results"]) == 2


def test_barely_matching_document_is_reference_not_dropped(
    backend: EmbeddedKnowledgeBackend,
) -> None:
    results = search(backend, POOL_QUERY, top_k=10)["results"]
    levels = {r["doc_id"]: r["relevanceLevel"] for r in results}
    assert levels["rb-hikari-pool-exhaustion"] == "HIGH"
    # The Redis runbook shares "connection", "timed" and "pool" but not the symptom.
    assert levels["rb-redis-connection-timeouts"] == "REFERENCE"


@pytest.mark.parametrize(
    ("score", "best", "coverage", "expected"),
    [
        (5.0, 5.0, 1.0, RelevanceLevel.HIGH),
        (3.5, 5.0, 0.5, RelevanceLevel.HIGH),  # both ratio and coverage exactly at the edge
        (3.49, 5.0, 1.0, RelevanceLevel.MEDIUM),  # ratio just below HIGH
        (5.0, 5.0, 0.49, RelevanceLevel.MEDIUM),  # coverage just below HIGH
        (1.4, 1.4, 1.0, RelevanceLevel.MEDIUM),  # the best, but weak in absolute terms
        (1.75, 5.0, 0.25, RelevanceLevel.MEDIUM),
        (1.74, 5.0, 1.0, RelevanceLevel.REFERENCE),
        (5.0, 5.0, 0.2, RelevanceLevel.REFERENCE),
        (0.4, 0.4, 1.0, RelevanceLevel.REFERENCE),  # below every absolute floor
    ],
)
def test_relevance_rule(
    score: float, best: float, coverage: float, expected: RelevanceLevel
) -> None:
    assert RelevanceRule().level(score=score, best_score=best, coverage=coverage) is expected


def test_unreadable_index_is_a_backend_error_of_the_first_query(tmp_path: Path) -> None:
    with pytest.raises(BackendError) as missing:
        search(EmbeddedKnowledgeBackend(tmp_path), "anything")
    (tmp_path / "index.json").write_text('[{"doc_id": "x", "title": "X", "path": "nope.md"}]')
    with pytest.raises(BackendError) as absent_file:
        search(EmbeddedKnowledgeBackend(tmp_path), "anything")
    assert (missing.value.error_code, absent_file.value.error_code) == (
        ErrorCode.BACKEND_ERROR,
        ErrorCode.BACKEND_ERROR,
    )


def test_bundled_runbooks_rank_the_pool_runbook_first() -> None:
    assert BUNDLED_INDEX.exists(), f"bundled runbook index missing: {BUNDLED_INDEX}"
    index = json.loads(BUNDLED_INDEX.read_text())
    pool_docs = [
        e["doc_id"]
        for e in index
        if "pool" in e["title"].lower() and "exhaust" in e["title"].lower()
    ]
    assert len(pool_docs) == 1, "exactly one bundled runbook should cover pool exhaustion"
    backend = EmbeddedKnowledgeBackend(BUNDLED_INDEX.parent)
    assert backend.document_count(max_raw_bytes=RAW_CAP) == len(index) >= 20
    results = search(backend, POOL_QUERY)["results"]
    assert results[0]["doc_id"] == pool_docs[0]
    assert results[0]["relevanceLevel"] == "HIGH"


def test_default_directory_is_the_bundled_runbooks() -> None:
    assert BUNDLED_INDEX.exists(), f"bundled runbook index missing: {BUNDLED_INDEX}"
    index = json.loads(BUNDLED_INDEX.read_text())
    assert EmbeddedKnowledgeBackend().document_count(max_raw_bytes=RAW_CAP) == len(index)


def test_a_plain_folder_of_markdown_needs_no_index(tmp_path: Path) -> None:
    (tmp_path / "queues").mkdir()
    (tmp_path / "queues" / "Consumer Lag.md").write_text(
        "# RabbitMQ consumer lag\n\nWhen the consumer lag grows, check redeliveries first.\n"
    )
    (tmp_path / "untitled.md").write_text("Restart the worker only after the lag drains.\n")
    (tmp_path / ".drafts").mkdir()
    (tmp_path / ".drafts" / "wip.md").write_text("# Draft\n\nconsumer lag lag lag\n")
    raw = search(EmbeddedKnowledgeBackend(tmp_path), "consumer lag redeliveries")
    assert [(r["doc_id"], r["title"], r["source"]) for r in raw["results"]] == [
        ("queues-consumer-lag", "RabbitMQ consumer lag", "queues/Consumer Lag.md"),
        ("untitled", "untitled", "untitled.md"),
    ]
