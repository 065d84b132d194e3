"""HTTP API benchmark: diagnoses/s through Ray Serve beside the same runs in process; bursts
and open-loop load against a model slowed to 10 s per call.

Prints a readable table and, as its last line, one JSON object with the same figures.

1. Throughput (this module). The demo question ("Why does checkout-api return HTTP 500 since
   14:05?") on the offline demo model (openai SDK) and the embedded tool plane, ``--runs`` runs
   per batch with ``--clients`` concurrent clients, median of ``--repeats`` batches:
   (a) through HTTP: ``POST /v1/diagnoses`` with ``wait`` from an httpx client (keep-alive,
   one connection per client) to a Serve deployment (``serve.deployment.start``; tools as Ray
   tasks, the production default, and then, with ``--tools both`` (the default), a second
   deployment whose RunActors run the tools inline); (b) in process: ``DiagnosisRun`` in this process on the
   same deps with inline tools and the same concurrency. Latency p50/p99 per request. CPU per
   run: the CPU time (user + system) of every Ray process (the driver's descendants: GCS,
   raylet, Serve's controller and proxy, the replica, the desk, RunActors, tool workers)
   over the batch, divided by its runs, beside this process's own (the HTTP client).
   Batches come in pairs, in process then HTTP right after (the load of a shared machine
   drifts by the minute); the ratios HTTP / in process (Ray CPU per run over the in-process
   run's, all CPU on both sides, runs/s) are medians over the pairs, next to their goals.
2. Bursts (``serve_bursts.py``). A second deployment whose every model call first sleeps
   ``--delay-s`` (default 10 s) inside the RunActor; ``--burst`` (default 1,000) and then
   ``--overload`` (default 2,000) async submissions (``POST /v1/diagnoses`` without ``wait``)
   from ``--burst-clients`` concurrent connections. For each burst: answers by class (202,
   429s, other statuses, transport failures), peak runs in flight at the desk and in the
   RunActors, sampled every ``--sample-s``, memory per run in flight and, once every admitted
   run ended, their outcomes and the harness overhead per run over the model's sleep.

3. Open-loop load (``serve_open_loop.py``; ``--open 1``, the default): on the slowed
   deployment, before the bursts, Poisson arrivals of async creates at a set rate for
   ``--open-duration-s`` (default 60 s) per level. The capacity is the highest rate measured
   to hold (p99 overhead <= ``--limit-s``, default 1 s, and no failure), found by doubling
   from ``--start-rate`` (default half the closed-loop HTTP runs/s) and bisecting, at most
   ``--search-steps`` levels; then levels at 25 %, 50 % and 80 % of it (``--open-levels``).

The bursts (2.) stay the figure for runs in flight and 429s: every run of a burst wants the
CPU at the same instants (a phase-locked queue), which open-loop arrivals do not.

The three parts share ``serve_api.py`` (a deployment of the API and its client) and
``ray_processes.py`` (CPU and memory of the Ray processes); 2. and 3. share ``serve_runs.py``
(async runs observed: runs in flight, answers by class, each run's outcome and overhead).

``--quick`` shrinks everything to a few minutes: 1 s model calls, 10 s levels, 4 search steps.

Usage: ``python benchmarks/bench_serve.py [--quick]`` from the repository root (Ray workers
import the project from the driver's working directory).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import statistics
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

from open_loop import percentile
from ray_processes import CpuMeter
from serve_api import (
    Api,
    api_client,
    deploy,
    diagnosis_body,
    free_port,
    undeploy,
    verdict,
    warm,
)
from serve_bursts import measure_burst, print_bursts
from serve_open_loop import measure_floor, measure_open_loop, print_open_loop

from actors.deps import EmbeddedDepsFactory
from actors.factory import local_ray
from harness.contracts.ingress import RunRequest
from harness.contracts.models import Component, ModelReply, ModelRequest
from harness.diagnosis import DiagnosisRun, RunDeps
from harness.embedded.demo import INCIDENT_QUESTION, WINDOW_END

GOAL_RUNS_PER_S = 20.0
GOAL_IN_FLIGHT = 1000
GOAL_OVERHEAD_P99_MS = 100.0
GOAL_CPU_RATIO = 1.5  # Ray CPU per HTTP run over in-process CPU per run, at most
GOAL_RATE_RATIO = 1.2  # HTTP runs/s over in-process runs/s, at least


# ---------------------------------------------------------------- the slowed model


@dataclasses.dataclass
class _SlowedModel:
    """A model client whose every call first sleeps ``delay_s`` (a slow provider)."""

    inner: Any
    delay_s: float

    async def complete(self, request: ModelRequest) -> ModelReply:
        await asyncio.sleep(self.delay_s)
        reply: ModelReply = await self.inner.complete(request)
        return reply


@dataclasses.dataclass(frozen=True)
class SlowedDeps:
    """Deps whose model calls each sleep ``delay_s`` first; component timeouts raised above it
    (pickled by value to the RunActors, since this module runs as ``__main__``)."""

    inner: Callable[[], RunDeps]
    delay_s: float

    def __call__(self) -> RunDeps:
        from harness.agent.caller import ComponentSettings

        deps = self.inner()
        models = {c: _SlowedModel(m, self.delay_s) for c, m in deps.models.items()}
        settings = {
            c: dataclasses.replace(
                deps.component_settings.get(c, ComponentSettings()),
                timeout_s=self.delay_s + 60.0,
            )
            for c in Component
        }
        return dataclasses.replace(deps, models=models, component_settings=settings)


# ---------------------------------------------------------------- 1. throughput


async def _timed_batch(
    one: Callable[[int], Awaitable[str]], runs: int, concurrency: int
) -> dict[str, Any]:
    gate = asyncio.Semaphore(concurrency)
    latencies: list[float] = []

    async def guarded(n: int) -> str:
        async with gate:
            t0 = time.perf_counter()
            kind = await one(n)
            latencies.append(time.perf_counter() - t0)
            return kind

    with CpuMeter() as cpu:
        kinds = await asyncio.gather(*(guarded(n) for n in range(runs)))
    return {
        "runs_per_s": runs / cpu.wall_s,
        "p50_ms": 1000 * percentile(latencies, 50),
        "p99_ms": 1000 * percentile(latencies, 99),
        "ray_cpu_ms_per_run": 1000 * cpu.ray_s / runs,
        "driver_cpu_ms_per_run": 1000 * cpu.own_s / runs,
        "ray_cpu_ms_per_run_by_process": {
            role: round(1000 * seconds / runs, 1) for role, seconds in cpu.by_role.most_common()
        },
        "kinds": dict(Counter(kinds)),
    }


def _median_batch(batches: list[dict[str, Any]]) -> dict[str, Any]:
    median = sorted(batches, key=lambda b: b["runs_per_s"])[len(batches) // 2]
    return {
        **{k: round(v, 2) if isinstance(v, float) else v for k, v in median.items()},
        "runs_per_s_samples": [round(b["runs_per_s"], 2) for b in batches],
    }


async def _paired_throughput(
    api: Api, local: Callable[[int], Awaitable[str]], args: argparse.Namespace
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``--repeats`` pairs of batches, each an in-process batch then an HTTP one right after:
    (HTTP batches, in-process batches). On a shared machine the load drifts from minute to
    minute; a ratio of two batches a few seconds apart sees (nearly) the same load."""
    async with api_client(api, args.clients) as client:

        async def one(n: int) -> str:
            response = await client.post(
                "/v1/diagnoses",
                json=diagnosis_body(INCIDENT_QUESTION, wait=True, deadline_s=120, n=n),
            )
            if response.status_code != 200:
                return f"http {response.status_code}"
            result = response.json().get("result") or {}
            return str(result.get("kind"))

        await _timed_batch(one, args.clients, args.clients)  # warm: connections, actor caches
        https, locals_ = [], []
        for _ in range(args.repeats):
            locals_.append(await _timed_batch(local, args.runs, args.clients))
            https.append(await _timed_batch(one, args.runs, args.clients))
    return https, locals_


