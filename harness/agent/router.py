"""Router: one model call that picks the run's path."""

from __future__ import annotations

from harness.agent.caller import ModelCaller
from harness.agent.prompts import router_messages
from harness.intent import Intent
from harness.jsontext import loads_object
from harness.models import Component, ModelReply

__all__ = ["route"]


async def route(caller: ModelCaller, question: str) -> Intent:
    """Return the intent; an unparseable reply is a technical failure (retried per policy)."""
    return await caller.call(
        Component.ROUTER, router_messages(question), json_mode=True, parse=_parse
    )


def _parse(reply: ModelReply) -> Intent:
    intent = loads_object(reply.content).get("intent")  # ValueError = unusable reply
    if isinstance(intent, str):
        return Intent(intent.upper())  # ValueError for an unknown intent
    raise ValueError("no intent")
