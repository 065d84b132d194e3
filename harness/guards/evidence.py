"""EvidenceGuard: are the draft's citations real, READY, of this run, and do they back it?

No model is called. Every citation is read from the canonical store by a key built from the
*current* run — never from anything the draft says about runs — so forged ids, ids of other
runs and expired records all come back missing. The output is a verified snapshot holding only
the agent projections of valid cited records, typed issues, and a verdict per next step.

Rules for conclusions: schema and analysis_id; READY only (PROJECTING and
ERROR never count); a NEGATIVE_FINDING cites NO_EVIDENCE records only, by their scope, and its
scope equals the record's actual scope; NO_EVIDENCE backs nothing else; every ROOT_CAUSE /
CONTRIBUTING_FACTOR / OBSERVATION cites at least one READY EVIDENCE_FOUND record; a ROOT_CAUSE
needs an observed fact (logs or MySQL) that shares its subject — knowledge alone never makes
one, and an unrelated log line does not either; each item_ref exists in its record's
projection; and grounding per cited item (:mod:`harness.guards.grounding`): what a statement
asserts must stand in the items it cites, not merely somewhere in their records.

Next steps are checked the same way but do not fail the draft: a step is releasable when its
citations are valid, one of them is a runbook item (search_knowledge) of an approved document
(the block says ``reviewed``; docs/architecture.md, "Trust: approved runbooks"), its claims are
grounded in the cited items and its wording comes from the approved runbook items (not from a
log line or row it also cites); any other step is withheld.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.contracts.draft import Citation, Conclusion, ConclusionKind, DiagnosisDraft, NextStep
from harness.contracts.errors import StoreError
from harness.contracts.ids import is_tool_call_id
from harness.contracts.invocation import CanonicalInvocation, EvidenceStatus, InvocationStatus
from harness.contracts.observation import (
    SCOPE_REF,
    AgentObservation,
    RagObservation,
    observation_adapter,
)
from harness.contracts.verdicts import IssueCode, ValidationIssue
from harness.guards.grounding import (
    EvidenceIndex,
    ItemValues,
    claims,
    content_words,
    shares_subject,
    ungrounded_tokens,
)
from harness.ports import CanonicalStore

__all__ = ["EvidenceGuard", "EvidenceVerdict", "StepCheck", "VerifiedSnapshot"]

_OBSERVED_FACT_TOOLS = frozenset({"query_logs", "query_mysql"})
_KNOWLEDGE_TOOL = "search_knowledge"
_CLAIMING = frozenset(
    {ConclusionKind.ROOT_CAUSE, ConclusionKind.CONTRIBUTING_FACTOR, ConclusionKind.OBSERVATION}
)
# A next step's distinctive words must mostly come from the items it cites.
_MIN_STEP_WORDS_FROM_SOURCE = 0.5

StepProblem = Literal[
    "NO_RUNBOOK_CITED", "UNREVIEWED_SOURCE", "CITATION_INVALID", "UNGROUNDED", "NOT_FROM_SOURCE"
]


class VerifiedSnapshot(BaseModel):
    """Agent projections of the valid cited records of one run; nothing else."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str = Field(description="The run whose records were checked.")
    records: dict[str, AgentObservation] = Field(
        default_factory=dict, description="tool_call_id → the record's agent projection."
    )


@dataclass(frozen=True, kw_only=True)
class StepCheck:
    """One next step and why it may not be released (``problem`` None: it may)."""

    step: NextStep
    problem: StepProblem | None = None


@dataclass(frozen=True, kw_only=True)
class EvidenceVerdict:
    """EvidenceGuard's result. ``store_failed`` means fail closed: nothing may be released."""

    issues: tuple[ValidationIssue, ...]
    snapshot: VerifiedSnapshot
    steps: tuple[StepCheck, ...] = ()
    store_failed: bool = False

    @property
    def ok(self) -> bool:
        return not self.issues and not self.store_failed


@dataclass
class _Record:
    invocation: CanonicalInvocation
    observation: AgentObservation | None = None
    items: dict[str, str] = field(default_factory=dict)


