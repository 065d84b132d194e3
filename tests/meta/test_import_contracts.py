"""The import-linter contracts in pyproject.toml hold, and they would catch a violation.

`make lint` runs ``lint-imports`` on the tree; this test also proves that each contract can
fail, by planting one violation per contract in a copy of the packages and linting that.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("harness", "actors", "serve")
LINT = Path(sys.executable).with_name("lint-imports")


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [str(LINT), "--config", str(REPO / "pyproject.toml"), "--no-cache"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )


def _python_only(directory: str, names: list[str]) -> list[str]:
    return [n for n in names if not n.endswith(".py") and not (Path(directory) / n).is_dir()]


def test_the_tree_keeps_every_contract() -> None:
    result = _lint(REPO)
    assert result.returncode == 0, result.stdout[-3000:]
    assert "0 broken" in result.stdout


def test_each_contract_catches_its_violation(tmp_path: Path) -> None:
    for package in PACKAGES:
        shutil.copytree(REPO / package, tmp_path / package, ignore=_python_only)
    with (tmp_path / "harness" / "contracts" / "ids.py").open("a") as f:
        f.write("\nimport redis  # a vendor SDK in the core\n")
        f.write("from harness.testing import clock as _clock  # a test fake in the core\n")
    with (tmp_path / "harness" / "run" / "budget.py").open("a") as f:
        f.write("\nimport actors.pool  # the core reaching up into the Ray layer\n")
    with (tmp_path / "harness" / "contracts" / "invocation.py").open("a") as f:
        f.write("\nimport harness.diagnosis  # a cycle: diagnosis depends on invocation\n")
    with (tmp_path / "harness" / "release" / "report.py").open("a") as f:
        f.write("\nimport harness.agent.repair  # the release policy asking a model itself\n")
        f.write("import harness.embedded.offline  # the run plane reaching the embedded world\n")
    with (tmp_path / "harness" / "audit" / "records.py").open("a") as f:
        f.write("\nimport harness.run.context  # the audit reaching up into the run\n")

    result = _lint(tmp_path)
    out = result.stdout
    assert result.returncode != 0
    assert "Contracts: 0 kept, 7 broken." in out, out[-3000:]
    assert "harness.release.report -> harness.agent.repair" in out
    assert "harness.release.report -> harness.embedded.offline" in out
    assert "harness.audit.records -> harness.run.context" in out
    assert "harness.contracts.ids -> redis" in out
    assert "harness.contracts.ids -> harness.testing.clock" in out
    assert "harness.run.budget -> actors.pool" in out
    assert ".invocation -> .diagnosis" in out or ".diagnosis -> " in out
