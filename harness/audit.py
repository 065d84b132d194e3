"""Durable-audit records: metadata only, safe to keep for years.

A tool invocation is audited by identity, tool, statuses, stable code, latency and sizes —
never by its request text, SQL, log query, raw response or projection.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.errors import ErrorCode
from harness.invocation import EvidenceStatus

__all__ = ["ToolInvocationAudit"]


class ToolInvocationAudit(BaseModel):
    """One tool call that entered execution, as the durable audit stores it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int = Field(default=1, description="Format of the record.")
    run_id: str = Field(description="The run that made the call.")
    tool_call_id: str = Field(max_length=64, description="The call's id.")
    tool_name: str = Field(max_length=64, description="The registered tool.")
    outcome: Literal["OBSERVATION", "ERROR"] = Field(description="How the execution ended.")
    evidence_status: EvidenceStatus | None = Field(description="Objective result status.")
    error_code: ErrorCode | None = Field(description="Set when ERROR.")
    latency_ms: float = Field(ge=0, description="Time the call spent in the boundary.")
    request_bytes: int | None = Field(description="Argument bytes.")
    raw_bytes: int | None = Field(description="Raw response bytes (None: never fetched).")
    projection_bytes: int | None = Field(description="Observation bytes (None: not built).")