async def _in_process_runner() -> Callable[[int], Awaitable[str]]:
    """One in-process run on inline-tool deps built once (warmed, like a warm actor)."""
    deps = EmbeddedDepsFactory(tool_execution="inline")()
    request = RunRequest(question=INCIDENT_QUESTION, as_of=WINDOW_END, deadline_s=120)

    async def one(n: int) -> str:
        return str((await DiagnosisRun(request, deps).execute()).kind)

    for n in range(4):
        await one(n)
    return one


async def _throughput(args: argparse.Namespace, figures: dict[str, Any]) -> None:
    local = await _in_process_runner()
    local_batches: list[dict[str, Any]] = []
    figures["ratios"] = {}
    for row, tools in _http_rows(args.tools):
        api = await asyncio.to_thread(
            deploy,
            args,
            EmbeddedDepsFactory(tool_execution=tools),
            tag="fast",
            size=args.pool_size,
            k=args.runs_per_actor,
        )
        try:
            https, locals_ = await _paired_throughput(api, local, args)
        finally:
            await asyncio.to_thread(undeploy, api)
        figures[row] = _median_batch(https)
        figures["ratios"][row] = _ratios(https, locals_)
        local_batches.extend(locals_)
    figures["in_process"] = _median_batch(local_batches)


def _ratios(https: list[dict[str, Any]], locals_: list[dict[str, Any]]) -> dict[str, Any]:
    """Each HTTP batch against the in-process batch just before it, medians over the pairs:
    CPU per run (the Ray processes' over this process's, the runs' own; and all CPU either
    caused, client and Ray processes included) and runs/s."""

    def ratios(http: dict[str, Any], local: dict[str, Any]) -> dict[str, float]:
        return {
            "ray_cpu_over_in_process_cpu": http["ray_cpu_ms_per_run"]
            / local["driver_cpu_ms_per_run"],
            "all_cpu_over_in_process_all_cpu": (
                http["ray_cpu_ms_per_run"] + http["driver_cpu_ms_per_run"]
            )
            / (local["ray_cpu_ms_per_run"] + local["driver_cpu_ms_per_run"]),
            "runs_per_s_over_in_process": http["runs_per_s"] / local["runs_per_s"],
        }

    pairs = [ratios(h, lo) for h, lo in zip(https, locals_, strict=True)]
    return {
        **{key: round(statistics.median([p[key] for p in pairs]), 2) for key in pairs[0]},
        "pairs": [{k: round(v, 2) for k, v in p.items()} for p in pairs],
    }


