"""RunBudget: limits and the ledger of one run.

Reserve before, commit after. Every figure the trace reports about consumption comes from
the ledger here; nothing else counts. All mutation happens on the owning actor's event loop,
so no locks are needed.

Tool-call counting follows ARCHITECTURE §5: protocol refusals consume nothing; DUPLICATE_SCOPE
and INFORMATION_SATURATED consume the tool-call budget (a looping model runs out); executions
consume it as well. The budget count, executions and rejections are three separate figures.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from harness.errors import BudgetExhausted, ErrorCode

__all__ = ["Budgets", "BytesKind", "Ledger", "RunBudget"]

BytesKind = str  # "request" | "raw" | "projection"

_PER_CALL_CODE = {
    "request": ErrorCode.REQUEST_TOO_LARGE,
    "raw": ErrorCode.RAW_TOO_LARGE,
    "projection": ErrorCode.PROJECTION_ERROR,
}


@dataclass(frozen=True, kw_only=True)
class Budgets:
    """Limits of one run. ``None`` per-tool means only the total applies."""

    max_tool_calls: int = 12
    max_tool_calls_per_tool: dict[str, int] = field(
        default_factory=lambda: {"query_logs": 6, "query_mysql": 6, "search_knowledge": 4}
    )
    max_request_bytes_per_call: int = 8 * 1024
    max_request_bytes_per_run: int = 64 * 1024
    max_raw_bytes_per_call: int = 16 * 1024 * 1024
    max_raw_bytes_per_run: int = 64 * 1024 * 1024
    max_projection_bytes_per_call: int = 12 * 1024
    max_projection_bytes_per_run: int = 96 * 1024

    def __post_init__(self) -> None:
        for name, value in self.__dict__.items():
            if isinstance(value, int) and value < 0:
                raise ValueError(f"{name} must be >= 0")


@dataclass
class Ledger:
    """What a run has consumed so far."""

    tool_calls: int = 0
    tool_calls_by_tool: Counter[str] = field(default_factory=Counter)
    executions: int = 0
    rejections: int = 0
    rejections_by_code: Counter[str] = field(default_factory=Counter)
    bytes: Counter[str] = field(default_factory=Counter)

    def snapshot(self) -> dict[str, Any]:
        return {
            "tool_calls": self.tool_calls,
            "tool_calls_by_tool": dict(sorted(self.tool_calls_by_tool.items())),
            "executions": self.executions,
            "rejections": self.rejections,
            "rejections_by_code": dict(sorted(self.rejections_by_code.items())),
            "request_bytes": self.bytes["request"],
            "raw_bytes": self.bytes["raw"],
            "projection_bytes": self.bytes["projection"],
        }


class RunBudget:
    """Limits plus ledger; every ``reserve_*`` either books the amount or raises."""

    def __init__(self, budgets: Budgets | None = None) -> None:
        self.budgets = budgets or Budgets()
        self.ledger = Ledger()

    # ------------------------------------------------------------------ tool calls

    def check_tool_call(self, tool_name: str) -> None:
        """Raise TOOL_BUDGET_EXHAUSTED when one more call of ``tool_name`` is not allowed."""
        b = self.budgets
        if self.ledger.tool_calls >= b.max_tool_calls:
            raise BudgetExhausted(
                ErrorCode.TOOL_BUDGET_EXHAUSTED, "tool calls", {"limit": b.max_tool_calls}
            )
        per_tool = b.max_tool_calls_per_tool.get(tool_name)
        if per_tool is not None and self.ledger.tool_calls_by_tool[tool_name] >= per_tool:
            raise BudgetExhausted(
                ErrorCode.TOOL_BUDGET_EXHAUSTED,
                "tool calls per tool",
                {"tool": tool_name, "limit": per_tool},
            )

    def reserve_tool_call(self, tool_name: str) -> None:
        """Book one tool call (total and per tool)."""
        self.check_tool_call(tool_name)
        self.ledger.tool_calls += 1
        self.ledger.tool_calls_by_tool[tool_name] += 1

    def count_execution(self) -> None:
        self.ledger.executions += 1

    def count_rejection(self, code: ErrorCode) -> None:
        self.ledger.rejections += 1
        self.ledger.rejections_by_code[code.value] += 1

    # ------------------------------------------------------------------ bytes

    def check_bytes(self, kind: BytesKind, n_bytes: int) -> None:
        """Raise when ``n_bytes`` of ``kind`` exceed the per-call or per-run limit."""
        per_call = getattr(self.budgets, f"max_{kind}_bytes_per_call")
        per_run = getattr(self.budgets, f"max_{kind}_bytes_per_run")
        if n_bytes > per_call:
            raise BudgetExhausted(
                _PER_CALL_CODE[kind], f"{kind} bytes per call", {"size": n_bytes, "limit": per_call}
            )
        if self.ledger.bytes[kind] + n_bytes > per_run:
            raise BudgetExhausted(
                ErrorCode.BYTES_BUDGET_EXHAUSTED,
                f"{kind} bytes per run",
                {"used": self.ledger.bytes[kind], "size": n_bytes, "limit": per_run},
            )

    def reserve_bytes(self, kind: BytesKind, n_bytes: int) -> None:
        """Book ``n_bytes`` of ``kind`` ('request', 'raw' or 'projection')."""
        self.check_bytes(kind, n_bytes)
        self.ledger.bytes[kind] += n_bytes

    # ------------------------------------------------------------------ views

    def remaining_tool_calls(self) -> int:
        return max(0, self.budgets.max_tool_calls - self.ledger.tool_calls)

    def remaining_projection_bytes(self) -> int:
        return max(0, self.budgets.max_projection_bytes_per_run - self.ledger.bytes["projection"])
