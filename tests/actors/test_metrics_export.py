"""Harness metrics reach the node's metrics export endpoint (Prometheus text), without run ids."""

from __future__ import annotations

import asyncio
import re
import time
from collections import defaultdict
from pathlib import Path

import httpx
import pytest
import ray

from actors.pool import RunPool
from actors.testing import FakeDepsFactory
from harness.contracts.ingress import RunRequest

pytestmark = pytest.mark.usefixtures("ray_cluster")

_SAMPLE = re.compile(r"^(ray_harness_\w+)\{(.*)\} ([0-9.e+]+)$")


def _scrape(port: int) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Series summed over WorkerId (every process exports its own)."""
    totals: dict[tuple[str, frozenset[tuple[str, str]]], float] = defaultdict(float)
    for line in httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text.splitlines():
        found = _SAMPLE.match(line)
        if not found:
            continue
        labels = dict(re.findall(r'(\w+)="([^"]*)"', found.group(2)))
        kept = frozenset(
            (k, v)
            for k, v in labels.items()
            if k not in {"WorkerId", "Component", "NodeAddress", "SessionName", "Version"}
            and not k.startswith("otel_")
        )
        totals[(found.group(1), kept)] += float(found.group(3))
    return totals


def test_run_tool_model_audit_and_latency_metrics_are_exported(tmp_path: Path) -> None:
    deps = FakeDepsFactory(audit_url=f"sqlite:///{tmp_path / 'audit.db'}")

    async def main() -> str:
        async with RunPool(1, 1, deps, name_prefix="metrics-actor") as pool:
            result = await pool.run(RunRequest(question="why @intent=DIAGNOSIS"), timeout_s=60)
            return result.kind

    kind = asyncio.run(main())
    port = ray.nodes()[0]["MetricsExportPort"]
    wanted = {
        "ray_harness_runs_total",
        "ray_harness_tool_invocations_total",
        "ray_harness_model_calls_total",
        "ray_harness_model_tokens_total",
        "ray_harness_run_latency_ms_count",
        "ray_harness_tool_latency_ms_count",
        "ray_harness_tool_queue_wait_ms_count",
        "ray_harness_audit_rows_written_total",
    }
    deadline = time.monotonic() + 60
    series: dict[tuple[str, frozenset[tuple[str, str]]], float] = {}
    while time.monotonic() < deadline:
        series = _scrape(port)
        if wanted <= {name for name, _ in series}:
            break
        time.sleep(0.5)
    names = {name for name, _ in series}
    assert wanted <= names, sorted(names)
    runs = {
        dict(tags)["outcome"]: n
        for (name, tags), n in series.items()
        if name == "ray_harness_runs_total"
    }
    assert runs.get(kind, 0) >= 1
    tools = {
        dict(tags)["tool"]
        for (name, tags), n in series.items()
        if name == "ray_harness_tool_invocations_total" and n > 0
    }
    assert {"search_knowledge", "query_logs", "query_mysql"} <= tools
    written = sum(n for (name, _), n in series.items() if name.endswith("audit_rows_written_total"))
    assert written >= 1
    # No run, session or case identity ever becomes a label.
    labels = {k for _, tags in series for k, _ in tags}
    assert labels <= {"outcome", "tool", "evidence", "code", "component", "direction", "le"}
