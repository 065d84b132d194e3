"""The production model path against a scripted OpenAI-compatible server over real HTTP.

Every test runs DiagnosisRun (or the adapter, or the CLI) with the openai SDK against
``harness.testing.openai_stub``: what goes on the wire per capability profile, the corrective
turn, a misrouted incident question, and a runaway generation stopped by the token cap and by
the timeout — the latter seen from the server's side (it stopped generating).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from harness.adapters.embedded import build_run_deps, build_tool_plane
from harness.adapters.openai_model import probe_client_factory
from harness.agent.probe import probe_endpoint
from harness.contracts.errors import ErrorCode
from harness.contracts.ingress import RunRequest
from harness.contracts.intent import Intent
from harness.contracts.models import Component, FailureReason
from harness.contracts.results import Answer, ReleasedResult, StableFailure
from harness.diagnosis import DiagnosisRun
from harness.embedded.demo import INCIDENT_QUESTION, WINDOW_END
from harness.settings import Settings
from harness.testing.models import draft_json
from harness.testing.openai_stub import Runaway, StubServer, chat_reply, stub_server
from harness.testing.openai_stub import tool_call_reply as tool_call
from harness.trace import (
    CorrectiveTurn,
    EvidenceCheck,
    ModelTokenUsage,
    Rerouted,
    RunFinished,
)

ANALYSIS = "an-stub"
LOGS = {
    "start": "2026-11-02T13:30:00Z",
    "end": "2026-11-02T15:00:00Z",
    "services": ["checkout-api"],
    "level": "ERROR",
}


def route(intent: str) -> dict[str, Any]:
    return chat_reply(json.dumps({"intent": intent}))


def draft(body: dict[str, Any]) -> dict[str, Any]:
    """A draft with one observation citing the first tool call (what a model might write)."""
    conclusion = {
        "id": "c1",
        "kind": "OBSERVATION",
        "statement": "checkout-api logged errors",
        "confidence": 0.5,
        "citations": [{"tool_call_id": "call_1", "item_ref": "tpl:1"}],
        "scope": None,
    }
    return chat_reply(draft_json(ANALYSIS, [conclusion]))


def run(stub: StubServer, question: str, **settings: Any) -> tuple[DiagnosisRun, ReleasedResult]:
    values: dict[str, Any] = {
        "model_base_url": stub.base_url,
        "model_name": "stub-model",
        "audit_enabled": False,
        **settings,
    }
    deps = build_run_deps(Settings(**values), plane=PLANE)
    diagnosis = DiagnosisRun(
        RunRequest(question=question, as_of=WINDOW_END, analysis_id=ANALYSIS), deps
    )
    return diagnosis, asyncio.run(diagnosis.execute())


PLANE = build_tool_plane(Settings(audit_enabled=False))


def details(diagnosis: DiagnosisRun, kind: type) -> list[Any]:
    return [e.details for e in diagnosis.trace.events if isinstance(e.details, kind)]


def test_tools_go_out_with_tool_choice_auto_and_prose_gets_the_drafts_own_turn() -> None:
    with stub_server(
        [
            route("DIAGNOSIS"),
            tool_call("query_logs", LOGS),
            chat_reply("The checkout service seems to have a database problem."),
            draft,
            *[draft] * 6,  # repair and judge: whatever they ask, the same draft comes back
        ]
    ) as stub:
        diagnosis, result = run(stub, INCIDENT_QUESTION, model_profile="openai")
    router, agent, prose_turn, draft_turn = stub.requests[:4]
    # Deterministic sampling and the cap under the field OpenAI reads, on every call.
    assert {(r["temperature"], r["seed"]) for r in stub.requests} == {(0.0, 0)}
    assert (router["max_completion_tokens"], agent["max_completion_tokens"]) == (64, 2048)
    assert "tools" not in router and "tool_choice" not in router
    assert router["response_format"]["json_schema"]["name"] == "router_reply"
    assert agent["tool_choice"] == "auto"
    assert {t["function"]["name"] for t in agent["tools"]} == {
        "query_logs",
        "query_mysql",
        "search_knowledge",
    }
    assert agent["messages"] == prose_turn["messages"][: len(agent["messages"])]
    # The corrective turn: no tools, the draft's schema, the instruction last.
    assert "tools" not in draft_turn and "tool_choice" not in draft_turn
    assert draft_turn["response_format"]["json_schema"]["name"] == "diagnosis_draft"
    assert draft_turn["messages"][-1]["role"] == "user"
    assert "not the final JSON object" in draft_turn["messages"][-1]["content"]
    assert details(diagnosis, CorrectiveTurn) == [
        CorrectiveTurn(reason=FailureReason.PROSE_REPLY, asks_for="DRAFT")
    ]
    assert diagnosis.budget.ledger.executions == 1
    assert details(diagnosis, EvidenceCheck), "the draft reached EvidenceGuard"
    assert result.kind in {"DiagnosisReport", "SafeFallback"}


def test_prose_twice_is_a_failure_naming_the_agent_and_the_reason() -> None:
    prose = chat_reply("I would look at the logs.")
    with stub_server([route("DIAGNOSIS"), prose, prose]) as stub:
        diagnosis, result = run(stub, INCIDENT_QUESTION, model_profile="vllm")
    # No tool had run: the corrective turn offers the tools again.
    assert details(diagnosis, CorrectiveTurn) == [
        CorrectiveTurn(reason=FailureReason.PROSE_REPLY, asks_for="TOOL_CALLS")
    ]
    assert stub.requests[2]["tool_choice"] == "auto"
    assert result == StableFailure(
        run_id=diagnosis.run_id,
        error_code=ErrorCode.INVALID_DRAFT,
        component=Component.DIAGNOSIS_AGENT,
        reason=FailureReason.PROSE_REPLY,
    )
    assert json.loads(result.model_dump_json())["schema_version"] == 3


def test_a_misrouted_incident_question_goes_to_diagnosis_not_to_an_answer() -> None:
    question = "Is payment-service healthy right now?"
    prose = chat_reply("Payment-service is not entirely healthy.")
    with stub_server([route("SYSTEM_CHAT"), prose, prose]) as stub:
        diagnosis, result = run(stub, question, model_profile="openai")
    # The router was told the world's catalog; the question names a service of it.
    router_system = stub.requests[0]["messages"][0]["content"]
    assert "services: api-gateway, checkout-api, inventory-service, payment-service" in (
        router_system
    )
    assert "ip-10-" not in router_system  # hosts are never told to a model
    assert details(diagnosis, Rerouted) == [
        Rerouted(
            from_intent="SYSTEM_CHAT",
            to="DIAGNOSIS",
            trigger="QUESTION_NAMES_CATALOG",
            catalog_items=1,
        )
    ]
    assert stub.requests[1]["tool_choice"] == "auto"  # the agent's turn, not a chat
    assert diagnosis.intent is Intent.DIAGNOSIS  # the path taken; the router's is traced
    assert not isinstance(result, Answer)
    assert result.run_status.value == "FAILED"


def test_a_chat_answer_that_makes_claims_about_the_world_is_not_released() -> None:
    claim = chat_reply("The reason is a bug in checkout-api; restart it.")
    prose = chat_reply("No idea.")
    with stub_server([route("SYSTEM_CHAT"), claim, prose, prose]) as stub:
        diagnosis, result = run(stub, "Hello there, anything new?", model_profile="openai")
    assert [(r.trigger, r.to) for r in details(diagnosis, Rerouted)] == [
        ("ANSWER_NAMES_CATALOG", "DIAGNOSIS")
    ]
    assert not isinstance(result, Answer)
    assert "checkout-api" not in result.model_dump_json()


def test_a_runaway_reply_stops_at_the_token_cap() -> None:
    first, second = Runaway(delay_s=0.001), Runaway(delay_s=0.001)
    with stub_server([first, second]) as stub:
        diagnosis, result = run(stub, INCIDENT_QUESTION, model_profile="openai")
    # The router's cap (64) bounded both attempts; the cut-off reply is named as such.
    assert [r["max_completion_tokens"] for r in stub.requests] == [64, 64]
    assert (first.produced, second.produced) == (64, 64)
    assert result == StableFailure(
        run_id=diagnosis.run_id,
        error_code=ErrorCode.MODEL_ERROR,
        component=Component.ROUTER,
        reason=FailureReason.TRUNCATED_REPLY,
    )
    usage = [u.usage for u in details(diagnosis, ModelTokenUsage)]
    assert [u.output_tokens if u else None for u in usage] == [64, 64]


def test_a_runaway_reply_is_stopped_on_the_server_at_the_timeout() -> None:
    runaway = Runaway(delay_s=0.01)  # 1,200 tokens would take 12 s
    with stub_server([route("DIAGNOSIS"), runaway]) as stub:
        started = time.monotonic()
        diagnosis, result = run(
            stub,
            INCIDENT_QUESTION,
            model_profile="vllm",
            component_models={"DIAGNOSIS_AGENT": {"timeout_s": 0.5}},
        )
        assert runaway.finished.wait(5)
        stopped_s = time.monotonic() - started
    assert stub.requests[1]["stream"] is True
    assert stub.requests[1]["stream_options"] == {"include_usage": True}
    # The client hung up and the server stopped generating, long before the token cap.
    assert runaway.disconnected and runaway.produced < 300
    assert stopped_s < 5
    assert result == StableFailure(
        run_id=diagnosis.run_id,
        error_code=ErrorCode.MODEL_TIMEOUT,
        component=Component.DIAGNOSIS_AGENT,
        reason=FailureReason.TIMEOUT,
    )


def test_a_streamed_reply_without_usage_records_usage_unavailable() -> None:
    with stub_server([route("SYSTEM_CHAT"), chat_reply("I diagnose incidents.")]) as stub:
        diagnosis, result = run(stub, "Hello! What can you do?", model_profile="llama-cpp-python")
    assert all(r["stream"] is True and "stream_options" not in r for r in stub.requests)
    assert all(r["response_format"]["type"] == "json_object" for r in stub.requests[:1])
    assert isinstance(result, Answer) and result.text == "I diagnose incidents."
    assert [u.usage for u in details(diagnosis, ModelTokenUsage)] == [None, None]
    finished = details(diagnosis, RunFinished)[0]
    assert (finished.unavailable_usage, finished.tokens_reconciled) == (2, False)


def good_endpoint() -> list[Any]:
    return [
        route("DIAGNOSIS"),
        tool_call("query_logs", LOGS),
        chat_reply(draft_json("an-probe")),
    ]


def test_the_probe_reports_what_works_and_what_does_not() -> None:
    settings = Settings(model_base_url="http://unused.invalid/v1", model_name="m")
    with stub_server(good_endpoint()) as stub:
        endpoint = Settings(model_base_url=stub.base_url, model_name="m").model_endpoint(
            Component.DIAGNOSIS_AGENT
        )
        report = asyncio.run(
            probe_endpoint(probe_client_factory(endpoint), structured_output="json_schema")
        )
    assert settings.model_profile == "openai"
    assert report.ok and report.working_mode == "json_schema"
    assert [(s.name, s.ok, s.detail) for s in report.steps] == [
        ("routing (json_schema)", True, "intent DIAGNOSIS"),
        ("tool call (tool_choice auto)", True, "query_logs called"),
        ("structured reply (draft schema, no tools)", True, "a valid draft"),
    ]
    assert stub.requests[1]["tool_choice"] == "auto"
    prose = chat_reply("Sure! Happy to help.")
    with stub_server([prose] * 6) as stub:
        endpoint = Settings(model_base_url=stub.base_url, model_name="m").model_endpoint(
            Component.DIAGNOSIS_AGENT
        )
        report = asyncio.run(
            probe_endpoint(probe_client_factory(endpoint), structured_output="json_object")
        )
    assert not report.ok and report.working_mode is None
    # Every JSON mode was tried for routing, the configured one first.
    assert [s.name for s in report.steps[:4]] == [
        "routing (json_object)",
        "routing (json_schema)",
        "routing (json_object_schema)",
        "routing (none)",
    ]
    assert {s.detail for s in report.steps} == {"PROSE_REPLY"}


def test_models_check_on_the_command_line(tmp_path: Path) -> None:
    with stub_server(good_endpoint()) as stub:
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")},
            "HOME": str(tmp_path),
            "HARNESS_DATA_DIR": str(tmp_path / "data"),
        }
        done = subprocess.run(
            [
                *(str(Path(sys.executable).parent / "harness"), "models", "check"),
                *("--base-url", stub.base_url, "--model", "m", "--profile", "vllm"),
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"endpoint: {stub.base_url}  model: m  profile: vllm"
    assert [line.split(":")[0].strip() for line in lines[1:4]] == [
        "ok     routing (json_schema)",
        "ok     tool call (tool_choice auto)",
        "ok     structured reply (draft schema, no tools)",
    ]
    assert lines[4:] == [
        "settings to use:",
        "  HARNESS_MODEL_PROFILE=vllm",
        "  HARNESS_MODEL_STRUCTURED_OUTPUT=json_schema",
    ]
