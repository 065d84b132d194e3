"""The evidence repair round: the agent, given EvidenceGuard's typed issues, may write one new
draft (no tools). A step of the run, as the router and the diagnosis loop are; the release
policy calls it through :class:`~harness.release.policy.ReleaseContext` without knowing how a
model is asked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.agent.caller import ModelCaller
from harness.agent.loop import DRAFT_OUTPUT
from harness.agent.prompts import repair_message
from harness.contracts.draft import DiagnosisDraft, parse_draft
from harness.contracts.errors import BudgetExhausted, InvalidDraft, ModelError
from harness.contracts.models import ChatMessage, Component
from harness.contracts.verdicts import ValidationIssue
from harness.trace import EvidenceRepair, TraceRecorder

__all__ = ["RepairRound"]


@dataclass(frozen=True, kw_only=True)
class RepairRound:
    """One repair call on the agent's own conversation.

    Attributes:
        caller: The run's model caller (the call is EVIDENCE_REPAIR's, budgeted as any).
        messages: The diagnosis conversation the draft came from.
        trace: The run's timeline (the round's outcome is recorded there).
    """

    caller: ModelCaller
    messages: Sequence[ChatMessage]
    trace: TraceRecorder

    async def __call__(self, issues: Sequence[ValidationIssue]) -> DiagnosisDraft | None:
        """The repaired draft, or None when the call failed or its reply is no draft."""
        messages = [*self.messages, repair_message([i.render() for i in issues])]
        try:
            reply = await self.caller.call(
                Component.EVIDENCE_REPAIR, messages, output_schema=DRAFT_OUTPUT
            )
            repaired = parse_draft(reply.content)
        except (ModelError, BudgetExhausted) as err:
            self.trace.record(EvidenceRepair(outcome="FAILED", error_code=err.error_code))
            return None
        except InvalidDraft:
            self.trace.record(EvidenceRepair(outcome="INVALID_DRAFT"))
            return None
        self.trace.record(EvidenceRepair(outcome="DRAFT"))
        return repaired
