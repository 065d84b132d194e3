"""The offline demo model: a chat-completions request body in, a chat-completions response out.

It is *not* a language model. It learns which component calls, for which run, from the call's
signal (:class:`~harness.contracts.models.CallSignal`: the ``X-Harness-*`` headers every model call of the
harness carries), never from the wording of a prompt, and answers by rules (:mod:`harness.embedded.offline.answers`, :mod:`harness.embedded.offline.investigation`,
:mod:`harness.embedded.offline.findings`), deriving every diagnosis from the observations it receives.
Replies carry ``model = "offline-demo-model"``, a short ``reasoning_content`` naming the rule
that fired, and a ``usage`` block the model counts itself (characters / 4) — as the provider
here, that count is its provider usage, labelled as such in ``usage.counted_by``.

The engine is pure and deterministic: the same body gives the same reply, tool_call ids
included (``call_<hex>`` from a hash of the conversation).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from harness.clock import SystemClock
from harness.contracts.models import CallSignal, Component
from harness.embedded.offline.analysis import agent_context, analyse
from harness.embedded.offline.answers import (
    OFFLINE_NOTICE,
    knowledge_answer,
    repair_draft,
    system_chat,
)
from harness.embedded.offline.conversation import Conversation, parse_conversation
from harness.embedded.offline.findings import write_draft
from harness.embedded.offline.investigation import ToolRequest, next_calls
from harness.embedded.offline.question import keywords
from harness.embedded.offline.review import review
from harness.embedded.offline.routing import route
from harness.jsontext import loads_object

__all__ = ["OFFLINE_MODEL_NAME", "USAGE_COUNTED_BY", "OfflineDemoModel", "OfflineReply"]

OFFLINE_MODEL_NAME = "offline-demo-model"
USAGE_COUNTED_BY = "offline-demo-model: characters/4"
_CHARS_PER_TOKEN = 4

# The rules that answer each calling component; the repair round continues the agent's
# conversation, so the agent's rules answer it.
_RULES: dict[Component, str] = {
    Component.ROUTER: "router",
    Component.SEMANTIC_GUARD: "semantic",
    Component.DIAGNOSIS_AGENT: "agent",
    Component.EVIDENCE_REPAIR: "agent",
    Component.KNOWLEDGE_ANSWER: "knowledge",
    Component.SYSTEM_CHAT: "chat",
}


@dataclass(frozen=True, kw_only=True)
class OfflineReply:
    """One reply before it is rendered as a chat completion."""

    content: str | None = None
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    reasoning: str = ""
    finish_reason: str = "stop"


class OfflineDemoModel:
    """Answers chat-completions request bodies by rules.

    Args:
        clock: "Now" for prompts that do not state the current time (the agent prompt does).
    """

    def __init__(self, *, clock: Callable[[], datetime] | None = None) -> None:
        self._clock = clock or SystemClock().now

    def complete(
        self, body: Any, *, signal: CallSignal | None = None, created: int = 0
    ) -> dict[str, Any]:
        """The chat-completion response for ``body``, as the component ``signal`` names asks
        it (without a signal no rule answers); OfflineRequestError when it is not one."""
        conversation = parse_conversation(body)
        reply = self.reply(conversation, signal)
        return _render(body, conversation, reply, created)

    def reply(self, conversation: Conversation, signal: CallSignal | None) -> OfflineReply:
        component = _RULES.get(signal.component, "unknown") if signal is not None else "unknown"
        if component == "router":
            intent, rule = route(conversation)
            return OfflineReply(content=json.dumps({"intent": intent}), reasoning=f"router: {rule}")
        if component == "semantic":
            verdict = review(conversation.last_user)
            return OfflineReply(
                content=json.dumps(verdict),
                reasoning=f"review: {verdict['verdict']} ({len(verdict['issues'])} issues)",
            )
        if component == "agent":
            assert signal is not None
            return self._investigate(conversation, signal)
        if component == "knowledge":
            return _knowledge(conversation)
        if component == "chat":
            return OfflineReply(content=system_chat(conversation.question), reasoning="chat")
        text = f"I am the {OFFLINE_NOTICE}; no rule of mine covers this request."
        content = json.dumps({"answer": text}) if conversation.json_mode else text
        return OfflineReply(content=content, reasoning="no matching rule")

    def _investigate(self, conversation: Conversation, signal: CallSignal) -> OfflineReply:
        context = agent_context(signal, self._clock())
        analysis = analyse(conversation, context)
        if conversation.last_role == "user" and conversation.final_answer is not None:
            previous = _json_object(conversation.final_answer)
            draft = repair_draft(conversation, previous) or write_draft(conversation, analysis)
            return OfflineReply(content=json.dumps(draft), reasoning="repair: withdrew rejected")
        calls, reason = next_calls(conversation, analysis)
        if not calls:
            draft = write_draft(conversation, analysis)
            return OfflineReply(content=json.dumps(draft), reasoning=f"answer: {reason}")
        return OfflineReply(
            content=_round_evaluation(conversation),
            tool_calls=_tool_calls(conversation, calls),
            reasoning=reason,
            finish_reason="tool_calls",
        )


def _knowledge(conversation: Conversation) -> OfflineReply:
    searched = conversation.calls("search_knowledge")
    if not searched and conversation.offers("search_knowledge") and not conversation.stop_required:
        request = ToolRequest(
            name="search_knowledge",
            arguments={
                "query": keywords(conversation.question) or conversation.question,
                "top_k": 3,
            },
        )
        return OfflineReply(
            tool_calls=_tool_calls(conversation, [request]),
            reasoning="knowledge: search the runbooks once",
            finish_reason="tool_calls",
        )
    return OfflineReply(content=knowledge_answer(conversation), reasoning="knowledge: answer")


def _tool_calls(conversation: Conversation, calls: list[ToolRequest]) -> list[dict[str, Any]]:
    return [
        {
            "id": conversation.call_id(index),
            "type": "function",
            "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
        }
        for index, call in enumerate(calls)
    ]


def _round_evaluation(conversation: Conversation) -> str | None:
    """The agent's verdict on its previous round, stated beside its next tool calls."""
    last = [e for e in conversation.exchanges if e.turn == conversation.tool_turns and e.answered]
    if not last:
        return None
    return json.dumps({"evaluations": {e.call_id: "GAIN" if e.gained else "NO_GAIN" for e in last}})


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        return loads_object(text)
    except ValueError:
        return None


