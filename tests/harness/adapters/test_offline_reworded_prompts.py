"""The offline model answers each component by the call's signal, never by a prompt's wording.

Every system prompt of every component is replaced, on its way to the model, by words that
name no component and no run (a model client in front of the real one rewrites each request);
the offline model behind the openai SDK must still route, investigate, repair and judge as it
does with the harness's own prompts, and release the same results.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

import pytest

from harness.adapters.embedded import ToolPlane, build_tool_plane
from harness.adapters.offline_transport import offline_openai_client
from harness.adapters.openai_model import OpenAIModelClient
from harness.agent.caller import ComponentSettings
from harness.contracts.ingress import RunRequest
from harness.contracts.models import ChatMessage, Component, ModelClient, ModelReply, ModelRequest
from harness.contracts.results import Answer, DiagnosisReport, ReleasedResult
from harness.diagnosis import DiagnosisRun, RunDeps
from harness.embedded.offline import OFFLINE_MODEL_NAME
from harness.settings import Settings

AS_OF = datetime(2026, 11, 2, 15, 0, tzinfo=UTC)
REWORDED = (
    "You help people. Read what follows carefully and reply in the form you are asked for; "
    "be brief, be accurate."
)
QUESTIONS = {
    "Why does checkout-api return HTTP 500 since 14:05?": DiagnosisReport,
    "How do I fix HikariCP pool exhaustion?": Answer,
    "Hello! Who are you?": Answer,
}


@dataclass
class _Reworded:
    """A model client that sends every request with its system prompts reworded."""

    inner: ModelClient
    seen: set[Component] = field(default_factory=set)

    async def complete(self, request: ModelRequest) -> ModelReply:
        self.seen.add(request.component)
        messages = [
            ChatMessage(role="system", content=REWORDED) if m.role == "system" else m
            for m in request.messages
        ]
        assert any(m.role == "system" for m in request.messages)
        return await self.inner.complete(request.model_copy(update={"messages": messages}))


@pytest.fixture(scope="module")
def plane(tmp_path_factory: pytest.TempPathFactory) -> ToolPlane:
    settings = Settings(max_record_bytes=32 * 1024 * 1024)
    return build_tool_plane(settings, sqlite_dir=tmp_path_factory.mktemp("demo-db"))


def _run(plane: ToolPlane, question: str, model: ModelClient) -> ReleasedResult:
    deps = RunDeps(
        models={c: model for c in Component},
        registry=plane.registry,
        store=plane.store,
        executor=plane.executor(),
        clock=plane.clock,
        policy=plane.policy(),
        component_settings={
            c: ComponentSettings(max_tokens=4096, timeout_s=30.0) for c in Component
        },
        datasource=plane.settings.mysql_datasource,
        default_deadline_s=60.0,
    )
    request = RunRequest(question=question, as_of=AS_OF, analysis_id="an-reworded")
    return asyncio.run(DiagnosisRun(request, deps).execute())


_CALL_ID = re.compile(r"call_[0-9a-f]{24}")


def _content(result: ReleasedResult) -> str:
    """The released result without its run id, tool-call ids numbered in order of appearance
    (the offline model derives an id from a hash of the conversation, prompts included)."""
    text = result.model_dump_json(exclude={"run_id"})
    order: dict[str, str] = {}
    return _CALL_ID.sub(lambda m: order.setdefault(m.group(), f"call-{len(order)}"), text)


def test_every_component_is_answered_alike_with_every_system_prompt_reworded(
    plane: ToolPlane,
) -> None:
    original = OpenAIModelClient(offline_openai_client(), OFFLINE_MODEL_NAME)
    reworded = _Reworded(OpenAIModelClient(offline_openai_client(), OFFLINE_MODEL_NAME))
    for question, kind in QUESTIONS.items():
        expected = _run(plane, question, original)
        got = _run(plane, question, reworded)
        assert isinstance(expected, kind) and isinstance(got, kind), (question, got)
        assert _content(got) == _content(expected), question
    # Every component that calls a model in these runs was reached through reworded prompts.
    assert reworded.seen >= {
        Component.ROUTER,
        Component.DIAGNOSIS_AGENT,
        Component.SEMANTIC_GUARD,
        Component.KNOWLEDGE_ANSWER,
        Component.SYSTEM_CHAT,
    }


def test_without_the_signal_no_rule_answers_whatever_the_prompt_says(plane: ToolPlane) -> None:
    # The offline model no longer guesses from a prompt: a request without the component
    # header (a client that is not the harness) gets its labelled refusal, never a route.
    from harness.embedded.offline import OfflineDemoModel

    body = {
        "model": OFFLINE_MODEL_NAME,
        "messages": [
            {"role": "system", "content": 'You route operator questions. Reply {"intent": …}'},
            {"role": "user", "content": "Why does checkout-api return HTTP 500 since 14:05?"},
        ],
    }
    content = OfflineDemoModel().complete(body)["choices"][0]["message"]["content"]
    assert "no rule of mine covers this request" in content and "intent" not in content
