"""Bursts of async submissions against a model slowed to ``--delay-s`` per call (part 2 of
``bench_serve.py``): how many runs the pool holds in flight, what it answers beyond them, and
what a run costs over the model's sleep when all of them want the CPU at the same instants.

A burst is ``n`` async submissions (``POST /v1/diagnoses`` without ``wait``) from
``--burst-clients`` concurrent connections. For each burst: answers by class (accepted 202, 429
with an OVERLOADED or RATE_LIMITED body and ``Retry-After``, other 4xx, 5xx, transport
failures: resets, timeouts); peak runs in flight as the run desk counts them (its ``ping``:
placed and running, not yet terminal) and as the RunActors host them (sum of their
``ping().active``), sampled every ``--sample-s``; memory of the Ray processes (RSS and USS
summed) idle before the burst and at the peak, (peak - idle) / runs in flight; once every
admitted run ended, their outcomes (released result kinds, failures by code) and the harness
overhead per run: from the run's submission (``created_at``) to its last timeline event, less
the model's sleep (``model_calls`` × delay).
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections import Counter
from typing import Any

import httpx
from open_loop import percentile
from ray_processes import CpuMeter, ray_memory
from serve_api import Api, api_client, create, verdict
from serve_runs import Sampler, classify, collect_runs, drained

__all__ = ["measure_burst", "print_bursts"]

_MIB = 1024 * 1024


async def measure_burst(api: Api, n: int, args: argparse.Namespace) -> dict[str, Any]:
    """One burst of ``n`` async submissions, sampled while it runs; its figures once every
    admitted run ended (or ``--drain-timeout-s`` passed)."""
    sampler = Sampler(api, args.sample_s)
    idle_rss, idle_uss = await asyncio.to_thread(ray_memory)
    async with api_client(api, args.burst_clients) as client:
        gate = asyncio.Semaphore(args.burst_clients)
        latencies: list[float] = []

        async def submit(i: int) -> httpx.Response | BaseException:
            async with gate:
                t0 = time.perf_counter()
                response = await create(client, i)
                if isinstance(response, httpx.Response):
                    latencies.append(time.perf_counter() - t0)
                return response

        sampler.start()
        with CpuMeter() as submitting:
            answers = await asyncio.gather(*(submit(i) for i in range(n)))
        classes = Counter(classify(a) for a in answers)
        run_ids = [
            a.json()["run_id"]
            for a in answers
            if isinstance(a, httpx.Response) and a.status_code in (200, 202)
        ]
        # Every admitted run ends before its views are read (and before the next burst).
        with CpuMeter() as running:
            await drained(sampler, args.drain_timeout_s, poll_s=1.0)
        await sampler.stop()
        views = await collect_runs(client, run_ids, args)
    overheads = [v["overhead_s"] for v in views if v["overhead_s"] is not None]
    queued = [v["queued_s"] for v in views if v["queued_s"] is not None]
    tool_waits = [w for v in views for w in v["tool_queue_waits_ms"]]
    outcomes = Counter(v["outcome"] for v in views)
    peak_rss, peak_uss = sampler.peak_memory
    in_flight = max(sampler.memory_at_runs, 1)
    return {
        "submissions": n,
        "answers": dict(sorted(classes.items())),
        "errors": sum(c for k, c in classes.items() if not k.startswith(("accepted", "429 "))),
        "submit_wall_s": round(submitting.wall_s, 2),
        "submit_p50_ms": round(1000 * percentile(latencies, 50), 1),
        "submit_p99_ms": round(1000 * percentile(latencies, 99), 1),
        "submit_ray_cpu_ms_per_request": round(1000 * submitting.ray_s / n, 2),
        "peak_in_flight_desk": sampler.peak_desk,
        "peak_in_flight_actors": sampler.peak_actors,
        "samples": sampler.samples,
        "memory_samples": sampler.memory_samples,
        "sample_errors": dict(sampler.errors),
        "left_in_flight": {"desk": sampler.desk, "actors": sampler.actors},
        "memory_peak_at_runs": sampler.memory_at_runs,
        "drain_wall_s": round(running.wall_s, 1),
        "run_ray_cpu_ms_per_run": round(1000 * running.ray_s / max(len(run_ids), 1), 1),
        # Mean cores the Ray processes and this client kept busy from the first submission to
        # the last run's end: near the machine's cores, the overhead is queueing for CPU.
        "cores_busy": round(
            (submitting.ray_s + submitting.own_s + running.ray_s + running.own_s)
            / (submitting.wall_s + running.wall_s),
            2,
        ),
        "outcomes": dict(sorted(outcomes.items())),
        "run_errors": sum(c for k, c in outcomes.items() if not k.startswith("released")),
        # A released SafeFallback or a tool call that timed out is a degraded run, not a
        # failed one: counted apart, and against the "errors 0" goal.
        "fallback_runs": sum(c for k, c in outcomes.items() if k == "released SafeFallback"),
        "tool_errors": sum(1 for v in views for t in v["tools"] if t != "READY"),
        "overhead_p50_ms": round(1000 * percentile(overheads, 50), 1),
        "overhead_p99_ms": round(1000 * percentile(overheads, 99), 1),
        "overhead_max_ms": round(1000 * max(overheads, default=float("nan")), 1),
        "to_start_p50_ms": round(1000 * percentile(queued, 50), 1),
        "to_start_p99_ms": round(1000 * percentile(queued, 99), 1),
        "tool_queue_wait_p50_ms": round(percentile(tool_waits, 50), 1),
        "tool_queue_wait_p99_ms": round(percentile(tool_waits, 99), 1),
        "tool_queue_wait_max_ms": round(max(tool_waits, default=float("nan")), 1),
        "model_calls_per_run": dict(Counter(v["model_calls"] for v in views)),
        "tool_calls": dict(Counter(t for v in views for t in v["tools"])),
        "idle_rss_mib": round(idle_rss / _MIB, 1),
        "peak_rss_mib": round(peak_rss / _MIB, 1),
        "idle_uss_mib": round(idle_uss / _MIB, 1),
        "peak_uss_mib": round(peak_uss / _MIB, 1),
        "rss_per_run_mib": round((peak_rss - idle_rss) / in_flight / _MIB, 2),
        "uss_per_run_mib": round((peak_uss - idle_uss) / in_flight / _MIB, 2),
    }


def print_bursts(f: dict[str, Any]) -> None:
    """Part 2 of the table: each burst's figures, then the verdicts against the goals."""
    bp = f["burst_pool"]
    print(
        f"2. Bursts of async submissions, every model call slowed to {bp['delay_s']:g} s; pool "
        f"{bp['size']} actors x {bp['runs_per_actor']}, at most {bp['max_waiting']} waiting for a slot, "
        f"{bp['burst_clients']} connections"
    )
    rows = [("burst", f["burst"])] + ([("overload", f["overload"])] if "overload" in f else [])
    for name, b in rows:
        print(f"  {name}: {b['submissions']} submissions in {b['submit_wall_s']} s: {b['answers']}")
        print(
            f"    submit p50/p99 {b['submit_p50_ms']}/{b['submit_p99_ms']} ms, "
            f"Ray CPU {b['submit_ray_cpu_ms_per_request']} ms/request; "
            f"peak in flight: desk {b['peak_in_flight_desk']}, actors {b['peak_in_flight_actors']}"
        )
        print(
            f"    runs: {b['outcomes']} model calls/run {b['model_calls_per_run']}; "
            f"tool calls {b['tool_calls']}, waited for a tool slot p50/p99/max "
            f"{b['tool_queue_wait_p50_ms']}/{b['tool_queue_wait_p99_ms']}/"
            f"{b['tool_queue_wait_max_ms']} ms; "
            f"drained in {b['drain_wall_s']} s (left in flight {b['left_in_flight']}), "
            f"Ray CPU {b['run_ray_cpu_ms_per_run']} ms/run; sampling errors {b['sample_errors']}"
        )
        print(
            f"    cores busy (Ray processes and this client) from the first submission to the "
            f"last run's end: {b['cores_busy']} of {f['cpus']}"
        )
        print(
            f"    overhead over the model's sleep p50/p99/max "
            f"{b['overhead_p50_ms']}/{b['overhead_p99_ms']}/{b['overhead_max_ms']} ms "
            f"(of which submission to the run's first event p50/p99 "
            f"{b['to_start_p50_ms']}/{b['to_start_p99_ms']} ms)"
        )
        print(
            f"    memory idle -> peak RSS {b['idle_rss_mib']} -> {b['peak_rss_mib']} MiB, "
            f"USS {b['idle_uss_mib']} -> {b['peak_uss_mib']} MiB; per run in flight "
            f"RSS {b['rss_per_run_mib']} MiB, USS {b['uss_per_run_mib']} MiB "
            f"(peak sample at {b['memory_peak_at_runs']} runs hosted)"
        )
    b = f["burst"]
    g = f["goals"]
    print(
        f"burst: peak in flight {verdict(b['peak_in_flight_actors'] >= g['peak_in_flight'])} "
        f">= {g['peak_in_flight']}; "
        f"errors {verdict(b['errors'] + b['run_errors'] + b['tool_errors'] == 0)} 0 "
        f"({b['errors']} HTTP, {b['run_errors']} failed runs, {b['tool_errors']} tool calls "
        f"not READY, {b['fallback_runs']} runs released a SafeFallback); "
        f"overhead p99 {verdict(b['overhead_p99_ms'] <= g['overhead_p99_ms'])} "
        f"<= {g['overhead_p99_ms']:g} ms"
    )
    if "overload" in f:
        o = f["overload"]
        graceful = sum(c for k, c in o["answers"].items() if k.startswith("429 "))
        failures = o["errors"] + o["run_errors"]
        print(
            f"overload: {graceful} graceful 429s, {failures} failures ({o['errors']} HTTP, "
            f"{o['run_errors']} accepted runs not released) "
            f"({verdict(failures == 0 and graceful > 0)} 429s instead of failures)"
        )
