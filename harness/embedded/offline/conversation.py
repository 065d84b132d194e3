"""The offline demo model's reading of a chat-completions request body.

A request body (``messages``, ``tools``, ``max_tokens``, ``response_format``) becomes a
:class:`Conversation`: the system prompt, the operator's question, the tools offered (with what
their definitions say), and every tool exchange so far — the assistant's call (id, name, parsed arguments) joined with what the tool message
returned (a typed observation, or a stable error code). Tool content is parsed as data only;
nothing in it is ever executed or obeyed.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

import pydantic_core
from pydantic import ValidationError

from harness.contracts.observation import (
    LogsObservation,
    MysqlObservation,
    RagObservation,
    observation_adapter,
)

__all__ = ["Conversation", "Exchange", "OfflineRequestError", "parse_conversation"]

Observation = LogsObservation | MysqlObservation | RagObservation

_OBSERVATIONS = observation_adapter()


class OfflineRequestError(ValueError):
    """The request body is not a chat-completions request (HTTP 400 at the adapters)."""


@dataclass(frozen=True, kw_only=True)
class Exchange:
    """One tool call of the conversation and what came back for it.

    Attributes:
        call_id: The tool_call id the assistant used.
        tool_name: The tool it called.
        arguments: Its arguments, parsed (empty when they were not a JSON object).
        observation: The typed observation, when the tool message held one.
        error_code: The stable code, when the tool message held one instead.
        answered: False while no tool message for this id has arrived.
        scope: The observation's ``scope`` object exactly as the tool message carried it.
        turn: The assistant tool turn (1-based) that made the call.
    """

    call_id: str
    tool_name: str
    arguments: dict[str, Any]
    observation: Observation | None = None
    error_code: str | None = None
    answered: bool = False
    scope: dict[str, Any] | None = None
    turn: int = 0

    @property
    def evidence_found(self) -> bool:
        return (
            self.observation is not None
            and self.observation.evidence_status.value == "EVIDENCE_FOUND"
        )

    @property
    def no_evidence(self) -> bool:
        return (
            self.observation is not None and self.observation.evidence_status.value == "NO_EVIDENCE"
        )

    @property
    def gained(self) -> bool:
        """The agent's own verdict: only a result with evidence is a gain."""
        return self.evidence_found


@dataclass(frozen=True, kw_only=True)
class Conversation:
    """What a chat-completions request says, read by the offline model."""

    system: str
    question: str
    exchanges: tuple[Exchange, ...] = ()
    tool_turns: int = 0
    stop_required: bool = False
    tools: frozenset[str] = frozenset()
    tool_descriptions: dict[str, str] = field(default_factory=dict, repr=False)
    json_mode: bool = False
    max_tokens: int | None = None
    last_role: str = "user"
    last_user: str = ""
    final_answer: str | None = None
    fingerprint: str = field(default="", repr=False)

    def calls(self, tool_name: str) -> list[Exchange]:
        return [e for e in self.exchanges if e.tool_name == tool_name]

    def offers(self, tool_name: str) -> bool:
        return tool_name in self.tools

    def call_id(self, index: int) -> str:
        """A deterministic tool_call id for this conversation's ``index``-th new call."""
        digest = hashlib.sha256(f"{self.fingerprint}:{index}".encode()).hexdigest()
        return f"call_{digest[:24]}"


