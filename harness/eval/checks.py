"""Checking a finished case run against its expectations, deterministically.

Facts are matched on the released text only — the strings of the released result, lowered and
whitespace-collapsed — so a fact counts when the harness *released* it, not when the model
thought it; conclusion-scoped facts only in the statements of conclusions of their kind.
``absent`` entries are searched in the whole released JSON. A failed check says what was
released instead: the closest released text, or where a forbidden text stands (masked when it
may be a secret, :func:`harness.eval.released.shown`). The run's figures come
from its trace (tool invocations, refusals, guard verdicts, the final ledger), never from the
model's say-so.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from harness.contracts.intent import Intent
from harness.contracts.results import (
    Answer,
    DiagnosisReport,
    ReleasedResult,
    SafeFallback,
    StableFailure,
)
from harness.eval.case import ConclusionExpectation, Expectations, LoadedCase
from harness.eval.released import (
    closest,
    found_at,
    labelled_texts,
    released_summary,
    root_causes,
    shown,
)
from harness.eval.result import (
    CaseOutcome,
    CaseRunError,
    CaseRunResult,
    ExpectationCheck,
    TokenUsage,
)
from harness.redaction import redact
from harness.trace import (
    EvidenceCheck,
    Routed,
    RunFinished,
    SemanticCheck,
    ToolInvocation,
    ToolRequestRejected,
    TraceEvent,
)

__all__ = ["RunFacts", "error_result", "evaluate", "released_text", "run_facts"]

_SPACE = re.compile(r"\s+")
_MAX_TEXT = 500
# Fields of a released result that are identifiers, not words the harness released.
_NOT_WORDS = frozenset(
    {"run_id", "analysis_id", "tool_call_id", "item_ref", "citations", "kind", "id"}
)


@dataclass(frozen=True, kw_only=True)
class RunFacts:
    """What a finished run did, read from its trace."""

    intent: Intent | None
    tools_executed: dict[str, int]
    rejections: dict[str, int]
    semantic_verdicts: list[str]
    evidence_issues: list[str]
    tokens: TokenUsage
    cost_usd: float | None


def run_facts(events: Sequence[TraceEvent]) -> RunFacts:
    executed: Counter[str] = Counter()
    rejected: Counter[str] = Counter()
    verdicts: list[str] = []
    issues: list[str] = []
    intent: Intent | None = None
    tokens = TokenUsage()
    cost: float | None = None
    for event in events:
        details = event.details
        if isinstance(details, ToolInvocation):
            executed[details.tool_name] += 1
        elif isinstance(details, ToolRequestRejected):
            rejected[details.error_code.value] += 1
        elif isinstance(details, SemanticCheck):
            verdicts.append(details.verdict.value)
        elif isinstance(details, EvidenceCheck):
            issues += [c.value for c in details.issue_codes if c.value not in issues]
        elif isinstance(details, Routed):
            intent = details.intent
        elif isinstance(details, RunFinished):
            ledger = details.ledger
            tokens = TokenUsage(
                input_tokens=ledger.input_tokens,
                output_tokens=ledger.output_tokens,
                total_tokens=ledger.total_tokens,
                model_calls=ledger.model_calls,
                usage_unavailable=ledger.usage_unavailable,
            )
            cost = ledger.cost_usd
    return RunFacts(
        intent=intent,
        tools_executed=dict(sorted(executed.items())),
        rejections=dict(sorted(rejected.items())),
        semantic_verdicts=verdicts,
        evidence_issues=issues,
        tokens=tokens,
        cost_usd=cost,
    )


def released_text(result: ReleasedResult) -> str:
    """The released words: every string but ids and citations, lowered, spaces collapsed."""
    return _normal(" \n ".join(_strings(result.model_dump(mode="json"))))


def evaluate(
    loaded: LoadedCase,
    result: ReleasedResult,
    events: Sequence[TraceEvent],
    *,
    repeat: int,
    model: str,
    latency_ms: float,
    extra_checks: Iterable[ExpectationCheck] = (),
) -> CaseRunResult:
    """The result row of one finished run of ``loaded`` (``extra_checks``: e.g. the grader)."""
    facts = run_facts(events)
    checks = [*_checks(loaded.case.expect, result, facts), *extra_checks]
    passed = all(c.passed for c in checks)
    return CaseRunResult(
        case_id=loaded.case_id,
        repeat=repeat,
        question=_question(loaded),
        run_id=result.run_id,
        tags=list(loaded.case.tags),
        model=model,
        outcome=CaseOutcome.PASSED if passed else CaseOutcome.FAILED,
        passed=passed,
        run_status=result.run_status,
        release_kind=result.kind,
        summary=released_summary(result),
        root_causes=root_causes(result),
        intent=result.intent if isinstance(result, Answer) else facts.intent,
        failure_stage=result.failure_stage if isinstance(result, SafeFallback) else None,
        error_code=result.error_code if isinstance(result, StableFailure) else None,
        semantic_verdicts=facts.semantic_verdicts,
        evidence_issues=facts.evidence_issues,
        validation_issues=list(result.validation_issues)
        if isinstance(result, SafeFallback)
        else [],
        tokens=facts.tokens,
        cost_usd=facts.cost_usd,
        tool_calls=facts.tools_executed,
        tool_rejections=facts.rejections,
        latency_ms=round(latency_ms, 3),
        checks=checks,
    )


def error_result(
    loaded: LoadedCase,
    error: CaseRunError,
    *,
    repeat: int,
    model: str,
    latency_ms: float,
    run_id: str | None = None,
) -> CaseRunResult:
    """The row of a case run that has no verdict (timeout, unbuildable world, runner error)."""
    return CaseRunResult(
        case_id=loaded.case_id,
        repeat=repeat,
        question=_question(loaded),
        run_id=run_id,
        tags=list(loaded.case.tags),
        model=model,
        outcome=CaseOutcome.ERROR,
        passed=False,
        error=error,
        run_status=None,
        release_kind=None,
        latency_ms=round(latency_ms, 3),
    )


def _checks(
    expect: Expectations, result: ReleasedResult, facts: RunFacts
) -> list[ExpectationCheck]:
    checks = [
        _check("release", result.kind in expect.release, "|".join(expect.release), result.kind)
    ]
    if expect.failure_stage is not None:
        stage = result.failure_stage if isinstance(result, SafeFallback) else None
        checks.append(
            _check("failure_stage", stage == expect.failure_stage, expect.failure_stage, stage)
        )
    if expect.error_code is not None:
        code = result.error_code if isinstance(result, StableFailure) else None
        checks.append(
            _check(
                "error_code",
                code == expect.error_code,
                expect.error_code.value,
                code.value if code else None,
            )
        )
    if expect.intent is not None:
        intent = result.intent if isinstance(result, Answer) else facts.intent
        checks.append(
            _check(
                "intent",
                intent == expect.intent,
                expect.intent.value,
                intent.value if intent else None,
            )
        )
    text = released_text(result)
    labelled = labelled_texts(result)
    for n, alternatives in enumerate(expect.facts, start=1):
        hit = next((a for a in alternatives if _normal(a) in text), None)
        actual = hit or f"not stated; closest released text: {closest(labelled, alternatives)}"
        checks.append(_check(f"fact:{n}", hit is not None, " | ".join(alternatives), actual))
    whole = result.model_dump_json()
    for n, forbidden in enumerate(expect.absent, start=1):
        # What is shown of the text and its context is masked when it may be a secret.
        found = forbidden in whole or _normal(forbidden) in text
        where = found_at(labelled, forbidden) if found else None
        actual = (where or "present in the released result") if found else "absent"
        checks.append(_check(f"absent:{n}", not found, f"absent: {shown(forbidden)}", actual))
    for scoped in expect.conclusions:
        checks += _conclusion_checks(scoped, result)
    for tool in expect.tools_called:
        count = facts.tools_executed.get(tool, 0)
        checks.append(_check(f"tool_called:{tool}", count > 0, ">= 1 call", f"{count} calls"))
    for tool in expect.tools_not_called:
        count = facts.tools_executed.get(tool, 0)
        checks.append(_check(f"tool_not_called:{tool}", count == 0, "0 calls", f"{count} calls"))
    if expect.max_tokens is not None:
        total = facts.tokens.total_tokens
        checks.append(
            _check("max_tokens", total <= expect.max_tokens, f"<= {expect.max_tokens}", str(total))
        )
    return checks


def _conclusion_checks(
    expect: ConclusionExpectation, result: ReleasedResult
) -> list[ExpectationCheck]:
    """The facts, absences and count of the released conclusions of one kind."""
    kind = expect.kind.value
    stated = (
        [(c.id, c.statement) for c in result.conclusions if c.kind is expect.kind]
        if isinstance(result, DiagnosisReport)
        else []
    )
    none = (
        f"no {kind} released"
        if isinstance(result, DiagnosisReport)
        else f"no DiagnosisReport released ({result.kind})"
    )
    checks = []
    for n, alternatives in enumerate(expect.facts, start=1):
        hit = next((a for a in alternatives for _, s in stated if _normal(a) in _normal(s)), None)
        labelled = [(f"{kind} {cid}", s) for cid, s in stated]
        actual = hit or (f"not stated; {closest(labelled, alternatives)}" if stated else none)
        checks.append(
            _check(
                f"{kind}:fact:{n}",
                hit is not None,
                f"{kind} states: {' | '.join(alternatives)}",
                actual,
            )
        )
    for n, forbidden in enumerate(expect.absent, start=1):
        where = found_at([(f"{kind} {cid}", s) for cid, s in stated], forbidden)
        checks.append(
            _check(
                f"{kind}:absent:{n}",
                where is None,
                f"no {kind} states: {shown(forbidden)}",
                where or "absent",
            )
        )
    if expect.count is not None:
        actual = f"{len(stated)}: " + " | ".join(s for _, s in stated) if stated else f"0 ({none})"
        checks.append(
            _check(f"{kind}:count", len(stated) == expect.count, str(expect.count), actual)
        )
    return checks


def _question(loaded: LoadedCase) -> str:
    question = redact(" ".join(loaded.case.question.split()))
    return question if len(question) <= _MAX_TEXT else question[: _MAX_TEXT - 1] + "…"


def _check(name: str, passed: bool, expected: object, actual: object) -> ExpectationCheck:
    return ExpectationCheck(
        name=name,
        passed=passed,
        expected=str(expected)[:_MAX_TEXT],
        actual=str(actual)[:_MAX_TEXT],
    )


def _normal(text: str) -> str:
    return _SPACE.sub(" ", text).strip().lower()


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            if key not in _NOT_WORDS:
                yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
