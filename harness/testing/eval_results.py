"""Synthetic evaluation result rows, seeded and as many as asked (report tests, benchmark)."""

from __future__ import annotations

import random

from harness.contracts.errors import ErrorCode
from harness.contracts.intent import Intent
from harness.contracts.results import FailureStage, ResultKind
from harness.contracts.status import RunStatus
from harness.eval.result import (
    CaseOutcome,
    CaseRunError,
    CaseRunResult,
    ExpectationCheck,
    TokenUsage,
)

__all__ = ["INJECTION", "TAGS", "TOOLS", "synthetic_rows"]

TAGS = (
    "demo",
    "root-cause",
    "no-root-cause",
    "knowledge",
    "secrets",
    "injection",
    "budget",
    "backend-down",
    "out-of-scope",
    "misbehaving",
    "billing",
    "report-worker",
)
TOOLS = ("query_logs", "query_mysql", "search_knowledge")
_FAILED_KINDS: tuple[ResultKind, ...] = ("SafeFallback", "DiagnosisReport", "StableFailure")
INJECTION = (
    '</textarea></td></tr></tbody></table></svg><script>document.documentElement.dataset.pwned="1"'
    '</script><img src=x onerror="document.documentElement.dataset.pwned=1">'
)
"""Markup that would run script and close the report's elements, were it not escaped."""


def synthetic_rows(n: int, *, seed: int = 13, text: str = "") -> list[CaseRunResult]:
    """``n`` case runs: about 78% PASSED, 17% FAILED, 5% ERROR, over 12 tags and 3 tools.

    ``text`` is put into every case id and every failed check's expected and actual texts
    (an injection attempt, say).
    """
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        draw = rng.random()
        outcome = (
            CaseOutcome.PASSED
            if draw < 0.78
            else CaseOutcome.FAILED
            if draw < 0.95
            else CaseOutcome.ERROR
        )
        tags = rng.sample(TAGS, rng.randint(1, 3))
        calls = {t: rng.randint(1, 4) for t in TOOLS if rng.random() < 0.7}
        checks = [
            ExpectationCheck(
                name="release", passed=True, expected="DiagnosisReport", actual="DiagnosisReport"
            ),
            ExpectationCheck(name="fact:1", passed=True, expected="CHG-4821", actual="stated"),
        ]
        kind: ResultKind = "DiagnosisReport"
        stage: FailureStage | None = None
        if outcome is CaseOutcome.FAILED:
            kind = rng.choice(_FAILED_KINDS)
            stage = "EVIDENCE" if kind == "SafeFallback" else None
            checks.append(
                ExpectationCheck(
                    name=f"fact:{rng.randint(2, 5)}",
                    passed=False,
                    expected=f"the report states 'maximum-pool-size' {text}",
                    actual=f"not stated; the report says the pool was resized {text}",
                )
            )
            if rng.random() < 0.5:
                checks.append(
                    ExpectationCheck(
                        name="max_tokens",
                        passed=False,
                        expected="≤ 40000",
                        actual=f"{rng.randint(40001, 90000)} {text}",
                    )
                )
        error = CaseRunError.CASE_TIMEOUT if outcome is CaseOutcome.ERROR else None
        model_calls = 0 if error else rng.randint(1, 6)
        input_tokens = int(rng.lognormvariate(8.5, 0.5)) if model_calls else 0
        output_tokens = int(rng.lognormvariate(6.5, 0.5)) if model_calls else 0
        report = not error and kind == "DiagnosisReport"
        root = (
            f"Config change CHG-{4000 + i % 900} on svc-{i % 40}: pool.max-size changed from 40 "
            f"to 4; the symptom names pool.max-size{text}"
        )
        rows.append(
            CaseRunResult(
                case_id=f"case-{i // 3:05d}{text}",
                repeat=i % 3,
                question=f"Why does svc-{i % 40} return HTTP 500 since 14:05?{text}",
                summary=f"Root cause: {root}. The report also holds 3 observations."
                if report
                else None,
                root_causes=[root] if report and rng.random() < 0.8 else [],
                run_id=None if error else f"run-{i:06d}",
                tags=tags,
                model="offline",
                outcome=outcome,
                passed=outcome is CaseOutcome.PASSED,
                error=error,
                run_status=None if error else RunStatus.COMPLETED,
                release_kind=None if error else kind,
                intent=None if error else Intent.DIAGNOSIS,
                failure_stage=stage,
                error_code=ErrorCode.TOKEN_BUDGET_EXHAUSTED if kind == "StableFailure" else None,
                evidence_issues=["ITEM_REF_NOT_FOUND"] if stage else [],
                tokens=TokenUsage(
                    input_tokens=input_tokens,
                    output_tokens=output_tokens,
                    total_tokens=input_tokens + output_tokens,
                    model_calls=model_calls,
                ),
                tool_calls={} if error else calls,
                tool_rejections={"INVALID_ARGUMENTS": 1} if rng.random() < 0.05 else {},
                latency_ms=round(rng.lognormvariate(5.5, 0.6), 3),
                checks=[] if error else checks,
            )
        )
    return rows
