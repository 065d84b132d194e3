"""Run-plane benchmark: runs/s in process, on pooled RunActors and on a fresh actor per run.

Prints a readable table and, as its last line, one JSON object with the same figures.

1. Runs/s with the same deps and the same number of runs in flight (``--concurrency``):
   (a) DiagnosisRun directly in this process, (b) through a pre-warmed RunPool, (c) with a
   fresh actor started (and its deps built) for every run. Each figure is the median of
   ``--repeats`` timed batches; pooled actors are warmed before timing, fresh ones never are.
2. RSS of the RunActor process per in-flight run at K=1 and at K=N runs per actor: the
   actor's RSS sampled (psutil, by the actor's pid) while K runs are in flight; reported as
   peak/K and as (peak - idle)/K.
   And the memory of one actor while K runs (``--wait-k``, default 64 and 256) all wait on a
   model call slowed to ``--wait-s`` seconds (the SemanticGuard's: each run has made its tool
   calls, drafted and passed EvidenceGuard, so it holds all it will hold): RSS and USS before
   and while all K wait, marginal = (waiting - idle) / K. The held calls are released together
   once all K are held, after the delay; runs are admitted in waves of 16 (each once the one
   before waits), since K runs started at once on 2 cores queue their tool tasks past the tool
   timeout.
3. Runs/s with tools as Ray tasks (``--tools``, default) and, pooled, with inline tools.
4. Where an in-process run's time goes, per stage, in ms per run (``run_plane_breakdown.py``): ``--breakdown-runs`` runs
   one after the other (so that exactly one run is active) on the in-process deps with every
   port wrapped by a timer; each moment of a run is charged to the innermost stage active then
   (wall time by ``perf_counter``, CPU by ``process_time``), so the stages add up to the run's
   total and whatever no stage claims is "other". Stages: router / model adapter — each
   component's ``ModelClient.complete`` (the openai adapter, the SDK and the httpx client),
   less the model server — the offline demo model inside the in-process transport (the
   provider's share: parse, rules, JSON); backend — ``ToolExecutor.execute``; projector —
   ``ToolExecutor.project``; store — every ``CanonicalStore`` method; boundary —
   ``ToolBoundary.call`` less its backend, projector and store time; guards —
   ``ReleasePolicy.release`` (EvidenceGuard, the content checks, SemanticGuard's own code,
   rendering) less its store reads and the judge's model call; audit — sealing reasoning and
   ``AuditSink.record``; other — the rest of the run (agent loop and prompts, the router's and
   the model caller's own code, trace, budget, run orchestration); between runs — what ran
   between one run's end and the next one's start. The median batch (by total) of
   ``--repeats`` is printed, next to the same runs without the timers.

Model: the offline demo model through the openai SDK on the embedded tool plane when
``harness.adapters.openai_model`` and ``harness.adapters.embedded`` import; otherwise a
deterministic scripted diagnosis (``actors.testing.DirectedModel``) over probe tools. The
output says which. Usage: ``python benchmarks/bench_run_plane.py [--repeats 3]``;
``--breakdown-only`` prints the breakdown (4.) alone, without Ray, and its JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import functools
import importlib
import json
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

from run_plane_breakdown import measure_breakdown, print_breakdown, print_release_verdict

from actors.factory import local_ray
from actors.pool import RunPool
from harness.contracts.ingress import RunRequest
from harness.contracts.models import Component
from harness.diagnosis import DiagnosisRun, RunDeps

GOAL_POOLED_OVER_FRESH = 8.0
GOAL_MARGINAL_MIB = 2.0
GOAL_RELEASE_CPU_MS = 5.0  # the release checks' CPU per demo run, at most
WAIT_WAVE = 16


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
            from harness.embedded.demo import INCIDENT_QUESTION

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
    from harness.embedded.demo import WINDOW_END

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


async def _in_process(deps: RunDeps, question: str, args: Any) -> list[float]:
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


class _JudgeGate:
    """Holds every SemanticGuard call of an actor until ``k`` are held, then ``hold_s`` more.

    The first call (the warm-up run's) passes straight through. Lives in the actor process.
    """

    def __init__(self, k: int, hold_s: float) -> None:
        self.k = k
        self.hold_s = hold_s
        self.calls = 0
        self.held = 0
        self._all_in: asyncio.Event | None = None

    async def wait(self) -> None:
        self.calls += 1
        if self.calls == 1:
            return
        if self._all_in is None:
            self._all_in = asyncio.Event()
        self.held += 1
        if self.held >= self.k:
            self._all_in.set()
        await self._all_in.wait()
        await asyncio.sleep(self.hold_s)


@dataclasses.dataclass
class _HeldJudge:
    """A model client whose SemanticGuard calls wait at the gate (the run has done all its
    tool calls, drafted and passed EvidenceGuard: it holds everything it will hold)."""

    inner: Any
    gate: _JudgeGate

    async def complete(self, request: Any) -> Any:
        from harness.contracts.models import Component

        if request.component is Component.SEMANTIC_GUARD:
            await self.gate.wait()
        return await self.inner.complete(request)


@dataclasses.dataclass(frozen=True)
class _WaitingDeps:
    """Deps of one actor whose K runs all wait on a model slowed to ``hold_s``."""

    inner: Callable[[], RunDeps]
    k: int
    hold_s: float

    def __call__(self) -> RunDeps:
        from harness.agent.caller import ComponentSettings

        deps = self.inner()
        gate = _JudgeGate(self.k, self.hold_s)
        models = {c: _HeldJudge(m, gate) for c, m in deps.models.items()}
        # A held call lasts as long as the slowest run takes to arrive, plus the delay: the
        # call timeout is raised so that no held run gives up on its judge.
        settings = {
            c: dataclasses.replace(
                deps.component_settings.get(c, ComponentSettings()), timeout_s=600
            )
            for c in Component
        }
        return dataclasses.replace(deps, models=models, component_settings=settings)


async def _waiting_rss(
    factory: Callable[[], RunDeps], question: str, k: int, hold_s: float
) -> dict[str, Any]:
    """Memory of one actor while K runs wait on a slowed model call (the SemanticGuard's):
    RSS and USS (private pages: Ray's shared object-store mappings left out), before the K runs
    and while all K wait; marginal = (waiting - idle) / K."""
    import psutil

    from harness.run.snapshot import RunPhase

    async with RunPool(
        1, k, _WaitingDeps(factory, k, hold_s), name_prefix=f"bench-wait-k{k}"
    ) as pool:
        await pool.run(_request(question))  # warm: every lazy part of the deps is built
        process = psutil.Process(pool.actors()[0].pid)
        idle_rss, idle_uss = process.memory_info().rss, process.memory_full_info().uss
        ids: list[str] = []
        t0 = time.perf_counter()
        # Runs are admitted in waves, each once the previous one waits on its judge: K runs
        # started at once on 2 cores queue their tool tasks past the tool timeout (an overload
        # that admission control answers, not what this row measures).
        for start in range(0, k, WAIT_WAVE):
            wave = [await pool.submit(_request(question)) for _ in range(min(WAIT_WAVE, k - start))]
            ids.extend(wave)
            while True:
                phases = [(await pool.status(run_id)).phase for run_id in wave]
                if all(p in (RunPhase.RELEASING, RunPhase.DONE) for p in phases):
                    break
                await asyncio.sleep(0.1)
        arrived_s = time.perf_counter() - t0
        await asyncio.sleep(min(1.0, hold_s / 4))
        phases = [(await pool.status(run_id)).phase for run_id in ids]
        waiting = sum(p is RunPhase.RELEASING for p in phases)
        rss, uss = process.memory_info().rss, process.memory_full_info().uss
        kinds = sorted({(await pool.result(run_id)).kind for run_id in ids})
    mib = 1024 * 1024
    return {
        "k": k,
        "hold_s": hold_s,
        "waiting": waiting,
        "arrived_s": round(arrived_s, 1),
        "idle_rss_mib": round(idle_rss / mib, 1),
        "waiting_rss_mib": round(rss / mib, 1),
        "marginal_rss_mib": round((rss - idle_rss) / k / mib, 2),
        "idle_uss_mib": round(idle_uss / mib, 1),
        "waiting_uss_mib": round(uss / mib, 1),
        "marginal_uss_mib": round((uss - idle_uss) / k / mib, 2),
        "result_types": kinds,
    }


async def _breakdown_only(args: argparse.Namespace) -> dict[str, Any]:
    """The breakdown alone, on the in-process deps (inline tools)."""
    label, _, local_factory, question = _setup(args.model, "inline")
    return {
        "model": label,
        "cpus": os.cpu_count(),
        "repeats": args.repeats,
        "goal_release_cpu_ms": GOAL_RELEASE_CPU_MS,
        "breakdown": await measure_breakdown(
            local_factory(), functools.partial(_request, question), args
        ),
    }


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    label, actor_factory, local_factory, question = _setup(args.model, args.tools)
    scripted = label.startswith("scripted")
    local_deps = local_factory()
    in_process = await _in_process(local_deps, question, args)
    breakdown = await measure_breakdown(local_deps, functools.partial(_request, question), args)
    pooled, types = await _pooled(actor_factory, question, args)
    fresh = await _fresh(actor_factory, question, args)
    pooled_inline, _ = await _pooled(local_factory, question, args)  # inline-tools deps
    rss = [await _rss(actor_factory, question, k, scripted) for k in (1, args.k)]
    waiting = [await _waiting_rss(actor_factory, question, k, args.wait_s) for k in args.wait_k]
    medians = {
        "in_process": round(statistics.median(in_process), 3),
        "pooled": round(statistics.median(pooled), 3),
        "pooled_inline_tools": round(statistics.median(pooled_inline), 3),
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
            "pooled_inline_tools": args.runs,
            "fresh_actor": args.fresh_runs,
        },
        "repeats": args.repeats,
        "result_types": sorted(set(types)),
        "runs_per_s": medians,
        "runs_per_s_samples": {
            "in_process": [round(r, 3) for r in in_process],
            "pooled": [round(r, 3) for r in pooled],
            "pooled_inline_tools": [round(r, 3) for r in pooled_inline],
            "fresh_actor": [round(r, 3) for r in fresh],
        },
        "pooled_over_fresh": round(medians["pooled"] / medians["fresh_actor"], 1),
        # The same runs on pooled RunActors (tools as --tools says) against this process,
        # measured in this run: Ray's hops cost, two cores gain.
        "pooled_over_in_process": round(medians["pooled"] / medians["in_process"], 2),
        "pooled_inline_over_in_process": round(
            medians["pooled_inline_tools"] / medians["in_process"], 2
        ),
        "goal_release_cpu_ms": GOAL_RELEASE_CPU_MS,
        "goal_pooled_over_fresh": GOAL_POOLED_OVER_FRESH,
        "rss": rss,
        "waiting_rss": waiting,
        "breakdown": breakdown,
    }


def _print_table(figures: dict[str, Any]) -> None:
    print(f"Run plane benchmark — {figures['model']}; tools: {figures['tools']}")
    print(
        f"cpus={figures['cpus']} concurrency={figures['concurrency']} "
        f"repeats={figures['repeats']} results={','.join(figures['result_types'])}"
    )
    print(f"{'mode':<14}{'runs/batch':>12}{'runs/s (median)':>18}   samples")
    for mode in ("in_process", "pooled", "pooled_inline_tools", "fresh_actor"):
        print(
            f"{mode:<14}{figures['runs_per_batch'][mode]:>12}{figures['runs_per_s'][mode]:>18.2f}"
            f"   {figures['runs_per_s_samples'][mode]}"
        )
    ratio, goal = figures["pooled_over_fresh"], figures["goal_pooled_over_fresh"]
    verdict = "meets" if ratio >= goal else "misses"
    print(f"pooled / fresh actor = {ratio}x ({verdict} the >= {goal:g}x goal)")
    print(
        f"pooled / in process = {figures['pooled_over_in_process']}x "
        f"(inline tools: {figures['pooled_inline_over_in_process']}x), same run"
    )
    print(
        f"{'RunActor RSS':<14}{'idle MiB':>10}{'peak MiB':>10}{'peak/K':>10}{'(peak-idle)/K':>15}"
    )
    for row in figures["rss"]:
        print(
            f"{'K=' + str(row['k']):<14}{row['idle_mib']:>10}{row['peak_mib']:>10}"
            f"{row['per_run_mib']:>10}{row['marginal_per_run_mib']:>15}"
        )
    if figures["waiting_rss"]:
        print(
            f"RunActor memory with every run waiting on a model slowed to "
            f"{figures['waiting_rss'][0]['hold_s']:g} s (goal: marginal <= {GOAL_MARGINAL_MIB} MiB/run)"
        )
        print(
            f"{'runs':<10}{'waiting':>8}{'idle RSS':>10}{'RSS':>8}{'marginal':>10}"
            f"{'idle USS':>10}{'USS':>8}{'marginal':>10}  MiB"
        )
        for row in figures["waiting_rss"]:
            print(
                f"{'K=' + str(row['k']):<10}{row['waiting']:>8}{row['idle_rss_mib']:>10}"
                f"{row['waiting_rss_mib']:>8}{row['marginal_rss_mib']:>10}"
                f"{row['idle_uss_mib']:>10}{row['waiting_uss_mib']:>8}{row['marginal_uss_mib']:>10}"
                f"  ({','.join(row['result_types'])}; all in after {row['arrived_s']} s)"
            )
    print_breakdown(figures["breakdown"])
    print_release_verdict(figures)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=("auto", "offline", "scripted"), default="auto")
    parser.add_argument("--tools", choices=("ray", "inline"), default="ray")
    parser.add_argument("--runs", type=int, default=12, help="runs per timed batch")
    parser.add_argument("--fresh-runs", type=int, default=4, help="runs per fresh-actor batch")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=2, help="runs in flight")
    parser.add_argument("--k", type=int, default=8, help="runs per actor for the K=N RSS row")
    parser.add_argument(
        "--wait-k",
        type=int,
        nargs="*",
        default=[64, 256],
        help="runs per actor for the rows where every run waits on a slowed model",
    )
    parser.add_argument("--wait-s", type=float, default=10.0, help="the slowed model's delay")
    parser.add_argument(
        "--breakdown-runs", type=int, default=8, help="sequential runs per breakdown batch"
    )
    parser.add_argument(
        "--breakdown-only",
        action="store_true",
        help="only the per-stage breakdown (4.), in process, without Ray: the release checks' "
        "figure in a few seconds",
    )
    args = parser.parse_args()
    if args.breakdown_only:
        figures = asyncio.run(_breakdown_only(args))
        print_breakdown(figures["breakdown"])
        print_release_verdict(figures)
        print(json.dumps(figures))
        return
    with local_ray(num_cpus=2):
        figures = asyncio.run(_main(args))
    _print_table(figures)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