def _render(
    body: dict[str, Any], conversation: Conversation, reply: OfflineReply, created: int
) -> dict[str, Any]:
    prompt_chars = len(json.dumps(body.get("messages"), ensure_ascii=False)) + len(
        json.dumps(body.get("tools") or [], ensure_ascii=False)
    )
    content = reply.content
    finish_reason = reply.finish_reason
    limit = conversation.max_tokens
    if content is not None and limit is not None and _tokens(len(content)) > limit:
        # A real model stops at max_tokens; so does this one, mid-text.
        content = content[: limit * _CHARS_PER_TOKEN]
        finish_reason = "length"
    completion_chars = len(content or "") + sum(
        len(c["function"]["name"]) + len(c["function"]["arguments"]) for c in reply.tool_calls
    )
    message: dict[str, Any] = {
        "role": "assistant",
        "content": content,
        "reasoning_content": f"[{OFFLINE_NOTICE}] {reply.reasoning}",
    }
    if reply.tool_calls:
        message["tool_calls"] = reply.tool_calls
    prompt_tokens, completion_tokens = _tokens(prompt_chars), _tokens(completion_chars)
    digest = hashlib.sha256(f"{conversation.fingerprint}:reply".encode()).hexdigest()
    return {
        "id": f"chatcmpl-offline-{digest[:24]}",
        "object": "chat.completion",
        "created": created,
        "model": OFFLINE_MODEL_NAME,
        "system_fingerprint": "offline-demo-rules-v1",
        "choices": [
            {"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "counted_by": USAGE_COUNTED_BY,
        },
    }


def _tokens(chars: int) -> int:
    return max(1, math.ceil(chars / _CHARS_PER_TOKEN))
