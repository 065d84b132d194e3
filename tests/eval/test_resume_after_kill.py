"""Resume: kill the driver mid-run, run the same command again, get the uninterrupted result."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from actors.eval_executor import ModelSpec
from actors.eval_runner import EvalOptions, run_eval
from harness.eval.case import load_cases
from harness.eval.outputs import read_results
from harness.eval.result import CaseRunResult
from harness.eval.store import RunStore
from tests.paths import REPO

CASES = REPO / "tests" / "eval_cases"
SELECTION = ("misbehaving", "report-worker")
LATENCY_MS = 150


def _command(cases: Path, out: Path) -> list[str]:
    harness = str(Path(sys.executable).with_name("harness"))
    return [
        harness, "eval", "run", str(cases), "--out", str(out), "--quiet",
        "--concurrency", "2", "--workers", "1", "--model-latency-ms", str(LATENCY_MS),
    ]  # fmt: skip


def _comparable(row: CaseRunResult) -> dict[str, object]:
    return row.model_dump(exclude={"run_id", "latency_ms"})


def _selection(tmp_path: Path) -> Path:
    root = tmp_path / "cases"
    root.mkdir()
    for name in SELECTION:
        (root / f"{name}.cases.jsonl").symlink_to(CASES / f"{name}.cases.jsonl")
    (root / "worlds").symlink_to(CASES / "worlds")
    return root


def _wait_until_settled(store: RunStore) -> None:
    """Until no run file appears for 3 s: workers die some moments after their driver."""
    count, since = -1, time.monotonic()
    deadline = since + 90
    while time.monotonic() - since < 3:
        assert time.monotonic() < deadline, "workers kept running after their driver died"
        now = len(list(store.runs_dir.glob("*.json")))
        if now != count:
            count, since = now, time.monotonic()
        time.sleep(0.2)


def test_a_killed_run_resumes_where_it_stopped(ray_cluster: None, tmp_path: Path) -> None:
    cases = _selection(tmp_path)
    planned = len(load_cases(cases))
    out = tmp_path / "killed"
    store = RunStore(out)
    driver = subprocess.Popen(
        _command(cases, out),
        cwd=REPO,
        start_new_session=True,  # its own process group: the driver and the Ray it started
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 240
        while len(list(store.runs_dir.glob("*.json"))) < 4 and driver.poll() is None:
            assert time.monotonic() < deadline, "no case run finished in time"
            time.sleep(0.2)
    finally:
        os.killpg(driver.pid, signal.SIGKILL)
        driver.wait()
    _wait_until_settled(store)
    survivors = store.done()
    # A crash leaves a readable partial result: every file on disk parses, none is torn.
    assert len(survivors) == len(list(store.runs_dir.glob("*.json")))
    assert 4 <= len(survivors) < planned, "the kill came too late to test a resume"

    resumed = subprocess.run(_command(cases, out), cwd=REPO, capture_output=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr.decode()[-2000:]
    assert f"ran {planned - len(survivors)}, skipped {len(survivors)}" in " ".join(
        resumed.stdout.decode().split()
    )
    rows = read_results(out)
    for row in rows:  # the runs finished before the kill were not run again
        if row.key in survivors:
            assert row.run_id == survivors[row.key].run_id

    clean = tmp_path / "clean"
    options = EvalOptions(
        model=ModelSpec(latency_s=LATENCY_MS / 1000),
        concurrency=4,
        workers=2,
        no_progress_timeout_s=240.0,
    )
    run_eval(load_cases(cases), clean, options, cases_label=str(cases))
    assert [_comparable(r) for r in rows] == [_comparable(r) for r in read_results(clean)]
