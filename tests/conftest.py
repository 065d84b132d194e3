"""Fixtures for the whole suite: one Ray instance, and the third-party corpora.

``ray_cluster`` starts local Ray once per session (a start costs seconds on 2 cores); a test
that uses it is marked ``ray``. ``corpus`` finds the corpora (see ``tests/corpora.py``).

The durable audit of runs the suite starts through the embedded deps goes to a SQLite file of
this session (``HARNESS_AUDIT_URL``, set before Ray starts so its workers see it too), never to
the user's data directory.
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.corpora import CorpusMissing, require

os.environ.setdefault(
    "HARNESS_AUDIT_URL",
    f"sqlite:///{Path(tempfile.mkdtemp(prefix='harness-audit-')) / 'audit.sqlite'}",
)


def pytest_configure(config: pytest.Config) -> None:
    # The embedded default keeps files (reasoning keys, the SQLite audit) in the data dir:
    # the suite uses its own, never the user's. Set before Ray starts, so workers inherit it.
    if "HARNESS_DATA_DIR" not in os.environ:
        os.environ["HARNESS_DATA_DIR"] = tempfile.mkdtemp(prefix="harness-test-data-")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "ray_cluster" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.ray)


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[None]:
    """Start local Ray once: 2 CPUs, no dashboard, quiet workers."""
    import ray

    from actors.factory import RAY_NAMESPACE, cluster_token

    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    # Metrics reach the node's export endpoint every second instead of every ten.
    os.environ.setdefault("RAY_metrics_report_interval_ms", "1000")
    started = not ray.is_initialized()
    if started:
        # The session's Ray keeps its token in the environment (not in ~/.ray), where the CLI
        # subprocesses that join it with --address find it.
        cluster_token()
        ray.init(
            num_cpus=2,
            include_dashboard=False,
            log_to_driver=False,
            logging_level=logging.WARNING,
            namespace=RAY_NAMESPACE,
        )
    yield
    if started:
        ray.shutdown()


@pytest.fixture(scope="session")
def corpus() -> Callable[..., Path]:
    """``corpus("loghub")``: the path of a corpus under ``HARNESS_CORPORA_DIR``.

    When it is absent the calling test skips, naming the setting and the path looked at; under
    ``CI=true`` it fails instead, since CI always has the corpora.
    """

    def get(*parts: str) -> Path:
        try:
            return require(*parts)
        except CorpusMissing as missing:
            reason = str(missing)
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason} under CI=true", pytrace=False)
        pytest.skip(reason)

    return get
