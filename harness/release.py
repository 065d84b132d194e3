"""Released results: the only things a run ever hands out.

Exactly one is released per run (first terminal wins). None of them carries prompts, the raw
draft (except a DiagnosisReport, which *is* the validated draft), raw tool payloads, exception
text or secrets.

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

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from harness.draft import Conclusion
from harness.errors import ErrorCode

__all__ = [
    "Answer",
    "Cancelled",
    "DiagnosisReport",
    "Intent",
    "ReleasedResult",
    "SafeFallback",
    "StableFailure",
    "TimedOut",
    "released_adapter",
]

Intent = Literal["DIAGNOSIS", "KNOWLEDGE_QA", "SYSTEM_CHAT", "OUT_OF_SCOPE"]


class _Released(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int = 1
    run_id: str


class DiagnosisReport(_Released):
    type: Literal["DiagnosisReport"] = "DiagnosisReport"
    analysis_id: str
    summary: str
    conclusions: list[Conclusion]
    next_steps: list[str]
    limitations: list[str]


class ObservedFact(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    tool_call_id: str
    item_ref: str
    text: str = Field(max_length=500)


class SafeFallback(_Released):
    type: Literal["SafeFallback"] = "SafeFallback"
    failure_stage: Literal["EVIDENCE", "SEMANTIC", "SEMANTIC_UNAVAILABLE"]
    observed_facts: list[ObservedFact] = Field(default_factory=list, max_length=20)
    validation_issues: list[str] = Field(default_factory=list, max_length=30)
    limitations: list[str] = Field(default_factory=list, max_length=10)
    next_steps: list[str] = Field(default_factory=list, max_length=10)


class Answer(_Released):
    type: Literal["Answer"] = "Answer"
    intent: Intent
    text: str = Field(max_length=4000)
    citations: list[str] = Field(default_factory=list, description="Item refs the answer used.")


class StableFailure(_Released):
    type: Literal["StableFailure"] = "StableFailure"
    error_code: ErrorCode


class Cancelled(_Released):
    type: Literal["Cancelled"] = "Cancelled"


class TimedOut(_Released):
    type: Literal["TimedOut"] = "TimedOut"


ReleasedResult = Annotated[
    DiagnosisReport | SafeFallback | Answer | StableFailure | Cancelled | TimedOut,
    Field(discriminator="type"),
]


def released_adapter() -> TypeAdapter[ReleasedResult]:
    return TypeAdapter(ReleasedResult)
