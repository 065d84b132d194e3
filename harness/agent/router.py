"""Router: one model call that picks the run's path."""

from __future__ import annotations

import json
from typing import get_args

from harness.agent.caller import ModelCaller
from harness.agent.prompts import router_messages
from harness.models import Component, ModelReply
from harness.release import Intent

__all__ = ["route", "strip_fences"]

_INTENTS = frozenset(get_args(Intent))


async def route(caller: ModelCaller, question: str) -> Intent:
    """Return the intent; an unparseable reply is a technical failure (retried per policy)."""
    intent: Intent = await caller.call(
        Component.ROUTER, router_messages(question), json_mode=True, parse=_parse
    )
    return intent


def _parse(reply: ModelReply) -> Intent:
    body = json.loads(strip_fences(reply.content or ""))  # ValueError = unusable reply
    intent = body.get("intent") if isinstance(body, dict) else None
    if isinstance(intent, str) and intent.upper() in _INTENTS:
        return intent.upper()  # type: ignore[return-value]
    raise ValueError("no known intent")


def strip_fences(text: str) -> str:
    """Remove a Markdown code fence around a JSON reply, if any."""
    text = text.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
        text = text.rsplit("```", 1)[0]
    return text.strip()
