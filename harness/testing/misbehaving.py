"""Models that misbehave on purpose, one builder per failure mode the harness must survive.

Each builder returns a fresh model that routes to DIAGNOSIS and then misbehaves; tests run it
through a DiagnosisRun and assert the stable outcome. ``MISBEHAVIOURS`` names them all. A
builder takes the run's analysis id and the clock its slow steps wait on.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from harness.clock import SystemClock
from harness.contracts.errors import ErrorCode, ModelError
from harness.contracts.models import Component, ModelReply, ModelRequest
from harness.ports import Clock
from harness.testing.models import (
    FunctionModel,
    ScriptedModel,
    Slow,
    draft_json,
    text_reply,
    tool_reply,
)

__all__ = [
    "MISBEHAVIOURS",
    "endless_tool_loop",
    "foreign_run_ids",
    "hallucinated_ids",
    "malformed_arguments",
    "malformed_draft",
    "missing_usage",
    "oversized_reply",
    "provider_error",
    "repeated_calls",
    "slow_reply",
]

KB = {"query": "connection pool", "top_k": 3}


def _clock(clock: Clock | None) -> Clock:
    return clock or SystemClock()


def _route() -> ModelReply:
    return text_reply(json.dumps({"intent": "DIAGNOSIS"}))


def _supported() -> ModelReply:
    return text_reply(json.dumps({"verdict": "SUPPORTED", "issues": []}))


def _cite(call_id: str) -> dict[str, Any]:
    return {
        "id": "c1",
        "kind": "OBSERVATION",
        "statement": "the pool is exhausted",
        "confidence": 0.7,
        "citations": [{"tool_call_id": call_id, "item_ref": "doc:a#0"}],
    }


def hallucinated_ids(analysis_id: str, clock: Clock | None = None) -> ScriptedModel:
    """Tool calls with ids that break the id format or reuse an id."""
    return ScriptedModel(
        [
            _route(),
            tool_reply(
                ("search_knowledge", KB, "../../etc/passwd"),
                ("search_knowledge", {"query": "b"}, "ok_1"),
            ),
            tool_reply(("search_knowledge", {"query": "c"}, "ok_1")),
            text_reply(draft_json(analysis_id, [_cite("ok_1")])),
            _supported(),
        ],
        clock=_clock(clock),
    )


def foreign_run_ids(analysis_id: str, clock: Clock | None = None) -> ScriptedModel:
    """Cites a tool_call_id that belongs to another run (never executed in this one)."""
    broken = text_reply(draft_json(analysis_id, [_cite("call_of_another_run")]))
    return ScriptedModel(
        [_route(), tool_reply(("search_knowledge", KB, "mine")), broken, broken],
        clock=_clock(clock),
    )


def repeated_calls(analysis_id: str, clock: Clock | None = None) -> ScriptedModel:
    """The same tool call over and over."""
    steps: list[Any] = [_route(), tool_reply(("search_knowledge", KB, "first"))]
    steps += [tool_reply(("search_knowledge", KB)) for _ in range(3)]
    return ScriptedModel(
        [*steps, text_reply(draft_json(analysis_id, [_cite("first")])), _supported()],
        clock=_clock(clock),
    )


def endless_tool_loop(analysis_id: str, clock: Clock | None = None) -> FunctionModel:
    """Never answers: a new tool call every turn."""
    turns = 0

    def reply(request: ModelRequest) -> ModelReply:
        nonlocal turns
        turns += 1
        if request.component is Component.ROUTER:
            return _route()
        return tool_reply(("search_knowledge", {"query": f"q{turns}"}))

    return FunctionModel(reply, clock=_clock(clock))


def oversized_reply(analysis_id: str, clock: Clock | None = None) -> ScriptedModel:
    return ScriptedModel([_route(), text_reply("x" * 100_000)], clock=_clock(clock))


def malformed_arguments(analysis_id: str, clock: Clock | None = None) -> ScriptedModel:
    return ScriptedModel(
        [
            _route(),
            tool_reply(("query_logs", "{not json", "m1"), ("query_mysql", '["a list"]', "m2")),
            text_reply(draft_json(analysis_id)),
            text_reply(draft_json(analysis_id)),
        ],
        clock=_clock(clock),
    )


def malformed_draft(analysis_id: str, clock: Clock | None = None) -> ScriptedModel:
    # Broken twice: the reply and the one corrective turn after it.
    broken = text_reply("{'analysis_id': broken")
    return ScriptedModel([_route(), broken, broken], clock=_clock(clock))


def slow_reply(analysis_id: str, clock: Clock | None = None) -> ScriptedModel:
    return ScriptedModel(
        [_route(), Slow(30.0, text_reply(draft_json(analysis_id)))], clock=_clock(clock)
    )


def provider_error(analysis_id: str, clock: Clock | None = None) -> ScriptedModel:
    return ScriptedModel(
        [_route(), ModelError(ErrorCode.MODEL_ERROR, "HTTP 500 from provider")], clock=_clock(clock)
    )


def missing_usage(analysis_id: str, clock: Clock | None = None) -> ScriptedModel:
    return ScriptedModel(
        [
            text_reply(json.dumps({"intent": "DIAGNOSIS"}), with_usage=False),
            tool_reply(("search_knowledge", KB, "k1"), with_usage=False),
            text_reply(draft_json(analysis_id, [_cite("k1")]), with_usage=False),
            text_reply(json.dumps({"verdict": "SUPPORTED", "issues": []}), with_usage=False),
        ],
        clock=_clock(clock),
    )


MISBEHAVIOURS: dict[str, Callable[[str, Clock | None], ScriptedModel | FunctionModel]] = {
    "hallucinated_ids": hallucinated_ids,
    "foreign_run_ids": foreign_run_ids,
    "repeated_calls": repeated_calls,
    "endless_tool_loop": endless_tool_loop,
    "oversized_reply": oversized_reply,
    "malformed_arguments": malformed_arguments,
    "malformed_draft": malformed_draft,
    "slow_reply": slow_reply,
    "provider_error": provider_error,
    "missing_usage": missing_usage,
}
