"""The trace timeline's events: one typed, metadata-only details model per event type.

Details are ids, codes, counts, sizes and latencies — never prompts, thoughts, draft text, SQL,
log queries or tool payloads. Every details model forbids unknown fields, so a misspelled or
smuggled key fails loudly instead of being dropped. The event's category follows from its
details (MODEL_TOKEN_USAGE belongs to the component that made the call).
"""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Annotated, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from harness.contracts.errors import ErrorCode
from harness.contracts.intent import Intent
from harness.contracts.invocation import EvidenceStatus
from harness.contracts.ledger import BudgetUsage
from harness.contracts.models import Component, FailureReason, Usage
from harness.contracts.results import FailureStage, ResultKind
from harness.contracts.status import RunStatus
from harness.contracts.verdicts import IssueCode, SemanticVerdict

__all__ = [
    "AgentStep",
    "CorrectiveTurn",
    "EvidenceCheck",
    "EvidenceRepair",
    "ModelCallUsage",
    "ModelTokenUsage",
    "ReleaseDecision",
    "Rerouted",
    "Routed",
    "RoutingAttempt",
    "RunFinished",
    "RunStarted",
    "SemanticCheck",
    "ToolInvocation",
    "ToolRequestRejected",
    "TraceCategory",
    "TraceDetails",
    "TraceEvent",
]


class TraceCategory(str, Enum):
    """The part of the run an event belongs to."""

    RUN = "RUN"
    ROUTING = "ROUTING"
    AGENT = "AGENT"
    TOOL = "TOOL"
    EVIDENCE = "EVIDENCE"
    SEMANTIC = "SEMANTIC"
    RELEASE = "RELEASE"


