"""Release policy: from the agent's draft to the one released result (ARCHITECTURE §9).

    draft ─► EvidenceGuard ─► [one repair round] ─► SemanticGuard ─► release
      SUPPORTED                         → DiagnosisReport (the draft, as the agent wrote it)
      evidence still failing            → SafeFallback(EVIDENCE)
      UNSUPPORTED                       → SafeFallback(SEMANTIC)
      judge unavailable after one retry → SafeFallback(SEMANTIC_UNAVAILABLE)
      canonical store unavailable       → StableFailure(STORE_ERROR)  (fail closed)

A SafeFallback is built from verified projections and harness-written text only; it never
contains the draft. The policy sees a run only through a small frozen :class:`ReleaseContext`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.agent.caller import ModelCaller
from harness.agent.loop import AgentOutcome
from harness.agent.prompts import repair_message
from harness.draft import DiagnosisDraft, parse_draft
from harness.errors import BudgetExhausted, ErrorCode, InvalidDraft, ModelError
from harness.guards.evidence import EvidenceGuard, EvidenceVerdict, VerifiedSnapshot
from harness.guards.semantic import SemanticGuard
from harness.models import Component
from harness.ports import CanonicalStore
from harness.release.facts import observed_facts
from harness.results import (
    DiagnosisReport,
    FailureStage,
    ReleasedResult,
    SafeFallback,
    StableFailure,
)
from harness.trace import (
    EvidenceCheck,
    EvidenceRepair,
    ReleaseDecision,
    SemanticCheck,
    TraceRecorder,
)
from harness.verdicts import SemanticVerdict

__all__ = ["ReleaseContext", "ReleasePolicy"]

_FALLBACK_STEPS: dict[FailureStage, tuple[str, ...]] = {
    "EVIDENCE": (
        "Review the verified facts listed here; the draft's conclusions could not be tied to evidence.",
        "Re-run the diagnosis with a narrower question (service, time window).",
    ),
    "SEMANTIC": (
        "Review the verified facts listed here; an independent check found the conclusions unsupported.",
        "Escalate to the on-call engineer for the affected service.",
    ),
    "SEMANTIC_UNAVAILABLE": (
        "Review the verified facts listed here; the independent check was unavailable.",
        "Re-run the diagnosis when the model endpoint is healthy.",
    ),
}
_LIMITATIONS: dict[FailureStage, str] = {
    "EVIDENCE": "The diagnosis was withheld because its citations failed evidence validation.",
    "SEMANTIC": "The diagnosis was withheld because the verified evidence did not support it.",
    "SEMANTIC_UNAVAILABLE": "The diagnosis was withheld because it could not be independently checked.",
}
_MAX_ISSUES = 30


@dataclass(frozen=True, kw_only=True)
class ReleaseContext:
    """What the policy needs of a run: identity, the question, its model caller and trace."""

    run_id: str
    analysis_id: str
    question: str
    caller: ModelCaller
    trace: TraceRecorder


@dataclass
class ReleasePolicy:
    """Decides what a finished diagnosis releases."""

    store: CanonicalStore
    repair_enabled: bool = True

    async def release(self, run: ReleaseContext, outcome: AgentOutcome) -> ReleasedResult:
        guard = EvidenceGuard(self.store)
        draft = outcome.draft
        verdict = await self._check(run, guard, draft, attempt=1)
        if verdict.store_failed:
            return self._failure(run, ErrorCode.STORE_ERROR)
        if not verdict.ok and self.repair_enabled:
            repaired = await self._repair(run, outcome, verdict)
            if repaired is not None:
                second = await self._check(run, guard, repaired, attempt=2)
                if second.store_failed:
                    return self._failure(run, ErrorCode.STORE_ERROR)
                draft, verdict = repaired, second
        if not verdict.ok:
            return self._fallback(
                run, "EVIDENCE", verdict.snapshot, [i.render(public=True) for i in verdict.issues]
            )
        judgement = await SemanticGuard(run.caller).judge(
            query=run.question, draft=draft, snapshot=verdict.snapshot
        )
        run.trace.record(
            SemanticCheck(verdict=judgement.verdict, issue_count=len(judgement.issues))
        )
        if judgement.verdict is SemanticVerdict.UNSUPPORTED:
            return self._fallback(run, "SEMANTIC", verdict.snapshot, judgement.issues)
        if judgement.verdict is SemanticVerdict.UNAVAILABLE:
            return self._fallback(run, "SEMANTIC_UNAVAILABLE", verdict.snapshot, ())
        report = DiagnosisReport(
            run_id=run.run_id,
            analysis_id=draft.analysis_id,
            summary=draft.summary,
            conclusions=draft.conclusions,
            next_steps=draft.next_steps,
            limitations=draft.limitations,
        )
        run.trace.record(ReleaseDecision(result_kind=report.kind))
        return report

    async def _check(
        self, run: ReleaseContext, guard: EvidenceGuard, draft: DiagnosisDraft, *, attempt: int
    ) -> EvidenceVerdict:
        verdict = await guard.check(run_id=run.run_id, analysis_id=run.analysis_id, draft=draft)
        run.trace.record(
            EvidenceCheck(
                attempt=attempt,
                outcome="STORE_ERROR"
                if verdict.store_failed
                else ("OK" if verdict.ok else "ISSUES"),
                issue_codes=sorted({i.code for i in verdict.issues}),
            )
        )
        return verdict

    async def _repair(
        self, run: ReleaseContext, outcome: AgentOutcome, verdict: EvidenceVerdict
    ) -> DiagnosisDraft | None:
        """One round: the agent gets the typed issues, no tools, and may return a new draft."""
        messages = [*outcome.messages, repair_message([i.render() for i in verdict.issues])]
        try:
            reply = await run.caller.call(Component.EVIDENCE_REPAIR, messages)
            repaired = parse_draft(reply.content)
        except (ModelError, BudgetExhausted) as err:
            run.trace.record(EvidenceRepair(outcome="FAILED", error_code=err.error_code))
            return None
        except InvalidDraft:
            run.trace.record(EvidenceRepair(outcome="INVALID_DRAFT"))
            return None
        run.trace.record(EvidenceRepair(outcome="DRAFT"))
        return repaired

    def _fallback(
        self,
        run: ReleaseContext,
        stage: FailureStage,
        snapshot: VerifiedSnapshot,
        issues: Sequence[str],
    ) -> SafeFallback:
        result = SafeFallback(
            run_id=run.run_id,
            failure_stage=stage,
            observed_facts=observed_facts(snapshot),
            validation_issues=list(issues[:_MAX_ISSUES]),
            limitations=[_LIMITATIONS[stage]],
            next_steps=list(_FALLBACK_STEPS[stage]),
        )
        run.trace.record(ReleaseDecision(result_kind=result.kind, failure_stage=stage))
        return result

    def _failure(self, run: ReleaseContext, code: ErrorCode) -> StableFailure:
        run.trace.record(ReleaseDecision(result_kind="StableFailure", error_code=code))
        return StableFailure(run_id=run.run_id, error_code=code)
