"""Expectation checks: facts match released text only, absent text anywhere, tools by trace."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from harness.contracts.draft import Citation, Conclusion, ConclusionKind
from harness.contracts.errors import ErrorCode
from harness.contracts.intent import Intent
from harness.contracts.invocation import EvidenceStatus
from harness.contracts.ledger import BudgetUsage
from harness.contracts.results import Answer, DiagnosisReport, StableFailure
from harness.contracts.status import RunStatus
from harness.eval.case import Case, LoadedCase
from harness.eval.checks import evaluate
from harness.eval.result import CaseOutcome, CaseRunResult, ExpectationCheck
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
    # Where it was found, in context; the fact that is not stated, with what came closest.
    assert row.checks[2] == ExpectationCheck(
        name="absent:1",
        passed=False,
        expected="absent: CHG-4821",
        actual="summary: '…Root cause: Config change CHG-4821 lowered the pool size.…'",
    )
    assert row.checks[1].actual == (
        "not stated; closest released text: summary: 'Root cause: Config change CHG-4821 "
        "lowered the pool size.'"
    )


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


SECRET_REPORT = REPORT.model_copy(
    update={"summary": "Root cause: the token ghp_R3p0rtW0rk3rT0k3nAbCdEf1234567890xy leaked."}
)


def test_an_absent_text_that_may_be_a_secret_is_never_repeated() -> None:
    token = "ghp_R3p0rtW0rk3rT0k3nAbCdEf1234567890xy"
    card = "4111111111111111"
    row = evaluate(
        _loaded({"release": "DiagnosisReport", "absent": [token, card]}),
        SECRET_REPORT,
        TRACE,
        repeat=0,
        model="m",
        latency_ms=1.0,
    )
    found, clean = row.checks[1], row.checks[2]
    assert (found.passed, clean.passed) == (False, True)
    assert found.expected == "absent: ghp…[39 characters]"
    assert found.actual == "summary: '…Root cause: the token ghp…[39 characters] leaked.…'"
    assert token not in row.model_dump_json() and card not in row.model_dump_json()


def test_conclusion_scoped_facts_look_only_at_conclusions_of_their_kind() -> None:
    expect = {
        "release": "DiagnosisReport",
        "conclusions": [
            {"kind": "ROOT_CAUSE", "facts": [["maximum-pool-size"], ["CHG-4821"]],
             "absent": ["40 to 4"], "count": 1},
            {"kind": "CONTRIBUTING_FACTOR", "count": 0},
        ],
    }  # fmt: skip
    row = evaluate(_loaded(expect), REPORT, TRACE, repeat=0, model="m", latency_ms=1.0)
    assert [(c.name, c.passed, c.actual) for c in row.checks[1:]] == [
        ("ROOT_CAUSE:fact:1", True, "maximum-pool-size"),
        # In the summary, but no ROOT_CAUSE states it: a loose fact would have passed.
        ("ROOT_CAUSE:fact:2", False,
         "not stated; ROOT_CAUSE c1: 'maximum-pool-size changed from 40 to 4'"),
        ("ROOT_CAUSE:absent:1", False,
         "ROOT_CAUSE c1: '…maximum-pool-size changed from 40 to 4…'"),
        ("ROOT_CAUSE:count", True, "1: maximum-pool-size changed from 40 to 4"),
        ("CONTRIBUTING_FACTOR:count", True, "0 (no CONTRIBUTING_FACTOR released)"),
    ]  # fmt: skip
    assert row.checks[2].expected == "ROOT_CAUSE states: CHG-4821"
    fallback = StableFailure(run_id="run-1", error_code=ErrorCode.MODEL_ERROR)
    row = evaluate(
        _loaded({"release": "DiagnosisReport", "conclusions": [{"kind": "ROOT_CAUSE", "facts": ["x"]}]}),
        fallback, [], repeat=0, model="m", latency_ms=1.0,
    )  # fmt: skip
    assert row.checks[-1].actual == "no DiagnosisReport released (StableFailure)"


def test_a_row_carries_the_question_and_what_was_released() -> None:
    row = evaluate(
        _loaded({"release": "DiagnosisReport"}), REPORT, TRACE, repeat=0, model="m", latency_ms=1.0
    )
    assert (row.question, row.summary, row.root_causes) == (
        "Why 500?",
        "Root cause: Config change CHG-4821 lowered the pool size.",
        ["maximum-pool-size changed from 40 to 4"],
    )
    assert row.schema_version == 2
    answer = Answer(run_id="run-1", intent=Intent.KNOWLEDGE_QA, text="From the runbooks: …")
    row = evaluate(_loaded({"release": "Answer"}), answer, [], repeat=0, model="m", latency_ms=1.0)
    assert (row.summary, row.root_causes) == ("From the runbooks: …", [])


def test_a_version_one_row_still_parses() -> None:
    v1 = {
        "schema_version": 1, "case_id": "c", "repeat": 0, "run_id": "run-1", "tags": [],
        "model": "m", "outcome": "PASSED", "passed": True, "error": None,
        "run_status": "COMPLETED", "release_kind": "Answer", "intent": "SYSTEM_CHAT",
        "failure_stage": None, "error_code": None, "semantic_verdicts": [],
        "evidence_issues": [], "validation_issues": [], "tokens": {}, "cost_usd": None,
        "tool_calls": {}, "tool_rejections": {}, "latency_ms": 1.0, "checks": [],
    }  # fmt: skip
    row = CaseRunResult.model_validate(v1)
    assert (row.schema_version, row.question, row.summary, row.root_causes) == (1, "", None, [])