class EvidenceGuard:
    """Validates a draft against the canonical store of its run."""

    def __init__(self, store: CanonicalStore, *, check_grounding: bool = True) -> None:
        self.store = store
        self.check_grounding = check_grounding
        self._adapter = observation_adapter()

    async def check(
        self, *, run_id: str, analysis_id: str, draft: DiagnosisDraft
    ) -> EvidenceVerdict:
        issues: list[ValidationIssue] = []
        if draft.analysis_id != analysis_id:
            issues.append(ValidationIssue(code=IssueCode.ANALYSIS_ID_MISMATCH))
        if not draft.conclusions:
            issues.append(ValidationIssue(code=IssueCode.NO_CONCLUSIONS))
        try:
            records = await self._load(run_id, draft)
        except StoreError:
            return EvidenceVerdict(
                issues=tuple(issues), snapshot=VerifiedSnapshot(run_id=run_id), store_failed=True
            )
        valid: dict[str, _Record] = {}
        # Each cited item is read for grounding once, however many citations name it.
        memo: dict[str, ItemValues] = {}
        for conclusion in draft.conclusions:
            issues.extend(self._check_conclusion(conclusion, records, valid, memo))
        steps = tuple(self._check_step(step, records, memo) for step in draft.next_steps)
        snapshot = VerifiedSnapshot(
            run_id=run_id,
            records={
                cid: rec.observation
                for cid, rec in sorted(valid.items())
                if rec.observation is not None
            },
        )
        return EvidenceVerdict(issues=tuple(issues), snapshot=snapshot, steps=steps)

    async def _load(self, run_id: str, draft: DiagnosisDraft) -> dict[str, _Record | None]:
        cited = [c for conclusion in draft.conclusions for c in conclusion.citations]
        cited += [c for step in draft.next_steps for c in step.citations]
        records: dict[str, _Record | None] = {}
        for citation in cited:
            cid = citation.tool_call_id
            if cid in records:
                continue
            if not is_tool_call_id(cid):
                records[cid] = None
                continue
            invocation = await self.store.get(run_id, cid)  # key from the *current* run
            records[cid] = None if invocation is None else self._index(invocation)
        return records

    def _index(self, invocation: CanonicalInvocation) -> _Record:
        record = _Record(invocation=invocation)
        if (
            invocation.invocation_status is InvocationStatus.READY
            and invocation.agent_result is not None
        ):
            observation = self._adapter.validate_python(invocation.agent_result)
            record.observation = observation
            record.items = observation.item_texts()
        return record

    # ------------------------------------------------------------------ conclusions

    def _check_conclusion(
        self,
        conclusion: Conclusion,
        records: dict[str, _Record | None],
        valid: dict[str, _Record],
        memo: dict[str, ItemValues],
    ) -> list[ValidationIssue]:
        issues: list[ValidationIssue] = []
        negative = conclusion.kind is ConclusionKind.NEGATIVE_FINDING
        found_tools: list[str] = []
        cited_items: list[str] = []
        observed_items: list[str] = []
        for citation in conclusion.citations:
            cid, ref = citation.tool_call_id, citation.item_ref
            base = {"conclusion_id": conclusion.id, "tool_call_id": cid[:64], "item_ref": ref}
            record = records.get(cid)
            if record is None:
                issues.append(ValidationIssue(code=IssueCode.UNKNOWN_TOOL_CALL, **base))
                continue
            inv = record.invocation
            if inv.invocation_status is not InvocationStatus.READY:
                issues.append(
                    ValidationIssue(
                        code=IssueCode.RECORD_NOT_READY, detail=inv.invocation_status.value, **base
                    )
                )
                continue
            # A negative finding cites the record's scope itself: an empty result has no items.
            if ref not in record.items or (ref == SCOPE_REF and not negative):
                issues.append(ValidationIssue(code=IssueCode.ITEM_REF_NOT_FOUND, **base))
                continue
            if negative:
                if inv.evidence_status is not EvidenceStatus.NO_EVIDENCE:
                    # "No errors at all" cannot rest on a result full of errors.
                    issues.append(ValidationIssue(code=IssueCode.NEGATIVE_ON_EVIDENCE, **base))
                    continue
                actual = record.observation.scope if record.observation is not None else None
                if not _same_scope(conclusion.scope, actual):
                    issues.append(ValidationIssue(code=IssueCode.NEGATIVE_SCOPE_MISMATCH, **base))
                    continue
            elif inv.evidence_status is EvidenceStatus.NO_EVIDENCE:
                issues.append(ValidationIssue(code=IssueCode.NO_EVIDENCE_NOT_NEGATIVE, **base))
                continue
            valid[cid] = record
            cited_items.append(record.items[ref])
            if inv.evidence_status is EvidenceStatus.EVIDENCE_FOUND:
                found_tools.append(inv.tool_name)
                if inv.tool_name in _OBSERVED_FACT_TOOLS:
                    observed_items.append(record.items[ref])
        if conclusion.kind in _CLAIMING and not found_tools:
            issues.append(
                ValidationIssue(code=IssueCode.MISSING_EVIDENCE, conclusion_id=conclusion.id)
            )
        # What the statement claims, read once for the subject and the grounding checks.
        grounded = self.check_grounding and bool(cited_items)
        claimed = (
            claims(conclusion.statement)
            if grounded or conclusion.kind is ConclusionKind.ROOT_CAUSE
            else []
        )
        if conclusion.kind is ConclusionKind.ROOT_CAUSE:
            if not set(found_tools) & _OBSERVED_FACT_TOOLS:
                issues.append(
                    ValidationIssue(
                        code=IssueCode.ROOT_CAUSE_WITHOUT_OBSERVED_FACT, conclusion_id=conclusion.id
                    )
                )
            elif not any(
                shares_subject(conclusion.statement, item, memo, claimed=claimed)
                for item in observed_items
            ):
                issues.append(
                    ValidationIssue(
                        code=IssueCode.ROOT_CAUSE_UNRELATED_FACT, conclusion_id=conclusion.id
                    )
                )
        if grounded:
            index = EvidenceIndex(cited_items, memo)
            for token in ungrounded_tokens(conclusion.statement, index, claimed=claimed)[:5]:
                issues.append(
                    ValidationIssue(
                        code=IssueCode.UNGROUNDED_TOKEN,
                        conclusion_id=conclusion.id,
                        detail=_bounded(token),
                    )
                )
        return issues

    # ------------------------------------------------------------------ next steps

    def _check_step(
        self, step: NextStep, records: dict[str, _Record | None], memo: dict[str, ItemValues]
    ) -> StepCheck:
        items: list[str] = []
        reviewed: list[str] = []
        runbook = False
        for citation in step.citations:
            item = _citable_item(records.get(citation.tool_call_id), citation)
            if item is None:
                return StepCheck(step=step, problem="CITATION_INVALID")
            items.append(item)
            record = records[citation.tool_call_id]
            assert record is not None
            if record.invocation.tool_name == _KNOWLEDGE_TOOL:
                runbook = True
                if _reviewed(record, citation.item_ref):
                    reviewed.append(item)
        if not runbook:
            return StepCheck(step=step, problem="NO_RUNBOOK_CITED")
        if not reviewed:
            return StepCheck(step=step, problem="UNREVIEWED_SOURCE")
        if self.check_grounding and ungrounded_tokens(step.text, EvidenceIndex(items, memo)):
            return StepCheck(step=step, problem="UNGROUNDED")
        words = content_words(step.text)
        if words:
            # Worded from the approved runbook, not from a log line or a row it also cites:
            # tool data is evidence, never an instruction.
            sourced = words & content_words("\n".join(reviewed))
            if len(sourced) < _MIN_STEP_WORDS_FROM_SOURCE * len(words):
                return StepCheck(step=step, problem="NOT_FROM_SOURCE")
        return StepCheck(step=step)


def _reviewed(record: _Record, item_ref: str) -> bool:
    """Whether the cited knowledge block comes from an approved document."""
    observation = record.observation
    if not isinstance(observation, RagObservation):
        return False
    return any(b.ref == item_ref and b.reviewed for b in observation.evidence)


def _citable_item(record: _Record | None, citation: Citation) -> str | None:
    """The text of a cited item that may back a step: READY, EVIDENCE_FOUND, a real item."""
    if record is None or record.invocation.evidence_status is not EvidenceStatus.EVIDENCE_FOUND:
        return None
    if citation.item_ref == SCOPE_REF:
        return None
    return record.items.get(citation.item_ref)


def _same_scope(claimed: dict[str, object] | None, actual: BaseModel | None) -> bool:
    # A NEGATIVE_FINDING needs a scope; a missing one never equals the record's.
    if claimed is None or actual is None:
        return False
    try:
        return type(actual).model_validate(claimed) == actual
    except ValueError:
        return False


def _bounded(token: str) -> str:
    """A token for a detail field; the statement is the model's text, so keep it short."""
    return f"token={token[:60]!r}"
