"""The model port: one chat-completion call, in domain words.

Every model call of the harness (router, system chat, knowledge answer, diagnosis agent,
evidence repair, semantic guard) goes through :class:`ModelClient`. The production adapter
speaks the OpenAI chat-completions protocol through the ``openai`` SDK against any compatible
endpoint; the offline demo model and the test fakes implement the same port.

Provider usage and ``reasoning_content`` are captured when present and recorded as unavailable
when absent — never estimated.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from enum import Enum
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from harness.jsontext import loads_object

__all__ = [
    "SIGNAL_HEADERS",
    "CallSignal",
    "ChatMessage",
    "Component",
    "FailureReason",
    "ModelClient",
    "ModelReply",
    "ModelRequest",
    "OutputSchema",
    "ToolCall",
    "ToolDefinition",
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


class FailureReason(str, Enum):
    """Why a component's model call could not be used; the released reason of a failure.

    A code, never the reply: what the model wrote stays out of the release and the audit.
    """

    PROSE_REPLY = "PROSE_REPLY"
    """Prose (no JSON object, no tool call) where a draft or a tool call was due, twice."""
    SCHEMA_MISMATCH = "SCHEMA_MISMATCH"
    """A JSON reply that does not fit the component's schema, twice for the agent."""
    TRUNCATED_REPLY = "TRUNCATED_REPLY"
    """The reply hit the output-token cap before it was complete."""
    OVERSIZED_REPLY = "OVERSIZED_REPLY"
    """The reply was longer than the harness reads."""
    TIMEOUT = "TIMEOUT"
    """The call did not finish within the component's timeout."""
    ENDPOINT_ERROR = "ENDPOINT_ERROR"
    """The endpoint refused the call or could not be reached."""
    BUDGET_EXHAUSTED = "BUDGET_EXHAUSTED"
    """The run's model-call or token budget ran out."""


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ToolCall(_Model):
    """A tool call as the model framework returned it."""

    id: str = Field(description="The framework's tool_call id (validated by the boundary).")
    name: str = Field(description="Requested tool name.")
    arguments: str = Field(description="Arguments as JSON text, exactly as the model wrote them.")


class ChatMessage(_Model):
    """One message of a conversation, in neutral terms (adapters render the wire format)."""

    role: Literal["system", "user", "assistant", "tool"] = Field(description="Who speaks.")
    content: str | None = Field(default=None, description="The text, if any.")
    tool_calls: list[ToolCall] | None = Field(
        default=None, description="Assistant turns only: the tools it called."
    )
    tool_call_id: str | None = Field(
        default=None, description="Tool messages only: the call this message answers."
    )


class ToolDefinition(_Model):
    """A tool as offered to a model: name, what it does, and its arguments' JSON Schema."""

    name: str = Field(description="The name the model calls it by.")
    description: str = Field(description="What the model is told the tool does.")
    parameters: dict[str, Any] = Field(description="JSON Schema of the arguments object.")


class Usage(_Model):
    """Provider-reported token usage of one call."""

    input_tokens: int = Field(ge=0, description="Prompt tokens.")
    output_tokens: int = Field(ge=0, description="Completion tokens.")
    total_tokens: int = Field(ge=0, description="Total as the provider reported it.")


class OutputSchema(_Model):
    """The JSON Schema a reply must follow, for endpoints that can constrain decoding to it."""

    name: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$", description="Schema name.")
    json_schema: dict[str, Any] = Field(description="JSON Schema of the reply object.")

    @classmethod
    def of(cls, model: type[BaseModel], name: str | None = None) -> OutputSchema:
        """The schema of a pydantic model."""
        return cls(name=name or model.__name__, json_schema=model.model_json_schema())


