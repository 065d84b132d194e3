"""Bounded answer paths for the non-diagnosis intents."""

from __future__ import annotations

from harness.agent.caller import ModelCaller
from harness.agent.prompts import knowledge_messages, system_chat_messages
from harness.agent.turns import run_tool_calls
from harness.boundary import ToolBoundary
from harness.models import Component
from harness.release import Answer, Intent
from harness.tools import SEARCH_KNOWLEDGE

__all__ = ["OUT_OF_SCOPE_TEXT", "answer_knowledge", "answer_out_of_scope", "answer_system_chat"]

OUT_OF_SCOPE_TEXT = (
    "This assistant diagnoses production incidents and answers questions from the runbooks. "
    "Ask, for example: 'Why does checkout-api return HTTP 500 since 14:05?'"
)
_MAX_ANSWER_CHARS = 4000
_KNOWLEDGE_TOOL_TURNS = 2


async def answer_knowledge(caller: ModelCaller, boundary: ToolBoundary, question: str) -> Answer:
    """Up to two tool turns of search_knowledge, then a plain answer."""
    spec = boundary.registry.get(SEARCH_KNOWLEDGE)
    tools = (
        [spec.openai_schema()]
        if spec and SEARCH_KNOWLEDGE in boundary.policy.authorized_tools
        else []
    )
    messages = knowledge_messages(question)
    citations: list[str] = []
    for turn in range(_KNOWLEDGE_TOOL_TURNS + 1):
        offered = tools if turn < _KNOWLEDGE_TOOL_TURNS else []
        reply = await caller.call(Component.KNOWLEDGE_ANSWER, messages, tools=offered)
        if not reply.tool_calls or not offered:
            return _answer(boundary, "KNOWLEDGE_QA", reply.content, citations)
        for result in await run_tool_calls(boundary, reply, messages):
            if result.observation is not None:
                citations.extend(sorted(result.observation.item_refs()))
    raise AssertionError("unreachable: the last turn offers no tools")


async def answer_system_chat(caller: ModelCaller, boundary: ToolBoundary, question: str) -> Answer:
    reply = await caller.call(Component.SYSTEM_CHAT, system_chat_messages(question))
    return _answer(boundary, "SYSTEM_CHAT", reply.content, [])


def answer_out_of_scope(boundary: ToolBoundary) -> Answer:
    return _answer(boundary, "OUT_OF_SCOPE", OUT_OF_SCOPE_TEXT, [])


def _answer(
    boundary: ToolBoundary, intent: Intent, text: str | None, citations: list[str]
) -> Answer:
    return Answer(
        run_id=boundary.run.run_id,
        intent=intent,
        text=(text or "").strip()[:_MAX_ANSWER_CHARS],
        citations=citations[:20],
    )
