"""Router: one model call that picks the run's path."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from harness.agent.caller import ModelCaller
from harness.agent.prompts import router_messages
from harness.contracts.intent import Intent
from harness.contracts.models import Component, ModelReply, OutputSchema
from harness.jsontext import loads_object

__all__ = ["ROUTER_OUTPUT", "RouterReply", "parse_intent", "route"]


class RouterReply(BaseModel):
    """The router's reply object."""

    model_config = ConfigDict(frozen=True)

    intent: Intent = Field(description="The path for the question.")


ROUTER_OUTPUT = OutputSchema.of(RouterReply, "router_reply")


async def route(caller: ModelCaller, question: str, *, catalog: str = "") -> Intent:
    """Return the intent; an unparseable reply is a technical failure (retried per policy).

    Args:
        catalog: The world's catalog summary, told to the router (see harness.contracts.catalog).
    """
    return await caller.call(
        Component.ROUTER,
        router_messages(question, catalog),
        output_schema=ROUTER_OUTPUT,
        parse=parse_intent,
    )


def parse_intent(reply: ModelReply) -> Intent:
    intent = loads_object(reply.content).get("intent")  # ValueError = unusable reply
    if isinstance(intent, str):
        return Intent(intent.upper())  # ValueError for an unknown intent
    raise ValueError("no intent")
