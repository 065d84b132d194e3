"""Open-loop load on the slowed deployment (part 3 of ``bench_serve.py``): the rate of
independent arrivals the API sustains, and the harness overhead per run at rates below it.

A level is Poisson arrivals of async creates at a set rate for ``--open-duration-s``, each sent
at its instant whatever the state of the earlier ones (``open_loop.py``). Per level: rate
offered and sent, runs ended per second, runs in flight at the desk (mean and peak), failures
(429s, other answers, runs not released, tool calls not READY) and the harness overhead per run
(p50/p99): from the instant the client sent the request to the run's last event, less its model
calls x ``--delay-s``. The capacity is the highest rate measured to hold (p99 <= ``--limit-s``
and no failure), found by doubling from a start rate and bisecting
(``open_loop.find_capacity``), at most ``--search-steps`` levels; then levels at the shares of
it in ``--open-levels``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import httpx
from open_loop import Level, find_capacity, percentile, poisson_arrivals
from ray_processes import CpuMeter
from serve_api import Api, api_client, create, verdict
from serve_runs import Sampler, classify, collect_runs, drained

from harness.diagnosis import RunDeps

__all__ = ["measure_floor", "measure_open_loop", "print_open_loop"]

_FLOOR_DELAY_S = 0.2
"""The model's delay in the floor's runs: the floor is what a run spends outside its model
calls, which the delay's length does not change; a short one keeps the measure short."""


async def _open_level(api: Api, rate: float, args: argparse.Namespace, seed: int) -> Level:
    """Poisson arrivals at ``rate`` for ``--open-duration-s``, each an async create sent at its
    instant whatever the earlier ones' state; once every admitted run ended, their overheads.

    A run's overhead is from the instant the client sent its request to the run's last event,
    less its model calls x the model's delay. A rejected submission (429, other status,
    transport failure), a run that did not release its result and a tool call that was not
    READY are failures: a level with one does not hold, whatever its p99.
    """
    arrivals = poisson_arrivals(rate, args.open_duration_s, seed)
    sampler = Sampler(api, args.sample_s, memory=False)
    sent: dict[str, datetime] = {}
    lateness: list[float] = []
    async with api_client(api, args.open_connections) as client:

        async def arrive(i: int, at: float) -> httpx.Response | BaseException:
            await asyncio.sleep(max(0.0, at - (time.perf_counter() - t0)))
            lateness.append(time.perf_counter() - t0 - at)
            at_wall = datetime.now(UTC)
            response = await create(client, i)
            if isinstance(response, httpx.Response) and response.status_code in (200, 202):
                sent[response.json()["run_id"]] = at_wall
            return response

        sampler.start()
        with CpuMeter() as cpu:
            t0 = time.perf_counter()
            answers = await asyncio.gather(*(arrive(i, at) for i, at in enumerate(arrivals)))
            arriving_s = time.perf_counter() - t0
            in_flight = list(sampler.desk_samples)
            await drained(sampler, args.drain_timeout_s, poll_s=0.5)
        await sampler.stop()
        views = await collect_runs(client, list(sent), args, sent)
    classes = Counter(classify(a) for a in answers)
    rejected = sum(c for k, c in classes.items() if k != "accepted")
    released = [v for v in views if v["outcome"].startswith("released")]
    failed_runs = len(views) - len(released)
    tool_errors = sum(1 for v in views for t in v["tools"] if t != "READY")
    overheads = [
        v["overhead_from_send_s"] for v in released if v["overhead_from_send_s"] is not None
    ]
    ends = sorted(v["ended"] for v in released if v["ended"] is not None)
    # Runs ended per second while they ended: the offered rate when the system keeps up,
    # less when a backlog stretches the span past the arrivals'.
    completed_per_s = (
        (len(ends) - 1) / (ends[-1] - ends[0]).total_seconds()
        if len(ends) > 1 and ends[-1] > ends[0]
        else float("nan")
    )
    p99 = percentile(overheads, 99)
    figures = {
        "rate": round(rate, 2),
        "arrivals": len(arrivals),
        "sent_per_s": round(len(arrivals) / arriving_s, 2),
        "completed_per_s": round(completed_per_s, 2),
        "in_flight_mean": round(statistics.fmean(in_flight), 1) if in_flight else None,
        "in_flight_peak": max(in_flight, default=0),
        "answers": dict(sorted(classes.items())),
        "rejected": rejected,
        "failed_runs": failed_runs,
        "tool_errors": tool_errors,
        "fallback_runs": sum(1 for v in released if v["outcome"] == "released SafeFallback"),
        "overhead_p50_ms": round(1000 * percentile(overheads, 50), 1),
        "overhead_p99_ms": round(1000 * p99, 1),
        "overhead_max_ms": round(1000 * max(overheads, default=float("nan")), 1),
        "send_lateness_p99_ms": round(1000 * percentile(lateness, 99), 1),
        "tool_slot_wait_p99_ms": round(
            percentile([w for v in views for w in v["tool_queue_waits_ms"]], 99), 1
        ),
        "ray_cpu_ms_per_run": round(1000 * cpu.ray_s / max(len(sent), 1), 1),
        "driver_cpu_ms_per_run": round(1000 * cpu.own_s / max(len(arrivals), 1), 1),
        "cores_busy": round((cpu.ray_s + cpu.own_s) / cpu.wall_s, 2),
        "wall_s": round(cpu.wall_s, 1),
    }
    level = Level(
        rate=rate,
        overhead_p99_s=p99 if overheads else float("nan"),
        failed=rejected + failed_runs + tool_errors,
        figures=figures,
    )
    print(
        f"  open loop {rate:.2f}/s: p99 overhead {figures['overhead_p99_ms']} ms, "
        f"failed {level.failed}, in flight peak {figures['in_flight_peak']}"
        f" -> {'holds' if level.holds(args.limit_s) else 'breaks'}",
        flush=True,
    )
    return level