def _http_rows(tools: str) -> list[tuple[str, str]]:
    """(figures key, tool execution) of each HTTP throughput row: ``http`` is the first."""
    if tools == "both":
        return [("http", "ray"), ("http_inline", "inline")]
    return [("http", tools)]


# ---------------------------------------------------------------- main


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    figures: dict[str, Any] = {
        "cpus": os.cpu_count(),
        "load_avg_1m_at_start": round(os.getloadavg()[0], 2),
        "model": "offline demo model (openai SDK) + embedded tool plane",
        "question": INCIDENT_QUESTION,
        "clients": args.clients,
        "runs_per_batch": args.runs,
        "repeats": args.repeats,
        "pool": {"size": args.pool_size, "runs_per_actor": args.runs_per_actor},
        "tools": args.tools,
        "goals": {
            "http_runs_per_s": GOAL_RUNS_PER_S,
            "peak_in_flight": GOAL_IN_FLIGHT,
            "errors": 0,
            "overhead_p99_ms": GOAL_OVERHEAD_P99_MS,
            "ray_cpu_over_in_process_cpu": GOAL_CPU_RATIO,
            "runs_per_s_over_in_process": GOAL_RATE_RATIO,
        },
    }
    args.port = args.port or free_port()
    if args.runs:
        await _throughput(args, figures)
    if not args.burst and not args.open:
        return figures
    slowed = SlowedDeps(
        EmbeddedDepsFactory(tool_execution=_http_rows(args.tools)[0][1]), args.delay_s
    )
    api = await asyncio.to_thread(
        deploy, args, slowed, tag="burst", size=args.burst_pool_size, k=args.burst_runs_per_actor
    )
    figures["burst_pool"] = {
        "size": args.burst_pool_size,
        "runs_per_actor": args.burst_runs_per_actor,
        "max_waiting": args.max_waiting,
        "delay_s": args.delay_s,
        "burst_clients": args.burst_clients,
    }
    try:
        await warm(api, args.warm_runs)
        if args.open:
            # The search starts at half the closed-loop HTTP throughput, when measured.
            start = args.start_rate or (
                figures["http"]["runs_per_s"] / 2 if "http" in figures else 2.0
            )
            figures["open_loop"] = await measure_open_loop(api, args, start)
            if args.floor_runs:
                figures["open_loop_floor"] = await measure_floor(
                    lambda delay_s: SlowedDeps(
                        EmbeddedDepsFactory(tool_execution="inline"), delay_s
                    )(),
                    args.floor_runs,
                )
        if args.burst:
            figures["burst"] = await measure_burst(api, args.burst, args)
        if args.burst and args.overload:
            figures["overload"] = await measure_burst(api, args.overload, args)
    finally:
        await asyncio.to_thread(undeploy, api)
    return figures