def parse_conversation(body: Any) -> Conversation:
    """Read a chat-completions request body; raise OfflineRequestError when it is not one."""
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        raise OfflineRequestError("body must be an object with a 'messages' list")
    messages = [m for m in body["messages"] if isinstance(m, dict)]
    if not messages:
        raise OfflineRequestError("'messages' is empty")
    system = "\n".join(_text(m.get("content")) for m in messages if m.get("role") == "system")
    users = [_text(m.get("content")) for m in messages if m.get("role") == "user"]
    question = next((u for u in users if not _is_control(u)), users[0] if users else "")
    stop = any(_is_control(u) for u in users)

    calls: dict[str, Exchange] = {}
    order: list[str] = []
    tool_turns = 0
    final_answer: str | None = None
    for message in messages:
        role = message.get("role")
        if role == "assistant" and not message.get("tool_calls"):
            final_answer = _text(message.get("content"))
        elif role == "assistant" and message.get("tool_calls"):
            tool_turns += 1
            for call in message["tool_calls"]:
                exchange = _call(call, tool_turns)
                if exchange is not None and exchange.call_id not in calls:
                    calls[exchange.call_id] = exchange
                    order.append(exchange.call_id)
        elif role == "tool":
            call_id = str(message.get("tool_call_id") or "")
            result = _read_result(_text(message.get("content")))
            stop = stop or result.control
            if call_id in calls:
                calls[call_id] = _answer(calls[call_id], result)

    functions = [
        t["function"]
        for t in body.get("tools") or []
        if isinstance(t, dict) and isinstance(t.get("function"), dict)
    ]
    tools = frozenset(str(f.get("name")) for f in functions)
    # What each tool says it does; query_mysql's description lists the readable tables.
    descriptions = {str(f.get("name")): _text(f.get("description")) for f in functions}
    response_format = body.get("response_format")
    max_tokens = body.get("max_tokens") or body.get("max_completion_tokens")
    # The identity of the conversation as it came (messages in their keys' order): the
    # harness renders the same conversation the same way, and a sorted dump of the whole
    # history cost ~0.5 ms per turn.
    canonical = pydantic_core.to_json([messages, sorted(tools)], fallback=str)
    return Conversation(
        system=system,
        question=question.strip(),
        exchanges=tuple(calls[i] for i in order),
        tool_turns=tool_turns,
        stop_required=stop,
        tools=tools,
        tool_descriptions=descriptions,
        json_mode=isinstance(response_format, dict)
        and response_format.get("type") in ("json_object", "json_schema"),
        max_tokens=max_tokens if isinstance(max_tokens, int) and max_tokens > 0 else None,
        last_role=str(messages[-1].get("role") or ""),
        last_user=users[-1] if users else "",
        final_answer=final_answer,
        fingerprint=hashlib.sha256(canonical).hexdigest(),
    )


def _text(content: Any) -> str:
    # Content may be a string or a list of typed parts; only text parts are read.
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _is_control(text: str) -> bool:
    # Parsed only where the marker may be: written as is, or spelled with JSON escapes.
    if "STOP_REQUIRED" not in text and "\\u" not in text:
        return False
    body = _json_object(text)
    return body is not None and body.get("control") == "STOP_REQUIRED"


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        body = json.loads(text)
    except (ValueError, TypeError):
        return None
    return body if isinstance(body, dict) else None


def _call(call: Any, turn: int) -> Exchange | None:
    if not isinstance(call, dict) or not isinstance(call.get("function"), dict):
        return None
    function = call["function"]
    arguments = _json_object(str(function.get("arguments") or "")) or {}
    return Exchange(
        call_id=str(call.get("id") or ""),
        tool_name=str(function.get("name") or ""),
        arguments=arguments,
        turn=turn,
    )


def _answer(exchange: Exchange, result: _Result) -> Exchange:
    return Exchange(
        call_id=exchange.call_id,
        tool_name=exchange.tool_name,
        arguments=exchange.arguments,
        observation=result.observation,
        error_code=result.error_code,
        answered=True,
        scope=copy.deepcopy(result.scope),
        turn=exchange.turn,
    )


@dataclass(frozen=True, kw_only=True, slots=True)
class _Result:
    """What one tool message holds."""

    observation: Observation | None
    error_code: str | None
    scope: dict[str, Any] | None
    control: bool
    """Whether it is the harness's STOP_REQUIRED control message."""


@functools.lru_cache(maxsize=256)
def _read_result(content: str) -> _Result:
    """A tool message read once per distinct content.

    Every request carries the whole conversation, so each tool result would be parsed and
    validated again on every later turn. Observations are frozen models; the scope is copied
    for each exchange.
    """
    body = _json_object(content)
    if body is None:
        return _Result(observation=None, error_code="UNREADABLE_RESULT", scope=None, control=False)
    control = body.pop("control", None) == "STOP_REQUIRED"
    observation: Observation | None = None
    if "kind" in body:
        try:
            observation = _OBSERVATIONS.validate_python(body)
        except ValidationError:
            observation = None
    error = body.get("error_code")
    scope = body.get("scope")
    return _Result(
        observation=observation,
        error_code=str(error) if error else (None if observation else "UNREADABLE_RESULT"),
        scope=scope if observation is not None and isinstance(scope, dict) else None,
        control=control,
    )