async def measure_floor(slowed: Callable[[float], RunDeps], runs: int) -> dict[str, Any]:
    """The overhead of a run alone, in this process, on the same slowed model: from its start
    to its result, less its model calls x the delay. Nothing queues and nothing crosses a
    process, so no level's p50 through HTTP can be lower: the run's own CPU (the checks, the
    tools, the stand-in model's compute, which the overhead counts as the harness's) is in it.

    Args:
        slowed: Builds the in-process deps (inline tools) whose model calls sleep the delay.
        runs: Runs measured, one after the other, after one warm-up run.
    """
    from harness.contracts.ingress import RunRequest
    from harness.diagnosis import DiagnosisRun
    from harness.embedded.demo import INCIDENT_QUESTION, WINDOW_END

    deps = slowed(_FLOOR_DELAY_S)
    request = RunRequest(question=INCIDENT_QUESTION, as_of=WINDOW_END, deadline_s=300)
    overheads: list[float] = []
    cpus: list[float] = []
    for n in range(runs + 1):
        run = DiagnosisRun(request, deps)
        wall0, cpu0 = time.perf_counter(), time.process_time()
        await run.execute()
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        calls = run.snapshot().model_calls or 0
        if n:  # the first run warms caches
            overheads.append(wall - calls * _FLOOR_DELAY_S)
            cpus.append(cpu)
    return {
        "runs": runs,
        "delay_s": _FLOOR_DELAY_S,
        "overhead_p50_ms": round(1000 * statistics.median(overheads), 1),
        "overhead_min_ms": round(1000 * min(overheads), 1),
        "cpu_ms_per_run": round(1000 * statistics.median(cpus), 1),
    }


