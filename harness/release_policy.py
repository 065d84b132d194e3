"""Release policy: from an agent outcome to the one released result.

This is the run plane's minimal path: the draft must be schema-valid (the agent loop already
ensured that) and carry this run's analysis_id; it is then released as a DiagnosisReport.
EvidenceGuard, evidence repair and SemanticGuard replace this path (quality-gates issue).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from harness.ports import CanonicalStore
from harness.release import DiagnosisReport, ReleasedResult, SafeFallback

if TYPE_CHECKING:
    from harness.agent.loop import AgentOutcome
    from harness.diagnosis import DiagnosisRun

__all__ = ["ReleasePolicy"]


@dataclass
class ReleasePolicy:
    """Decides what a finished diagnosis releases."""

    store: CanonicalStore

    async def release(self, run: DiagnosisRun, outcome: AgentOutcome) -> ReleasedResult:
        draft = outcome.draft
        if draft.analysis_id != run.run.analysis_id:
            return SafeFallback(
                run_id=run.run_id,
                failure_stage="EVIDENCE",
                validation_issues=["ANALYSIS_ID_MISMATCH"],
                limitations=["The draft did not belong to this analysis and was not released."],
            )
        return DiagnosisReport(
            run_id=run.run_id,
            analysis_id=draft.analysis_id,
            summary=draft.summary,
            conclusions=draft.conclusions,
            next_steps=draft.next_steps,
            limitations=draft.limitations,
        )
