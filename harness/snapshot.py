"""RunPhase and RunSnapshot: what status endpoints, the CLI and the dashboard see of a run.

A snapshot holds ids, the phase and figures; never content (no question, prompts, drafts or
tool data). A *reduced* snapshot — the host lost or forgot the run — leaves the figures unset
rather than claiming zeros.
"""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, ConfigDict, Field

from harness.context import RunStatus
from harness.intent import Intent
from harness.results import ResultKind

__all__ = ["RunPhase", "RunSnapshot"]


class RunPhase(str, Enum):
    """Where a run is in its flow (finer than RunStatus, for progress displays)."""

    PENDING = "PENDING"
    ROUTING = "ROUTING"
    INVESTIGATING = "INVESTIGATING"
    RELEASING = "RELEASING"
    ANSWERING = "ANSWERING"
    DONE = "DONE"


class RunSnapshot(BaseModel):
    """Progress of one run: ids, phase, figures; no content."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int = Field(default=1, description="Format of the snapshot.")
    run_id: str = Field(description="The run.")
    status: RunStatus = Field(description="Lifecycle state.")
    phase: RunPhase = Field(description="Where the run is in its flow.")
    intent: Intent | None = Field(default=None, description="The route, once decided.")
    result_kind: ResultKind | None = Field(
        default=None, description="Kind of the released result, once there is one."
    )
    tool_calls: int | None = Field(default=None, description="Tool calls counted by the budget.")
    executions: int | None = Field(default=None, description="Tool calls that executed.")
    rejections: int | None = Field(default=None, description="Tool calls the harness refused.")
    model_calls: int | None = Field(default=None, description="Model calls made.")
    total_tokens: int | None = Field(default=None, description="Provider-reported tokens.")
    dropped_late: int | None = Field(
        default=None, description="Late replies or results dropped after the run ended."
    )
    dropped_finishes: int | None = Field(
        default=None, description="Terminal outcomes dropped because another came first."
    )

    @property
    def reduced(self) -> bool:
        """True when the figures are unknown (the host lost or forgot the run)."""
        return self.tool_calls is None
