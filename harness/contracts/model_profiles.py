"""What an OpenAI-compatible endpoint can do, per server family: the capability profiles.

"OpenAI-compatible" servers differ exactly where the harness depends on them: whether tools are
rendered and called at all (and whether ``tool_choice`` is honoured), how a JSON reply is
constrained, what the output cap is called, and whether dropping the connection stops the
generation. A profile records that once per server family, so a deployment names its server
(``HARNESS_MODEL_PROFILE``) instead of discovering each gap in production. ``harness models
check`` probes an endpoint and says which profile and settings fit it.

Profiles are data: one named row each, with where its facts come from. Only the rows marked
``tested`` run here (the offline model always; llama-cpp-python in ``make test-live``); the
others are taken from their vendors' documentation and say so.

Prompted tool calling (the harness writing tool schemas into the prompt and parsing calls out
of free text) is deliberately not built: it would make a parser of the harness's own the
judge of what a model "called", and a weak model's prose would become tool calls by accident.
A profile whose server cannot call tools natively runs with ``tool_calling="none"``: the
diagnosis path then cannot gather evidence and ends in a fallback, never in invented findings.
See docs/architecture.md §12.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from harness.contracts.models import Component

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "PROFILES",
    "ModelProfile",
    "ProfileName",
    "StructuredOutput",
    "ToolCalling",
]

StructuredOutput = Literal["json_schema", "json_object_schema", "json_object", "none"]
"""How an endpoint is asked for JSON: OpenAI's ``json_schema`` response format; a
``json_object`` format carrying the schema (llama-cpp-python's server); a plain ``json_object``;
or nothing (the prompt alone asks for JSON)."""

ToolCalling = Literal["native", "prompted", "none"]
"""How the endpoint calls tools: natively (``tools`` + ``tool_calls``), by a prompt convention
the harness would parse (not built, see the module docstring), or not at all."""

ProfileName = Literal["openai", "vllm", "llama-cpp-python", "ollama", "offline"]


@dataclass(frozen=True, kw_only=True)
class ModelProfile:
    """The capabilities of one server family.

    Attributes:
        name: The profile's setting value.
        tool_calling: native / prompted / none (prompted is not built; see the module).
        sends_tool_choice: The endpoint honours ``tool_choice`` ("auto" / "none"); without it
            some servers never render the tools into the prompt.
        structured_output: The JSON mode that constrains decoding on this server.
        max_tokens_field: The body field of the output cap.
        sampling: The endpoint accepts ``temperature`` and ``seed`` (deterministic sampling).
        disconnect_stops_generation: Closing a streamed request stops the server generating;
            the harness then streams and closes on timeout. Otherwise it does not stream and
            the token cap alone bounds a runaway reply.
        stream_usage: A streamed reply can carry usage (``stream_options.include_usage``).
        streams_with_tools: Tool turns may stream too (llama-cpp-python refuses a streamed
            ``tool_choice`` auto: those turns go unstreamed, bounded by the timeout alone).
        tool_results: How tool results reach the model: as ``tool`` messages, or as user
            messages naming the call, for a chat format that renders no tool message
            (llama-cpp-python's chatml-function-calling shows the model nothing of them).
        tool_call_ids: Who names a tool call: the server (``provider``), or the harness, for a
            server whose ids break the tool_call_id rule (llama-cpp-python's chatml-function-
            calling writes ``call__0_<tool>_cmpl-<uuid>``, longer than 64 characters). The
            harness's ids are fresh per call and sent back in the conversation as they are.
        tested: Exercised against the real server in this repository's tests.
        source: Where the facts come from.
    """

    name: ProfileName
    tool_calling: ToolCalling
    sends_tool_choice: bool
    structured_output: StructuredOutput
    max_tokens_field: Literal["max_tokens", "max_completion_tokens"] = "max_tokens"
    sampling: bool = True
    disconnect_stops_generation: bool = False
    stream_usage: bool = False
    streams_with_tools: bool = True
    tool_results: Literal["tool_role", "user_role"] = "tool_role"
    tool_call_ids: Literal["provider", "harness"] = "provider"
    tested: bool = False
    source: str

    def streams(self, *, with_tools: bool) -> bool:
        """Whether a reply is streamed (so that a timeout can stop the generation)."""
        return self.disconnect_stops_generation and (self.streams_with_tools or not with_tools)


PROFILES: Mapping[str, ModelProfile] = MappingProxyType(
    {
        p.name: p
        for p in (
            ModelProfile(
                name="openai",
                tool_calling="native",
                sends_tool_choice=True,
                structured_output="json_schema",
                max_tokens_field="max_completion_tokens",
                source="OpenAI API reference, chat completions (not run here)",
            ),
            ModelProfile(
                name="vllm",
                tool_calling="native",
                sends_tool_choice=True,
                structured_output="json_schema",
                disconnect_stops_generation=True,
                stream_usage=True,
                source=(
                    "vLLM docs, OpenAI-compatible server and tool calling: needs "
                    "--enable-auto-tool-choice and a --tool-call-parser (not run here)"
                ),
            ),
            ModelProfile(
                name="llama-cpp-python",
                tool_calling="native",
                sends_tool_choice=True,
                structured_output="json_object_schema",
                disconnect_stops_generation=True,
                streams_with_tools=False,
                tool_results="user_role",
                tool_call_ids="harness",
                tested=True,
                source=(
                    "llama-cpp-python server started with --chat_format chatml-function-calling "
                    "(make test-live); that format ignores max_tokens on tool turns and renders "
                    "no tool message"
                ),
            ),
            ModelProfile(
                name="ollama",
                tool_calling="native",
                sends_tool_choice=False,
                structured_output="json_schema",
                disconnect_stops_generation=True,
                stream_usage=True,
                source=(
                    "Ollama docs, OpenAI compatibility: tools and response_format supported, "
                    "tool_choice not (not run here)"
                ),
            ),
            ModelProfile(
                name="offline",
                tool_calling="native",
                sends_tool_choice=True,
                structured_output="json_schema",
                tested=True,
                source="the embedded offline model (every test)",
            ),
        )
    }
)
"""Every profile by name."""

DEFAULT_MAX_TOKENS: Mapping[Component, int] = MappingProxyType(
    {
        # {"intent": "..."} is a dozen tokens; the margin covers a model that pads.
        Component.ROUTER: 64,
        Component.SYSTEM_CHAT: 400,
        Component.KNOWLEDGE_ANSWER: 600,
        # A draft of a few conclusions with citations, next steps and evaluations: the bundled
        # worlds' drafts need more than 1,200 (it cut their last conclusions in tests/eval).
        Component.DIAGNOSIS_AGENT: 2048,
        Component.EVIDENCE_REPAIR: 2048,
        Component.SEMANTIC_GUARD: 400,
    }
)
"""Output tokens per call by component when the settings name none: enough for what each
component must write, short enough that a rambling reply ends quickly."""
