"""Release policy: from the agent's draft to the one released result (ARCHITECTURE §9).

    draft ─► EvidenceGuard ─► [one repair round] ─► SemanticGuard ─► release
      SUPPORTED                         → DiagnosisReport (the draft, as the agent wrote it)
      evidence still failing            → SafeFallback(EVIDENCE)
      UNSUPPORTED                       → SafeFallback(SEMANTIC)
      judge unavailable after one retry → SafeFallback(SEMANTIC_UNAVAILABLE)
      canonical store unavailable       → StableFailure(STORE_ERROR)  (fail closed)

A SafeFallback is built from verified projections and harness-written text only; it never
contains the draft.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from harness.agent.loop import parse_draft
from harness.agent.prompts import repair_message
from harness.draft import DiagnosisDraft
from harness.errors import BudgetExhausted, ErrorCode, HarnessError, ModelError
from harness.guards.evidence import EvidenceGuard, EvidenceVerdict, VerifiedSnapshot
from harness.guards.semantic import SemanticGuard, Verdict
from harness.models import Component
from harness.ports import CanonicalStore
from harness.release import (
    DiagnosisReport,
    ObservedFact,
    ReleasedResult,
    SafeFallback,
    StableFailure,
)
from harness.trace import TraceCategory

if TYPE_CHECKING:
    from harness.agent.loop import AgentOutcome
    from harness.diagnosis import DiagnosisRun

__all__ = ["ReleasePolicy", "observed_facts"]

_FALLBACK_STEPS = {
    "EVIDENCE": [
        "Review the verified facts listed here; the draft's conclusions could not be tied to evidence.",
        "Re-run the diagnosis with a narrower question (service, time window).",
    ],
    "SEMANTIC": [
        "Review the verified facts listed here; an independent check found the conclusions unsupported.",
        "Escalate to the on-call engineer for the affected service.",
    ],
    "SEMANTIC_UNAVAILABLE": [
        "Review the verified facts listed here; the independent check was unavailable.",
        "Re-run the diagnosis when the model endpoint is healthy.",
    ],
}
_LIMITATIONS = {
    "EVIDENCE": "The diagnosis was withheld because its citations failed evidence validation.",
    "SEMANTIC": "The diagnosis was withheld because the verified evidence did not support it.",
    "SEMANTIC_UNAVAILABLE": "The diagnosis was withheld because it could not be independently checked.",
}
Stage = Literal["EVIDENCE", "SEMANTIC", "SEMANTIC_UNAVAILABLE"]


@dataclass
class ReleasePolicy:
    """Decides what a finished diagnosis releases."""

    store: CanonicalStore
    repair_enabled: bool = True

    async def release(self, run: DiagnosisRun, outcome: AgentOutcome) -> ReleasedResult:
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
        semantic = await SemanticGuard(run.caller).judge(
            query=run.request.question, draft=draft, snapshot=verdict.snapshot
        )
        run.trace.record(
            TraceCategory.SEMANTIC,
            "SEMANTIC_VERDICT",
            {"verdict": semantic.verdict.value, "count": len(semantic.issues)},
        )
        if semantic.verdict is Verdict.UNSUPPORTED:
            return self._fallback(run, "SEMANTIC", verdict.snapshot, list(semantic.issues))
        if semantic.verdict is Verdict.UNAVAILABLE:
            return self._fallback(run, "SEMANTIC_UNAVAILABLE", verdict.snapshot, [])
        report = DiagnosisReport(
            run_id=run.run_id,
            analysis_id=draft.analysis_id,
            summary=draft.summary,
            conclusions=draft.conclusions,
            next_steps=draft.next_steps,
            limitations=draft.limitations,
        )
        run.trace.record(TraceCategory.RELEASE, "RELEASE_DECISION", {"result_type": report.type})
        return report

    async def _check(
        self, run: DiagnosisRun, guard: EvidenceGuard, draft: DiagnosisDraft, *, attempt: int
    ) -> EvidenceVerdict:
        verdict = await guard.check(run_id=run.run_id, analysis_id=run.run.analysis_id, draft=draft)
        run.trace.record(
            TraceCategory.EVIDENCE,
            "EVIDENCE_CHECK",
            {
                "attempt": attempt,
                "outcome": "STORE_ERROR"
                if verdict.store_failed
                else ("OK" if verdict.ok else "ISSUES"),
                "issue_codes": sorted({i.code.value for i in verdict.issues}),
            },
        )
        return verdict

    async def _repair(
        self, run: DiagnosisRun, outcome: AgentOutcome, verdict: EvidenceVerdict
    ) -> DiagnosisDraft | None:
        """One round: the agent gets the typed issues, no tools, and may return a new draft."""
        messages = [*outcome.messages, repair_message([i.render() for i in verdict.issues])]
        try:
            reply = await run.caller.call(Component.EVIDENCE_REPAIR, messages)
            repaired = parse_draft(reply)
        except (ModelError, BudgetExhausted) as err:
            run.trace.record(
                TraceCategory.EVIDENCE,
                "EVIDENCE_REPAIR",
                {"outcome": "FAILED", "error_code": err.error_code.value},
            )
            return None
        except HarnessError as err:
            if err.error_code is not ErrorCode.INVALID_DRAFT:
                raise
            run.trace.record(
                TraceCategory.EVIDENCE, "EVIDENCE_REPAIR", {"outcome": "INVALID_DRAFT"}
            )
            return None
        run.trace.record(TraceCategory.EVIDENCE, "EVIDENCE_REPAIR", {"outcome": "DRAFT"})
        return repaired

    def _fallback(
        self, run: DiagnosisRun, stage: Stage, snapshot: VerifiedSnapshot, issues: list[str]
    ) -> SafeFallback:
        result = SafeFallback(
            run_id=run.run_id,
            failure_stage=stage,
            observed_facts=observed_facts(snapshot),
            validation_issues=issues[:30],
            limitations=[_LIMITATIONS[stage]],
            next_steps=list(_FALLBACK_STEPS[stage]),
        )
        run.trace.record(
            TraceCategory.RELEASE, "RELEASE_DECISION", {"result_type": result.type, "stage": stage}
        )
        return result

    def _failure(self, run: DiagnosisRun, code: ErrorCode) -> StableFailure:
        run.trace.record(
            TraceCategory.RELEASE,
            "RELEASE_DECISION",
            {"result_type": "StableFailure", "error_code": code.value},
        )
        return StableFailure(run_id=run.run_id, error_code=code)


def observed_facts(snapshot: VerifiedSnapshot, *, limit: int = 20) -> list[ObservedFact]:
    """Facts rendered from verified agent projections (already redacted and bounded)."""
    facts: list[ObservedFact] = []
    for tool_call_id, result in snapshot.records.items():
        for ref, text in _items(result):
            facts.append(ObservedFact(tool_call_id=tool_call_id, item_ref=ref, text=text[:500]))
            if len(facts) >= limit:
                return facts
    return facts


def _items(result: dict[str, Any]) -> list[tuple[str, str]]:
    kind = result.get("kind")
    if kind == "logs":
        return [
            (
                t["ref"],
                f"{t['template']} — {t['count']} events, {t['first_seen']} to {t['last_seen']}, {', '.join(t['services'])}",
            )
            for t in result.get("templates", [])[:5]
        ]
    if kind == "mysql":
        return [
            (r["ref"], ", ".join(f"{k}={v}" for k, v in r["values"].items()))
            for r in result.get("rows", [])[:5]
        ]
    if kind == "rag":
        return [
            (b["ref"], f"{b['title']}: {b['excerpt'][:200]}")
            for b in result.get("evidence", [])[:3]
        ]
    return []
