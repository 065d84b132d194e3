"""The suite stands alone: without the third-party corpora it still collects, and a test that
needs a corpus skips, naming HARNESS_CORPORA_DIR and the path it looked at; under CI=true that
test fails instead. Each check runs pytest in a subprocess against an empty corpora folder.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# One test that reaches a corpus through a fixture, one that asks inside its body.
CORPUS_TESTS = [
    "tests/serve/cli/test_cli_logs.py::test_mine_file_with_format_prints_one_record_per_line",
    "tests/harness/sql/test_sql_injection_corpus.py"
    "::test_every_payload_is_refused_or_reduced_to_a_harmless_plan",
]


def _pytest(args: list[str], corpora: Path, *, ci: bool) -> tuple[int, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS")}
    env["HARNESS_CORPORA_DIR"] = str(corpora)
    if ci:
        env["CI"] = "true"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return done.returncode, done.stdout + done.stderr


def _summary(output: str) -> str:
    return output.strip().splitlines()[-1]


def test_whole_suite_collects_without_corpora(tmp_path: Path) -> None:
    code, output = _pytest(["--collect-only", "-q", "tests"], tmp_path, ci=False)
    assert code == 0, output[-4000:]
    lines = output.splitlines()
    assert not [line for line in lines if line.startswith("ERROR")], output[-4000:]
    assert "error" not in _summary(output).lower(), output[-4000:]
    assert " collected" in _summary(output)


def test_corpus_tests_skip_naming_the_setting_and_path(tmp_path: Path) -> None:
    code, output = _pytest(["-q", "-rs", *CORPUS_TESTS], tmp_path, ci=False)
    assert code == 0, output[-4000:]
    assert _summary(output).startswith("2 skipped"), output[-4000:]
    reasons = [line for line in output.splitlines() if line.startswith("SKIPPED")]
    assert len(reasons) == 2, output[-4000:]
    assert all("HARNESS_CORPORA_DIR" in r and str(tmp_path) in r for r in reasons), reasons


def test_corpus_tests_fail_under_ci(tmp_path: Path) -> None:
    code, output = _pytest(["-q", "-rfEs", *CORPUS_TESTS], tmp_path, ci=True)
    assert code == 1, output[-4000:]
    summary = _summary(output)
    # The fixture's failure is a setup error, the in-body one a failed test; neither skips.
    assert "skipped" not in summary and "1 failed" in summary and "1 error" in summary, summary
    assert output.count("HARNESS_CORPORA_DIR") >= 2, output[-4000:]