def _print_table(f: dict[str, Any]) -> None:
    print(f"Serve benchmark — {f['model']}; cpus={f['cpus']} load(1m)={f['load_avg_1m_at_start']}")
    if "http" in f:
        _print_throughput(f)
    if "open_loop" in f:
        print_open_loop(f)
    if "burst" not in f:
        return
    print_bursts(f)


def _print_throughput(f: dict[str, Any]) -> None:
    print(
        f"1. Throughput: {f['runs_per_batch']} runs/batch, {f['clients']} concurrent clients, "
        f"median of {f['repeats']}; pool {f['pool']['size']} actors x {f['pool']['runs_per_actor']}; "
        f"tools over HTTP: {f['tools']} (http: {_http_rows(f['tools'])[0][1]}), in process: inline"
    )
    print(
        f"{'mode':<12}{'runs/s':>8}{'p50 ms':>9}{'p99 ms':>9}{'Ray CPU ms/run':>16}"
        f"{'driver CPU ms/run':>19}   samples, results"
    )
    for mode in ("http", "http_inline", "in_process"):
        if mode not in f:
            continue
        row = f[mode]
        print(
            f"{mode:<12}{row['runs_per_s']:>8.2f}{row['p50_ms']:>9.0f}{row['p99_ms']:>9.0f}"
            f"{row['ray_cpu_ms_per_run']:>16.1f}{row['driver_cpu_ms_per_run']:>19.1f}"
            f"   {row['runs_per_s_samples']} {row['kinds']}"
        )
    for mode in ("http", "http_inline"):
        if mode in f:
            print(f"{mode}: Ray CPU ms/run by process: {f[mode]['ray_cpu_ms_per_run_by_process']}")
    goal = f["goals"]["http_runs_per_s"]
    print(f"HTTP {verdict(f['http']['runs_per_s'] >= goal)} the >= {goal:g} diagnoses/s goal")
    for mode, r in f.get("ratios", {}).items():
        cpu, rate = r["ray_cpu_over_in_process_cpu"], r["runs_per_s_over_in_process"]
        print(
            f"{mode} / in process, median of {len(r['pairs'])} adjacent pairs: Ray CPU per run "
            f"{cpu}x the in-process run's "
            f"({verdict(cpu <= GOAL_CPU_RATIO)} <= {GOAL_CPU_RATIO:g}x; all CPU, client and "
            f"Ray processes on both sides: {r['all_cpu_over_in_process_all_cpu']}x), "
            f"runs/s {rate}x ({verdict(rate >= GOAL_RATE_RATIO)} >= {GOAL_RATE_RATIO:g}x)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a small smoke run")
    parser.add_argument(
        "--tools",
        choices=("ray", "inline", "both"),
        default="both",
        help="tool execution of the RunActors over HTTP (both: a Ray-task row, then an inline one)",
    )
    parser.add_argument(
        "--runs", type=int, default=60, help="runs per throughput batch (0: bursts only)"
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--clients", type=int, default=8, help="concurrent HTTP clients")
    parser.add_argument("--pool-size", type=int, default=2, help="RunActors (throughput)")
    parser.add_argument("--runs-per-actor", type=int, default=8, help="K (throughput)")
    parser.add_argument("--burst", type=int, default=1000, help="0: no bursts")
    parser.add_argument("--overload", type=int, default=2000, help="0: no overload burst")
    parser.add_argument("--burst-clients", type=int, default=100)
    parser.add_argument("--burst-pool-size", type=int, default=4)
    parser.add_argument("--burst-runs-per-actor", type=int, default=256)
    parser.add_argument(
        "--max-waiting",
        type=int,
        default=64,
        help="runs that may wait for a slot in the burst pool (admission control)",
    )
    parser.add_argument("--delay-s", type=float, default=10.0, help="the slowed model's delay")
    parser.add_argument(
        "--warm-runs", type=int, default=8, help="waited runs before the bursts (warm-up)"
    )
    parser.add_argument(
        "--drain-timeout-s", type=float, default=900.0, help="longest wait for a burst to end"
    )
    parser.add_argument("--sample-s", type=float, default=0.5)
    parser.add_argument(
        "--open", type=int, default=1, help="open-loop load levels and capacity (0: none)"
    )
    parser.add_argument(
        "--open-duration-s", type=float, default=60.0, help="arrivals per open-loop level"
    )
    parser.add_argument(
        "--limit-s", type=float, default=1.0, help="p99 overhead past which a level breaks"
    )
    parser.add_argument("--search-steps", type=int, default=6, help="levels the search may try")
    parser.add_argument(
        "--start-rate", type=float, default=0.0, help="first rate tried (default: half HTTP runs/s)"
    )
    parser.add_argument(
        "--open-levels",
        type=float,
        nargs="*",
        default=[0.25, 0.5, 0.8],
        help="shares of the capacity measured after the search",
    )
    parser.add_argument("--open-connections", type=int, default=64)
    parser.add_argument(
        "--floor-runs",
        type=int,
        default=8,
        help="runs alone in process measuring the overhead's floor (after the open loop; 0: none)",
    )
    parser.add_argument("--seed", type=int, default=40, help="first Poisson schedule's seed")
    parser.add_argument("--replicas", type=int, default=1)
    parser.add_argument("--max-ongoing", type=int, default=1000)
    parser.add_argument("--max-queued", type=int, default=1000)
    parser.add_argument("--redis-url", default=None, help="rate counters; default in-process")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    if args.quick:
        args.runs, args.repeats, args.clients = 8, 1, 4
        args.pool_size, args.runs_per_actor = 1, 4
        # One actor of 128 slots: room for the open-loop levels' runs in flight (rate x ~6 s);
        # the overload burst passes 128 + 8 to draw 429s.
        args.burst, args.overload, args.burst_clients = 60, 200, 20
        args.burst_pool_size, args.burst_runs_per_actor, args.max_waiting = 1, 128, 8
        args.delay_s = 1.0
        args.open_duration_s, args.search_steps = 10.0, 4
    with local_ray(num_cpus=2):
        figures = asyncio.run(_main(args))
    _print_table(figures)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
