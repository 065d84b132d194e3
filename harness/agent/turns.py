"""One model turn's tool calls, through the ToolBoundary: admitted in order, run concurrently."""

from __future__ import annotations

import asyncio

from harness.contracts.envelope import ToolBoundaryResult, ToolCallEnvelope
from harness.contracts.models import ChatMessage, ModelReply
from harness.run.boundary import ToolBoundary

__all__ = ["run_tool_calls"]


async def run_tool_calls(
    boundary: ToolBoundary, reply: ModelReply, messages: list[ChatMessage]
) -> list[ToolBoundaryResult]:
    """Execute the reply's tool calls and append the assistant turn and tool messages.

    The harness builds each envelope: the run id is the boundary's own run, never anything the
    model wrote. The calls start in the model's order, and each one's admission (checks,
    reservations, duplicate scope) runs before its first await, so admission keeps that order;
    then they execute concurrently on the run's loop — one loop, so budget, control and trace
    state need no lock and trace sequence numbers stay gap-free. The tool messages follow the
    model's order whatever order the calls finish in.
    """
    messages.append(
        ChatMessage(role="assistant", content=reply.content, tool_calls=reply.tool_calls)
    )
    envelopes = [
        ToolCallEnvelope(
            run_id=boundary.run.run_id,
            tool_call_id=call.id,
            tool_name=call.name,
            arguments=call.arguments,
        )
        for call in reply.tool_calls
    ]
    async with asyncio.TaskGroup() as group:
        tasks = [group.create_task(boundary.call(envelope)) for envelope in envelopes]
    results = [task.result() for task in tasks]
    for call, result in zip(reply.tool_calls, results, strict=True):
        # The protocol needs a tool message per call id; an invalid id is echoed bounded.
        messages.append(
            ChatMessage(role="tool", tool_call_id=call.id[:64], content=result.model_content())
        )
    return results
