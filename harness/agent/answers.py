"""Bounded answer paths for the non-diagnosis intents.

They return an :class:`AgentAnswer` (what the agent said and which items it used); turning it
into a released result is the run's business, so the agent layer knows no release types.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.agent.caller import ModelCaller
from harness.agent.prompts import knowledge_messages, system_chat_messages
from harness.agent.turns import run_tool_calls
from harness.contracts.intent import Intent
from harness.contracts.models import Component
from harness.run.boundary import ToolBoundary
from harness.tools import SEARCH_KNOWLEDGE

__all__ = [
    "OUT_OF_SCOPE_TEXT",
    "AgentAnswer",
    "answer_knowledge",
    "answer_out_of_scope",
    "answer_system_chat",
]

OUT_OF_SCOPE_TEXT = (
    "This assistant diagnoses production incidents and answers questions from the runbooks. "
    "Ask, for example: 'Why does my-service return HTTP 500 since 14:05?'"
)
_KNOWLEDGE_TOOL_TURNS = 2


@dataclass(frozen=True, kw_only=True)
class AgentAnswer:
    """A non-diagnosis answer before release: its route, text and the item refs it used."""

    intent: Intent
    text: str | None
    citations: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    """The observations the answer could draw on (tool message contents), to check its claims
    against; never released."""


async def answer_knowledge(
    caller: ModelCaller, boundary: ToolBoundary, question: str
) -> AgentAnswer:
    """Up to two tool turns of search_knowledge, then a plain answer."""
    tools = boundary.registry.definitions(
        {SEARCH_KNOWLEDGE} & set(boundary.policy.authorized_tools)
    )
    messages = knowledge_messages(question)
    citations: list[str] = []
    sources: list[str] = []
    for turn in range(_KNOWLEDGE_TOOL_TURNS + 1):
        offered = tools if turn < _KNOWLEDGE_TOOL_TURNS else []
        reply = await caller.call(Component.KNOWLEDGE_ANSWER, messages, tools=offered)
        if not reply.tool_calls or not offered:
            return AgentAnswer(
                intent=Intent.KNOWLEDGE_QA,
                text=reply.content,
                citations=tuple(citations),
                sources=tuple(sources),
            )
        for result in await run_tool_calls(boundary, reply, messages):
            if result.observation is not None:
                citations.extend(sorted(result.observation.item_refs()))
                sources.append(result.model_content())
    raise AssertionError("unreachable: the last turn offers no tools")


async def answer_system_chat(caller: ModelCaller, question: str) -> AgentAnswer:
    """One model call, no tools."""
    reply = await caller.call(Component.SYSTEM_CHAT, system_chat_messages(question))
    return AgentAnswer(intent=Intent.SYSTEM_CHAT, text=reply.content)


def answer_out_of_scope() -> AgentAnswer:
    """A fixed pointer to what the assistant does; no model call."""
    return AgentAnswer(intent=Intent.OUT_OF_SCOPE, text=OUT_OF_SCOPE_TEXT)
