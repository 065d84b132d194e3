"""What the run desk answers about runs: submissions, views, summaries, cancel outcomes.

The desk (``actors.desk.RunDesk``) keeps who owns each run and which idempotency key started
it; the HTTP layer and the CLI read runs through these models. Everything here crosses a
process (an HTTP replica asks the desk's actor), so each is a pydantic model; none carries
content beyond the released result (no question, prompts, drafts or tool data).
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from harness.contracts.ingress import RunRequest
from harness.contracts.results import ReleasedResult, ResultKind
from harness.contracts.status import TERMINAL_STATES, RunStatus
from harness.run.snapshot import RunSnapshot

__all__ = ["CancelOutcome", "RunSummary", "RunView", "Submission", "Submitted"]


class Submission(BaseModel):
    """A request to start a run for its owner (``request.owner``), maybe under an idempotency
    key: the same key with the same fingerprint names the same run."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int = Field(default=1, description="Format of the submission.")
    request: RunRequest = Field(description="The run to start; its owner is the caller.")
    idempotency_key: str | None = Field(
        default=None,
        min_length=1,
        max_length=255,
        description="Caller-chosen key: a retry with it returns the run it first started.",
    )
    fingerprint: str = Field(
        default="",
        max_length=128,
        description="Digest of what the caller sent; a reused key with another is a conflict.",
    )


class Submitted(BaseModel):
    """The run a submission names."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str = Field(description="The run.")
    created: bool = Field(description="False when an earlier submission with the key started it.")


class RunView(BaseModel):
    """One run as its owner sees it: identity, progress and, once released, the result."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int = Field(default=1, description="Format of the view.")
    run_id: str = Field(description="The run.")
    session_id: str = Field(description="The session (conversation) the run belongs to.")
    created_at: datetime = Field(description="When the run was submitted (UTC).")
    status: RunStatus = Field(description="Lifecycle state; the four terminal states are final.")
    progress: RunSnapshot = Field(description="Phase, tool calls and coarse budget use.")
    result: ReleasedResult | None = Field(
        default=None, description="The released result, once the run reached a terminal state."
    )

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL_STATES


class RunSummary(BaseModel):
    """One line of a run listing."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str = Field(description="The run.")
    session_id: str = Field(description="The session the run belongs to.")
    created_at: datetime = Field(description="When the run was submitted (UTC).")
    status: RunStatus = Field(description="Lifecycle state (PENDING until placed on an actor).")
    result_kind: ResultKind | None = Field(
        default=None, description="Kind of the released result, once there is one."
    )


class CancelOutcome(BaseModel):
    """What a cancel request did."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    cancelled: bool = Field(
        description="True when this request decided the run's end; False when it had ended."
    )
    run: RunView = Field(description="The run after the request.")
