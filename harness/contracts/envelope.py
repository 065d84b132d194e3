"""The boundary's contracts: the envelope it receives, the result it returns, its policy.

The harness builds a :class:`ToolCallEnvelope` from the model's tool call (never the model);
:class:`ToolBoundaryResult` carries only the observation or a stable code — raw data never.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import pydantic_core
from pydantic import BaseModel, ConfigDict, Field

from harness.contracts.errors import ErrorCode
from harness.contracts.observation import AgentObservation, ControlView

__all__ = ["Outcome", "ToolBoundaryResult", "ToolCallEnvelope", "ToolPolicy"]


class ToolCallEnvelope(BaseModel):
    """A model's tool call as the harness frames it; built by the harness, never by the model."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str = Field(description="The run the call is made in.")
    tool_call_id: str = Field(description="The framework's tool call id.")
    tool_name: str = Field(description="The tool the model asked for.")
    arguments: str = Field(description="The model's arguments, as JSON text.")


Outcome = Literal["OBSERVATION", "REJECTED", "ERROR"]


class ToolBoundaryResult(BaseModel):
    """What one boundary call produced. Carries no raw data, ever."""

    model_config = ConfigDict(frozen=True)

    tool_call_id: str = Field(description="The call's id, as the model sent it.")
    tool_name: str = Field(description="The registered tool (or the requested name, bounded).")
    outcome: Outcome = Field(description="OBSERVATION, REJECTED (before begin) or ERROR (after).")
    error_code: ErrorCode | None = Field(default=None, description="Set unless OBSERVATION.")
    observation: AgentObservation | None = Field(
        default=None, description="What the model sees; set only for OBSERVATION."
    )
    control: ControlView = Field(description="What the harness keeps; never shown to the model.")

    def model_content(self) -> str:
        """The tool message content for the model: the observation, or only a stable code."""
        if self.observation is not None:
            text = self.observation.model_dump_json()  # an object with at least its kind
        else:
            error = self.error_code.value if self.error_code else None
            body = {"tool_call_id": self.tool_call_id, "error_code": error}
            text = pydantic_core.to_json(body).decode()
        if self.control.stop_required:  # one more member, last
            text = text[:-1] + ',"control":"STOP_REQUIRED"}'
        return text


@dataclass(frozen=True, kw_only=True)
class ToolPolicy:
    """Which tools a run may use and how long they may take."""

    authorized_tools: frozenset[str] = frozenset({"query_logs", "query_mysql", "search_knowledge"})
    execute_timeout_s: float = 10.0
    project_timeout_s: float = 5.0
    no_gain_threshold: int = 2
