"""The Ray dashboard shows RunActors, the audit writer and the tool tasks under readable names,
and the harness metrics: what its state API lists and the node's metrics endpoint exports after
two runs.

The suite's Ray runs without the dashboard, and a process holds one Ray, so the runs happen in
a process of their own (``dashboard_probe.py``, a fresh local Ray with the dashboard); this test
reads what that process saw.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from typing import Any

import pytest

from tests.dashboard.dashboard_probe import ACTOR_PREFIX, TOOL_TASKS, WANTED_METRICS
from tests.paths import REPO

pytestmark = pytest.mark.ray


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    work = tmp_path_factory.mktemp("dashboard")
    out = work / "seen.json"
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env |= {"RAY_USAGE_STATS_ENABLED": "0", "RAY_metrics_report_interval_ms": "1000"}
    probe = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.dashboard.dashboard_probe",
            str(out),
            f"sqlite:///{work / 'audit.sqlite'}",
        ],
        cwd=REPO,  # Ray workers import from the driver's working directory
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert probe.returncode == 0, probe.stderr[-4000:]
    result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return result


def test_run_actors_and_the_audit_writer_are_listed_by_name(seen: dict[str, Any]) -> None:
    alive = {(a["class_name"], a["name"]) for a in seen["actors"] if a["state"] == "ALIVE"}
    assert ("RunActor", f"{ACTOR_PREFIX}-1") in alive, alive
    writers = [name for cls, name in alive if cls == "AuditWriterActor"]
    assert len(writers) == 1 and re.fullmatch(r"audit-writer-[0-9a-f]{56}", writers[0]), alive
    assert all(a["name"] for a in seen["actors"]), seen["actors"]  # no anonymous actor


def test_tool_tasks_carry_the_tools_name(seen: dict[str, Any]) -> None:
    tool_tasks = [
        t for t in seen["tasks"] if t["func_or_class_name"] in {"run_tool", "run_projector"}
    ]
    names = {t["name"] for t in tool_tasks}
    assert names >= TOOL_TASKS, names
    # Every tool task is named after its tool, never after the generic function running it.
    assert all(re.fullmatch(r"(tool|project):[a-z_]+", name) for name in names), names
    # Actor calls read as Class.method (the dashboard's default for named actors' methods).
    methods = {t["name"] for t in seen["tasks"] if t["func_or_class_name"].startswith("RunActor.")}
    assert {"RunActor.start", "RunActor.wait"} <= methods, methods


def test_the_harness_metrics_are_exported_with_values(seen: dict[str, Any]) -> None:
    metrics: dict[str, float] = seen["metrics"]
    assert {name for name, value in metrics.items() if value > 0} >= WANTED_METRICS, metrics
    assert metrics["ray_harness_runs_total"] == 2  # the probe's two runs, each counted once
    assert metrics["ray_harness_run_latency_ms_count"] == 2
    assert metrics["ray_harness_tool_invocations_total"] >= len(TOOL_TASKS)
