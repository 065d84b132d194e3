"""Model fakes: a scripted model and a function model, plus reply builders.

``ScriptedModel`` plays a queue of steps — replies, exceptions, delays or callables — and
records every request it received; ``assert_complete()`` proves the script was used up. A
``Slow`` step waits on the model's clock: with a ``FakeClock`` it waits until the test moves
time, never on the wall clock.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from harness.clock import SystemClock
from harness.contracts.errors import ErrorCode, ModelError
from harness.contracts.models import ModelReply, ModelRequest, ToolCall, Usage
from harness.ports import Clock

__all__ = [
    "FunctionModel",
    "ScriptedModel",
    "Slow",
    "draft_json",
    "text_reply",
    "tool_reply",
    "usage",
]


def usage(input_tokens: int = 100, output_tokens: int = 20) -> Usage:
    return Usage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=input_tokens + output_tokens,
    )


def text_reply(
    content: str, *, with_usage: bool = True, reasoning: str | None = None
) -> ModelReply:
    return ModelReply(
        content=content,
        usage=usage() if with_usage else None,
        reasoning_content=reasoning,
        finish_reason="stop",
        model="scripted",
    )


def tool_reply(
    *calls: tuple[str, dict[str, Any] | str] | tuple[str, dict[str, Any] | str, str],
    with_usage: bool = True,
) -> ModelReply:
    """A reply with tool calls: ``(name, arguments[, id])``; arguments as dict or raw text."""
    tool_calls = []
    for call in calls:
        name, arguments = call[0], call[1]
        call_id = call[2] if len(call) == 3 else f"call_{uuid.uuid4().hex[:12]}"
        text = arguments if isinstance(arguments, str) else json.dumps(arguments)
        tool_calls.append(ToolCall(id=call_id, name=name, arguments=text))
    return ModelReply(
        tool_calls=tool_calls,
        usage=usage() if with_usage else None,
        finish_reason="tool_calls",
        model="scripted",
    )


def draft_json(analysis_id: str, conclusions: Iterable[dict[str, Any]] = (), **extra: Any) -> str:
    body = {
        "analysis_id": analysis_id,
        "summary": extra.pop("summary", "summary"),
        "conclusions": list(conclusions),
        "next_steps": extra.pop("next_steps", []),
        "limitations": extra.pop("limitations", []),
        **extra,
    }
    return json.dumps(body)


@dataclass(frozen=True)
class Slow:
    """A step that waits ``delay_s`` before producing ``then``."""

    delay_s: float
    then: Any


Step = (
    ModelReply | BaseException | Slow | Callable[[ModelRequest], ModelReply | Awaitable[ModelReply]]
)


@dataclass
class ScriptedModel:
    """Plays ``steps`` in order; an exhausted script is a test error, not a model reply."""

    steps: list[Step]
    requests: list[ModelRequest] = field(default_factory=list)
    clock: Clock = field(default_factory=SystemClock)

    async def complete(self, request: ModelRequest) -> ModelReply:
        self.requests.append(request)
        if not self.steps:
            raise AssertionError(f"script exhausted at request {len(self.requests)}")
        return await _play(self.steps.pop(0), request, self.clock)

    def assert_complete(self) -> None:
        assert not self.steps, f"{len(self.steps)} scripted steps were never used"


@dataclass
class FunctionModel:
    """Computes each reply from the request."""

    fn: Callable[[ModelRequest], ModelReply | Awaitable[ModelReply]]
    requests: list[ModelRequest] = field(default_factory=list)
    clock: Clock = field(default_factory=SystemClock)

    async def complete(self, request: ModelRequest) -> ModelReply:
        self.requests.append(request)
        return await _play(self.fn, request, self.clock)


async def _play(step: Any, request: ModelRequest, clock: Clock) -> ModelReply:
    if isinstance(step, Slow):
        await clock.sleep(step.delay_s)
        return await _play(step.then, request, clock)
    if isinstance(step, BaseException):
        raise step
    if isinstance(step, ModelReply):
        return step
    out = step(request)
    if asyncio.iscoroutine(out) or isinstance(out, asyncio.Future):
        out = await out
    if not isinstance(out, ModelReply):
        raise ModelError(ErrorCode.MODEL_ERROR, "fake returned a non-reply")
    return out