async def measure_open_loop(
    api: Api, args: argparse.Namespace, start_rate: float
) -> dict[str, Any]:
    """The capacity (the highest rate measured to hold: p99 overhead within ``--limit-s``, no
    failure), found by a short search from ``start_rate``; then levels at fractions of it."""
    seeds = iter(range(args.seed, args.seed + 1000))

    async def measure(rate: float) -> Level:
        return await _open_level(api, rate, args, next(seeds))

    search = await find_capacity(
        measure, start_rate=start_rate, limit_s=args.limit_s, max_steps=args.search_steps
    )
    capacity = search.held
    levels: dict[str, Any] = {}
    if capacity > 0:
        for share in args.open_levels:
            level = await measure(share * capacity)
            levels[f"{round(100 * share)}%"] = {
                **level.figures,
                "holds": level.holds(args.limit_s),
            }
    return {
        "delay_s": args.delay_s,
        "duration_s": args.open_duration_s,
        "limit_ms": 1000 * args.limit_s,
        "start_rate": round(start_rate, 2),
        "capacity_per_s": round(capacity, 2),
        "broke_at_per_s": None if search.broke is None else round(search.broke, 2),
        "search": [{**lv.figures, "holds": lv.holds(args.limit_s)} for lv in search.levels],
        "levels": levels,
    }


def print_open_loop(f: dict[str, Any]) -> None:
    """Part 3 of the table: the search's levels, those at shares of the capacity, the capacity
    and the verdict at half of it."""
    o = f["open_loop"]
    bp = f["burst_pool"]
    print(
        f"3. Open-loop load: Poisson arrivals of async creates for {o['duration_s']:g} s per "
        f"level, every model call slowed to {o['delay_s']:g} s; pool {bp['size']} actors x "
        f"{bp['runs_per_actor']}. Overhead: from sending the request to the run's last event, "
        f"less model calls x delay. A level holds when its p99 <= {o['limit_ms']:g} ms and "
        f"nothing failed (429, error, run not released, tool call not READY)."
    )
    header = (
        f"  {'level':<9}{'rate/s':>8}{'sent/s':>8}{'done/s':>8}{'in flight':>11}"
        f"{'failed':>8}{'p50 ms':>9}{'p99 ms':>9}{'late p99':>10}{'Ray CPU':>9}{'cores':>7}"
    )

    def row(name: str, lv: dict[str, Any]) -> str:
        failed = lv["rejected"] + lv["failed_runs"] + lv["tool_errors"]
        return (
            f"  {name:<9}{lv['rate']:>8.2f}{lv['sent_per_s']:>8.2f}{lv['completed_per_s']:>8.2f}"
            f"{str(lv['in_flight_mean']) + '/' + str(lv['in_flight_peak']):>11}{failed:>8}"
            f"{lv['overhead_p50_ms']:>9.0f}{lv['overhead_p99_ms']:>9.0f}"
            f"{lv['send_lateness_p99_ms']:>10.0f}{lv['ray_cpu_ms_per_run']:>9.1f}"
            f"{lv['cores_busy']:>7.2f}  {'holds' if lv['holds'] else 'breaks'}"
        )

    print(header + "   (in flight: mean/peak at the desk; late: sender behind schedule)")
    for i, lv in enumerate(o["search"]):
        print(row(f"search {i + 1}", lv))
    for name, lv in o["levels"].items():
        print(row(f"{name} cap", lv))
    print(
        "  tool slot wait p99 (ms) by level: "
        + ", ".join(f"{lv['rate']:.2f}/s {lv['tool_slot_wait_p99_ms']}" for lv in o["search"])
        + " | "
        + ", ".join(f"{name} {lv['tool_slot_wait_p99_ms']}" for name, lv in o["levels"].items())
    )
    print(
        f"  capacity {o['capacity_per_s']} runs/s (highest rate that held; lowest that broke: "
        f"{o['broke_at_per_s']}); Ray CPU in ms per run admitted, cores = Ray processes and "
        f"this client over the level"
    )
    goal = f["goals"]["overhead_p99_ms"]
    floor = f.get("open_loop_floor")
    if floor is not None:
        print(
            f"  floor: a run alone in process on the same slowed model spends "
            f"{floor['overhead_p50_ms']} ms outside its model calls (p50 of {floor['runs']}; "
            f"min {floor['overhead_min_ms']}; its CPU {floor['cpu_ms_per_run']} ms): no level's "
            f"p50 is lower; the p99 goal is {goal:g} ms"
        )
    half = o["levels"].get("50%")
    if half is not None:
        print(
            f"  overhead p99 at 50% of capacity {half['overhead_p99_ms']} ms: "
            f"{verdict(half['overhead_p99_ms'] <= goal)} <= {goal:g} ms"
        )
