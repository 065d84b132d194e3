"""RunPhase and RunSnapshot: what status endpoints, the CLI and the dashboard see of a run.

A snapshot holds ids, the phase and figures; never content (no question, prompts, drafts or
tool data). A *reduced* snapshot — the host lost or forgot the run — leaves the figures unset
rather than claiming zeros.

A snapshot is a projection of the run's timeline: ``sequence_no`` is the number of the last
trace event it reflects, so it only grows, and a progress stream can use it as its event id
(a client that resumes after event *n* needs nothing older). The tools list is projected from
the TOOL events of that timeline: each call that finished (or was refused) with its status and
evidence status; a call still executing counts in ``executions`` until its event arrives.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.contracts.errors import ErrorCode
from harness.contracts.intent import Intent
from harness.contracts.invocation import EvidenceStatus
from harness.contracts.results import ResultKind
from harness.contracts.status import RunStatus
from harness.trace import ToolInvocation, ToolRequestRejected, TraceEvent

__all__ = ["RunPhase", "RunSnapshot", "ToolProgress", "tool_progress"]


class RunPhase(str, Enum):
    """Where a run is in its flow (finer than RunStatus, for progress displays)."""

    PENDING = "PENDING"
    ROUTING = "ROUTING"
    INVESTIGATING = "INVESTIGATING"
    RELEASING = "RELEASING"
    ANSWERING = "ANSWERING"
    DONE = "DONE"


class ToolProgress(BaseModel):
    """One tool call of the run as progress shows it: identity, status, evidence; no data."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tool_call_id: str = Field(max_length=64, description="The call's id (or '<invalid>').")
    tool_name: str = Field(max_length=64, description="The registered tool (or '-').")
    status: Literal["READY", "ERROR", "REJECTED"] = Field(
        description=(
            "READY: executed and projected; ERROR: executed and failed; REJECTED: refused by "
            "the harness before execution."
        )
    )
    evidence_status: EvidenceStatus | None = Field(
        default=None, description="Objective result status of an executed call."
    )
    error_code: ErrorCode | None = Field(
        default=None, description="Why the call failed or was refused."
    )


def tool_progress(events: Iterable[TraceEvent]) -> list[ToolProgress]:
    """The tool calls of a timeline, in the order they finished."""
    tools = []
    for event in events:
        details = event.details
        if isinstance(details, ToolInvocation):
            tools.append(
                ToolProgress(
                    tool_call_id=details.tool_call_id,
                    tool_name=details.tool_name,
                    status="READY" if details.outcome == "OBSERVATION" else "ERROR",
                    evidence_status=details.evidence_status,
                    error_code=details.error_code,
                )
            )
        elif isinstance(details, ToolRequestRejected):
            tools.append(
                ToolProgress(
                    tool_call_id=details.tool_call_id,
                    tool_name=details.tool_name,
                    status="REJECTED",
                    error_code=details.error_code,
                )
            )
    return tools


class RunSnapshot(BaseModel):
    """Progress of one run: ids, phase, figures; no content.

    Version 2 added ``sequence_no`` and ``tools``; a version-1 snapshot still parses (both
    unset, as in a reduced snapshot).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int = Field(default=2, description="Format of the snapshot.")
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
    sequence_no: int | None = Field(
        default=None,
        ge=0,
        description="Number of the last timeline event the snapshot reflects (0: none yet).",
    )
    tools: list[ToolProgress] | None = Field(
        default=None, description="Tool calls that finished or were refused, in that order."
    )

    @property
    def reduced(self) -> bool:
        """True when the figures are unknown (the host lost or forgot the run)."""
        return self.tool_calls is None
