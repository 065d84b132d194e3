"""Expectation checks: facts match released text only, absent text anywhere, tools by trace."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from harness.budget import BudgetUsage
from harness.context import RunStatus
from harness.draft import Citation, Conclusion, ConclusionKind
from harness.errors import ErrorCode
from harness.eval.case import Case, LoadedCase
from harness.eval.checks import evaluate
from harness.eval.result import CaseOutcome, ExpectationCheck
from harness.intent import Intent
from harness.invocation import EvidenceStatus
from harness.results import Answer, DiagnosisReport, StableFailure
from harness.trace import (
    Routed,
    RunFinished,
    SemanticCheck,
    ToolInvocation,
    ToolRequestRejected,
    TraceEvent,
)
from harness.trace.events import SemanticVerdict

AT = datetime(2026, 1, 1, tzinfo=UTC)


def _loaded(expect: dict[str, object], **extra: object) -> LoadedCase:
    case = Case.model_validate({"question": "Why 500?", "expect": expect, **extra})
    return LoadedCase(case_id="c", case=case, base_dir=Path("."), order=0)


def _events(*details: object) -> list[TraceEvent]:
    return [
        TraceEvent(
            run_id="run-1",
            sequence_no=n,
            category=d.default_category,  # type: ignore[attr-defined]
            event_type=d.kind,  # type: ignore[attr-defined]
            at=AT,
            details=d,  # type: ignore[arg-type]
        )
        for n, d in enumerate(details, start=1)
    ]


def _ledger(total: int) -> BudgetUsage:
    fields = dict.fromkeys(BudgetUsage.model_fields, 0)
    fields.update(
        tool_calls_by_tool={},
        rejections_by_code={},
        input_tokens=total - 10,
        output_tokens=10,
        total_tokens=total,
        model_calls=3,
        cost_usd=0.0,
    )
    return BudgetUsage.model_validate(fields)


REPORT = DiagnosisReport(
    run_id="run-1",
    analysis_id="an-1",
    summary="Root cause: Config change CHG-4821 lowered the   pool size.",
    conclusions=[
        Conclusion(
            id="c1",
            kind=ConclusionKind.ROOT_CAUSE,
            statement="maximum-pool-size changed from 40 to 4",
            confidence=0.9,
            citations=[Citation(tool_call_id="call_1", item_ref="row:0")],
        )
    ],
    next_steps=[],
    limitations=[],
)

TRACE = _events(
    Routed(intent=Intent.DIAGNOSIS),
    ToolInvocation(
        tool_call_id="call_1",
        tool_name="query_mysql",
        outcome="OBSERVATION",
        evidence_status=EvidenceStatus.EVIDENCE_FOUND,
        latency_ms=3.0,
    ),
    ToolRequestRejected(
        tool_call_id="call_2", tool_name="query_mysql", error_code=ErrorCode.DUPLICATE_SCOPE
    ),
    SemanticCheck(verdict=SemanticVerdict.SUPPORTED, issue_count=0),
    RunFinished(
        status=RunStatus.COMPLETED,
        result_kind="DiagnosisReport",
        ledger=_ledger(1000),
        model_calls=[],
        unavailable_usage=0,
        tokens_reconciled=True,
        dropped_late=0,
        dropped_finishes=0,
    ),
)


def test_a_report_that_states_the_facts_passes() -> None:
    loaded = _loaded(
        {
            "release": "DiagnosisReport",
            "facts": [["chg-4821"], ["pool size"], ["nope", "40 TO 4"]],
            "absent": ["secret-xyz"],
            "tools_called": ["query_mysql"],
            "tools_not_called": ["query_logs"],
            "max_tokens": 1000,
        },
        tags=["demo"],
    )
    row = evaluate(loaded, REPORT, TRACE, repeat=0, model="m", latency_ms=12.3456)
    assert row.outcome is CaseOutcome.PASSED and row.passed
    assert [c.name for c in row.checks] == [
        "release", "fact:1", "fact:2", "fact:3", "absent:1",
        "tool_called:query_mysql", "tool_not_called:query_logs", "max_tokens",
    ]  # fmt: skip
    assert row.checks[3] == ExpectationCheck(
        name="fact:3", passed=True, expected="nope | 40 TO 4", actual="40 TO 4"
    )
    assert (row.tool_calls, row.tool_rejections) == ({"query_mysql": 1}, {"DUPLICATE_SCOPE": 1})
    assert (row.semantic_verdicts, row.intent, row.tokens.total_tokens) == (
        ["SUPPORTED"],
        Intent.DIAGNOSIS,
        1000,
    )
    assert (row.tags, row.latency_ms, row.run_status) == (["demo"], 12.346, RunStatus.COMPLETED)


def test_each_unmet_expectation_fails_on_its_own() -> None:
    loaded = _loaded(
        {
            "release": ["SafeFallback"],
            "facts": [["hikari"]],
            "absent": ["CHG-4821"],
            "tools_called": ["query_logs"],
            "tools_not_called": ["query_mysql"],
            "max_tokens": 999,
        }
    )
    row = evaluate(loaded, REPORT, TRACE, repeat=1, model="m", latency_ms=1.0)
    assert row.outcome is CaseOutcome.FAILED and not row.passed
    assert [(c.name, c.passed) for c in row.checks] == [
        ("release", False),
        ("fact:1", False),
        ("absent:1", False),
        ("tool_called:query_logs", False),
        ("tool_not_called:query_mysql", False),
        ("max_tokens", False),
    ]
    # What was found is never repeated: an absent entry may be a secret.
    assert row.checks[2].actual == "present"


def test_ids_do_not_count_as_released_facts() -> None:
    loaded = _loaded({"release": "DiagnosisReport", "facts": [["call_1"], ["run-1"]]})
    row = evaluate(loaded, REPORT, TRACE, repeat=0, model="m", latency_ms=1.0)
    assert [c.passed for c in row.checks] == [True, False, False]


def test_failure_code_and_intent_expectations() -> None:
    failure = StableFailure(run_id="run-1", error_code=ErrorCode.MODEL_ERROR)
    row = evaluate(
        _loaded({"release": "StableFailure", "error_code": "MODEL_BUDGET_EXHAUSTED"}),
        failure,
        [],
        repeat=0,
        model="m",
        latency_ms=1.0,
    )
    assert [(c.name, c.passed, c.actual) for c in row.checks] == [
        ("release", True, "StableFailure"),
        ("error_code", False, "MODEL_ERROR"),
    ]
    assert row.error_code is ErrorCode.MODEL_ERROR
    answer = Answer(run_id="run-1", intent=Intent.OUT_OF_SCOPE, text="pointer")
    row = evaluate(
        _loaded({"release": "Answer", "intent": "KNOWLEDGE_QA"}),
        answer,
        [],
        repeat=0,
        model="m",
        latency_ms=1.0,
    )
    assert [(c.name, c.passed) for c in row.checks] == [("release", True), ("intent", False)]
