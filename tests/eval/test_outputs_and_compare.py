"""Outputs assembled from run files: summary figures, CSV, and the comparison of two folders."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from harness.eval.compare import DiffKind, compare
from harness.eval.outputs import CSV_COLUMNS, percentile, read_results, write_outputs
from harness.eval.result import (
    CaseOutcome,
    CaseRunError,
    CaseRunResult,
    ExpectationCheck,
    TokenUsage,
)
from harness.eval.store import EvalManifest, RunStore
from serve.cli import main


def _row(case_id: str, repeat: int, passed: bool, *, tags: tuple[str, ...] = (), latency: float = 10.0, error: bool = False) -> CaseRunResult:  # fmt: skip
    outcome = CaseOutcome.ERROR if error else (CaseOutcome.PASSED if passed else CaseOutcome.FAILED)
    return CaseRunResult(
        case_id=case_id,
        repeat=repeat,
        run_id=None if error else f"run-{case_id}-{repeat}",
        tags=list(tags),
        model="m",
        outcome=outcome,
        passed=passed,
        error=CaseRunError.CASE_TIMEOUT if error else None,
        run_status=None,
        release_kind=None if error else "DiagnosisReport",
        tokens=TokenUsage(input_tokens=90, output_tokens=10, total_tokens=100, model_calls=2),
        cost_usd=0.5,
        tool_calls={"query_logs": 1},
        latency_ms=latency,
        checks=[ExpectationCheck(name="release", passed=passed, expected="x", actual="y")],
    )


def test_summary_pass_at_k_tokens_and_latency_percentiles(tmp_path: Path) -> None:
    rows = [
        _row("a", 0, True, tags=("demo",), latency=10),
        _row("a", 1, False, tags=("demo",), latency=20),
        _row("b", 0, False, tags=("demo", "budget"), latency=30),
        _row("b", 1, False, tags=("demo", "budget"), latency=40, error=True),
        _row("c", 0, True, latency=50),
        _row("c", 1, True, latency=60),
    ]
    summary = write_outputs(tmp_path, rows, "m")
    assert (summary.runs, summary.passed, summary.failed, summary.errors) == (6, 3, 2, 1)
    assert (summary.cases, summary.repeat, summary.pass_rate) == (3, 2, 0.5)
    assert (summary.pass_at_k, summary.pass_all_k) == (round(2 / 3, 6), round(1 / 3, 6))
    assert (summary.total_tokens, summary.cost_usd) == (600, 3.0)
    assert (summary.latency_p50_ms, summary.latency_p90_ms) == (35.0, 55.0)
    assert summary.by_tag["budget"].pass_rate == 0.0
    assert summary.by_tag["demo"].model_dump() == {"runs": 4, "passed": 1, "pass_rate": 0.25}
    assert summary.outcomes == {"ERROR": 1, "FAILED": 2, "PASSED": 3}

    assert read_results(tmp_path) == rows
    assert json.loads((tmp_path / "summary.json").read_text()) == summary.model_dump()
    with (tmp_path / "results.csv").open() as handle:
        table = list(csv.reader(handle))
    assert tuple(table[0]) == CSV_COLUMNS and len(table) == 7
    assert table[4][CSV_COLUMNS.index("error")] == "CASE_TIMEOUT"
    assert table[2][CSV_COLUMNS.index("failed_checks")] == "release"


def test_percentile_edges() -> None:
    assert (percentile([], 0.5), percentile([7.0], 0.9), percentile([1, 2, 3, 4], 0.5)) == (
        0.0,
        7.0,
        2.5,
    )


def test_run_store_writes_atomically_and_skips_torn_files(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    store.write(_row("x/y z", 0, True))
    store.write(_row("x/y z", 0, False))  # a retry replaces the earlier attempt
    (store.runs_dir / "torn#0.json").write_text('{"case_id": "x"')
    assert list(store.done()) == [("x/y z", 0)]
    assert not store.done()[("x/y z", 0)].passed
    assert not list(store.runs_dir.glob(".*"))
    manifest = EvalManifest(cases="c", model="m", repeat=1)
    assert store.check_manifest(manifest) is None
    assert store.check_manifest(manifest) is None
    other = manifest.model_copy(update={"model": "other"})
    assert store.check_manifest(other) == manifest


def test_compare_lists_regressions_first(tmp_path: Path) -> None:
    a = [_row("a", 0, True), _row("b", 0, False), _row("c", 0, True), _row("d", 0, True)]
    b = [_row("a", 0, False), _row("b", 0, True), _row("c", 0, True), _row("e", 0, True)]
    result = compare(a, b)
    assert [(d.kind, d.case_id) for d in result.diffs] == [
        (DiffKind.REGRESSION, "a"),
        (DiffKind.IMPROVEMENT, "b"),
        (DiffKind.ONLY_A, "d"),
        (DiffKind.ONLY_B, "e"),
    ]
    assert result.common == 3


def test_compare_cli_exits_non_zero_on_a_regression(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_outputs(tmp_path / "a", [_row("a", 0, True), _row("b", 0, False)], "m")
    write_outputs(tmp_path / "b", [_row("a", 0, False), _row("b", 0, True)], "m")
    write_outputs(tmp_path / "c", [_row("a", 0, True), _row("b", 0, True)], "m")
    assert main(["eval", "compare", str(tmp_path / "a"), str(tmp_path / "b")]) == 1
    out = capsys.readouterr().out
    assert out.index("REGRESSION") < out.index("IMPROVEMENT")
    assert main(["eval", "compare", str(tmp_path / "a"), str(tmp_path / "c")]) == 0
    assert main(["eval", "compare", str(tmp_path / "a"), str(tmp_path / "missing")]) == 2
