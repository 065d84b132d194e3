"""The outputs of an evaluation folder: results.jsonl, results.csv and summary.json.

All three are assembled from the per-run files (``harness.eval.store``) in a fixed order —
case order, then repetition — and rewritten whole (atomically) after every run command, so
they always describe everything the folder holds, including a partial run. ``report`` is the
hook for the HTML report (``harness.eval.report``, when installed).
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from harness.eval.result import CaseOutcome, CaseRunResult

__all__ = [
    "CSV_COLUMNS",
    "EvalSummary",
    "TagSummary",
    "percentile",
    "read_results",
    "summarise",
    "write_outputs",
]

RESULTS_FILE = "results.jsonl"
CSV_FILE = "results.csv"
SUMMARY_FILE = "summary.json"

CSV_COLUMNS = (
    "case_id",
    "repeat",
    "outcome",
    "passed",
    "error",
    "run_status",
    "release_kind",
    "intent",
    "failure_stage",
    "error_code",
    "semantic_verdicts",
    "evidence_issues",
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "model_calls",
    "cost_usd",
    "tool_calls",
    "tool_rejections",
    "latency_ms",
    "failed_checks",
    "tags",
    "model",
    "run_id",
    "question",
    "summary",
    "root_causes",
)


class TagSummary(BaseModel):
    """Pass figures of the case runs carrying one tag."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    runs: int = Field(ge=0, description="Case runs with the tag.")
    passed: int = Field(ge=0, description="Of those, passed.")
    pass_rate: float = Field(ge=0, le=1, description="passed / runs.")


class EvalSummary(BaseModel):
    """Figures of an evaluation folder (``summary.json``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int = Field(default=1, description="Summary format.")
    model: str = Field(description="Label of the model under test.")
    cases: int = Field(ge=0, description="Distinct cases with at least one run.")
    runs: int = Field(ge=0, description="Case runs.")
    passed: int = Field(ge=0, description="Case runs PASSED.")
    failed: int = Field(ge=0, description="Case runs FAILED.")
    errors: int = Field(ge=0, description="Case runs ERROR (no verdict).")
    pass_rate: float = Field(ge=0, le=1, description="passed / runs.")
    repeat: int = Field(ge=1, description="Most runs of any case (k of pass@k).")
    pass_at_k: float = Field(
        ge=0, le=1, description="Share of cases with at least one passing run among its k."
    )
    pass_all_k: float = Field(ge=0, le=1, description="Share of cases whose every run passed.")
    input_tokens: int = Field(ge=0, description="Provider-reported input tokens, all runs.")
    output_tokens: int = Field(ge=0, description="Provider-reported output tokens, all runs.")
    total_tokens: int = Field(ge=0, description="Provider-reported tokens, all runs.")
    cost_usd: float = Field(ge=0, description="Token cost at the configured prices.")
    latency_p50_ms: float = Field(ge=0, description="Median case-run latency.")
    latency_p90_ms: float = Field(ge=0, description="90th percentile case-run latency.")
    outcomes: dict[str, int] = Field(description="Case runs per outcome.")
    release_kinds: dict[str, int] = Field(description="Case runs per released kind.")
    tool_calls: dict[str, int] = Field(description="Executed tool calls per tool, all runs.")
    by_tag: dict[str, TagSummary] = Field(description="Pass figures per tag.")


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-quantile (0..1) by linear interpolation; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low, high = math.floor(position), math.ceil(position)
    share = position - low
    return round(ordered[low] + (ordered[high] - ordered[low]) * share, 3)


def summarise(rows: Sequence[CaseRunResult], model: str) -> EvalSummary:
    outcomes = Counter(r.outcome.value for r in rows)
    per_case: dict[str, list[bool]] = defaultdict(list)
    tags: dict[str, list[bool]] = defaultdict(list)
    tools: Counter[str] = Counter()
    for row in rows:
        per_case[row.case_id].append(row.passed)
        for tag in row.tags:
            tags[tag].append(row.passed)
        tools.update(row.tool_calls)
    cases = len(per_case)
    passed = outcomes.get(CaseOutcome.PASSED.value, 0)
    return EvalSummary(
        model=model,
        cases=cases,
        runs=len(rows),
        passed=passed,
        failed=outcomes.get(CaseOutcome.FAILED.value, 0),
        errors=outcomes.get(CaseOutcome.ERROR.value, 0),
        pass_rate=round(passed / len(rows), 6) if rows else 0.0,
        repeat=max((len(v) for v in per_case.values()), default=1),
        pass_at_k=round(sum(any(v) for v in per_case.values()) / cases, 6) if cases else 0.0,
        pass_all_k=round(sum(all(v) for v in per_case.values()) / cases, 6) if cases else 0.0,
        input_tokens=sum(r.tokens.input_tokens for r in rows),
        output_tokens=sum(r.tokens.output_tokens for r in rows),
        total_tokens=sum(r.tokens.total_tokens for r in rows),
        cost_usd=round(sum(r.cost_usd or 0.0 for r in rows), 6),
        latency_p50_ms=percentile([r.latency_ms for r in rows], 0.5),
        latency_p90_ms=percentile([r.latency_ms for r in rows], 0.9),
        outcomes=dict(sorted(outcomes.items())),
        release_kinds=dict(sorted(Counter(r.release_kind or "-" for r in rows).items())),
        tool_calls=dict(sorted(tools.items())),
        by_tag={
            tag: TagSummary(runs=len(v), passed=sum(v), pass_rate=round(sum(v) / len(v), 6))
            for tag, v in sorted(tags.items())
        },
    )


def write_outputs(out_dir: Path, rows: Sequence[CaseRunResult], model: str) -> EvalSummary:
    """Write the three outputs for ``rows`` (already in output order); return the summary."""
    summary = summarise(rows, model)
    out_dir.mkdir(parents=True, exist_ok=True)
    _atomic(out_dir / RESULTS_FILE, "".join(r.model_dump_json() + "\n" for r in rows))
    _atomic(out_dir / CSV_FILE, _csv(rows))
    _atomic(out_dir / SUMMARY_FILE, json.dumps(summary.model_dump(), indent=1) + "\n")
    return summary


def read_results(out_dir: Path) -> list[CaseRunResult]:
    """The rows of ``out_dir/results.jsonl``."""
    text = (out_dir / RESULTS_FILE).read_text(encoding="utf-8")
    return [CaseRunResult.model_validate_json(line) for line in text.splitlines() if line]


def _csv(rows: Sequence[CaseRunResult]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for r in rows:
        writer.writerow(
            [
                r.case_id,
                r.repeat,
                r.outcome.value,
                str(r.passed).lower(),
                r.error.value if r.error else "",
                r.run_status.value if r.run_status else "",
                r.release_kind or "",
                r.intent.value if r.intent else "",
                r.failure_stage or "",
                r.error_code.value if r.error_code else "",
                ";".join(r.semantic_verdicts),
                ";".join(r.evidence_issues),
                r.tokens.input_tokens,
                r.tokens.output_tokens,
                r.tokens.total_tokens,
                r.tokens.model_calls,
                "" if r.cost_usd is None else r.cost_usd,
                ";".join(f"{k}={v}" for k, v in r.tool_calls.items()),
                ";".join(f"{k}={v}" for k, v in r.tool_rejections.items()),
                r.latency_ms,
                ";".join(c.name for c in r.failed_checks()),
                ";".join(r.tags),
                r.model,
                r.run_id or "",
                r.question,
                r.summary or "",
                " || ".join(r.root_causes),
            ]
        )
    return buffer.getvalue()


def _atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
