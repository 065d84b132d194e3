"""BudgetUsage: what a run consumed, as the trace, the status endpoints and the audit report it.

The figures are a contract read by every layer above the run; the ledger that keeps them is
:class:`~harness.run.budget.RunBudget`'s.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["BudgetUsage"]


class BudgetUsage(BaseModel):
    """The ledger's figures at one moment (trace RUN_FINISHED, status, audit)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tool_calls: int = Field(description="Tool calls counted against the budget.")
    tool_calls_by_tool: dict[str, int] = Field(description="The same, per tool.")
    executions: int = Field(description="Tool calls that entered execution.")
    rejections: int = Field(description="Tool calls the harness refused.")
    rejections_by_code: dict[str, int] = Field(description="Refusals per stable code.")
    request_bytes: int = Field(description="Argument bytes booked.")
    raw_bytes: int = Field(description="Raw response bytes booked.")
    projection_bytes: int = Field(description="Observation bytes booked.")
    model_calls: int = Field(description="Model calls booked.")
    input_tokens: int = Field(description="Provider-reported input tokens.")
    output_tokens: int = Field(description="Provider-reported output tokens.")
    total_tokens: int = Field(description="Provider-reported total tokens.")
    usage_unavailable: int = Field(description="Calls whose provider reported no usage.")
    cost_usd: float = Field(description="Cost from the price table (unpriced models: 0).")
