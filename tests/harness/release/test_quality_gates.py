"""Evidence repair, SemanticGuard isolation/retry/degrade, and the release paths they pick."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from harness.contracts.draft import DiagnosisDraft
from harness.contracts.errors import ErrorCode, ModelError
from harness.contracts.ingress import RunRequest
from harness.contracts.models import Component
from harness.contracts.results import DiagnosisReport, SafeFallback
from harness.diagnosis import DiagnosisRun
from harness.testing.models import ScriptedModel, draft_json, text_reply, tool_reply
from harness.testing.rig import fake_deps
from harness.trace import RunFinished

KB = {"query": "connection pool", "top_k": 3}
SUPPORTED = text_reply(json.dumps({"verdict": "SUPPORTED", "issues": []}))
UNSUPPORTED = text_reply(
    json.dumps(
        {"verdict": "UNSUPPORTED", "issues": [{"conclusion_id": "c1", "reason": "MCPPWND secret"}]}
    )
)


def conclusion(
    call_id: str, ref: str = "doc:a#0", kind: str = "OBSERVATION", statement: str = "pool exhausted"
) -> dict[str, Any]:
    return {
        "id": "c1",
        "kind": kind,
        "statement": statement,
        "confidence": 0.7,
        "citations": [{"tool_call_id": call_id, "item_ref": ref}],
    }


def run_script(*steps: Any) -> tuple[DiagnosisRun, Any, ScriptedModel]:
    model = ScriptedModel(
        [
            text_reply(json.dumps({"intent": "DIAGNOSIS"})),
            tool_reply(("search_knowledge", KB, "k1")),
            *steps,
        ]
    )
    run = DiagnosisRun(
        RunRequest(question="Why 500 since 14:05?", analysis_id="an-1"),
        fake_deps(model),
        run_id="run-q",
    )
    result = asyncio.run(run.execute())
    model.assert_complete()
    return run, result, model


def trace_names(run: DiagnosisRun) -> list[tuple[str, dict[str, Any]]]:
    return [
        (e.event_type, e.details.model_dump(mode="json", exclude={"kind"}))
        for e in run.trace.events
        if e.category.value in ("EVIDENCE", "SEMANTIC", "RELEASE")
    ]


# ---------------------------------------------------------------- repair


def test_draft_fixed_in_the_repair_round_is_released() -> None:
    broken = text_reply(draft_json("an-1", [conclusion("call_forged")]))
    fixed = text_reply(draft_json("an-1", [conclusion("k1")]))
    run, result, model = run_script(broken, fixed, SUPPORTED)
    assert isinstance(result, DiagnosisReport)
    repair_request = model.requests[3]
    assert (repair_request.component, repair_request.tools) == (Component.EVIDENCE_REPAIR, [])
    assert "UNKNOWN_TOOL_CALL" in repair_request.messages[-1].content
    assert [n for n, _ in trace_names(run)] == [
        "EVIDENCE_CHECK",
        "EVIDENCE_REPAIR",
        "EVIDENCE_CHECK",
        "MODEL_TOKEN_USAGE",
        "SEMANTIC_CHECK",
        "RELEASE_DECISION",
    ]


def test_draft_that_stays_broken_falls_back() -> None:
    broken = text_reply(draft_json("an-1", [conclusion("call_forged", statement="forged claim")]))
    still = text_reply(
        draft_json("an-1", [conclusion("k1", ref="doc:zzz#9", statement="still forged")])
    )
    run, result, _ = run_script(broken, still)
    assert isinstance(result, SafeFallback) and result.failure_stage == "EVIDENCE"
    assert result.validation_issues == [
        "ITEM_REF_NOT_FOUND conclusion=c1 tool_call_id=k1 item_ref=doc:zzz#9",
        "MISSING_EVIDENCE conclusion=c1",
    ]
    assert (
        "still forged" not in result.model_dump_json()
        and "forged claim" not in result.model_dump_json()
    )
    checks = [d["outcome"] for n, d in trace_names(run) if n == "EVIDENCE_CHECK"]
    assert checks == ["ISSUES", "ISSUES"]


def test_unparseable_repair_falls_back_with_the_first_issues() -> None:
    broken = text_reply(draft_json("an-1", [conclusion("call_forged")]))
    run, result, _ = run_script(broken, text_reply("sorry, I cannot"))
    assert isinstance(result, SafeFallback) and result.failure_stage == "EVIDENCE"
    assert result.validation_issues[0].startswith("UNKNOWN_TOOL_CALL")
    assert ("EVIDENCE_REPAIR", {"outcome": "INVALID_DRAFT", "error_code": None}) in trace_names(run)


def test_repair_may_not_call_tools() -> None:
    broken = text_reply(draft_json("an-1", [conclusion("call_forged")]))
    sneaky = tool_reply(("search_knowledge", {"query": "more"}, "k2"))
    run, result, _ = run_script(broken, sneaky)
    assert isinstance(result, SafeFallback)
    assert run.budget.ledger.tool_calls == 1  # the repair round's tool call never ran


# ---------------------------------------------------------------- SemanticGuard


def test_semantic_guard_is_isolated() -> None:
    good = draft_json("an-1", [conclusion("k1")])
    _run, result, model = run_script(text_reply(good), SUPPORTED)
    judge = model.requests[-1]
    assert judge.component is Component.SEMANTIC_GUARD and judge.tools == [] and judge.json_mode
    assert [m.role for m in judge.messages] == ["system", "user"]
    payload = json.loads(judge.messages[1].content)
    assert set(payload) == {"query", "draft", "verified_evidence"}
    assert payload["query"] == "Why 500 since 14:05?"
    written = DiagnosisDraft.model_validate_json(good).model_dump(mode="json")
    # The judge reads what would be released: the agent's conclusions, the harness's summary.
    assert payload["draft"]["conclusions"] == written["conclusions"]
    assert payload["draft"]["summary"].startswith("No root cause is established")
    assert payload["draft"]["summary"] != written["summary"]
    assert set(payload["verified_evidence"]["records"]) == {"k1"}
    everything = judge.model_dump_json()
    assert "RAW-ONLY-MARKER" not in everything  # no raw payload
    assert "You are an SRE diagnosis agent" not in everything  # no agent memory
    assert isinstance(result, DiagnosisReport)


def test_semantic_unsupported_falls_back_without_model_text() -> None:
    _run, result, _ = run_script(text_reply(draft_json("an-1", [conclusion("k1")])), UNSUPPORTED)
    assert isinstance(result, SafeFallback) and result.failure_stage == "SEMANTIC"
    assert result.validation_issues == ["SEMANTIC_UNSUPPORTED conclusion=c1"]
    assert [f.item_ref for f in result.observed_facts] == ["doc:a#0"]
    assert "MCPPWND" not in result.model_dump_json()


def test_semantic_failure_is_retried_once_with_the_same_input() -> None:
    good = text_reply(draft_json("an-1", [conclusion("k1")]))
    _run, result, model = run_script(good, ModelError(ErrorCode.MODEL_TIMEOUT), SUPPORTED)
    first, second = model.requests[-2], model.requests[-1]
    assert first.component is second.component is Component.SEMANTIC_GUARD
    assert first.messages == second.messages
    assert isinstance(result, DiagnosisReport)


def test_semantic_second_failure_degrades_safely() -> None:
    good = text_reply(draft_json("an-1", [conclusion("k1")]))
    run, result, model = run_script(good, ModelError(ErrorCode.MODEL_ERROR), text_reply("not json"))
    assert isinstance(result, SafeFallback) and result.failure_stage == "SEMANTIC_UNAVAILABLE"
    assert sum(r.component is Component.SEMANTIC_GUARD for r in model.requests) == 2
    assert ("SEMANTIC_CHECK", {"verdict": "UNAVAILABLE", "issue_count": 0}) in trace_names(run)


def test_trace_details_hold_no_content() -> None:
    run, _, _ = run_script(
        text_reply(draft_json("an-1", [conclusion("k1", statement="SECRET-STATEMENT")])), SUPPORTED
    )
    dumped = json.dumps([e.model_dump(mode="json") for e in run.trace.events])
    for forbidden in ("SECRET-STATEMENT", "RAW-ONLY-MARKER", "You are", "connection pool"):
        assert forbidden not in dumped
    assert [e.sequence_no for e in run.trace.events] == list(range(1, len(run.trace.events) + 1))
    finished = run.trace.events[-1]
    assert isinstance(finished.details, RunFinished) and finished.details.tokens_reconciled