class _Details(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    default_category: ClassVar[TraceCategory]

    def category(self) -> TraceCategory:
        """The timeline category of an event with these details."""
        return self.default_category


class RunStarted(_Details):
    """The run began executing."""

    default_category: ClassVar[TraceCategory] = TraceCategory.RUN
    kind: Literal["RUN_STARTED"] = Field(default="RUN_STARTED", description="Discriminator.")
    status: RunStatus = Field(description="Status when it started (RUNNING).")


class RoutingAttempt(_Details):
    """One attempt of the router's call and how it ended."""

    default_category: ClassVar[TraceCategory] = TraceCategory.ROUTING
    kind: Literal["ROUTING_ATTEMPT"] = Field(
        default="ROUTING_ATTEMPT", description="Discriminator."
    )
    attempt: int = Field(ge=1, description="1-based attempt.")
    outcome: Literal["OK", "UNUSABLE", "FAILED"] = Field(
        description="A usable intent, an unparseable reply, or a failed call."
    )
    error_code: ErrorCode | None = Field(default=None, description="Set when FAILED.")


class Routed(_Details):
    """The router decided the run's path."""

    default_category: ClassVar[TraceCategory] = TraceCategory.ROUTING
    kind: Literal["ROUTED"] = Field(default="ROUTED", description="Discriminator.")
    intent: Intent = Field(description="The chosen route.")


class ModelTokenUsage(_Details):
    """One model call attempt and the provider's usage for it (None: unavailable)."""

    default_category: ClassVar[TraceCategory] = TraceCategory.AGENT
    kind: Literal["MODEL_TOKEN_USAGE"] = Field(
        default="MODEL_TOKEN_USAGE", description="Discriminator."
    )
    component: Component = Field(description="The component that called the model.")
    component_round: int = Field(ge=1, description="1-based logical call of the component.")
    attempt: int = Field(ge=1, description="1-based attempt of this logical call.")
    latency_ms: float = Field(ge=0, description="Time the attempt took.")
    usage: Usage | None = Field(description="Provider-reported usage; None = unavailable.")
    error_code: ErrorCode | None = Field(default=None, description="Why the attempt failed.")
    tool_calls: int = Field(default=0, ge=0, description="Tool calls in the reply.")
    reasoning: Literal["AVAILABLE", "UNAVAILABLE"] = Field(
        default="UNAVAILABLE",
        description="Whether the provider returned reasoning (its text is never traced).",
    )

    def category(self) -> TraceCategory:
        if self.component is Component.ROUTER:
            return TraceCategory.ROUTING
        if self.component is Component.SEMANTIC_GUARD:
            return TraceCategory.SEMANTIC
        return TraceCategory.AGENT


class AgentStep(_Details):
    """One diagnosis agent turn: what it produced and what it cost."""

    default_category: ClassVar[TraceCategory] = TraceCategory.AGENT
    kind: Literal["AGENT_STEP"] = Field(default="AGENT_STEP", description="Discriminator.")
    step_no: int = Field(ge=1, description="1-based turn of the diagnosis agent.")
    outcome: Literal["TOOL_CALLS", "DRAFT", "ERROR"] = Field(description="What the turn produced.")
    tool_calls: int = Field(ge=0, description="Tool calls the turn asked for.")
    token_count: int | None = Field(
        description="Provider-reported total tokens; None = unavailable."
    )
    latency_ms: float = Field(ge=0, description="Time the model call took.")
    error_code: ErrorCode | None = Field(default=None, description="Set when ERROR.")


class CorrectiveTurn(_Details):
    """The one corrective turn of a run's agent: its reply was neither tool calls nor a draft."""

    default_category: ClassVar[TraceCategory] = TraceCategory.AGENT
    kind: Literal["CORRECTIVE_TURN"] = Field(
        default="CORRECTIVE_TURN", description="Discriminator."
    )
    reason: FailureReason = Field(description="What was wrong with the reply (never its text).")
    asks_for: Literal["DRAFT", "TOOL_CALLS"] = Field(
        description=(
            "DRAFT: the draft's own turn (no tools, the draft's schema); TOOL_CALLS: tools "
            "offered again because none had run."
        )
    )


class Rerouted(_Details):
    """A question or answer the run would not release on its route, and where it went.

    A chat or knowledge answer may not make claims about the world's catalog (the services,
    hosts and tables the tools expose); such a run goes to diagnosis once, or ends in a
    fallback answer that says why.
    """

    default_category: ClassVar[TraceCategory] = TraceCategory.ROUTING
    kind: Literal["REROUTED"] = Field(default="REROUTED", description="Discriminator.")
    from_intent: Intent = Field(description="The route the router chose.")
    to: Literal["DIAGNOSIS", "FALLBACK"] = Field(description="Where the run went instead.")
    trigger: Literal["QUESTION_NAMES_CATALOG", "ANSWER_NAMES_CATALOG", "ANSWER_UNCITED"] = Field(
        description="What made the route unfit."
    )
    catalog_items: int = Field(ge=0, description="How many catalog items were named.")


class ToolRequestRejected(_Details):
    """A tool call refused before execution: id, tool and code only."""

    default_category: ClassVar[TraceCategory] = TraceCategory.TOOL
    kind: Literal["TOOL_REQUEST_REJECTED"] = Field(
        default="TOOL_REQUEST_REJECTED", description="Discriminator."
    )
    tool_call_id: str = Field(max_length=64, description="The id, or '<invalid>'.")
    tool_name: str = Field(max_length=64, description="The registered tool, or '-'.")
    error_code: ErrorCode = Field(description="Why it was refused.")


class ToolInvocation(_Details):
    """A tool call that entered execution, and how it ended."""

    default_category: ClassVar[TraceCategory] = TraceCategory.TOOL
    kind: Literal["TOOL_INVOCATION"] = Field(
        default="TOOL_INVOCATION", description="Discriminator."
    )
    tool_call_id: str = Field(max_length=64, description="The call's id.")
    tool_name: str = Field(max_length=64, description="The registered tool.")
    outcome: Literal["OBSERVATION", "ERROR"] = Field(description="How the execution ended.")
    error_code: ErrorCode | None = Field(default=None, description="Set when ERROR.")
    evidence_status: EvidenceStatus | None = Field(description="Objective result status.")
    latency_ms: float = Field(ge=0, description="Time the call spent in the boundary.")
    queue_wait_ms: float = Field(
        default=0.0,
        ge=0,
        description=(
            "Of latency_ms, the time the call waited for a tool slot (admission) before its "
            "backend work was submitted; the backend timeout counts only what follows."
        ),
    )


class EvidenceCheck(_Details):
    """One EvidenceGuard pass over a draft."""

    default_category: ClassVar[TraceCategory] = TraceCategory.EVIDENCE
    kind: Literal["EVIDENCE_CHECK"] = Field(default="EVIDENCE_CHECK", description="Discriminator.")
    attempt: int = Field(ge=1, description="1 for the draft, 2 for the repaired draft.")
    outcome: Literal["OK", "ISSUES", "STORE_ERROR"] = Field(description="What the guard found.")
    issue_codes: list[IssueCode] = Field(default_factory=list, description="Distinct codes.")


class EvidenceRepair(_Details):
    """The one repair round after a failed evidence check."""

    default_category: ClassVar[TraceCategory] = TraceCategory.EVIDENCE
    kind: Literal["EVIDENCE_REPAIR"] = Field(
        default="EVIDENCE_REPAIR", description="Discriminator."
    )
    outcome: Literal["DRAFT", "INVALID_DRAFT", "FAILED"] = Field(
        description="A new draft, an unparseable one, or no reply."
    )
    error_code: ErrorCode | None = Field(default=None, description="Set when FAILED.")


class SemanticCheck(_Details):
    """SemanticGuard's verdict on the draft."""

    default_category: ClassVar[TraceCategory] = TraceCategory.SEMANTIC
    kind: Literal["SEMANTIC_CHECK"] = Field(default="SEMANTIC_CHECK", description="Discriminator.")
    verdict: SemanticVerdict = Field(description="SUPPORTED, UNSUPPORTED or UNAVAILABLE.")
    issue_count: int = Field(ge=0, description="Conclusions the judge found unsupported.")


class ReleaseDecision(_Details):
    """What the release policy decided to release."""

    default_category: ClassVar[TraceCategory] = TraceCategory.RELEASE
    kind: Literal["RELEASE_DECISION"] = Field(
        default="RELEASE_DECISION", description="Discriminator."
    )
    result_kind: ResultKind = Field(description="Kind of the released result.")
    failure_stage: FailureStage | None = Field(default=None, description="For a SafeFallback.")
    error_code: ErrorCode | None = Field(default=None, description="For a StableFailure.")


class ModelCallUsage(BaseModel):
    """One model call as the budget ledger booked it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    component: Component = Field(description="The calling component.")
    model: str = Field(max_length=128, description="The model name the provider reported.")
    usage: Usage | None = Field(description="Provider-reported usage; None = unavailable.")


class RunFinished(_Details):
    """The run reached its terminal state; the budget ledger and token reconciliation."""

    default_category: ClassVar[TraceCategory] = TraceCategory.RUN
    kind: Literal["RUN_FINISHED"] = Field(default="RUN_FINISHED", description="Discriminator.")
    status: RunStatus = Field(description="The terminal state.")
    result_kind: ResultKind | None = Field(description="Kind of the released result.")
    ledger: BudgetUsage = Field(description="The budget ledger at the end.")
    model_calls: list[ModelCallUsage] = Field(description="Per-call usage, in order.")
    unavailable_usage: int = Field(ge=0, description="Calls without provider usage.")
    tokens_reconciled: bool = Field(
        description="No usage unavailable and the ledger equals the per-call sums."
    )
    dropped_late: int = Field(ge=0, description="Late replies or results dropped.")
    dropped_finishes: int = Field(ge=0, description="Terminal outcomes dropped.")


TraceDetails = Annotated[
    RunStarted
    | RoutingAttempt
    | Routed
    | Rerouted
    | AgentStep
    | CorrectiveTurn
    | ModelTokenUsage
    | ToolRequestRejected
    | ToolInvocation
    | EvidenceCheck
    | EvidenceRepair
    | SemanticCheck
    | ReleaseDecision
    | RunFinished,
    Field(discriminator="kind"),
]


class TraceEvent(BaseModel):
    """One timeline entry; ``sequence_no`` is assigned by the run's owner, from 1, no gaps."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int = Field(default=1, description="Format of the event.")
    run_id: str = Field(description="The run.")
    sequence_no: int = Field(ge=1, description="Position in the run's timeline.")
    category: TraceCategory = Field(description="The part of the run it belongs to.")
    event_type: str = Field(max_length=64, description="The details' kind.")
    at: datetime = Field(description="When it was recorded (UTC).")
    details: TraceDetails = Field(description="Typed metadata of the event.")

    @model_validator(mode="after")
    def _consistent(self) -> TraceEvent:
        if self.event_type != self.details.kind or self.category is not self.details.category():
            raise ValueError("event_type and category must follow from the details")
        return self
