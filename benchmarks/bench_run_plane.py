"""Run-plane benchmark: runs/s in process, on pooled RunActors and on a fresh actor per run.

Prints a readable table and, as its last line, one JSON object with the same figures.

1. Runs/s with the same deps and the same number of runs in flight (``--concurrency``):
   (a) DiagnosisRun directly in this process, (b) through a pre-warmed RunPool, (c) with a
   fresh actor started (and its deps built) for every run. Each figure is the median of
   ``--repeats`` timed batches; pooled actors are warmed before timing, fresh ones never are.
2. RSS of the RunActor process per in-flight run at K=1 and at K=N runs per actor: the
   actor's RSS sampled (psutil, by the actor's pid) while K runs are in flight; reported as
   peak/K and as (peak - idle)/K.

Model: the offline demo model through the openai SDK on the embedded tool plane when
``harness.adapters.openai_model`` and ``harness.adapters.embedded`` import; otherwise a
deterministic scripted diagnosis (``actors.testing.DirectedModel``) over probe tools. The
output says which. Usage: ``python benchmarks/bench_run_plane.py [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

from actors.factory import local_ray
from actors.pool import RunPool
from harness.diagnosis import DiagnosisRun, RunDeps
from harness.ingress import RunRequest

GOAL_POOLED_OVER_FRESH = 8.0


def _setup(model: str, tools: str) -> tuple[str, Callable[[], RunDeps], Callable[[], RunDeps], str]:
    """(label, deps factory for actors, deps factory in process, question)."""
    if model in ("auto", "offline"):
        try:
            importlib.import_module("harness.adapters.embedded")
            importlib.import_module("harness.adapters.openai_model")
        except ImportError:
            if model == "offline":
                raise
        else:
            from actors.deps import EmbeddedDepsFactory
            from harness.demo import INCIDENT_QUESTION

            return (
                "offline demo model (openai SDK) + embedded tool plane",
                EmbeddedDepsFactory(tool_execution=tools),  # type: ignore[arg-type]
                EmbeddedDepsFactory(tool_execution="inline"),
                INCIDENT_QUESTION,
            )
    from actors.testing import FakeDepsFactory

    return (
        "scripted diagnosis (DirectedModel) + probe tools",
        FakeDepsFactory(tool_execution=tools),  # type: ignore[arg-type]
        FakeDepsFactory(tool_execution="inline"),
        "Why does checkout-api fail? @intent=DIAGNOSIS",
    )


def _request(question: str) -> RunRequest:
    from harness.demo import WINDOW_END

    return RunRequest(question=question, as_of=WINDOW_END, deadline_s=300)


async def _batch(
    run_one: Callable[[], Any], runs: int, concurrency: int
) -> tuple[float, list[str]]:
    gate = asyncio.Semaphore(concurrency)

    async def guarded() -> str:
        async with gate:
            return str((await run_one()).kind)

    started = time.perf_counter()
    types = await asyncio.gather(*(guarded() for _ in range(runs)))
    return runs / (time.perf_counter() - started), list(types)


async def _in_process(factory: Callable[[], RunDeps], question: str, args: Any) -> list[float]:
    deps = factory()
    await DiagnosisRun(_request(question), deps).execute()  # warm caches, like a warm actor
    rates = []
    for _ in range(args.repeats):
        rate, _ = await _batch(
            lambda: DiagnosisRun(_request(question), deps).execute(), args.runs, args.concurrency
        )
        rates.append(rate)
    return rates


async def _pooled(
    factory: Callable[[], RunDeps], question: str, args: Any
) -> tuple[list[float], list[str]]:
    async with RunPool(args.concurrency, 1, factory, name_prefix="bench-pooled") as pool:
        await asyncio.gather(*(pool.run(_request(question)) for _ in range(args.concurrency)))
        rates: list[float] = []
        types: list[str] = []
        for _ in range(args.repeats):
            rate, types = await _batch(
                lambda: pool.run(_request(question)), args.runs, args.concurrency
            )
            rates.append(rate)
        return rates, types


async def _fresh(factory: Callable[[], RunDeps], question: str, args: Any) -> list[float]:
    async with RunPool(
        args.concurrency, 1, factory, name_prefix="bench-fresh", fresh_actor_per_run=True
    ) as pool:
        rates = []
        for _ in range(args.repeats):
            rate, _ = await _batch(
                lambda: pool.run(_request(question)), args.fresh_runs, args.concurrency
            )
            rates.append(rate)
        return rates


async def _rss(
    factory: Callable[[], RunDeps], question: str, k: int, hold: bool
) -> dict[str, float]:
    """Peak RSS of one actor while K runs are in flight on it."""
    # psutil ships inside ray (ray/thirdparty_files), importable once ray is imported.
    import psutil

    if hold:  # scripted runs finish in ms; keep them in flight long enough to measure
        question = f"{question} @route_s=1.0"
    async with RunPool(1, k, factory, name_prefix=f"bench-rss-k{k}") as pool:
        await pool.run(_request(question))  # warm
        process = psutil.Process(pool.actors()[0].pid)
        idle = process.memory_info().rss
        runs = asyncio.gather(*(pool.run(_request(question)) for _ in range(k)))
        peak = idle
        while not runs.done():
            peak = max(peak, process.memory_info().rss)
            await asyncio.sleep(0.02)
        await runs
    mib = 1024 * 1024
    return {
        "k": k,
        "idle_mib": round(idle / mib, 1),
        "peak_mib": round(peak / mib, 1),
        "per_run_mib": round(peak / k / mib, 1),
        "marginal_per_run_mib": round((peak - idle) / k / mib, 2),
    }


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    label, actor_factory, local_factory, question = _setup(args.model, args.tools)
    scripted = label.startswith("scripted")
    in_process = await _in_process(local_factory, question, args)
    pooled, types = await _pooled(actor_factory, question, args)
    fresh = await _fresh(actor_factory, question, args)
    rss = [await _rss(actor_factory, question, k, scripted) for k in (1, args.k)]
    medians = {
        "in_process": round(statistics.median(in_process), 3),
        "pooled": round(statistics.median(pooled), 3),
        "fresh_actor": round(statistics.median(fresh), 3),
    }
    return {
        "model": label,
        "tools": args.tools,
        "cpus": os.cpu_count(),
        "concurrency": args.concurrency,
        "runs_per_batch": {
            "in_process": args.runs,
            "pooled": args.runs,
            "fresh_actor": args.fresh_runs,
        },
        "repeats": args.repeats,
        "result_types": sorted(set(types)),
        "runs_per_s": medians,
        "runs_per_s_samples": {
            "in_process": [round(r, 3) for r in in_process],
            "pooled": [round(r, 3) for r in pooled],
            "fresh_actor": [round(r, 3) for r in fresh],
        },
        "pooled_over_fresh": round(medians["pooled"] / medians["fresh_actor"], 1),
        "goal_pooled_over_fresh": GOAL_POOLED_OVER_FRESH,
        "rss": rss,
    }


def _print_table(figures: dict[str, Any]) -> None:
    print(f"Run plane benchmark — {figures['model']}; tools: {figures['tools']}")
    print(
        f"cpus={figures['cpus']} concurrency={figures['concurrency']} "
        f"repeats={figures['repeats']} results={','.join(figures['result_types'])}"
    )
    print(f"{'mode':<14}{'runs/batch':>12}{'runs/s (median)':>18}   samples")
    for mode in ("in_process", "pooled", "fresh_actor"):
        print(
            f"{mode:<14}{figures['runs_per_batch'][mode]:>12}{figures['runs_per_s'][mode]:>18.2f}"
            f"   {figures['runs_per_s_samples'][mode]}"
        )
    ratio, goal = figures["pooled_over_fresh"], figures["goal_pooled_over_fresh"]
    verdict = "meets" if ratio >= goal else "misses"
    print(f"pooled / fresh actor = {ratio}x ({verdict} the >= {goal:g}x goal)")
    print(
        f"{'RunActor RSS':<14}{'idle MiB':>10}{'peak MiB':>10}{'peak/K':>10}{'(peak-idle)/K':>15}"
    )
    for row in figures["rss"]:
        print(
            f"{'K=' + str(row['k']):<14}{row['idle_mib']:>10}{row['peak_mib']:>10}"
            f"{row['per_run_mib']:>10}{row['marginal_per_run_mib']:>15}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=("auto", "offline", "scripted"), default="auto")
    parser.add_argument("--tools", choices=("ray", "inline"), default="ray")
    parser.add_argument("--runs", type=int, default=12, help="runs per timed batch")
    parser.add_argument("--fresh-runs", type=int, default=4, help="runs per fresh-actor batch")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=2, help="runs in flight")
    parser.add_argument("--k", type=int, default=8, help="runs per actor for the K=N RSS row")
    args = parser.parse_args()
    with local_ray(num_cpus=2):
        figures = asyncio.run(_main(args))
    _print_table(figures)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
