"""Every run of ``harness diagnose`` is on the durable record, in the one data directory.

As a new user runs it: the installed ``harness`` command in a subprocess with a fresh HOME and
none of the suite's settings, each invocation starting a local Ray of its own and exiting as
soon as its run is released. Three runs, then ``harness runs`` lists all three and ``harness
trace`` shows each one's timeline; then the same with ``HARNESS_DATA_DIR`` set, and nothing
written outside that directory (the HOME stays empty; Ray's token is kept in the environment,
not in ``~/.ray``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.embedded.demo import INCIDENT_QUESTION

pytestmark = [pytest.mark.ray, pytest.mark.slow]

HARNESS = Path(sys.executable).parent / "harness"
REPO = Path(__file__).resolve().parents[3]


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("HARNESS_", "RAY_", "XDG_")) and key != "PYTHONPATH"
    }
    return {**env, "HOME": str(home), "PYTHONPATH": str(REPO), **extra}


def _harness(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(HARNESS), *args], env=env, capture_output=True, text=True, timeout=240, check=False
    )
    assert done.returncode == 0, (args, done.stderr[-3000:])
    return done


def _three_runs_on_record(env: dict[str, str]) -> None:
    run_ids = []
    for _ in range(3):
        done = _harness(env, "diagnose", INCIDENT_QUESTION, "--json")
        assert "not recorded" not in done.stderr
        run_ids.append(json.loads(done.stdout)["run_id"])
    listed = [json.loads(line)["run_id"] for line in _harness(env, "runs", "--json").stdout.split()]
    assert sorted(listed) == sorted(run_ids)
    for run_id in run_ids:
        events = [
            json.loads(line)
            for line in _harness(env, "trace", run_id, "--json").stdout.split("\n")
            if line
        ]
        assert events[0]["event_type"] == "RUN_STARTED"
        assert events[-1]["event_type"] == "RUN_FINISHED"
        assert [e["sequence_no"] for e in events] == list(range(1, len(events) + 1))


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


def test_three_cli_runs_are_listed_and_traced_and_their_files_stay_in_the_data_directory(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    _three_runs_on_record(_env(home))
    data_dir = home / ".local" / "share" / "diagnosis-harness"
    assert [p for p in _files(home) if not p.is_relative_to(data_dir)] == []
    assert (data_dir / "audit.sqlite").is_file()

    other_home, data = tmp_path / "other-home", tmp_path / "data"
    other_home.mkdir()
    _three_runs_on_record(_env(other_home, HARNESS_DATA_DIR=str(data)))
    assert _files(other_home) == []
    names = {p.relative_to(data).parts[0] for p in _files(data)}
    assert {"audit.sqlite", "reasoning-keys.json", "cache"} <= names
