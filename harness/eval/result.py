"""The result row of one case run: what ``results.jsonl`` holds, one line per case run.

This is the contract between the runner, the outputs (``results.jsonl``, ``results.csv``,
``summary.json``), ``harness eval compare`` and the HTML report: field names are stable once
released; a change bumps ``schema_version``. A row carries metadata, checked outcomes and the
released words a reader needs to judge them (the question, the summary, the root causes) —
never a prompt, a raw tool payload, exception text or a secret.
"""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, ConfigDict, Field

from harness.contracts.errors import ErrorCode
from harness.contracts.intent import Intent
from harness.contracts.results import FailureStage, ResultKind
from harness.contracts.status import RunStatus

__all__ = [
    "RESULT_SCHEMA_VERSION",
    "CaseOutcome",
    "CaseRunError",
    "CaseRunResult",
    "ExpectationCheck",
    "TokenUsage",
]

RESULT_SCHEMA_VERSION = 2
"""Version 2 added ``question``, ``summary`` and ``root_causes``; a version-1 row still
parses (they are empty)."""


class CaseOutcome(str, Enum):
    """How a case run ended for the evaluation (not for the run itself: see ``run_status``)."""

    PASSED = "PASSED"
    """The run ended and every expectation held."""
    FAILED = "FAILED"
    """The run ended and at least one expectation did not hold."""
    ERROR = "ERROR"
    """The case could not be evaluated (see ``error``): no verdict on the harness."""


class CaseRunError(str, Enum):
    """Why a case run has no verdict (``outcome`` ERROR); stable values."""

    CASE_TIMEOUT = "CASE_TIMEOUT"
    """The per-case timeout of the runner passed before the run released anything."""
    WORLD_INVALID = "WORLD_INVALID"
    """The case's world could not be built (missing file, invalid policy, bad recording)."""
    RUNNER_ERROR = "RUNNER_ERROR"
    """The runner failed on this case (a bug or a lost worker); the local log has the cause."""


class _Row(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ExpectationCheck(_Row):
    """One expectation of the case and whether the run met it."""

    name: str = Field(
        description=(
            "Which expectation: release, failure_stage, error_code, intent, fact:<n>, "
            "absent:<n>, tool_called:<tool>, tool_not_called:<tool>, max_tokens, grader, and "
            "per conclusion kind <KIND>:fact:<n>, <KIND>:absent:<n>, <KIND>:count."
        )
    )
    passed: bool = Field(description="Whether the run met it.")
    expected: str = Field(max_length=500, description="What the case asks for, as text.")
    actual: str = Field(max_length=500, description="What the run did, as text (no secrets).")


class TokenUsage(_Row):
    """Provider-reported tokens of the run's model calls (never estimated)."""

    input_tokens: int = Field(default=0, ge=0, description="Prompt tokens.")
    output_tokens: int = Field(default=0, ge=0, description="Completion tokens.")
    total_tokens: int = Field(default=0, ge=0, description="Both.")
    model_calls: int = Field(default=0, ge=0, description="Model calls the run made.")
    usage_unavailable: int = Field(default=0, ge=0, description="Calls without reported usage.")


class CaseRunResult(_Row):
    """One run of one case (``repeat`` numbers the runs of a case under ``--repeat``)."""

    schema_version: int = Field(default=RESULT_SCHEMA_VERSION, description="Row format.")
    case_id: str = Field(description="Stable id of the case (from its path or JSONL row).")
    repeat: int = Field(ge=0, description="0-based repetition of the case.")
    question: str = Field(default="", max_length=500, description="The case's question.")
    run_id: str | None = Field(description="The harness run; None when no run started.")
    tags: list[str] = Field(default_factory=list, description="The case's tags.")
    model: str = Field(description="The model under test (or the case's scripted model).")
    outcome: CaseOutcome = Field(description="PASSED, FAILED or ERROR.")
    passed: bool = Field(description="outcome is PASSED.")
    error: CaseRunError | None = Field(default=None, description="Why outcome is ERROR.")
    run_status: RunStatus | None = Field(description="The run's terminal state.")
    release_kind: ResultKind | None = Field(description="Kind of the released result.")
    summary: str | None = Field(
        default=None,
        max_length=1000,
        description=(
            "What was released, in one text: a report's summary, an answer's text, a "
            "fallback's stage and first limitation, a failure's code."
        ),
    )
    root_causes: list[str] = Field(
        default_factory=list,
        max_length=3,
        description="The released ROOT_CAUSE statements (each cut to 500 characters).",
    )
    intent: Intent | None = Field(default=None, description="The route the run took.")
    failure_stage: FailureStage | None = Field(default=None, description="For a SafeFallback.")
    error_code: ErrorCode | None = Field(default=None, description="For a StableFailure.")
    semantic_verdicts: list[str] = Field(
        default_factory=list, description="SemanticGuard verdicts, in order."
    )
    evidence_issues: list[str] = Field(
        default_factory=list, description="EvidenceGuard issue codes (all attempts, distinct)."
    )
    validation_issues: list[str] = Field(
        default_factory=list, description="A SafeFallback's validation issues."
    )
    tokens: TokenUsage = Field(default_factory=TokenUsage, description="Token usage.")
    cost_usd: float | None = Field(
        default=None, ge=0, description="Token cost at the runner's prices; None without prices."
    )
    tool_calls: dict[str, int] = Field(
        default_factory=dict, description="Executed tool calls by tool name."
    )
    tool_rejections: dict[str, int] = Field(
        default_factory=dict, description="Refused tool requests by error code."
    )
    latency_ms: float = Field(ge=0, description="Wall time of the case run in the runner.")
    checks: list[ExpectationCheck] = Field(
        default_factory=list, description="Pass/fail per expectation, in the case's order."
    )

    @property
    def key(self) -> tuple[str, int]:
        """Identity of the case run within an evaluation."""
        return (self.case_id, self.repeat)

    def failed_checks(self) -> list[ExpectationCheck]:
        return [c for c in self.checks if not c.passed]
