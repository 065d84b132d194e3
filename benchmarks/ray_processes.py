"""CPU and memory of the Ray processes, for the Serve benchmarks (``bench_serve.py``).

A run through Serve spends its CPU in many processes: GCS, raylet, Serve's controller and
proxy, the replica, the run desk, RunActors and tool workers, all descendants of the driver
that started Ray. :class:`CpuMeter` sums their CPU time (user + system) over a stretch, by
role (from the process title) and beside the driver's own (the HTTP client), so that a run's
CPU can be set against the same run's in process; :func:`ray_memory` sums their RSS and USS,
to tell what a run in flight costs in memory.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from typing import Any

__all__ = ["CpuMeter", "ray_memory"]


def _ray_processes() -> list[Any]:
    import psutil

    return list(psutil.Process().children(recursive=True))


def _cpu_by_process(processes: list[Any]) -> dict[int, float]:
    import psutil

    seconds: dict[int, float] = {}
    for process in processes:
        try:
            times = process.cpu_times()
        except psutil.Error:
            continue
        seconds[process.pid] = times.user + times.system
    return seconds


def _role(process: Any) -> str:
    """What a Ray process is, from its title (``ray::RunActor``, ``raylet``...)."""
    import psutil

    try:
        cmdline = process.cmdline()
    except psutil.Error:
        return "gone"
    first = cmdline[0] if cmdline else process.name()
    if first.startswith("ray::"):
        title = first.removeprefix("ray::").split()[0]
        if title.startswith(("tool:", "project:", "run_tool", "run_projector", "IDLE")):
            return "tool workers (and idle workers)"
        return title.split(".")[0]
    return os.path.basename(first.split()[0]) if first else "?"


def ray_memory() -> tuple[float, float]:
    """(RSS, USS) of every Ray process, summed, in bytes."""
    import psutil

    rss = uss = 0.0
    for process in _ray_processes():
        try:
            full = process.memory_full_info()
        except psutil.Error:
            continue
        rss += full.rss
        uss += full.uss
    return rss, uss


class CpuMeter:
    """CPU seconds of the Ray processes and of this process over a stretch."""

    def __enter__(self) -> CpuMeter:
        self._processes = _ray_processes()
        self._ray0 = _cpu_by_process(self._processes)
        self._own0 = time.process_time()
        self._wall0 = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        ray1 = _cpu_by_process(self._processes)
        self.by_role: Counter[str] = Counter()
        for process in self._processes:
            if process.pid in ray1:
                delta = ray1[process.pid] - self._ray0.get(process.pid, 0.0)
                self.by_role[_role(process)] += delta
        self.ray_s = sum(self.by_role.values())
        self.own_s = time.process_time() - self._own0
        self.wall_s = time.perf_counter() - self._wall0
