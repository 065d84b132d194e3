"""The model port: one chat-completion call, in domain words.

Every model call of the harness (router, system chat, knowledge answer, diagnosis agent,
evidence repair, semantic guard) goes through :class:`ModelClient`. The production adapter
speaks the OpenAI chat-completions protocol through the ``openai`` SDK against any compatible
endpoint; the offline demo model and the test fakes implement the same port.

Provider usage and ``reasoning_content`` are captured when present and recorded as unavailable
when absent — never estimated.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "ChatMessage",
    "Component",
    "ModelClient",
    "ModelReply",
    "ModelRequest",
    "ToolCall",
    "Usage",
]


class Component(str, Enum):
    """The harness components that call models; each has its own endpoint settings."""

    ROUTER = "ROUTER"
    SYSTEM_CHAT = "SYSTEM_CHAT"
    KNOWLEDGE_ANSWER = "KNOWLEDGE_ANSWER"
    DIAGNOSIS_AGENT = "DIAGNOSIS_AGENT"
    EVIDENCE_REPAIR = "EVIDENCE_REPAIR"
    SEMANTIC_GUARD = "SEMANTIC_GUARD"


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ToolCall(_Model):
    """A tool call as the model framework returned it."""

    id: str = Field(description="The framework's tool_call id (validated by the boundary).")
    name: str = Field(description="Requested tool name.")
    arguments: str = Field(description="Arguments as JSON text, exactly as the model wrote them.")


class ChatMessage(_Model):
    """One message of a conversation, OpenAI-shaped."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str | None = None
    tool_calls: list[ToolCall] | None = None
    tool_call_id: str | None = None

    def to_openai(self) -> dict[str, Any]:
        body: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            body["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                }
                for c in self.tool_calls
            ]
        if self.tool_call_id is not None:
            body["tool_call_id"] = self.tool_call_id
        return body


class Usage(_Model):
    """Provider-reported token usage of one call."""

    input_tokens: int = Field(ge=0)
    output_tokens: int = Field(ge=0)
    total_tokens: int = Field(ge=0)


class ModelRequest(_Model):
    """One model call: what goes in, and the caps the harness imposes."""

    component: Component
    messages: list[ChatMessage]
    tools: list[dict[str, Any]] = Field(default_factory=list)
    max_tokens: int = Field(ge=1, description="Output cap derived from the remaining token budget.")
    timeout_s: float = Field(gt=0)
    json_mode: bool = Field(default=False, description="Ask for a JSON object reply.")


class ModelReply(_Model):
    """What a model call returned. ``usage`` None = the provider did not report it."""

    content: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    usage: Usage | None = None
    reasoning_content: str | None = None
    finish_reason: str | None = None
    model: str = ""


class ModelClient(Protocol):
    """One chat completion. Raises ``ModelError`` (MODEL_ERROR / MODEL_TIMEOUT) on failure."""

    async def complete(self, request: ModelRequest) -> ModelReply: ...
