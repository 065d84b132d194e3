"""What ``ServeConfig.of`` takes from the settings: the pool's size and its admission line."""

from __future__ import annotations

from harness.settings import ServeSettings, Settings
from serve.deployment import ServeConfig


def test_the_pool_admits_the_configured_waiting_runs_with_the_serve_retry_after() -> None:
    config = ServeConfig.of(
        ServeSettings(serve_max_waiting_runs=64, serve_retry_after_s=3),
        Settings(pool_size=4, runs_per_actor=32),
        keys=(),
    )
    pool = config.pool
    assert (pool.size, pool.runs_per_actor, pool.capacity) == (4, 32, 128)
    assert (pool.max_waiting, pool.retry_after_s) == (64, 3.0)
    built = pool()  # the RunPool the desk builds (no actor starts before ``start``)
    assert (built.max_waiting, built.retry_after_s) == (64, 3.0)


def test_unset_the_waiting_line_is_unbounded() -> None:
    config = ServeConfig.of(ServeSettings(), Settings(), keys=())
    assert config.pool.max_waiting is None
