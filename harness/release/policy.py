"""Release policy: from the agent's draft to the one released result (docs/architecture.md §3).

    draft ─► EvidenceGuard ─► [the run's repair round] ─► content checks ─► SemanticGuard ─► release
      all gates pass                    → DiagnosisReport (checked conclusions; harness-written
                                          summary and limitations; runbook-backed next steps)
      evidence still failing            → SafeFallback(EVIDENCE)
      instruction-shaped released text  → SafeFallback(CONTENT)
      UNSUPPORTED                       → SafeFallback(SEMANTIC)
      judge unavailable after one retry → SafeFallback(SEMANTIC_UNAVAILABLE)
      canonical store unavailable       → StableFailure(STORE_ERROR)  (fail closed)

Every released word is checked or rendered from checked parts. A SafeFallback is built from
verified projections and harness-written text only; it never contains the draft. The policy
sees a run only through a small frozen :class:`ReleaseContext`; it asks no model itself: the
judge is a guard, and the repair round is the run's own step (:mod:`harness.agent.repair`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from harness.contracts.draft import Conclusion, DiagnosisDraft, NextStep
from harness.contracts.errors import ErrorCode
from harness.contracts.intent import Intent
from harness.contracts.results import (
    Answer,
    DiagnosisReport,
    FailureStage,
    ReleasedResult,
    ReleasedStep,
    SafeFallback,
    StableFailure,
)
from harness.contracts.verdicts import IssueCode, SemanticVerdict, ValidationIssue
from harness.guards.evidence import EvidenceGuard, EvidenceVerdict, StepCheck, VerifiedSnapshot
from harness.guards.semantic import SemanticGuard
from harness.ports import CanonicalStore
from harness.release.facts import observed_facts
from harness.release.links import ContentPolicy
from harness.release.report import render_limitations, render_summary
from harness.textcheck import advised_command, dangerous_command, injection, prescribed_command
from harness.trace import EvidenceCheck, ReleaseDecision, SemanticCheck, TraceRecorder

__all__ = ["WITHHELD_ANSWER", "WITHHELD_UNCITED_ANSWER", "ReleaseContext", "ReleasePolicy"]

_FALLBACK_STEPS: dict[FailureStage, tuple[str, ...]] = {
    "EVIDENCE": (
        "Review the verified facts listed here; the draft's conclusions could not be tied to evidence.",
        "Re-run the diagnosis with a narrower question (service, time window).",
    ),
    "CONTENT": (
        "Review the verified facts listed here; the draft repeated instruction-shaped text from tool data.",
        "Check the quoted sources for planted instructions before acting on them.",
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
    "CONTENT": "The diagnosis was withheld because its text carried instruction-shaped content.",
    "SEMANTIC": "The diagnosis was withheld because the verified evidence did not support it.",
    "SEMANTIC_UNAVAILABLE": "The diagnosis was withheld because it could not be independently checked.",
}
_MAX_ISSUES = 30
WITHHELD_ANSWER = (
    "The answer was withheld: the material it drew on contains instruction-shaped text. "
    "The cited items are listed; read them at their source."
)
WITHHELD_UNCITED_ANSWER = (
    "The answer was withheld: its text reads like an instruction to its reader, and it cites "
    "nothing to check it against."
)


Repair = Callable[[Sequence[ValidationIssue]], Awaitable[DiagnosisDraft | None]]
"""The run's repair round: EvidenceGuard's issues in, a new draft (or None) out."""


@dataclass(frozen=True, kw_only=True)
class ReleaseContext:
    """What the policy needs of a run: identity, the question, its trace, the judge, and the
    run's repair round (None: no repair)."""

    run_id: str
    analysis_id: str
    question: str
    trace: TraceRecorder
    judge: SemanticGuard
    repair: Repair | None = None


@dataclass(frozen=True, kw_only=True)
class _Vetted:
    """The releasable parts of a draft after the content checks, or why it is not releasable."""

    conclusions: list[Conclusion]
    steps: list[NextStep]
    released: list[ReleasedStep]
    withheld: list[tuple[StepCheck, str]]
    issues: list[ValidationIssue]


