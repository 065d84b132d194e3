"""Tool-task microbenchmark: CPU per tool call through RayToolExecutor on a local Ray.

Runs ``--calls`` tool calls (``execute`` then ``project``, ``--concurrency`` at a time) of the
probe tools (``actors.testing.ProbeToolSetFactory``: a small knowledge raw, so the figure is
the task machinery's, not a backend's) after ``--warmup`` calls that start the workers and
build their tool sets. CPU is measured, not wall time (the machine is shared): the driver's
``time.process_time`` and the user+system time of every process Ray started under it (GCS,
raylet, workers; psutil over the driver's descendants), each as the difference over the timed
calls. Prints a table and, as its last line, one JSON object with the same figures.

To compare two versions of the executor side by side, run the script twice in one session
with ``PYTHONPATH`` pointing at each checkout. Usage:
``python benchmarks/bench_tool_task.py [--calls 600] [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import time

import psutil

import actors
from actors.factory import local_ray
from actors.testing import ProbeToolSetFactory
from actors.tool_executor import RayToolExecutor
from harness.tools.arguments import SearchKnowledgeRequest


def _ray_cpu_s() -> float:
    """User+system CPU seconds of every live descendant of this process."""
    total = 0.0
    for child in psutil.Process().children(recursive=True):
        try:
            times = child.cpu_times()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        total += times.user + times.system
    return total


async def _calls(executor: RayToolExecutor, calls: int, concurrency: int) -> None:
    async def one(i: int) -> None:
        request = SearchKnowledgeRequest(query=f"pool {i}", top_k=3)
        call_id = f"call_{i}"
        raw = await executor.execute(
            "search_knowledge", request, 30.0, tool_call_id=call_id, max_raw_bytes=1 << 20
        )
        await executor.project("search_knowledge", call_id, request, raw, 30.0)

    for start in range(0, calls, concurrency):
        await asyncio.gather(*(one(i) for i in range(start, min(calls, start + concurrency))))


def _batch(executor: RayToolExecutor, calls: int, concurrency: int) -> dict[str, float]:
    driver0, ray0, wall0 = time.process_time(), _ray_cpu_s(), time.perf_counter()
    asyncio.run(_calls(executor, calls, concurrency))
    driver_s, ray_s = time.process_time() - driver0, _ray_cpu_s() - ray0
    wall_s = time.perf_counter() - wall0
    return {
        "driver_cpu_ms_per_call": 1000 * driver_s / calls,
        "ray_cpu_ms_per_call": 1000 * ray_s / calls,
        "total_cpu_ms_per_call": 1000 * (driver_s + ray_s) / calls,
        "wall_ms_per_call": 1000 * wall_s / calls,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=600)
    parser.add_argument("--warmup", type=int, default=40)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with local_ray(num_cpus=2):
        executor = RayToolExecutor(ProbeToolSetFactory())
        asyncio.run(_calls(executor, args.warmup, args.concurrency))
        batches = [_batch(executor, args.calls, args.concurrency) for _ in range(args.repeats)]
    figures = {key: round(statistics.median(b[key] for b in batches), 3) for key in batches[0]}
    figures |= {
        "calls": args.calls,
        "concurrency": args.concurrency,
        "repeats": args.repeats,
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "checkout": os.path.dirname(os.path.dirname(actors.__file__)),
    }
    print(f"Tool-task benchmark — {args.calls} calls x {args.repeats}, median per call")
    for key in ("driver_cpu_ms_per_call", "ray_cpu_ms_per_call", "total_cpu_ms_per_call"):
        print(f"  {key:<24} {figures[key]:8.3f} ms")
    print(f"  {'wall_ms_per_call':<24} {figures['wall_ms_per_call']:8.3f} ms (load-dependent)")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
