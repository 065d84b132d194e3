"""``harness diagnose`` on a user's own world: by flags and by ``harness.toml``, through Ray.

The billing world (logs, a SQLite database with a policy from ``sql-policy init``, a runbook
folder) is diagnosed end to end on a RunActor with the tools as Ray tasks — the same pool,
tools, boundary, store, guards and release as the demo — and the released report's root cause
comes from that world. Bad input stops before any run with WORKSPACE_INVALID and exit code 2.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from serve.cli import main
from tests.billing_world import QUESTION, copy_world, demo_words_in, secrets_in

pytestmark = pytest.mark.usefixtures("ray_cluster")

ROOT_CAUSE = (
    "Schema migration 42 on billing-api: rename column invoices.tax_region to tax_zone by "
    "flyway at 2026-03-10 09:36:52 UTC; the symptom names tax_region"
)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    world = copy_world(tmp_path_factory.mktemp("cli-world"))
    url = f"sqlite:///{world / 'billing.db'}"
    assert main(["sql-policy", "init", "--db", url, "--out", str(world / "sql-policy.json")]) == 0
    return world


def diagnose(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    code = main(["diagnose", QUESTION, "--json", *argv])
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1, lines
    return code, json.loads(lines[0])


def assert_this_worlds_root_cause(code: int, body: dict[str, Any]) -> None:
    assert (body["kind"], code) == ("DiagnosisReport", 0)
    (root,) = [c for c in body["conclusions"] if c["kind"] == "ROOT_CAUSE"]
    assert root["statement"].startswith(ROOT_CAUSE)
    assert {c["item_ref"].split(":")[0] for c in root["citations"]} == {"row", "tpl", "doc"}
    text = json.dumps(body)
    assert demo_words_in(text) == [] and secrets_in(text) == []


def test_flags_name_the_parts_relative_to_the_current_directory(
    world: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(world)
    flags = ["--logs", "logs", "--db", "sqlite:///billing.db", "--sql-policy", "sql-policy.json"]
    flags += ["--runbooks", "runbooks", "--as-of", "2026-03-10T10:00:00Z"]
    assert_this_worlds_root_cause(*diagnose(flags, capsys))


def test_a_workspace_file_names_them_all(
    world: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the file's paths are relative to the file, not to here
    assert_this_worlds_root_cause(*diagnose(["--workspace", str(world / "harness.toml")], capsys))


def test_bad_input_is_refused_before_any_run(
    world: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["diagnose", QUESTION, "--logs", str(world / "absent")]) == 2
    assert "WORKSPACE_INVALID NOT_FOUND:" in capsys.readouterr().err
    (world / "broken.toml").write_text('[logs]\npaths = ["logs"]\nformat = "csv"\n')
    assert main(["diagnose", QUESTION, "--workspace", str(world / "broken.toml")]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "WORKSPACE_INVALID INVALID:" in err and "logs.format" in err
