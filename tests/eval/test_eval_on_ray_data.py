"""The Ray Data runner: every shipped case passes, reruns are idempotent, errors are bounded."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from actors.eval_runner import EvalOptions, run_eval
from harness.eval.case import load_cases
from harness.eval.outputs import read_results
from harness.eval.result import CaseOutcome, CaseRunError
from tests.paths import REPO

CASES = REPO / "tests" / "eval_cases"
# A stalled pipeline fails the test instead of hanging it (the 2-core deadlock trap).
OPTIONS = EvalOptions(concurrency=8, workers=2, no_progress_timeout_s=240.0)


def test_every_shipped_case_passes_with_the_offline_model(
    ray_cluster: None, tmp_path: Path
) -> None:
    cases = load_cases(CASES)
    outcome = run_eval(cases, tmp_path, OPTIONS, cases_label=str(CASES))

    rows = read_results(tmp_path)
    failing = {
        r.case_id: [c.name for c in r.failed_checks()] or r.error for r in rows if not r.passed
    }
    assert failing == {}
    assert [r.case_id for r in rows] == [c.case_id for c in cases]  # case order, always
    assert (outcome.ran, outcome.skipped, outcome.summary.pass_rate) == (len(cases), 0, 1.0)
    scripted = [r for r in rows if r.model.startswith("misbehaving:")]
    assert len(scripted) == 10
    assert {r.release_kind for r in scripted} == {"SafeFallback", "StableFailure", "TimedOut"}

    again = run_eval(cases, tmp_path, OPTIONS, cases_label=str(CASES))
    assert (again.ran, again.skipped) == (0, len(cases))
    assert read_results(tmp_path) == rows


def _write(root: Path, rows: list[dict[str, object]]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "set.cases.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


CHAT = {"question": "Hello! What can you do?", "tags": ["chat"]}


def test_retry_failed_reruns_only_failed_and_errored_runs(
    ray_cluster: None, tmp_path: Path
) -> None:
    root = _write(
        tmp_path / "cases",
        [
            {"id": "ok", **CHAT, "expect": {"release": "Answer"}},
            {"id": "wrong", **CHAT, "expect": {"release": "DiagnosisReport"}},
            {
                "id": "broken-world",
                **CHAT,
                "world": {"kind": "files", "runbooks": "no/such/folder"},
                "expect": {"release": "Answer"},
            },
        ],
    )
    cases = load_cases(root)
    out = tmp_path / "out"
    options = EvalOptions(concurrency=4, workers=1, repeat=2, no_progress_timeout_s=120.0)
    first = run_eval(cases, out, options, cases_label="c")
    by_key = {(r.case_id, r.repeat): r for r in read_results(out)}
    assert (first.ran, first.summary.passed, first.summary.failed, first.summary.errors) == (
        6,
        2,
        2,
        2,
    )
    assert by_key[("set/broken-world", 1)].error is CaseRunError.WORLD_INVALID
    assert first.summary.pass_at_k == round(1 / 3, 6)

    assert run_eval(cases, out, options, cases_label="c").ran == 0
    retried = run_eval(cases, out, dataclasses.replace(options, retry_failed=True), cases_label="c")
    assert retried.ran == 4
    after = {(r.case_id, r.repeat): r for r in read_results(out)}
    # The passed runs were not touched: same run ids.
    assert after[("set/ok", 0)].run_id == by_key[("set/ok", 0)].run_id
    assert after[("set/wrong", 0)].run_id != by_key[("set/wrong", 0)].run_id

    with pytest.raises(ValueError, match="another --out folder"):
        run_eval(cases, out, EvalOptions(repeat=3), cases_label="c")


def test_max_errors_stops_the_run_and_leaves_a_readable_partial_result(
    ray_cluster: None, tmp_path: Path
) -> None:
    # A model that never answers within the runner's per-case timeout: each run is an ERROR.
    hung = {"model": "misbehaving:slow_reply", "deadline_s": 60, "expect": {"release": "Answer"}}
    root = _write(tmp_path / "cases", [{"id": f"h{n:02}", **CHAT, **hung} for n in range(12)])
    out = tmp_path / "out"
    options = EvalOptions(
        concurrency=1, workers=1, max_errors=1, timeout_s=1.0, no_progress_timeout_s=120.0
    )
    outcome = run_eval(load_cases(root), out, options, cases_label="c")
    assert outcome.stopped
    rows = read_results(out)
    assert 2 <= len(rows) < 12
    assert {(r.outcome, r.error) for r in rows} == {(CaseOutcome.ERROR, CaseRunError.CASE_TIMEOUT)}


def test_the_cli_exits_by_the_outcome_of_the_planned_runs(
    ray_cluster: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from serve.cli import main

    root = _write(
        tmp_path / "cases",
        [
            {"id": "ok", **CHAT, "expect": {"release": "Answer", "intent": "SYSTEM_CHAT"}},
            {"id": "wrong", **CHAT, "tags": ["bad"], "expect": {"release": "SafeFallback"}},
        ],
    )
    out = tmp_path / "out"
    assert main(["eval", "run", str(root), "--out", str(out), "--quiet", "--tag", "chat"]) == 0
    assert "1/1 passed" in capsys.readouterr().out
    assert main(["eval", "run", str(root), "--out", str(out), "--quiet"]) == 1
    assert "ran 1, skipped 1" in " ".join(capsys.readouterr().out.split())
    assert sorted(p.name for p in out.iterdir()) == [
        "eval.json", "report.html", "results.csv", "results.jsonl", "runs", "summary.json",
    ]  # fmt: skip
    assert main(["eval", "run", str(tmp_path / "nothing"), "--out", str(out)]) == 2
    assert main(["eval", "run", str(root), "--out", str(out), "--repeat", "2"]) == 2
