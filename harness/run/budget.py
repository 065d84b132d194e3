"""RunBudget: limits and the ledger of one run.

Reserve before, commit after. Every figure the trace reports about consumption comes from
the ledger here; nothing else counts. All mutation happens on the owning actor's event loop,
so no locks are needed.

Tool-call counting (docs/architecture.md §4, "One tool call"): protocol refusals consume
nothing; DUPLICATE_SCOPE and INFORMATION_SATURATED consume the tool-call budget (a looping model
runs out); executions consume it as well. The budget count, executions and rejections are three separate figures.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import Enum

from harness.contracts.errors import BudgetExhausted, ErrorCode
from harness.contracts.ledger import BudgetUsage
from harness.contracts.models import Component, Usage

__all__ = ["Budgets", "BytesKind", "CallUsage", "Ledger", "RunBudget"]


class BytesKind(str, Enum):
    """The three byte figures a tool call is charged for."""

    REQUEST = "REQUEST"
    """The model's arguments, as JSON text."""
    RAW = "RAW"
    """The backend's raw response (never truncated: over the limit is an error)."""
    PROJECTION = "PROJECTION"
    """The observation handed to the model."""


# The code a per-call excess is reported with; per-run excesses are BYTES_BUDGET_EXHAUSTED.
_PER_CALL_CODE: dict[BytesKind, ErrorCode] = {
    BytesKind.REQUEST: ErrorCode.REQUEST_TOO_LARGE,
    BytesKind.RAW: ErrorCode.RAW_TOO_LARGE,
    BytesKind.PROJECTION: ErrorCode.PROJECTION_ERROR,
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

    def byte_limits(self, kind: BytesKind) -> tuple[int, int]:
        """``(per_call, per_run)`` limits of one byte kind."""
        match kind:
            case BytesKind.REQUEST:
                return self.max_request_bytes_per_call, self.max_request_bytes_per_run
            case BytesKind.RAW:
                return self.max_raw_bytes_per_call, self.max_raw_bytes_per_run
            case BytesKind.PROJECTION:
                return self.max_projection_bytes_per_call, self.max_projection_bytes_per_run


@dataclass(frozen=True, kw_only=True)
class CallUsage:
    """One model call's provider usage as the ledger booked it (``usage`` None = unavailable)."""

    component: Component
    model: str
    usage: Usage | None


@dataclass
class Ledger:
    """What a run has consumed so far."""

    tool_calls: int = 0
    tool_calls_by_tool: Counter[str] = field(default_factory=Counter)
    executions: int = 0
    rejections: int = 0
    rejections_by_code: Counter[str] = field(default_factory=Counter)
    bytes: dict[BytesKind, int] = field(default_factory=lambda: dict.fromkeys(BytesKind, 0))
    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    usage_unavailable: int = 0
    cost_usd: float = 0.0
    model_usage: list[CallUsage] = field(default_factory=list)

    def snapshot(self) -> BudgetUsage:
        """The figures as a value object."""
        return BudgetUsage(
            tool_calls=self.tool_calls,
            tool_calls_by_tool=dict(sorted(self.tool_calls_by_tool.items())),
            executions=self.executions,
            rejections=self.rejections,
            rejections_by_code=dict(sorted(self.rejections_by_code.items())),
            request_bytes=self.bytes[BytesKind.REQUEST],
            raw_bytes=self.bytes[BytesKind.RAW],
            projection_bytes=self.bytes[BytesKind.PROJECTION],
            model_calls=self.model_calls,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            total_tokens=self.total_tokens,
            usage_unavailable=self.usage_unavailable,
            cost_usd=round(self.cost_usd, 6),
        )


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
        per_call, per_run = self.budgets.byte_limits(kind)
        if n_bytes > per_call:
            raise BudgetExhausted(
                _PER_CALL_CODE[kind],
                f"{kind.value} bytes per call",
                {"size": n_bytes, "limit": per_call},
            )
        used = self.ledger.bytes[kind]
        if used + n_bytes > per_run:
            raise BudgetExhausted(
                ErrorCode.BYTES_BUDGET_EXHAUSTED,
                f"{kind.value} bytes per run",
                {"used": used, "size": n_bytes, "limit": per_run},
            )

    def reserve_bytes(self, kind: BytesKind, n_bytes: int) -> None:
        """Book ``n_bytes`` of ``kind``."""
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

    def commit_usage(self, component: Component, model: str, usage: Usage | None) -> CallUsage:
        """Record one call's provider usage (``None`` = unavailable, counted, not estimated)."""
        led = self.ledger
        booked = CallUsage(component=component, model=model, usage=usage)
        led.model_usage.append(booked)
        if usage is None:
            led.usage_unavailable += 1
            return booked
        led.input_tokens += usage.input_tokens
        led.output_tokens += usage.output_tokens
        led.total_tokens += usage.total_tokens
        price = self.budgets.prices_usd_per_1k.get(model)
        if price is not None:
            led.cost_usd += (
                usage.input_tokens / 1000 * price[0] + usage.output_tokens / 1000 * price[1]
            )
        return booked

    def tokens_reconciled(self) -> bool:
        """True when no usage was unavailable and the ledger equals the per-call sums."""
        led = self.ledger
        reported = [c.usage for c in led.model_usage]
        if any(u is None for u in reported):
            return False
        usages = [u for u in reported if u is not None]
        return (
            sum(u.input_tokens for u in usages) == led.input_tokens
            and sum(u.output_tokens for u in usages) == led.output_tokens
            and sum(u.total_tokens for u in usages) == led.total_tokens
        )

    # ------------------------------------------------------------------ views

    def remaining_tool_calls(self) -> int:
        return max(0, self.budgets.max_tool_calls - self.ledger.tool_calls)

    def remaining_raw_bytes(self) -> int:
        """The largest raw response one more call may book (per call and per run)."""
        per_call, per_run = self.budgets.byte_limits(BytesKind.RAW)
        return max(0, min(per_call, per_run - self.ledger.bytes[BytesKind.RAW]))

    def remaining_projection_bytes(self) -> int:
        per_run = self.budgets.max_projection_bytes_per_run
        return max(0, per_run - self.ledger.bytes[BytesKind.PROJECTION])
