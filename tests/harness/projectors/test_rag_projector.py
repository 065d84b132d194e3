"""The search_knowledge projector: identity, relevance, bounds, statuses, malformed input."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.backends.knowledge_embedded import EmbeddedKnowledgeBackend
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
from harness.projectors.rag import RagProjector, RagProjectorLimits, normalize_relevance
from harness.testing.tools import RAW_CAP
from harness.tools.arguments import SearchKnowledgeRequest
from tests.paths import FIXTURES

FIXTURE_RUNBOOKS = FIXTURES / "runbooks"
REQUEST = SearchKnowledgeRequest(query="pool exhausted", top_k=5)
H, M, R = RelevanceLevel.HIGH, RelevanceLevel.MEDIUM, RelevanceLevel.REFERENCE


def embedded(*results: dict[str, Any]) -> dict[str, Any]:
    return {"format": "embedded-bm25/v1", "query": REQUEST.query, "results": list(results)}


def http(*results: dict[str, Any]) -> dict[str, Any]:
    return {"format": "rag-http/v1", "response": {"results": list(results)}}


def doc(doc_id: str, *texts: str, level: str = "HIGH", title: str | None = None) -> dict:
    return {
        "doc_id": doc_id,
        "title": title or doc_id.upper(),
        "chunks": [{"n": n, "text": t, "score": 1.0} for n, t in enumerate(texts)],
        "score": 1.0,
        "relevanceLevel": level,
    }


def block(
    doc_id: str, n: int, excerpt: str, level: RelevanceLevel, title: str = ""
) -> EvidenceBlock:
    return EvidenceBlock(
        ref=f"doc:{doc_id}#{n}",
        doc_id=doc_id,
        title=title or doc_id.upper(),
        excerpt=excerpt,
        relevance_level=level,
    )


def project(raw: Any, limits: RagProjectorLimits | None = None, request=REQUEST) -> Projection:
    return RagProjector(limits).project("call_1", request, raw)


def test_embedded_raw_becomes_bounded_blocks() -> None:
    raw = embedded(doc("rb-a", "first chunk", "second chunk"), doc("rb-b", "other", level="MEDIUM"))
    assert project(raw) == Projection(
        observation=RagObservation(
            tool_call_id="call_1",
            evidence_status=EvidenceStatus.EVIDENCE_FOUND,
            scope=RagScope(query=REQUEST.query, top_k=5),
            relevance_level=H,
            evidence=[
                block("rb-a", 0, "first chunk", H),
                block("rb-a", 1, "second chunk", H),
                block("rb-b", 0, "other", M),
            ],
            truncated=False,
        ),
        facts=ProjectionFacts(
            returned_count=2, evidence_identities=frozenset({"doc:rb-a", "doc:rb-b"})
        ),
    )


def test_http_raw_with_both_spellings_is_normalised() -> None:
    raw = http(
        {"id": "kb-1", "title": "One", "excerpt": "alpha", "relevance_level": "medium"},
        {"doc_id": "kb-2", "title": "Two", "content": "beta", "relevanceLevel": " High "},
        {"id": 3, "title": "Three", "chunks": ["gamma", "delta"], "relevance_level": "REFERENCE"},
    )
    observation = project(raw).observation
    assert observation.evidence == [
        block("kb-1", 0, "alpha", M, "One"),
        block("kb-2", 0, "beta", H, "Two"),
        block("3", 0, "gamma", R, "Three"),
        block("3", 1, "delta", R, "Three"),
    ]
    assert observation.relevance_level is H


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (("HIGH",), H),
        (("high",), H),
        (("Medium",), M),
        (("reference",), R),
        ((), R),  # missing: never promoted
        (("VERY_HIGH",), R),  # unrecognised: never promoted
        ((0.97,), R),  # a numeric score is not a level
        (("HIGH", "reference"), R),  # disagreeing spellings: the lower wins
        (("bogus", "MEDIUM"), M),  # an unrecognised value does not drown a recognised one
    ],
)
def test_relevance_normalisation(values: tuple[Any, ...], expected: RelevanceLevel) -> None:
    assert normalize_relevance(*values) is expected


def test_reference_only_results_are_evidence_found_at_reference_level() -> None:
    raw = http({"doc_id": "kb-x", "title": "X", "excerpt": "loosely related", "relevance": "low"})
    observation = project(raw).observation
    assert (observation.evidence_status, observation.relevance_level) == (
        EvidenceStatus.EVIDENCE_FOUND,
        R,
    )
    assert observation.evidence == [block("kb-x", 0, "loosely related", R, "X")]


def test_reference_documents_are_kept_beside_high_ones() -> None:
    raw = embedded(doc("rb-a", "a", level="REFERENCE"), doc("rb-b", "b", level="HIGH"))
    levels = [(b.doc_id, b.relevance_level) for b in project(raw).observation.evidence]
    assert levels == [("rb-a", R), ("rb-b", H)]


def test_empty_results_are_no_evidence() -> None:
    for raw in (embedded(), http()):
        projection = project(raw)
        assert projection == Projection(
            observation=RagObservation(
                tool_call_id="call_1",
                evidence_status=EvidenceStatus.NO_EVIDENCE,
                scope=RagScope(query=REQUEST.query, top_k=5),
                relevance_level=None,
                evidence=[],
                truncated=False,
            ),
            facts=ProjectionFacts(returned_count=0, evidence_identities=frozenset()),
        )


@pytest.mark.parametrize(
    "raw",
    [
        None,
        [],
        {"results": []},  # no format
        {"format": "other/v9", "results": []},
        {"format": "embedded-bm25/v1"},  # no results
        {"format": "rag-http/v1", "response": None},
        {"format": "rag-http/v1", "response": {"results": "nope"}},
        {"format": "rag-http/v1", "response": {"results": ["just text"]}},
        {"format": "embedded-bm25/v1", "results": [{"doc_id": "a", "chunks": [{"n": -1}]}]},
        {"format": "embedded-bm25/v1", "results": [{"doc_id": True, "excerpt": "x"}]},
    ],
)
def test_malformed_raw_is_a_projection_error(raw: Any) -> None:
    with pytest.raises(ProjectionError) as caught:
        project(raw)
    assert caught.value.error_code is ErrorCode.PROJECTION_ERROR


def test_document_identity_is_stable_without_backend_ids() -> None:
    result = {"title": "Pool guide", "source": "wiki/pool", "excerpt": "text"}
    first = project(http(result)).observation.evidence[0]
    again = project(http(dict(result, excerpt="changed text"))).observation.evidence[0]
    other = project(http(dict(result, source="wiki/other"))).observation.evidence[0]
    assert first.doc_id == again.doc_id != other.doc_id
    assert first.ref == f"doc:{first.doc_id}#0"


def test_embedded_identities_are_stable_across_calls_and_backends() -> None:
    request = SearchKnowledgeRequest(query="HikariPool connection timed out", top_k=3)
    refs = [
        [
            b.ref
            for b in RagProjector()
            .project(
                f"c{i}",
                request,
                EmbeddedKnowledgeBackend(FIXTURE_RUNBOOKS).fetch(request, max_raw_bytes=RAW_CAP),
            )
            .observation.evidence
        ]
        for i in range(2)
    ]
    assert refs[0] == refs[1]
    assert refs[0][0] == "doc:rb-hikari-pool-exhaustion#0"


def test_per_chunk_results_of_one_document_are_merged() -> None:
    raw = http(
        {"doc_id": "kb-1", "title": "T", "excerpt": "one", "relevanceLevel": "MEDIUM"},
        {"doc_id": "kb-2", "title": "U", "excerpt": "two", "relevanceLevel": "HIGH"},
        {"doc_id": "kb-1", "title": "T", "excerpt": "three", "relevanceLevel": "HIGH"},
    )
    projection = project(raw)
    assert projection.observation.evidence == [
        block("kb-1", 0, "one", H, "T"),
        block("kb-1", 1, "three", H, "T"),
        block("kb-2", 0, "two", H, "U"),
    ]
    assert projection.facts.returned_count == 2


def test_excerpt_count_limit_at_the_edge() -> None:
    limits = RagProjectorLimits(max_excerpts_per_document=2)
    at_edge = project(embedded(doc("rb-a", "x", "y")), limits).observation
    over = project(embedded(doc("rb-a", "x", "y", "z")), limits).observation
    assert ([b.ref for b in at_edge.evidence], at_edge.truncated) == (
        ["doc:rb-a#0", "doc:rb-a#1"],
        False,
    )
    assert ([b.ref for b in over.evidence], over.truncated) == (["doc:rb-a#0", "doc:rb-a#1"], True)


def test_excerpt_length_limit_at_the_edge() -> None:
    limits = RagProjectorLimits(max_excerpt_chars=20)
    exact = "abcd efgh ijkl mnopq"  # 20 characters
    assert len(exact) == 20
    kept = project(embedded(doc("rb-a", exact)), limits).observation
    cut = project(embedded(doc("rb-a", exact + "r")), limits).observation
    assert (kept.evidence[0].excerpt, kept.truncated) == (exact, False)
    assert (cut.evidence[0].excerpt, cut.truncated) == ("abcd efgh ijkl…", True)


def test_one_long_word_is_cut_inside_the_word() -> None:
    excerpt = (
        project(embedded(doc("rb-a", "x" * 50)), RagProjectorLimits(max_excerpt_chars=10))
        .observation.evidence[0]
        .excerpt
    )
    assert excerpt == "x" * 9 + "…"


def test_document_limit_at_the_edge_and_top_k() -> None:
    five = embedded(*(doc(f"rb-{i}", "t") for i in range(5)))
    six = embedded(*(doc(f"rb-{i}", "t") for i in range(6)))
    assert [len(project(r).observation.evidence) for r in (five, six)] == [5, 5]
    assert [project(r).observation.truncated for r in (five, six)] == [False, True]
    small = SearchKnowledgeRequest(query="q", top_k=2)
    bounded = project(five, request=small)
    assert [b.doc_id for b in bounded.observation.evidence] == ["rb-0", "rb-1"]
    # Identities count every returned document, shown or not: new documents are gain.
    assert bounded.facts == ProjectionFacts(
        returned_count=5, evidence_identities=frozenset(f"doc:rb-{i}" for i in range(5))
    )


def test_byte_limit_drops_secondary_excerpts_first_then_low_ranked_documents() -> None:
    text = "w " * 250
    big = RagProjectorLimits(max_observation_bytes=1_000_000)
    raw = embedded(*(doc(f"rb-{i}", text, text, level="REFERENCE") for i in range(3)))
    primaries = embedded(*(doc(f"rb-{i}", text, level="REFERENCE") for i in range(3)))
    assert len(project(raw, big).observation.evidence) == 6
    # Exactly room for the three first excerpts, so every document stays visible ("true" is
    # one byte shorter than the "false" of the unbounded observation).
    limit = len(project(primaries, big).observation.model_dump_json().encode()) - 1
    observation = project(raw, RagProjectorLimits(max_observation_bytes=limit)).observation
    assert len(observation.model_dump_json().encode()) <= limit
    assert ([b.ref for b in observation.evidence], observation.truncated) == (
        ["doc:rb-0#0", "doc:rb-1#0", "doc:rb-2#0"],
        True,
    )
    # One byte less and the lowest-ranked document goes.
    tighter = project(raw, RagProjectorLimits(max_observation_bytes=limit - 1)).observation
    assert [b.ref for b in tighter.evidence] == ["doc:rb-0#0", "doc:rb-1#0"]
    assert tighter.evidence_status is EvidenceStatus.EVIDENCE_FOUND


def test_a_single_oversized_block_is_shortened_not_dropped() -> None:
    raw = embedded(doc("rb-a", "word " * 200, level="REFERENCE"))
    observation = project(raw, RagProjectorLimits(max_observation_bytes=600)).observation
    assert len(observation.model_dump_json().encode()) <= 600
    assert [b.ref for b in observation.evidence] == ["doc:rb-a#0"]
    assert observation.truncated and observation.relevance_level is R


def test_impossible_byte_limit_is_a_projection_error() -> None:
    with pytest.raises(ProjectionError):
        project(embedded(doc("rb-a", "x")), RagProjectorLimits(max_observation_bytes=50))


def test_excerpts_and_titles_are_redacted() -> None:
    secret = "password=hunter2-very-secret"
    raw = http({"doc_id": "kb-s", "title": f"Rotate {secret}", "excerpt": f"set {secret} now"})
    assert project(raw).observation.evidence == [
        block("kb-s", 0, "set password=<SECRET> now", R, "Rotate password=<SECRET>")
    ]


def test_redaction_runs_before_the_cut() -> None:
    # A high-entropy token is only recognisable whole; cutting first would leak its prefix.
    token = "Zq8xR2mP9vL4tK7wN3bY6cJ1hF5dG0sA"
    raw = http({"doc_id": "kb-s", "title": "T", "excerpt": f"see {token} then rotate it"})
    excerpt = project(raw, RagProjectorLimits(max_excerpt_chars=20)).observation.evidence[0].excerpt
    assert excerpt == "see <SECRET> then…"


_levels = st.sampled_from(["HIGH", "high", "MEDIUM", "Reference", "weird", None])
_results = st.lists(
    st.fixed_dictionaries(
        {
            "doc_id": st.text("abc123-", min_size=1, max_size=6),
            "title": st.text(max_size=40),
            "chunks": st.lists(st.text(max_size=900), max_size=5),
            "relevanceLevel": _levels,
        }
    ),
    max_size=12,
)


@settings(max_examples=120, deadline=None)
@given(_results, st.integers(1, 10), st.integers(1500, 9000))
def test_bounds_hold_and_levels_are_never_promoted(
    results: list[dict[str, Any]], top_k: int, max_bytes: int
) -> None:
    limits = RagProjectorLimits(max_observation_bytes=max_bytes)
    request = SearchKnowledgeRequest(query="q", top_k=top_k)
    projection = RagProjector(limits).project("c", request, embedded(*results))
    observation = projection.observation
    assert len(observation.model_dump_json().encode()) <= max_bytes
    assert len({b.doc_id for b in observation.evidence}) <= min(5, top_k)
    assert all(len(b.excerpt) <= limits.max_excerpt_chars for b in observation.evidence)
    backend_levels: dict[str, set[RelevanceLevel]] = {}
    for r in results:
        backend_levels.setdefault(r["doc_id"], set()).add(normalize_relevance(r["relevanceLevel"]))
    order = [R, M, H]
    for b in observation.evidence:
        assert order.index(b.relevance_level) <= max(
            order.index(x) for x in backend_levels[b.doc_id]
        )
    doc_ids = set(backend_levels)
    assert projection.facts.evidence_identities == {f"doc:{d}" for d in doc_ids}
    assert projection.facts.returned_count == len(doc_ids)
    assert (observation.evidence_status is EvidenceStatus.NO_EVIDENCE) == (not results)
    assert bool(observation.evidence) == bool(results)
