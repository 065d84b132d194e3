"""ModelCaller: every model call of a run, under budget, deadline and retry policy.

Before a call the budget books it and caps ``max_tokens`` from what remains; after the call
the provider's usage is committed (or recorded unavailable) and traced per component round
and attempt. Technical failures are retried only where the component's policy allows. A reply
that arrives after the run ended is dropped and counted, never used. The provider's reasoning
is kept aside (``reasoning``) for the encrypted reasoning audit; it is never traced.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, TypeVar, overload

from harness.audit.reasoning import ReasoningNote
from harness.contracts.errors import (
    BudgetExhausted,
    ErrorCode,
    HarnessError,
    ModelError,
    RunInactive,
)
from harness.contracts.models import (
    ChatMessage,
    Component,
    FailureReason,
    ModelClient,
    ModelReply,
    ModelRequest,
    OutputSchema,
    ToolDefinition,
)
from harness.ports import Clock
from harness.run.budget import RunBudget
from harness.run.context import RunContext
from harness.run.retry import RetryPolicy
from harness.trace import ModelTokenUsage, RoutingAttempt, TraceRecorder

__all__ = ["ComponentSettings", "ModelCaller", "blame"]

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True, kw_only=True)
class ComponentSettings:
    """Per-component call settings."""

    max_tokens: int = 2048
    timeout_s: float = 60.0
    max_reply_chars: int = 64_000


@dataclass
class ModelCaller:
    """Calls models for one run."""

    models: Mapping[Component, ModelClient]
    budget: RunBudget
    run: RunContext
    clock: Clock
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    settings: Mapping[Component, ComponentSettings] = field(default_factory=dict)
    trace: TraceRecorder | None = None
    as_of: datetime | None = None
    """'Now' of the investigation, told to the endpoint with each call (see CallSignal)."""
    datasource: str | None = None
    """The datasource the agent is told to query, told to the endpoint the same way."""
    reasoning: list[ReasoningNote] = field(default_factory=list)
    """One note per answered or failed attempt, for the reasoning audit (never traced)."""
    _rounds: dict[Component, int] = field(default_factory=dict)

    @classmethod
    def single(cls, model: ModelClient, **kwargs: Any) -> ModelCaller:
        """One model client for every component."""
        return cls(models=dict.fromkeys(Component, model), **kwargs)

    def settings_for(self, component: Component) -> ComponentSettings:
        return self.settings.get(component, ComponentSettings())

    @overload
    async def call(
        self,
        component: Component,
        messages: Sequence[ChatMessage],
        *,
        tools: Sequence[ToolDefinition] = (),
        json_mode: bool = False,
        output_schema: OutputSchema | None = None,
    ) -> ModelReply: ...

    @overload
    async def call(
        self,
        component: Component,
        messages: Sequence[ChatMessage],
        *,
        tools: Sequence[ToolDefinition] = (),
        json_mode: bool = False,
        output_schema: OutputSchema | None = None,
        parse: Callable[[ModelReply], T],
    ) -> T: ...

    async def call(
        self,
        component: Component,
        messages: Sequence[ChatMessage],
        *,
        tools: Sequence[ToolDefinition] = (),
        json_mode: bool = False,
        output_schema: OutputSchema | None = None,
        parse: Callable[[ModelReply], Any] | None = None,
    ) -> Any:
        """One logical call, retried per policy; raises a HarnessError with a stable code.

        Args:
            output_schema: The JSON Schema the reply must follow (implies json_mode); endpoints
                that can constrain decoding to a schema do so, the others ask for JSON.
            parse: Turns the reply into the caller's value; a ``ValueError`` from it makes the
                reply unusable, which counts as a technical failure (retried where allowed).
                Without it the reply itself is returned.
        """
        attempts = self.retry.max_attempts(component)
        round_no = self._rounds[component] = self._rounds.get(component, 0) + 1
        last: HarnessError | None = None
        for attempt in range(1, attempts + 1):
            try:
                reply = await self._attempt(
                    component, round_no, attempt, messages, tools, json_mode, output_schema
                )
            except ModelError as err:
                last = blame(err, component, _model_error_reason(err))
                self._routing(component, attempt, "FAILED", err.error_code)
            except BudgetExhausted as err:
                raise blame(err, component, FailureReason.BUDGET_EXHAUSTED) from None
            else:
                try:
                    value = parse(reply) if parse is not None else reply
                except ValueError:
                    last = blame(
                        ModelError(ErrorCode.MODEL_ERROR, "unusable reply"),
                        component,
                        reply.unusable_reason(),
                    )
                    self._routing(component, attempt, "UNUSABLE")
                else:
                    self._routing(component, attempt, "OK")
                    return value
            log.info(
                "model call failed component=%s attempt=%d code=%s",
                component.value,
                attempt,
                last.error_code.value,
            )
        assert last is not None
        raise last

    def _routing(
        self,
        component: Component,
        attempt: int,
        outcome: Literal["OK", "UNUSABLE", "FAILED"],
        code: ErrorCode | None = None,
    ) -> None:
        if component is Component.ROUTER and self.trace is not None:
            self.trace.record(RoutingAttempt(attempt=attempt, outcome=outcome, error_code=code))

    async def _attempt(
        self,
        component: Component,
        round_no: int,
        attempt: int,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolDefinition],
        json_mode: bool,
        output_schema: OutputSchema | None,
    ) -> ModelReply:
        self.run.ensure_active(self.clock.now())
        settings = self.settings_for(component)
        max_tokens = self.budget.reserve_model_call(settings.max_tokens)
        remaining_s = (self.run.deadline - self.clock.now()).total_seconds()
        timeout_s = max(0.001, min(settings.timeout_s, remaining_s))
        request = ModelRequest(
            component=component,
            messages=list(messages),
            tools=list(tools),
            # Offered tools may be called; where they must not be, none are offered (an
            # endpoint may refuse tool_choice without tools, and some render no tools at all
            # without an explicit "auto").
            tool_choice="auto" if tools else None,
            max_tokens=max_tokens,
            timeout_s=timeout_s,
            json_mode=json_mode or output_schema is not None,
            output_schema=output_schema,
            analysis_id=self.run.analysis_id or None,
            as_of=self.as_of,
            datasource=self.datasource,
        )
        client = self.models[component]
        t0 = self.clock.monotonic()
        try:
            reply = await self.clock.wait_for(client.complete(request), timeout_s)
        except TimeoutError:
            if remaining_s <= settings.timeout_s:
                # The run's deadline, not the component's timeout, cut this call short: that
                # is the run timing out, whichever of the two timers fired first.
                self._record(component, round_no, attempt, None, t0, ErrorCode.DEADLINE_EXCEEDED)
                raise RunInactive(ErrorCode.DEADLINE_EXCEEDED, "run deadline reached") from None
            self._record(component, round_no, attempt, None, t0, ErrorCode.MODEL_TIMEOUT)
            raise ModelError(ErrorCode.MODEL_TIMEOUT, "model call timed out") from None
        except ModelError as err:
            self._record(component, round_no, attempt, None, t0, err.error_code)
            raise
        except HarnessError:
            raise
        except Exception as exc:  # an adapter defect is a technical failure, text stays local
            self._record(component, round_no, attempt, None, t0, ErrorCode.MODEL_ERROR)
            raise ModelError(ErrorCode.MODEL_ERROR, type(exc).__name__) from None
        if self.run.terminal:
            self.run.drop_late()
            raise RunInactive(ErrorCode.RUN_NOT_ACTIVE, "late model reply dropped")
        self._record(component, round_no, attempt, reply, t0, None)
        if (
            len(reply.content or "") > settings.max_reply_chars
            or sum(len(c.arguments) for c in reply.tool_calls) > settings.max_reply_chars
        ):
            raise ModelError(
                ErrorCode.MODEL_ERROR,
                "oversized reply",
                {"reason": FailureReason.OVERSIZED_REPLY.value},
                retryable=False,
            )
        return reply

    def _record(
        self,
        component: Component,
        round_no: int,
        attempt: int,
        reply: ModelReply | None,
        t0: float,
        code: ErrorCode | None,
    ) -> None:
        # Usage is committed for every attempt: what the provider reported, or "unavailable".
        usage = reply.usage if reply else None
        self.budget.commit_usage(component, reply.model if reply else "", usage)
        self.reasoning.append(
            ReasoningNote(
                component=component,
                component_round=round_no,
                attempt=attempt,
                text=reply.reasoning_content if reply else None,
            )
        )
        if self.trace is not None:
            self.trace.record(
                ModelTokenUsage(
                    component=component,
                    component_round=round_no,
                    attempt=attempt,
                    latency_ms=round((self.clock.monotonic() - t0) * 1000, 3),
                    usage=usage,
                    error_code=code,
                    tool_calls=len(reply.tool_calls) if reply else 0,
                    reasoning="AVAILABLE" if reply and reply.reasoning_content else "UNAVAILABLE",
                )
            )


def blame(err: HarnessError, component: Component, reason: FailureReason) -> HarnessError:
    """``err`` naming the failing component and why (read into a released StableFailure).

    A reason the error already carries (set where the failure was seen) is kept.
    """
    context = {"component": component.value, "reason": reason.value, **err.context}
    return type(err)(err.error_code, err.message, context, err.retryable)


def _model_error_reason(err: ModelError) -> FailureReason:
    if err.error_code is ErrorCode.MODEL_TIMEOUT:
        return FailureReason.TIMEOUT
    return FailureReason.ENDPOINT_ERROR
