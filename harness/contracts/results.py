"""Released results: the only things a run ever hands out.

Exactly one is released per run (first terminal wins). None of them carries prompts, the raw
draft (except a DiagnosisReport, which *is* the validated draft), raw tool payloads, exception
text or secrets. Each result type knows the run state it ends (``run_status``):

=================  ==============  ============================================
run state          result          built from
=================  ==============  ============================================
COMPLETED          DiagnosisReport the validated draft, as the agent wrote it
COMPLETED          SafeFallback    verified projections only, never the draft
COMPLETED          Answer          knowledge QA / system chat / out of scope
FAILED             StableFailure   an error code only
CANCELLED          Cancelled       nothing else
TIMED_OUT          TimedOut        nothing else
=================  ==============  ============================================
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from harness.contracts.draft import Citation, Conclusion
from harness.contracts.errors import ErrorCode
from harness.contracts.intent import Intent
from harness.contracts.models import Component, FailureReason
from harness.contracts.status import RunStatus

__all__ = [
    "MAX_ANSWER_CHARS",
    "RESULT_SCHEMA_VERSION",
    "Answer",
    "Cancelled",
    "DiagnosisReport",
    "FailureReason",
    "FailureStage",
    "ObservedFact",
    "ReleasedResult",
    "ReleasedStep",
    "ResultKind",
    "SafeFallback",
    "StableFailure",
    "StepAction",
    "TimedOut",
    "released_adapter",
]

MAX_ANSWER_CHARS = 4000
_MAX_ANSWER_CITATIONS = 20

ResultKind = Literal[
    "DiagnosisReport", "SafeFallback", "Answer", "StableFailure", "Cancelled", "TimedOut"
]
FailureStage = Literal["EVIDENCE", "CONTENT", "SEMANTIC", "SEMANTIC_UNAVAILABLE"]
StepAction = Literal["DIAGNOSTIC", "CHANGE"]
RESULT_SCHEMA_VERSION = 3
"""Version 2: a released next step carries its action (DIAGNOSTIC or CHANGE) and the rule that
decided it. Version 3: a StableFailure names the failing component and a reason code. Earlier
payloads (without them) still parse."""


class _Released(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    run_status: ClassVar[RunStatus]
    """The terminal state of a run that releases this result."""

    schema_version: int = Field(
        default=RESULT_SCHEMA_VERSION, description="Format of the released result."
    )
    run_id: str = Field(description="The run that released it.")


class ReleasedStep(BaseModel):
    """A next step as released: the runbook's action, its sources, and what it does.

    ``action`` says whether the step only reads (DIAGNOSTIC) or changes production (CHANGE: a
    command or verb of the allowlist's changes, from an approved runbook); anything else is
    never released (docs/architecture.md, "Next steps: parsed commands and an allowlist").
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str = Field(description="The action, in one sentence (links and hosts defanged).")
    citations: list[Citation] = Field(description="The approved runbook items it comes from.")
    action: StepAction = Field(
        description="DIAGNOSTIC (reads only) or CHANGE (changes production)."
    )
    rule: str = Field(description="The allowlist or prose rule that decided the action.")


class DiagnosisReport(_Released):
    """A diagnosis that passed every gate; each word of it checked or rendered from checked parts.

    The conclusions are the agent's, checked (citations, grounding per cited item, the
    independent judge, the content scan). The summary and the limitations are written by the
    harness from the checked conclusions and the run's records; a next step is released only
    when a runbook item of this run backs it, with that source.
    """

    run_status: ClassVar[RunStatus] = RunStatus.COMPLETED

    kind: Literal["DiagnosisReport"] = Field(
        default="DiagnosisReport", description="Discriminator."
    )
    analysis_id: str = Field(description="The analysis the report answers.")
    summary: str = Field(description="Harness-written summary of the checked conclusions.")
    conclusions: list[Conclusion] = Field(description="Checked conclusions with citations.")
    next_steps: list[ReleasedStep] = Field(
        description=(
            "Next steps backed by a cited approved runbook item of this run, with their sources "
            "and their action (DIAGNOSTIC or CHANGE)."
        )
    )
    limitations: list[str] = Field(description="Harness-written limits of the diagnosis.")


class ObservedFact(BaseModel):
    """One verified item of tool data, quoted with its source; data, never an instruction."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tool_call_id: str = Field(description="The tool call whose projection holds the item.")
    item_ref: str = Field(description="The item's ref in that projection.")
    quote: str = Field(
        max_length=500,
        description="The item as tool data (redacted, links defanged), rendered by the harness.",
    )


class SafeFallback(_Released):
    """What is released instead of a diagnosis that could not be verified; never the draft."""

    run_status: ClassVar[RunStatus] = RunStatus.COMPLETED

    kind: Literal["SafeFallback"] = Field(default="SafeFallback", description="Discriminator.")
    failure_stage: FailureStage = Field(
        description=(
            "Where verification stopped: EVIDENCE (citations), CONTENT (instruction-shaped "
            "text), SEMANTIC (the judge disagreed) or SEMANTIC_UNAVAILABLE."
        )
    )
    observed_facts: list[ObservedFact] = Field(
        default_factory=list, max_length=20, description="Facts from verified projections."
    )
    validation_issues: list[str] = Field(
        default_factory=list, max_length=30, description="Issue codes and the items they name."
    )
    limitations: list[str] = Field(
        default_factory=list, max_length=10, description="Harness-written limitations."
    )
    next_steps: list[str] = Field(
        default_factory=list, max_length=10, description="Harness-written next steps."
    )


class Answer(_Released):
    """The reply to a knowledge question, a system chat, or an out-of-scope question."""

    run_status: ClassVar[RunStatus] = RunStatus.COMPLETED

    kind: Literal["Answer"] = Field(default="Answer", description="Discriminator.")
    intent: Intent = Field(description="The route that produced the answer.")
    text: str = Field(max_length=MAX_ANSWER_CHARS, description="The answer text.")
    citations: list[str] = Field(default_factory=list, description="Item refs the answer used.")

    @classmethod
    def bounded(
        cls, *, run_id: str, intent: Intent, text: str | None, citations: Sequence[str] = ()
    ) -> Answer:
        """An Answer with its text and citations cut to the released bounds."""
        return cls(
            run_id=run_id,
            intent=intent,
            text=(text or "").strip()[:MAX_ANSWER_CHARS],
            citations=list(citations)[:_MAX_ANSWER_CITATIONS],
        )


class StableFailure(_Released):
    """A run that failed technically: stable codes and nothing else (never a reply's text)."""

    run_status: ClassVar[RunStatus] = RunStatus.FAILED

    kind: Literal["StableFailure"] = Field(default="StableFailure", description="Discriminator.")
    error_code: ErrorCode = Field(description="Why the run failed.")
    component: Component | None = Field(
        default=None,
        description="The model-calling component that failed; null when no model call failed.",
    )
    reason: FailureReason | None = Field(
        default=None, description="Why that component's reply could not be used."
    )


class Cancelled(_Released):
    """The run was cancelled; nothing else is released."""

    run_status: ClassVar[RunStatus] = RunStatus.CANCELLED

    kind: Literal["Cancelled"] = Field(default="Cancelled", description="Discriminator.")


class TimedOut(_Released):
    """The run hit its deadline; nothing else is released."""

    run_status: ClassVar[RunStatus] = RunStatus.TIMED_OUT

    kind: Literal["TimedOut"] = Field(default="TimedOut", description="Discriminator.")


ReleasedResult = Annotated[
    DiagnosisReport | SafeFallback | Answer | StableFailure | Cancelled | TimedOut,
    Field(discriminator="kind"),
]

_ADAPTER: TypeAdapter[ReleasedResult] = TypeAdapter(ReleasedResult)


def released_adapter() -> TypeAdapter[ReleasedResult]:
    """Parses any released result by its ``kind``."""
    return _ADAPTER
