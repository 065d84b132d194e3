"""One model turn's tool calls, passed one by one through the ToolBoundary."""

from __future__ import annotations

from harness.boundary import ToolBoundary
from harness.envelope import ToolBoundaryResult, ToolCallEnvelope
from harness.models import ChatMessage, ModelReply

__all__ = ["run_tool_calls"]


async def run_tool_calls(
    boundary: ToolBoundary, reply: ModelReply, messages: list[ChatMessage]
) -> list[ToolBoundaryResult]:
    """Execute the reply's tool calls and append the assistant turn and tool messages.

    The harness builds each envelope: the run id is the boundary's own run, never anything the
    model wrote. Calls run sequentially: all budget and control state lives on one loop, and
    the boundary's order of checks stays the order of the model's calls.
    """
    messages.append(
        ChatMessage(role="assistant", content=reply.content, tool_calls=reply.tool_calls)
    )
    results = []
    for call in reply.tool_calls:
        envelope = ToolCallEnvelope(
            run_id=boundary.run.run_id,
            tool_call_id=call.id,
            tool_name=call.name,
            arguments=call.arguments,
        )
        result = await boundary.call(envelope)
        results.append(result)
        # The protocol needs a tool message per call id; an invalid id is echoed bounded.
        messages.append(
            ChatMessage(role="tool", tool_call_id=call.id[:64], content=result.model_content())
        )
    return results
