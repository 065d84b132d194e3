"""Evaluation-runner benchmark: cases/s on Ray Data against a plain sequential loop.

Prints a readable table and, as its last line, one JSON object with the same figures.

The cases are replicas of the shipped report-worker cases (``tests/eval_cases``: a small world
with logs, a database and runbooks; nine questions whose answers differ), written to a
temporary folder with distinct ids. Both sides run the very same harness per case
(:class:`actors.eval_executor.CaseExecutor`: router, agent, ToolBoundary, projectors, store,
guards, release, expectation checks) with the offline demo model through the openai SDK:

1. zero latency (CPU-bound), over ``--zero`` (2,000) cases — a bulk evaluation's size: the
   Ray run pays a fixed ~3 s to start its UDF actors (seconds more on a loaded machine), which
   600 cases at ~13 ms each do not pay back (1.02x measured there, 1.64x steady) and 2,000 do
   (1.45x). The sequential loop awaits one case after the other in this process;
   ``harness eval run``'s runner maps the same cases on Ray Data over two UDF actors, one
   case run in flight each (``--zero-concurrency 2``: CPU-bound runs gain nothing from
   sharing a loop) (goal >= 1.2x on 2 cores: Ray's overhead must not eat the parallelism);
2. every model call slowed to 200 ms (I/O-bound, a remote endpoint's round trip), over the
   synthetic big run of ``--slow`` (1,000) cases: the Ray run keeps ``--slow-concurrency`` case
   runs in flight (goal >= 20x). The sequential loop takes over a second a case here, so it
   runs over the first ``--slow-sequential`` of the same cases (all replicas of the same nine)
   and its rate stands for the whole set.

Ray figures are given end to end (``run_eval`` on a running Ray with Ray Data imported: the
UDF actors' start and imports — seconds on a loaded 2-core machine —, world loading, the
per-run files and the outputs included) and steady (the rate between the first and the last finished case run, read
from the run files' times: the throughput once the workers are up). Every run must pass all
its expectations; the benchmark fails otherwise. Timing is wall time on a shared machine.

Usage: ``python benchmarks/bench_eval.py [--zero N] [--slow N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path

from actors.eval_executor import CaseExecutor, ModelSpec
from actors.eval_runner import EvalOptions, run_eval
from actors.factory import local_ray
from harness.eval.case import LoadedCase, load_cases

REPO = Path(__file__).resolve().parents[1]
SOURCE = REPO / "tests" / "eval_cases" / "report-worker.cases.jsonl"


def _cases(folder: Path, count: int) -> list[LoadedCase]:
    """``count`` cases: the report-worker rows replicated under distinct ids."""
    rows = [json.loads(line) for line in SOURCE.read_text().splitlines() if line.strip()]
    folder.mkdir(parents=True)
    (folder / "worlds").symlink_to(SOURCE.parent / "worlds")
    lines = []
    for n in range(count):
        row = dict(rows[n % len(rows)])
        row["id"] = f"{n:05d}-{row['id']}"
        lines.append(json.dumps(row))
    (folder / "bench.cases.jsonl").write_text("\n".join(lines) + "\n")
    return load_cases(folder)


def _sequential(cases: list[LoadedCase], model: ModelSpec) -> tuple[float, int]:
    executor = CaseExecutor(model)

    async def loop() -> int:
        passed = 0
        for loaded in cases:
            passed += (await executor.run(loaded, 0)).passed
        return passed

    started = time.perf_counter()
    passed = asyncio.run(loop())
    return time.perf_counter() - started, passed


def _ray(
    cases: list[LoadedCase], out: Path, model: ModelSpec, concurrency: int
) -> tuple[float, float, int]:
    """End-to-end seconds, steady cases/s (after the first run finished), runs passed."""
    options = EvalOptions(model=model, concurrency=concurrency, workers=2)
    started = time.perf_counter()
    outcome = run_eval(cases, out, options, cases_label="bench")
    seconds = time.perf_counter() - started
    # Each run's file is written the moment it ends: their times give the steady rate, once
    # the workers have started and loaded the world.
    ends = sorted(p.stat().st_mtime for p in (out / "runs").glob("*.json"))
    steady = (len(ends) - 1) / (ends[-1] - ends[0]) if len(ends) > 1 and ends[-1] > ends[0] else 0.0
    return seconds, steady, outcome.summary.passed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--zero", type=int, default=2000, help="cases at zero latency")
    parser.add_argument("--zero-concurrency", type=int, default=2)
    parser.add_argument(
        "--slow", type=int, default=1000, help="cases at 200 ms per model call (the big run)"
    )
    parser.add_argument("--slow-sequential", type=int, default=18)
    parser.add_argument("--slow-concurrency", type=int, default=64)
    args = parser.parse_args()
    figures: dict[str, float | int] = {}
    rows: list[tuple[str, int, float, float, str]] = []
    with tempfile.TemporaryDirectory(prefix="bench-eval-") as tmp, local_ray(num_cpus=2):
        # A process pays for importing Ray Data once (seconds): not part of either side.
        import ray.data  # noqa: F401

        root = Path(tmp)
        zero = ModelSpec()
        slow = ModelSpec(latency_s=0.2)

        cases = _cases(root / "zero", args.zero)
        seq_s, seq_ok = _sequential(cases, zero)
        ray_s, steady, ray_ok = _ray(cases, root / "zero-out", zero, args.zero_concurrency)
        assert seq_ok == ray_ok == len(cases), (seq_ok, ray_ok)
        seq_rate = len(cases) / seq_s
        rows += [
            ("zero latency, sequential loop", len(cases), seq_s, seq_rate, "-"),
            ("zero latency, Ray Data", len(cases), ray_s, len(cases) / ray_s, f"{steady:.2f}"),
        ]
        figures["zero_cases"] = len(cases)
        figures["zero_sequential_cases_per_s"] = round(seq_rate, 3)
        figures["zero_ray_cases_per_s"] = round(len(cases) / ray_s, 3)
        figures["zero_ray_steady_cases_per_s"] = round(steady, 3)
        figures["zero_speedup"] = round(seq_s / ray_s, 2)
        figures["zero_steady_speedup"] = round(steady / seq_rate, 2)

        cases = _cases(root / "slow", args.slow)
        head = cases[: args.slow_sequential]
        seq_s, seq_ok = _sequential(head, slow)
        ray_s, steady, ray_ok = _ray(cases, root / "slow-out", slow, args.slow_concurrency)
        assert seq_ok == len(head) and ray_ok == len(cases), (seq_ok, ray_ok)
        seq_rate, ray_rate = len(head) / seq_s, len(cases) / ray_s
        rows += [
            ("200 ms per model call, sequential loop", len(head), seq_s, seq_rate, "-"),
            ("200 ms per model call, Ray Data", len(cases), ray_s, ray_rate, f"{steady:.2f}"),
        ]
        figures["slow_cases"] = len(cases)
        figures["slow_passed"] = ray_ok
        figures["slow_sequential_cases_per_s"] = round(seq_rate, 3)
        figures["slow_ray_cases_per_s"] = round(ray_rate, 3)
        figures["slow_ray_steady_cases_per_s"] = round(steady, 3)
        figures["slow_speedup"] = round(ray_rate / seq_rate, 2)
        figures["slow_steady_speedup"] = round(steady / seq_rate, 2)

    print(f"{'run':<40} {'cases':>6} {'seconds':>9} {'cases/s':>9} {'steady/s':>9}")
    for name, count, seconds, rate, steady_text in rows:
        print(f"{name:<40} {count:>6} {seconds:>9.2f} {rate:>9.2f} {steady_text:>9}")
    print(
        f"speed-up end to end (steady): zero latency {figures['zero_speedup']}x "
        f"({figures['zero_steady_speedup']}x), goal >= 1.2x; 200 ms {figures['slow_speedup']}x "
        f"({figures['slow_steady_speedup']}x), goal >= 20x; "
        f"{figures['slow_passed']}/{figures['slow_cases']} cases of the big run passed"
    )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
