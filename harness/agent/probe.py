"""The capability probe of a model endpoint: what works, and the settings to use.

Three calls, shaped as the harness makes them: one routing call (the router's schema in the
configured JSON mode; when it fails, the other modes are tried to find one that works), one
tool-call turn (``query_logs`` offered with ``tool_choice`` auto: does a tool call come back,
with JSON arguments?) and one structured reply (a diagnosis draft in its schema, no tools).
``harness models check`` prints the outcome; nothing here is cached or decided at run time —
a deployment sets what the probe recommends.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass

from harness.agent.loop import DRAFT_OUTPUT
from harness.agent.router import ROUTER_OUTPUT, parse_intent
from harness.contracts.draft import parse_draft
from harness.contracts.errors import HarnessError
from harness.contracts.model_profiles import StructuredOutput
from harness.contracts.models import (
    ChatMessage,
    Component,
    ModelClient,
    ModelReply,
    ModelRequest,
    ToolDefinition,
)

__all__ = ["ProbeReport", "ProbeStep", "probe_endpoint"]

_MODES: tuple[StructuredOutput, ...] = ("json_schema", "json_object_schema", "json_object", "none")
_QUESTION = "Why does checkout-api return HTTP 500 since 14:05?"
_ROUTER = (
    "You route operator questions for an incident-diagnosis assistant. Reply with a JSON object "
    '{"intent": X} where X is one of DIAGNOSIS, KNOWLEDGE_QA, SYSTEM_CHAT, OUT_OF_SCOPE.'
)
_TOOLS = (
    "You are an SRE diagnosis agent. Investigate with the tools before answering: call "
    "query_logs now."
)
_DRAFT = (
    "Reply with one JSON object and nothing else: "
    '{"analysis_id": "an-probe", "summary": "probe", "conclusions": [], "next_steps": [], '
    '"limitations": ["probe"], "evaluations": {}}'
)
_QUERY_LOGS = ToolDefinition(
    name="query_logs",
    description="Search the service logs in a time range.",
    parameters={
        "type": "object",
        "properties": {
            "services": {"type": "array", "items": {"type": "string"}},
            "query": {"type": "string"},
        },
        "required": ["services"],
    },
)


@dataclass(frozen=True, kw_only=True)
class ProbeStep:
    """One probe call: what it asked, whether the reply was usable, and how long it took."""

    name: str
    ok: bool
    detail: str
    latency_s: float
    usage_reported: bool


@dataclass(frozen=True, kw_only=True)
class ProbeReport:
    """Every probe call and the structured-output mode that routed (None: none did)."""

    steps: tuple[ProbeStep, ...]
    working_mode: StructuredOutput | None

    @property
    def ok(self) -> bool:
        return self.working_mode is not None and all(
            s.ok for s in self.steps if not s.name.startswith("routing")
        )


async def probe_endpoint(
    client_for: Callable[[StructuredOutput], ModelClient],
    *,
    structured_output: StructuredOutput,
    timeout_s: float = 60.0,
) -> ProbeReport:
    """Probe the endpoint behind ``client_for`` (a client per JSON mode).

    Args:
        client_for: The endpoint's ModelClient asking for JSON in the given mode.
        structured_output: The configured mode, tried first.
        timeout_s: Per call.
    """
    steps: list[ProbeStep] = []
    working: StructuredOutput | None = None
    for mode in (structured_output, *(m for m in _MODES if m != structured_output)):
        step = await _call(
            f"routing ({mode})",
            client_for(mode),
            ModelRequest(
                component=Component.ROUTER,
                messages=[
                    ChatMessage(role="system", content=_ROUTER),
                    ChatMessage(role="user", content=_QUESTION),
                ],
                max_tokens=64,
                timeout_s=timeout_s,
                json_mode=True,
                output_schema=ROUTER_OUTPUT,
            ),
            _routes,
        )
        steps.append(step)
        if step.ok:
            working = mode
            break
    client = client_for(working or structured_output)
    steps.append(
        await _call(
            "tool call (tool_choice auto)",
            client,
            ModelRequest(
                component=Component.DIAGNOSIS_AGENT,
                messages=[
                    ChatMessage(role="system", content=_TOOLS),
                    ChatMessage(role="user", content=_QUESTION),
                ],
                tools=[_QUERY_LOGS],
                tool_choice="auto",
                max_tokens=256,
                timeout_s=timeout_s,
            ),
            _calls_tool,
        )
    )
    steps.append(
        await _call(
            "structured reply (draft schema, no tools)",
            client,
            ModelRequest(
                component=Component.DIAGNOSIS_AGENT,
                messages=[
                    ChatMessage(role="system", content=_DRAFT),
                    ChatMessage(role="user", content=_QUESTION),
                ],
                max_tokens=512,
                timeout_s=timeout_s,
                json_mode=True,
                output_schema=DRAFT_OUTPUT,
            ),
            _drafts,
        )
    )
    return ProbeReport(steps=tuple(steps), working_mode=working)


async def _call(
    name: str, client: ModelClient, request: ModelRequest, check: Callable[[ModelReply], str]
) -> ProbeStep:
    started = time.monotonic()
    try:
        reply = await client.complete(request)
    except HarnessError as err:
        return ProbeStep(
            name=name,
            ok=False,
            detail=err.error_code.value,
            latency_s=time.monotonic() - started,
            usage_reported=False,
        )
    latency = time.monotonic() - started
    try:
        detail = check(reply)
    except ValueError:
        return ProbeStep(
            name=name,
            ok=False,
            detail=reply.unusable_reason().value,
            latency_s=latency,
            usage_reported=reply.usage is not None,
        )
    return ProbeStep(
        name=name, ok=True, detail=detail, latency_s=latency, usage_reported=reply.usage is not None
    )


def _routes(reply: ModelReply) -> str:
    return f"intent {parse_intent(reply).value}"


def _calls_tool(reply: ModelReply) -> str:
    if not reply.tool_calls:
        raise ValueError("no tool call")
    call = reply.tool_calls[0]
    arguments = json.loads(call.arguments or "{}")  # JSONDecodeError is a ValueError
    if not isinstance(arguments, dict):
        raise ValueError("arguments are not an object")
    return f"{call.name} called"


def _drafts(reply: ModelReply) -> str:
    try:
        parse_draft(reply.content)
    except HarnessError:
        raise ValueError("no draft") from None
    return "a valid draft"
