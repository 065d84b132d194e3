"""A report's limitations come in the order its draft cites the records, whatever their ids.

Tool-call ids are random per run and the calls of one turn finish in any order, so neither may
decide the order of what a report says: the same draft must always read the same."""

from __future__ import annotations

import itertools

from harness.contracts.draft import Citation, Conclusion, ConclusionKind
from harness.contracts.invocation import EvidenceStatus
from harness.contracts.observation import RagObservation, RagScope
from harness.guards.evidence import VerifiedSnapshot
from harness.release import render_limitations


def _observation(call: str) -> RagObservation:
    return RagObservation(
        tool_call_id=call,
        evidence_status=EvidenceStatus.EVIDENCE_FOUND,
        scope=RagScope(query="pool", top_k=3),
        truncated=True,
    )


def _conclusion(*calls: str) -> Conclusion:
    return Conclusion(
        id="c1",
        kind=ConclusionKind.OBSERVATION,
        statement="x",
        confidence=0.5,
        citations=[Citation(tool_call_id=c, item_ref="doc:a#0") for c in calls],
    )


def test_truncated_records_are_listed_in_the_order_the_draft_cites_them() -> None:
    cited = ["call_z9", "call_a1", "call_m5"]
    for stored in itertools.permutations(cited):
        snapshot = VerifiedSnapshot(run_id="r", records={c: _observation(c) for c in stored})
        lines = render_limitations([_conclusion(*cited)], snapshot, [], [])
        named = [c for line in lines for c in cited if f" {c} was truncated" in line]
        assert named == cited, stored
