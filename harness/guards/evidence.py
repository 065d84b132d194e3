"""EvidenceGuard: are the draft's citations real, READY, of this run, and do they back it?

No model is called. Every citation is read from the canonical store by a key built from the
*current* run — never from anything the draft says about runs — so forged ids, ids of other
runs and expired records all come back missing. The output is a verified snapshot holding only
the agent projections of valid cited records, plus typed issues.

Rules (ARCHITECTURE §9): schema and analysis_id; READY only (PROJECTING and ERROR never count);
NO_EVIDENCE backs only a NEGATIVE_FINDING whose scope equals the record's actual scope; every
ROOT_CAUSE / CONTRIBUTING_FACTOR / OBSERVATION cites at least one READY EVIDENCE_FOUND record;
a ROOT_CAUSE needs an observed fact (logs or MySQL), knowledge alone never makes one; each
item_ref exists in its record's projection; and the grounding pre-check.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from harness.draft import Conclusion, ConclusionKind, DiagnosisDraft
from harness.errors import StoreError
from harness.guards.grounding import ungrounded_tokens
from harness.ids import is_tool_call_id
from harness.invocation import CanonicalInvocation, EvidenceStatus, InvocationStatus
from harness.observation import SCOPE_REF, AgentObservation, observation_adapter
from harness.ports import CanonicalStore
from harness.verdicts import IssueCode, ValidationIssue

__all__ = ["EvidenceGuard", "EvidenceVerdict", "VerifiedSnapshot"]
_OBSERVED_FACT_TOOLS = frozenset({"query_logs", "query_mysql"})
_CLAIMING = frozenset(
    {ConclusionKind.ROOT_CAUSE, ConclusionKind.CONTRIBUTING_FACTOR, ConclusionKind.OBSERVATION}
)


class VerifiedSnapshot(BaseModel):
    """Agent projections of the valid cited records of one run; nothing else."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str = Field(description="The run whose records were checked.")
    records: dict[str, AgentObservation] = Field(
        default_factory=dict, description="tool_call_id → the record's agent projection."
    )


@dataclass(frozen=True, kw_only=True)
class EvidenceVerdict:
    """EvidenceGuard's result. ``store_failed`` means fail closed: nothing may be released."""

    issues: tuple[ValidationIssue, ...]
    snapshot: VerifiedSnapshot
    store_failed: bool = False

    @property
    def ok(self) -> bool:
        return not self.issues and not self.store_failed


@dataclass
class _Record:
    invocation: CanonicalInvocation
    observation: AgentObservation | None = None
    refs: set[str] = field(default_factory=set)
    text: str = ""


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
        for conclusion in draft.conclusions:
            issues.extend(self._check_conclusion(conclusion, records, valid))
        snapshot = VerifiedSnapshot(
            run_id=run_id,
            records={
                cid: rec.observation
                for cid, rec in sorted(valid.items())
                if rec.observation is not None
            },
        )
        return EvidenceVerdict(issues=tuple(issues), snapshot=snapshot)

    async def _load(self, run_id: str, draft: DiagnosisDraft) -> dict[str, _Record | None]:
        records: dict[str, _Record | None] = {}
        for conclusion in draft.conclusions:
            for citation in conclusion.citations:
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
            record.refs = observation.item_refs()
            record.text = json.dumps(invocation.agent_result, ensure_ascii=False, default=str)
        return record

    def _check_conclusion(
        self, conclusion: Conclusion, records: dict[str, _Record | None], valid: dict[str, _Record]
    ) -> list[ValidationIssue]:
        issues: list[ValidationIssue] = []
        found_tools: list[str] = []
        evidence_text: list[str] = []
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
            scope_cited = ref == SCOPE_REF and conclusion.kind is ConclusionKind.NEGATIVE_FINDING
            if ref not in record.refs and not scope_cited:
                issues.append(ValidationIssue(code=IssueCode.ITEM_REF_NOT_FOUND, **base))
                continue
            if (
                inv.evidence_status is EvidenceStatus.NO_EVIDENCE
                and conclusion.kind is not ConclusionKind.NEGATIVE_FINDING
            ):
                issues.append(ValidationIssue(code=IssueCode.NO_EVIDENCE_NOT_NEGATIVE, **base))
                continue
            if conclusion.kind is ConclusionKind.NEGATIVE_FINDING and not _same_scope(
                conclusion.scope, (inv.agent_result or {}).get("scope")
            ):
                issues.append(ValidationIssue(code=IssueCode.NEGATIVE_SCOPE_MISMATCH, **base))
                continue
            valid[cid] = record
            evidence_text.append(record.text)
            if inv.evidence_status is EvidenceStatus.EVIDENCE_FOUND:
                found_tools.append(inv.tool_name)
        if conclusion.kind in _CLAIMING and not found_tools:
            issues.append(
                ValidationIssue(code=IssueCode.MISSING_EVIDENCE, conclusion_id=conclusion.id)
            )
        if conclusion.kind is ConclusionKind.ROOT_CAUSE and not (
            set(found_tools) & _OBSERVED_FACT_TOOLS
        ):
            issues.append(
                ValidationIssue(
                    code=IssueCode.ROOT_CAUSE_WITHOUT_OBSERVED_FACT, conclusion_id=conclusion.id
                )
            )
        if self.check_grounding and evidence_text:
            for token in ungrounded_tokens(conclusion.statement, "\n".join(evidence_text))[:5]:
                issues.append(
                    ValidationIssue(
                        code=IssueCode.UNGROUNDED_TOKEN,
                        conclusion_id=conclusion.id,
                        detail=_bounded(token),
                    )
                )
        return issues


def _same_scope(claimed: dict[str, Any] | None, actual: Any) -> bool:
    # A NEGATIVE_FINDING needs a scope; a missing one never equals the record's.
    if claimed is None or actual is None:
        return False
    return _canonical(claimed) == _canonical(actual)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def _bounded(token: str) -> str:
    """A token for a detail field; the statement is the model's text, so keep it short."""
    return f"token={token[:60]!r}"
