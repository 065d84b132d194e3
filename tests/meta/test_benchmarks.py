"""The peers benchmark still plays its script: a smoke run, so that it cannot rot unnoticed.

It runs as a script (as a person runs it), one run per framework; the benchmark checks each
framework's run itself (six tool calls, the final answer; for the harness a DiagnosisReport
and six READY canonical records) and fails otherwise. No figure is asserted: timings are the
benchmark's to report, not a test's to judge.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ONE_RUN_EACH = ("--runs", "1", "--batches", "1", "--rounds", "1", "--warmup", "1")


def test_peers_benchmark_plays_the_script_in_all_three_frameworks() -> None:
    done = subprocess.run(
        [sys.executable, "benchmarks/bench_peers.py", *ONE_RUN_EACH],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(done.stdout.splitlines()[-1])
    assert sorted(figures["cpu_ms_per_run"]) == ["harness", "openai-agents", "pydantic-ai"]
    assert figures["agents_model"] == "agents.testing.ScriptedModel"
    workload = figures["workload"]
    assert (workload["model_turns_with_tools"], workload["tool_calls"]) == (5, 6)
    assert len(workload["harness_observation_bytes"]) == 6
