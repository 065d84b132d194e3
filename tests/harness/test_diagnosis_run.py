"""DiagnosisRun in process: paths by intent, retry policy, misbehaving models, budget edges."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from harness.contracts.errors import ErrorCode, ModelError
from harness.contracts.ingress import RunRequest
from harness.contracts.intent import Intent
from harness.contracts.models import Component, FailureReason, ModelRequest
from harness.contracts.results import Answer, DiagnosisReport, StableFailure, TimedOut
from harness.contracts.status import RunStatus
from harness.diagnosis import UNCITED_ANSWER, DiagnosisRun
from harness.run.budget import Budgets
from harness.testing.clock import FakeClock, until
from harness.testing.models import (
    FunctionModel,
    ScriptedModel,
    Slow,
    draft_json,
    text_reply,
    tool_reply,
)
from harness.testing.rig import fake_deps
from harness.trace import CorrectiveTurn, Rerouted

QUESTION = "Why does checkout-api return HTTP 500 since 14:05?"
KB = {"query": "connection pool", "top_k": 3}


def route(intent: str) -> Any:
    return text_reply(json.dumps({"intent": intent}))


SUPPORTED = text_reply(json.dumps({"verdict": "SUPPORTED", "issues": []}))


def run_with(model: Any, **kwargs: Any) -> tuple[DiagnosisRun, Any]:
    deadline_s = kwargs.pop("deadline_s", 30.0)
    run = DiagnosisRun(
        RunRequest(question=QUESTION, analysis_id="an-1"),
        fake_deps(model, deadline_s=deadline_s, **kwargs),
        run_id="run-test",
    )
    result = asyncio.run(run.execute())
    return run, result


def cite(call_id: str, ref: str = "doc:a#0") -> dict[str, Any]:
    return {
        "id": "c1",
        "kind": "OBSERVATION",
        "statement": "pool exhausted",
        "confidence": 0.8,
        "citations": [{"tool_call_id": call_id, "item_ref": ref}],
    }


def tool_messages(request: ModelRequest) -> list[dict[str, Any]]:
    return [json.loads(m.content) for m in request.messages if m.role == "tool"]


# ---------------------------------------------------------------- paths


def test_diagnosis_path_releases_a_report() -> None:
    draft = text_reply(draft_json("an-1", [cite("call_kb")]))
    model = ScriptedModel(
        [route("DIAGNOSIS"), tool_reply(("search_knowledge", KB, "call_kb")), draft, SUPPORTED]
    )
    run, result = run_with(model)
    model.assert_complete()
    assert isinstance(result, DiagnosisReport) and result.run_id == "run-test"
    assert run.run.status is RunStatus.COMPLETED
    agent_last = model.requests[2]
    assert [m["evidence_status"] for m in tool_messages(agent_last)] == ["EVIDENCE_FOUND"]
    assert "RAW-ONLY-MARKER" not in json.dumps(
        [m.model_dump() for r in model.requests for m in r.messages]
    )
    components = [r.component for r in model.requests]
    assert components == [
        Component.ROUTER,
        Component.DIAGNOSIS_AGENT,
        Component.DIAGNOSIS_AGENT,
        Component.SEMANTIC_GUARD,
    ]
    names = {t.name for t in model.requests[1].tools}
    assert names == {"query_logs", "query_mysql", "search_knowledge"}
    assert model.requests[3].tools == []


def test_knowledge_path_may_search_then_answers() -> None:
    model = ScriptedModel(
        [
            route("KNOWLEDGE_QA"),
            tool_reply(("search_knowledge", KB, "k1")),
            text_reply("Raise the pool size."),
        ]
    )
    _run, result = run_with(model)
    assert result == Answer(
        run_id="run-test", intent="KNOWLEDGE_QA", text="Raise the pool size.", citations=["doc:a#0"]
    )
    assert model.requests[1].tools[0].name == "search_knowledge"
    assert len(model.requests[1].tools) == 1


def test_system_chat_has_no_tools_and_out_of_scope_no_model_call() -> None:
    chat = ScriptedModel([route("SYSTEM_CHAT"), text_reply("Hello.")])
    _, result = run_with(chat)
    assert (result.intent, result.text, chat.requests[1].tools) == ("SYSTEM_CHAT", "Hello.", [])
    oos = ScriptedModel([route("out_of_scope")])
    _, result = run_with(oos)
    oos.assert_complete()
    assert result.intent == "OUT_OF_SCOPE"


# ---------------------------------------------------------------- retry policy


def test_router_retries_once_on_unusable_or_failed_reply() -> None:
    model = ScriptedModel([text_reply("no json"), route("SYSTEM_CHAT"), text_reply("hi")])
    _, result = run_with(model)
    assert isinstance(result, Answer)
    failing = ScriptedModel([ModelError(ErrorCode.MODEL_ERROR), ModelError(ErrorCode.MODEL_ERROR)])
    run, result = run_with(failing)
    failing.assert_complete()
    assert result == StableFailure(
        run_id="run-test",
        error_code=ErrorCode.MODEL_ERROR,
        component=Component.ROUTER,
        reason=FailureReason.ENDPOINT_ERROR,
    )
    assert run.run.status is RunStatus.FAILED


def test_diagnosis_agent_never_retries() -> None:
    model = ScriptedModel([route("DIAGNOSIS"), ModelError(ErrorCode.MODEL_TIMEOUT)])
    _, result = run_with(model)
    model.assert_complete()
    assert result == StableFailure(
        run_id="run-test",
        error_code=ErrorCode.MODEL_TIMEOUT,
        component=Component.DIAGNOSIS_AGENT,
        reason=FailureReason.TIMEOUT,
    )


def test_tool_calls_never_retry() -> None:
    from harness.testing.tools import FailingBackend

    model = ScriptedModel(
        [
            route("DIAGNOSIS"),
            tool_reply(("search_knowledge", KB, "k1")),
            text_reply(draft_json("an-1")),
        ]
    )
    backend = FailingBackend()
    calls: list[Any] = []

    class Counting:
        def fetch(self, request: Any, *, max_raw_bytes: int) -> Any:
            calls.append(request)
            return backend.fetch(request, max_raw_bytes=max_raw_bytes)

    _run, _ = run_with(
        model, backends={n: Counting() for n in ("query_logs", "query_mysql", "search_knowledge")}
    )
    assert len(calls) == 1
    assert tool_messages(model.requests[-1]) == [
        {"tool_call_id": "k1", "error_code": "BACKEND_ERROR"}
    ]


# ---------------------------------------------------------------- misbehaving models


def test_hallucinated_and_reused_tool_call_ids_get_codes() -> None:
    model = ScriptedModel(
        [
            route("DIAGNOSIS"),
            tool_reply(
                ("search_knowledge", KB, "../../etc"), ("search_knowledge", {"query": "b"}, "ok_1")
            ),
            tool_reply(("search_knowledge", {"query": "c"}, "ok_1")),
            text_reply(draft_json("an-1", [cite("ok_1")])),
            SUPPORTED,
        ]
    )
    _run, result = run_with(model)
    assert [m.get("error_code") for m in tool_messages(model.requests[2])] == [
        "INVALID_TOOL_CALL_ID",
        None,
    ]
    assert tool_messages(model.requests[3])[-1] == {
        "tool_call_id": "ok_1",
        "error_code": "DUPLICATE_TOOL_CALL_ID",
    }
    assert isinstance(result, DiagnosisReport)


def test_foreign_run_id_inside_arguments_is_refused() -> None:
    model = ScriptedModel(
        [
            route("DIAGNOSIS"),
            tool_reply(("search_knowledge", {**KB, "run_id": "run-other"}, "x1")),
            text_reply(draft_json("an-1")),
        ]
    )
    run_with(model)
    assert tool_messages(model.requests[2]) == [
        {"tool_call_id": "x1", "error_code": "INVALID_ARGUMENTS"}
    ]


def test_repeated_identical_calls_are_duplicate_then_saturated() -> None:
    steps: list[Any] = [route("DIAGNOSIS"), tool_reply(("search_knowledge", KB, "first"))]
    steps += [tool_reply(("search_knowledge", KB)) for _ in range(3)]
    steps += [text_reply(draft_json("an-1", [cite("first")])), SUPPORTED]
    model = ScriptedModel(steps)
    run, result = run_with(model)
    codes = [tool_messages(r)[-1].get("error_code") for r in model.requests[2:6]]
    assert codes == [None, "DUPLICATE_SCOPE", "DUPLICATE_SCOPE", "INFORMATION_SATURATED"]
    assert any(
        m.content and "STOP_REQUIRED" in m.content
        for m in model.requests[4].messages
        if m.role == "user"
    )
    ledger = run.budget.ledger
    assert (ledger.tool_calls, ledger.executions, ledger.rejections) == (4, 1, 3)
    assert isinstance(result, DiagnosisReport)


def test_endless_tool_loop_ends_at_the_model_call_budget() -> None:
    n = 0

    def loop(request: ModelRequest) -> Any:
        nonlocal n
        n += 1
        if request.component is Component.ROUTER:
            return route("DIAGNOSIS")
        return tool_reply(("search_knowledge", {"query": f"q{n}"}))

    model = FunctionModel(loop)
    run, result = run_with(
        model, budgets=Budgets(max_model_calls=6, max_tool_calls=3, max_tool_calls_per_tool={})
    )
    assert result == StableFailure(
        run_id="run-test",
        error_code=ErrorCode.MODEL_BUDGET_EXHAUSTED,
        component=Component.DIAGNOSIS_AGENT,
        reason=FailureReason.BUDGET_EXHAUSTED,
    )
    assert len(model.requests) == 6  # N allowed; the N+1st was refused before reaching the model
    assert run.budget.ledger.tool_calls == 3 and run.budget.ledger.executions <= 3
    assert run.budget.ledger.rejections_by_code["TOOL_BUDGET_EXHAUSTED"] >= 1


def test_oversized_reply_is_a_stable_failure() -> None:
    model = ScriptedModel([route("DIAGNOSIS"), text_reply("x" * 70_000)])
    _, result = run_with(model)
    assert result == StableFailure(
        run_id="run-test",
        error_code=ErrorCode.MODEL_ERROR,
        component=Component.DIAGNOSIS_AGENT,
        reason=FailureReason.OVERSIZED_REPLY,
    )


def test_malformed_tool_arguments_and_malformed_draft() -> None:
    model = ScriptedModel(
        [
            route("DIAGNOSIS"),
            tool_reply(("query_logs", "{not json", "m1")),
            text_reply("{'analysis_id': broken"),
            text_reply("still no draft"),
        ]
    )
    run, result = run_with(model)
    assert tool_messages(model.requests[2]) == [
        {"tool_call_id": "m1", "error_code": "INVALID_ARGUMENTS"}
    ]
    # One corrective turn (the tools again: none ran), then the failure names its cause.
    assert [e.details for e in run.trace.events if isinstance(e.details, CorrectiveTurn)] == [
        CorrectiveTurn(reason=FailureReason.PROSE_REPLY, asks_for="TOOL_CALLS")
    ]
    assert result == StableFailure(
        run_id="run-test",
        error_code=ErrorCode.INVALID_DRAFT,
        component=Component.DIAGNOSIS_AGENT,
        reason=FailureReason.PROSE_REPLY,
    )


def test_draft_with_unknown_fields_is_invalid() -> None:
    bad = text_reply(draft_json("an-1", budget_override=1000))
    model = ScriptedModel([route("DIAGNOSIS"), bad, bad])
    assert run_with(model)[1] == StableFailure(
        run_id="run-test",
        error_code=ErrorCode.INVALID_DRAFT,
        component=Component.DIAGNOSIS_AGENT,
        reason=FailureReason.SCHEMA_MISMATCH,
    )


def test_slow_reply_past_the_deadline_times_out() -> None:
    clock = FakeClock()
    model = ScriptedModel(
        [route("DIAGNOSIS"), Slow(5.0, text_reply(draft_json("an-1")))], clock=clock
    )
    run = DiagnosisRun(
        RunRequest(question=QUESTION, analysis_id="an-1"),
        fake_deps(model, deadline_s=0.3, clock=clock),
        run_id="run-test",
    )

    async def main() -> Any:
        pending = asyncio.create_task(run.execute())
        await until(lambda: len(model.requests) == 2)  # the agent's reply is on its way
        clock.advance(0.29)
        await asyncio.sleep(0)
        assert not pending.done() and run.run.status is RunStatus.RUNNING
        clock.advance(0.02)  # the deadline passes long before the reply would arrive
        return await pending

    result = asyncio.run(main())
    assert result == TimedOut(run_id="run-test")
    assert run.run.status is RunStatus.TIMED_OUT
    assert clock.monotonic() == pytest.approx(0.31)  # no wall-clock wait decided this


def test_missing_usage_is_recorded_unavailable_never_estimated() -> None:
    model = ScriptedModel(
        [text_reply(json.dumps({"intent": "SYSTEM_CHAT"}), with_usage=False), text_reply("hi")]
    )
    run, _ = run_with(model)
    ledger = run.budget.ledger
    assert (ledger.usage_unavailable, ledger.input_tokens, ledger.total_tokens) == (1, 100, 120)
    assert run.budget.tokens_reconciled() is False
    full = ScriptedModel([route("SYSTEM_CHAT"), text_reply("hi")])
    run, _ = run_with(full)
    assert run.budget.tokens_reconciled() is True and run.budget.ledger.total_tokens == 240


def test_output_cap_comes_from_the_remaining_budget() -> None:
    model = ScriptedModel([route("SYSTEM_CHAT"), text_reply("hi")])
    run_with(model, budgets=Budgets(max_output_tokens=50, max_output_tokens_per_call=4096))
    assert [r.max_tokens for r in model.requests] == [50, 30]


def test_token_budget_edge() -> None:
    # Each reply uses 20 output tokens; 40 allow exactly two calls.
    model = ScriptedModel([route("DIAGNOSIS"), tool_reply(("search_knowledge", KB))])
    _run, result = run_with(model, budgets=Budgets(max_output_tokens=40))
    model.assert_complete()
    assert result == StableFailure(
        run_id="run-test",
        error_code=ErrorCode.TOKEN_BUDGET_EXHAUSTED,
        component=Component.DIAGNOSIS_AGENT,
        reason=FailureReason.BUDGET_EXHAUSTED,
    )


def test_provider_error_in_a_tool_turn_is_a_stable_failure() -> None:
    model = ScriptedModel([route("DIAGNOSIS"), RuntimeError("socket reset with secret=abc")])
    _, result = run_with(model)
    assert result == StableFailure(
        run_id="run-test",
        error_code=ErrorCode.MODEL_ERROR,
        component=Component.DIAGNOSIS_AGENT,
        reason=FailureReason.ENDPOINT_ERROR,
    )
    assert "secret" not in result.model_dump_json()


@pytest.mark.parametrize("threshold", [1, 3])
def test_no_gain_threshold_is_a_policy_setting(threshold: int) -> None:
    from harness.run.boundary import ToolPolicy

    steps: list[Any] = [route("DIAGNOSIS")] + [
        tool_reply(("search_knowledge", {"query": f"q{i}"})) for i in range(threshold + 2)
    ]
    steps.append(text_reply(draft_json("an-1")))
    model = ScriptedModel(steps)
    policy = ToolPolicy(no_gain_threshold=threshold, execute_timeout_s=2.0)
    _run, _ = run_with(model, policy=policy, budgets=Budgets(max_tool_calls_per_tool={}))
    codes = [tool_messages(r)[-1].get("error_code") for r in model.requests[2 : 4 + threshold]]
    # First call gains (doc a); then `threshold` NO_GAIN rounds, then saturation.
    assert codes == [None] * (threshold + 1) + ["INFORMATION_SATURATED"]


def test_after_stop_required_the_agent_is_asked_for_the_draft_without_tools() -> None:
    from harness.agent.loop import DRAFT_OUTPUT
    from harness.agent.prompts import CONTROL_STOP
    from harness.contracts.envelope import ToolPolicy

    steps: list[Any] = [route("DIAGNOSIS")] + [
        tool_reply(("search_knowledge", {"query": f"q{i}"})) for i in range(3)
    ]
    steps.append(text_reply(draft_json("an-1")))
    model = ScriptedModel(steps)
    policy = ToolPolicy(no_gain_threshold=1, execute_timeout_s=2.0)
    run_with(model, policy=policy, budgets=Budgets(max_tool_calls_per_tool={}))
    agent_turns = [r for r in model.requests if r.component is Component.DIAGNOSIS_AGENT]
    stopped = [r for r in agent_turns if any(m.content == CONTROL_STOP for m in r.messages)]
    assert stopped, "the harness required a stop"
    assert all(r.tools == [] and r.output_schema == DRAFT_OUTPUT and r.json_mode for r in stopped)
    assert all(r.tools and r.output_schema is None for r in agent_turns if r not in stopped)


def test_a_knowledge_answer_citing_no_runbook_is_replaced_by_one_that_says_why() -> None:
    model = ScriptedModel([route("KNOWLEDGE_QA"), text_reply("Just restart everything.")])
    run, result = run_with(model)
    assert isinstance(result, Answer)
    assert (result.intent, result.text, result.citations) == (
        Intent.KNOWLEDGE_QA,
        UNCITED_ANSWER,
        [],
    )
    assert [e.details for e in run.trace.events if isinstance(e.details, Rerouted)] == [
        Rerouted(
            from_intent=Intent.KNOWLEDGE_QA,
            to="FALLBACK",
            trigger="ANSWER_UNCITED",
            catalog_items=0,
        )
    ]