@dataclass
class ReleasePolicy:
    """Decides what a finished diagnosis releases."""

    store: CanonicalStore
    repair_enabled: bool = True
    content: ContentPolicy = field(default_factory=ContentPolicy)

    async def release(self, run: ReleaseContext, draft: DiagnosisDraft) -> ReleasedResult:
        guard = EvidenceGuard(self.store)
        verdict = await self._check(run, guard, draft, attempt=1)
        if verdict.store_failed:
            return self._failure(run, ErrorCode.STORE_ERROR)
        if not verdict.ok and self.repair_enabled and run.repair is not None:
            repaired = await run.repair(verdict.issues)
            if repaired is not None:
                second = await self._check(run, guard, repaired, attempt=2)
                if second.store_failed:
                    return self._failure(run, ErrorCode.STORE_ERROR)
                draft, verdict = repaired, second
        if not verdict.ok:
            return self._fallback(
                run, "EVIDENCE", verdict.snapshot, [i.render(public=True) for i in verdict.issues]
            )
        vetted = self._vet(draft, verdict)
        if vetted.issues:
            return self._fallback(
                run, "CONTENT", verdict.snapshot, [i.render(public=True) for i in vetted.issues]
            )
        summary = self.content.defang(render_summary(vetted.conclusions))
        limitations = render_limitations(
            vetted.conclusions, verdict.snapshot, run.trace.events, vetted.withheld
        )
        # The judge reads what would be released, not the words the release leaves out.
        candidate = draft.model_copy(
            update={
                "summary": summary,
                "conclusions": vetted.conclusions,
                "next_steps": vetted.steps,
                "limitations": limitations,
                "evaluations": {},
            }
        )
        judgement = await run.judge.judge(
            query=run.question, draft=candidate, snapshot=verdict.snapshot
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
            summary=summary,
            conclusions=vetted.conclusions,
            next_steps=vetted.released,
            limitations=limitations,
        )
        run.trace.record(ReleaseDecision(result_kind=report.kind))
        return report

    def answer(
        self, run_id: str, *, intent: Intent, text: str | None, citations: Sequence[str] = ()
    ) -> Answer:
        """An Answer to release: links and hosts defanged; withheld when it reads like an
        instruction, recommends a dangerous command, or tells its reader to switch security
        off, silence alerts, move credentials or dismiss the incident."""
        text = text or ""
        if (
            injection(text) is not None
            or prescribed_command(text) is not None
            or self.content.allowlist.directive(text) is not None
        ):
            # Only an answer that cites something may say its cited items are listed.
            text = WITHHELD_ANSWER if citations else WITHHELD_UNCITED_ANSWER
        return Answer.bounded(
            run_id=run_id, intent=intent, text=self.content.defang(text), citations=citations
        )

    # ------------------------------------------------------------------ gates

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

    def _vet(self, draft: DiagnosisDraft, verdict: EvidenceVerdict) -> _Vetted:
        """Defang links, hold back unsafe steps, and scan every word that would be released."""
        issues: list[ValidationIssue] = []
        conclusions = []
        for conclusion in draft.conclusions:
            found = injection(conclusion.statement) or self.content.allowlist.directive(
                conclusion.statement
            )
            if found is not None:
                issues.append(_injection_issue(found, conclusion_id=conclusion.id))
            elif advised_command(conclusion.statement) is not None:
                # A claim that tells the operator to run a dangerous command is a next step
                # that escaped the next steps' checks; one that names the command that caused
                # the incident is not (``advised_command``).
                issues.append(
                    ValidationIssue(code=IssueCode.DANGEROUS_COMMAND, conclusion_id=conclusion.id)
                )
            conclusions.append(
                conclusion.model_copy(
                    update={"statement": self.content.defang(conclusion.statement)}
                )
            )
        steps: list[NextStep] = []
        released: list[ReleasedStep] = []
        withheld: list[tuple[StepCheck, str]] = []
        for index, check in enumerate(verdict.steps, 1):
            if check.problem is not None:
                withheld.append((check, check.problem))
                continue
            # What the step asks for, parsed and judged against the allowlist: unknown is
            # never released (docs/architecture.md, "Next steps: parsed commands ..."). The
            # verdict carries the blocklist's class too, so the text is scanned for dangerous
            # commands once.
            action = self.content.allowlist.classify_step(check.step.text)
            if action.blocklisted is not None:
                withheld.append((check, "DANGEROUS"))
                continue
            found = injection(check.step.text)
            if found is not None:
                issues.append(_injection_issue(found, detail=f"next_step={index}"))
                continue
            if action.outcome == "WITHHELD":
                withheld.append((check, action.reason))
                continue
            text = self.content.defang(check.step.text)
            steps.append(check.step.model_copy(update={"text": text}))
            released.append(
                ReleasedStep(
                    text=text,
                    citations=list(check.step.citations),
                    action=action.outcome,
                    rule=action.reason,
                )
            )
        return _Vetted(
            conclusions=conclusions,
            steps=steps,
            released=released,
            withheld=withheld,
            issues=issues,
        )

    # ------------------------------------------------------------------ results

    def _fallback(
        self,
        run: ReleaseContext,
        stage: FailureStage,
        snapshot: VerifiedSnapshot,
        issues: Sequence[str],
    ) -> SafeFallback:
        quoted = observed_facts(snapshot, self.content)
        withheld = [
            _injection_issue(kind, item_ref=ref, tool_call_id=tool_call_id).render(public=True)
            for tool_call_id, ref, kind in quoted.withheld
        ]
        result = SafeFallback(
            run_id=run.run_id,
            failure_stage=stage,
            observed_facts=list(quoted.facts),
            validation_issues=[self._public(i) for i in [*issues, *withheld][:_MAX_ISSUES]],
            limitations=[_LIMITATIONS[stage]],
            next_steps=list(_FALLBACK_STEPS[stage]),
        )
        run.trace.record(ReleaseDecision(result_kind=result.kind, failure_stage=stage))
        return result

    def _public(self, issue: str) -> str:
        """A validation issue as released: its detail (a token of the draft, the judge's
        words) is dropped when a check refuses it; nothing refused is quoted back."""
        if injection(issue) is None and dangerous_command(issue) is None:
            return self.content.defang(issue)
        return issue.split(" ", 1)[0] + " (detail withheld)"

    def _failure(self, run: ReleaseContext, code: ErrorCode) -> StableFailure:
        run.trace.record(ReleaseDecision(result_kind="StableFailure", error_code=code))
        return StableFailure(run_id=run.run_id, error_code=code)


def _injection_issue(kind: str, **where: str) -> ValidationIssue:
    detail = where.pop("detail", "")
    return ValidationIssue(
        code=IssueCode.INJECTION_DETECTED,
        detail=f"{detail} class={kind}".strip(),
        **where,
    )
