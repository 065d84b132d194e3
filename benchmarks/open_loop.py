"""Open-loop load: Poisson arrival schedules, and the search for the rate a system sustains.

An open-loop generator sends each request at its scheduled instant whether or not earlier
ones have been answered (arrivals of independent users), unlike a closed loop of N clients
that each wait for their answer before sending again and so slow down with the system they
measure. Arrivals at rate ``r`` are a Poisson process: the gaps between them are exponential
with mean ``1 / r``.

The capacity of a system under such load is the highest rate at which a chosen latency
figure (here: the p99 of the harness overhead over the model's time) stays within a limit
with no failed run; :func:`find_capacity` brackets it by doubling the rate until a level
fails, then bisects. Pure code (no Ray, no HTTP): ``benchmarks/serve_open_loop.py`` measures a
level through the HTTP API (part 3 of ``bench_serve.py``); the tests in
``tests/meta/test_open_loop.py`` drive the search with a model system.
"""

from __future__ import annotations

import math
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Level", "Search", "find_capacity", "percentile", "poisson_arrivals"]


def poisson_arrivals(rate: float, duration_s: float, seed: int) -> list[float]:
    """Arrival instants (seconds from the start, increasing) of a Poisson process of ``rate``
    per second over ``[0, duration_s)``; the same seed gives the same schedule."""
    if rate <= 0 or duration_s <= 0:
        raise ValueError("rate and duration_s must be positive")
    rng = random.Random(seed)
    instants: list[float] = []
    at = rng.expovariate(rate)
    while at < duration_s:
        instants.append(at)
        at += rng.expovariate(rate)
    return instants


def percentile(values: Sequence[float], q: float) -> float:
    """The nearest-rank ``q``-th percentile (NaN for no values; ``inf`` values rank last)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = math.ceil(q / 100 * len(ordered))
    return ordered[min(len(ordered) - 1, max(0, rank - 1))]


@dataclass(frozen=True)
class Level:
    """One measured rate: its p99 overhead and the runs that failed (rejected, errors)."""

    rate: float
    overhead_p99_s: float
    failed: int
    figures: dict[str, Any] = field(default_factory=dict)
    """Everything else measured at this rate, for the report."""

    def holds(self, limit_s: float) -> bool:
        """Whether the system sustained this rate: p99 within the limit, no failed run."""
        return self.failed == 0 and self.overhead_p99_s <= limit_s


@dataclass
class Search:
    """The levels tried, in order, and the bracket they give: ``held`` is the highest rate
    that held (0 when none did), ``broke`` the lowest that did not (None when none broke)."""

    limit_s: float
    levels: list[Level] = field(default_factory=list)

    @property
    def held(self) -> float:
        return max((lv.rate for lv in self.levels if lv.holds(self.limit_s)), default=0.0)

    @property
    def broke(self) -> float | None:
        broken = [lv.rate for lv in self.levels if not lv.holds(self.limit_s)]
        return min(broken) if broken else None


async def find_capacity(
    measure: Callable[[float], Awaitable[Level]],
    *,
    start_rate: float,
    limit_s: float,
    max_steps: int,
    precision: float = 0.15,
) -> Search:
    """Bracket the highest sustained rate: double from ``start_rate`` while levels hold (halve
    while they break, when none held yet), then bisect the bracket until its width is within
    ``precision`` of its upper end or ``max_steps`` levels were measured.

    The capacity is ``Search.held``: a rate that was measured to hold, never an interpolation.
    """
    if start_rate <= 0 or max_steps < 1:
        raise ValueError("start_rate must be positive and max_steps at least 1")
    search = Search(limit_s)
    rate = start_rate
    for _ in range(max_steps):
        search.levels.append(await measure(rate))
        held, broke = search.held, search.broke
        if broke is None:
            rate = 2 * rate
        elif held == 0.0:
            rate = broke / 2
        elif (broke - held) / broke <= precision:
            break
        else:
            rate = (held + broke) / 2
    return search