class CallSignal(_Model):
    """What the harness tells a model endpoint about a call beside its messages.

    Sent as HTTP headers (:data:`SIGNAL_HEADERS`, rendered by :meth:`headers`) on every call;
    an OpenAI-compatible provider ignores them. A model that answers by rules — the offline
    demo model — learns from them which component calls and for which run, never from the
    wording of a prompt (a reworded prompt must not change what it answers).
    """

    component: Component = Field(description="The calling component.")
    analysis_id: str | None = Field(default=None, description="The run's analysis id.")
    as_of: datetime | None = Field(default=None, description="'Now' of the investigation.")
    datasource: str | None = Field(
        default=None, description="The logical datasource the agent is told to query."
    )

    def headers(self) -> dict[str, str]:
        """The signal as headers (unset fields left out)."""
        values = {
            "component": self.component.value,
            "analysis_id": self.analysis_id,
            "as_of": self.as_of.isoformat() if self.as_of is not None else None,
            "datasource": self.datasource,
        }
        return {SIGNAL_HEADERS[k]: v for k, v in values.items() if v is not None}

    @classmethod
    def from_headers(cls, headers: Mapping[str, str]) -> CallSignal | None:
        """The signal a request carried (header names in any case); None without a valid
        component header."""
        lowered = {k.lower(): v for k, v in headers.items()}
        values = {k: lowered.get(name.lower()) for k, name in SIGNAL_HEADERS.items()}
        try:
            return cls.model_validate({k: v for k, v in values.items() if v is not None})
        except ValueError:
            return None


SIGNAL_HEADERS: Mapping[str, str] = {
    "component": "X-Harness-Component",
    "analysis_id": "X-Harness-Analysis-Id",
    "as_of": "X-Harness-As-Of",
    "datasource": "X-Harness-Datasource",
}
"""The header that carries each field of :class:`CallSignal` (documented in docs/
architecture.md)."""


class ModelRequest(_Model):
    """One model call: what goes in, and the caps the harness imposes."""

    component: Component
    messages: list[ChatMessage]
    tools: list[ToolDefinition] = Field(default_factory=list, description="Tools offered.")
    tool_choice: Literal["auto", "none"] | None = Field(
        default=None,
        description=(
            "With tools: whether the model may call them (auto) or must not (none); endpoints "
            "whose profile takes it receive it."
        ),
    )
    max_tokens: int = Field(ge=1, description="Output cap derived from the remaining token budget.")
    timeout_s: float = Field(gt=0)
    json_mode: bool = Field(default=False, description="Ask for a JSON object reply.")
    output_schema: OutputSchema | None = Field(
        default=None, description="With json_mode: the schema the object must follow."
    )
    analysis_id: str | None = Field(default=None, description="The run's analysis id.")
    as_of: datetime | None = Field(default=None, description="'Now' of the investigation.")
    datasource: str | None = Field(default=None, description="The agent's datasource.")

    def signal(self) -> CallSignal:
        """What the endpoint is told about this call beside its messages."""
        return CallSignal(
            component=self.component,
            analysis_id=self.analysis_id,
            as_of=self.as_of,
            datasource=self.datasource,
        )


class ModelReply(_Model):
    """What a model call returned. ``usage`` None = the provider did not report it."""

    content: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    usage: Usage | None = None
    reasoning_content: str | None = None
    finish_reason: str | None = None
    model: str = ""

    def unusable_reason(self) -> FailureReason:
        """Why this reply, refused by its component's parser, could not be used.

        The output cap first (a cut-off reply of any shape), then prose against JSON that
        does not fit the schema.
        """
        if self.finish_reason == "length":
            return FailureReason.TRUNCATED_REPLY
        try:
            loads_object(self.content)
        except ValueError:
            return FailureReason.PROSE_REPLY
        return FailureReason.SCHEMA_MISMATCH


class ModelClient(Protocol):
    """One chat completion. Raises ``ModelError`` (MODEL_ERROR / MODEL_TIMEOUT) on failure."""

    async def complete(self, request: ModelRequest) -> ModelReply: ...
