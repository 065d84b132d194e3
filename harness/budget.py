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
    max_model_calls: int = 16
    max_input_tokens: int = 200_000
    max_output_tokens: int = 40_000
    max_total_tokens: int = 220_000
    max_output_tokens_per_call: int = 4_096
    max_cost_usd: float | None = None
    # model → (input, output) USD per 1k tokens; models not listed cost nothing in the ledger.
    prices_usd_per_1k: dict[str, tuple[float, float]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, value in self.__dict__.items():
            if isinstance(value, int | float) and not isinstance(value, bool) and value < 0:
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
    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    usage_unavailable: int = 0
    cost_usd: float = 0.0
    model_usage: list[dict[str, Any]] = field(default_factory=list)

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
            "model_calls": self.model_calls,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "total_tokens": self.total_tokens,
            "usage_unavailable": self.usage_unavailable,
            "cost_usd": round(self.cost_usd, 6),
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

    # ------------------------------------------------------------------ models and tokens

    def reserve_model_call(self, requested_max_tokens: int) -> int:
        """Book one model call; return its output cap derived from what remains.

        Tokens are never estimated: the cap only uses the ledger of provider-reported usage.
        """
        b, led = self.budgets, self.ledger
        if led.model_calls >= b.max_model_calls:
            raise BudgetExhausted(
                ErrorCode.MODEL_BUDGET_EXHAUSTED, "model calls", {"limit": b.max_model_calls}
            )
        if b.max_cost_usd is not None and led.cost_usd >= b.max_cost_usd:
            raise BudgetExhausted(
                ErrorCode.COST_BUDGET_EXHAUSTED, "cost", {"limit": b.max_cost_usd}
            )
        remaining = min(
            b.max_output_tokens - led.output_tokens,
            b.max_total_tokens - led.total_tokens,
            b.max_output_tokens_per_call,
            requested_max_tokens,
        )
        if remaining <= 0 or led.input_tokens >= b.max_input_tokens:
            raise BudgetExhausted(
                ErrorCode.TOKEN_BUDGET_EXHAUSTED, "tokens", {"remaining": max(remaining, 0)}
            )
        led.model_calls += 1
        return remaining

    def commit_usage(self, component: str, model: str, usage: Any | None) -> None:
        """Record one call's provider usage (``None`` = unavailable, counted, not estimated)."""
        led = self.ledger
        if usage is None:
            led.usage_unavailable += 1
            led.model_usage.append({"component": component, "model": model, "usage": None})
            return
        led.input_tokens += usage.input_tokens
        led.output_tokens += usage.output_tokens
        led.total_tokens += usage.total_tokens
        price = self.budgets.prices_usd_per_1k.get(model)
        if price is not None:
            led.cost_usd += (
                usage.input_tokens / 1000 * price[0] + usage.output_tokens / 1000 * price[1]
            )
        led.model_usage.append(
            {
                "component": component,
                "model": model,
                "usage": {
                    "input": usage.input_tokens,
                    "output": usage.output_tokens,
                    "total": usage.total_tokens,
                },
            }
        )

    def tokens_reconciled(self) -> bool:
        """True when no usage was unavailable and the ledger equals the per-call sums."""
        led = self.ledger
        calls = [u["usage"] for u in led.model_usage]
        if any(u is None for u in calls):
            return False
        return (
            sum(u["input"] for u in calls) == led.input_tokens
            and sum(u["output"] for u in calls) == led.output_tokens
            and sum(u["total"] for u in calls) == led.total_tokens
        )

    # ------------------------------------------------------------------ views

    def remaining_tool_calls(self) -> int:
        return max(0, self.budgets.max_tool_calls - self.ledger.tool_calls)

    def remaining_projection_bytes(self) -> int:
        return max(0, self.budgets.max_projection_bytes_per_run - self.ledger.bytes["projection"])
