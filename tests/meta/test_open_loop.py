"""The open-loop load generator's schedule and capacity search (benchmarks/open_loop.py).

The search is driven by a model system whose p99 overhead is known for every rate (an M/M/1
queue's response time past its service time), so the bracket it finds can be checked
against the true capacity.
"""

from __future__ import annotations

import asyncio
import itertools
import math
import statistics

import pytest

from benchmarks.open_loop import Level, find_capacity, percentile, poisson_arrivals


def test_poisson_arrivals_have_the_rate_and_exponential_gaps() -> None:
    arrivals = poisson_arrivals(50.0, 200.0, seed=7)
    assert arrivals == sorted(arrivals)
    assert arrivals[0] >= 0 and arrivals[-1] < 200.0
    assert len(arrivals) / 200.0 == pytest.approx(50.0, rel=0.05)
    gaps = [b - a for a, b in itertools.pairwise(arrivals)]
    # Exponential gaps: the standard deviation equals the mean (a fixed period would give 0).
    assert statistics.pstdev(gaps) == pytest.approx(statistics.fmean(gaps), rel=0.1)


def test_poisson_arrivals_repeat_with_their_seed_only() -> None:
    assert poisson_arrivals(5.0, 30.0, seed=1) == poisson_arrivals(5.0, 30.0, seed=1)
    assert poisson_arrivals(5.0, 30.0, seed=1) != poisson_arrivals(5.0, 30.0, seed=2)


@pytest.mark.parametrize(("rate", "duration"), [(0.0, 10.0), (-1.0, 10.0), (1.0, 0.0)])
def test_poisson_arrivals_refuse_a_rate_or_duration_that_is_not_positive(
    rate: float, duration: float
) -> None:
    with pytest.raises(ValueError):
        poisson_arrivals(rate, duration, seed=0)


def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == 50.0
    assert percentile(values, 99) == 99.0
    assert percentile([3.0], 99) == 3.0
    assert percentile([1.0, math.inf], 50) == 1.0
    assert percentile([1.0, math.inf], 99) == math.inf
    assert math.isnan(percentile([], 50))


def test_a_level_holds_within_the_limit_and_without_failures() -> None:
    assert Level(rate=1.0, overhead_p99_s=0.9, failed=0).holds(1.0)
    assert not Level(rate=1.0, overhead_p99_s=1.1, failed=0).holds(1.0)
    assert not Level(rate=1.0, overhead_p99_s=0.1, failed=1).holds(1.0)
    assert not Level(rate=1.0, overhead_p99_s=math.nan, failed=0).holds(1.0)


def _queue(service_rate: float, service_s: float) -> tuple[float, list[float]]:
    """(true capacity at a 1 s limit, rates measured) of an M/M/1 queue: the p99 of its
    response time less the service time is ln(100) / (mu - lambda) - 1 / mu."""
    measured: list[float] = []

    async def measure(rate: float) -> Level:
        measured.append(rate)
        if rate >= service_rate:
            return Level(rate=rate, overhead_p99_s=math.inf, failed=0)
        p99 = math.log(100) / (service_rate - rate) - service_s
        return Level(rate=rate, overhead_p99_s=p99, failed=0)

    capacity = service_rate - math.log(100) / (1.0 + service_s)
    search = asyncio.run(
        find_capacity(measure, start_rate=1.0, limit_s=1.0, max_steps=12, precision=0.05)
    )
    assert search.levels and [lv.rate for lv in search.levels] == measured
    return capacity, [search.held, search.broke or math.inf]


def test_the_search_brackets_the_true_capacity_of_a_model_queue() -> None:
    capacity, (held, broke) = _queue(service_rate=20.0, service_s=0.05)
    assert held <= capacity < broke
    assert (broke - held) / broke <= 0.05


def test_the_search_halves_down_when_the_first_rate_already_breaks() -> None:
    capacity, (held, broke) = _queue(service_rate=3.0, service_s=1.0)
    assert capacity < 1.0  # the start rate breaks
    assert 0 < held <= capacity < broke


def test_the_search_stops_after_its_steps_with_the_best_rate_that_held() -> None:
    async def measure(rate: float) -> Level:
        return Level(rate=rate, overhead_p99_s=0.0 if rate <= 5.0 else 9.0, failed=0)

    search = asyncio.run(find_capacity(measure, start_rate=1.0, limit_s=1.0, max_steps=4))
    assert [lv.rate for lv in search.levels] == [1.0, 2.0, 4.0, 8.0]
    assert (search.held, search.broke) == (4.0, 8.0)


def test_a_level_with_failed_runs_breaks_the_search_whatever_its_latency() -> None:
    async def measure(rate: float) -> Level:
        return Level(rate=rate, overhead_p99_s=0.0, failed=1 if rate > 3.0 else 0)

    search = asyncio.run(find_capacity(measure, start_rate=1.0, limit_s=1.0, max_steps=8))
    assert search.held <= 3.0 < (search.broke or math.inf)
