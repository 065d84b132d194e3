"""DiagnosisDraft: the diagnosis agent's final answer, before any guard has looked at it.

An ingress contract (``extra="forbid"``): the model writes it, the harness validates it.
Citations name a tool_call_id of the *current* run and an item ``ref`` of that call's
observation; EvidenceGuard checks both against the canonical store.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from harness.contracts.errors import InvalidDraft
from harness.jsontext import strip_fences

__all__ = [
    "Citation",
    "Conclusion",
    "ConclusionKind",
    "DiagnosisDraft",
    "NextStep",
    "RoundEvaluation",
    "parse_draft",
]


class _Ingress(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True)


class ConclusionKind(str, Enum):
    """What a conclusion claims; each kind has its own evidence rule (EvidenceGuard)."""

    ROOT_CAUSE = "ROOT_CAUSE"
    CONTRIBUTING_FACTOR = "CONTRIBUTING_FACTOR"
    OBSERVATION = "OBSERVATION"
    NEGATIVE_FINDING = "NEGATIVE_FINDING"


class RoundEvaluation(str, Enum):
    """The agent's own verdict on an earlier tool call (used by the information-gain stop)."""

    GAIN = "GAIN"
    NO_GAIN = "NO_GAIN"


class Citation(_Ingress):
    """One piece of evidence a conclusion rests on."""

    tool_call_id: str = Field(min_length=1, max_length=64, description="A tool call of this run.")
    item_ref: str = Field(
        min_length=1, max_length=200, description="An item ref of its observation."
    )


class Conclusion(_Ingress):
    """One claim of a diagnosis and the evidence it cites."""

    id: str = Field(min_length=1, max_length=32, description="Unique within the draft.")
    kind: ConclusionKind = Field(description="What the conclusion claims.")
    statement: str = Field(min_length=1, max_length=1000, description="The claim.")
    confidence: float = Field(ge=0.0, le=1.0, description="The agent's confidence, 0..1.")
    citations: list[Citation] = Field(
        default_factory=list, max_length=12, description="The evidence it rests on."
    )
    scope: dict[str, Any] | None = Field(
        default=None, description="NEGATIVE_FINDING only: the cited record's actual scope."
    )

    @model_validator(mode="after")
    def _scope_only_for_negative(self) -> Conclusion:
        if self.scope is not None and self.kind is not ConclusionKind.NEGATIVE_FINDING:
            raise ValueError("scope is allowed on NEGATIVE_FINDING conclusions only")
        return self


class NextStep(_Ingress):
    """A suggested action and the items it comes from (a runbook item at least).

    The release keeps a step only when a runbook item of this run backs it; a plain string
    is read as a step without citations, which is therefore never released.
    """

    text: str = Field(min_length=1, max_length=500, description="The action, in one sentence.")
    citations: list[Citation] = Field(
        default_factory=list, max_length=4, description="The runbook (and other) items it uses."
    )


class DiagnosisDraft(_Ingress):
    """The agent's draft diagnosis."""

    schema_version: int = Field(default=1, description="Draft format.")
    analysis_id: str = Field(min_length=1, max_length=64, description="The run's analysis id.")
    summary: str = Field(min_length=1, max_length=2000, description="One-paragraph summary.")
    conclusions: list[Conclusion] = Field(
        default_factory=list, max_length=12, description="The claims, each with citations."
    )
    next_steps: list[NextStep] = Field(
        default_factory=list, max_length=10, description="Suggested actions with their sources."
    )
    limitations: list[str] = Field(
        default_factory=list, max_length=10, description="What could not be established."
    )
    evaluations: dict[str, RoundEvaluation] = Field(
        default_factory=dict, description="tool_call_id → the agent's GAIN/NO_GAIN verdict."
    )

    @field_validator("next_steps", mode="before")
    @classmethod
    def _steps_from_text(cls, items: Any) -> Any:
        if isinstance(items, list):
            return [{"text": item} if isinstance(item, str) else item for item in items]
        return items

    @field_validator("limitations")
    @classmethod
    def _bounded_items(cls, items: list[str]) -> list[str]:
        if any(len(item) > 500 for item in items):
            raise ValueError("items are at most 500 characters")
        return items

    @model_validator(mode="after")
    def _unique_ids(self) -> DiagnosisDraft:
        ids = [c.id for c in self.conclusions]
        if len(ids) != len(set(ids)):
            raise ValueError("conclusion ids must be unique")
        return self


def parse_draft(content: str | None) -> DiagnosisDraft:
    """A model reply's content as a DiagnosisDraft.

    Raises:
        InvalidDraft: INVALID_DRAFT when it does not parse (the reply's text never leaves).
    """
    try:
        return DiagnosisDraft.model_validate_json(strip_fences(content or ""))
    except (ValidationError, ValueError):
        raise InvalidDraft(message="draft does not parse") from None
