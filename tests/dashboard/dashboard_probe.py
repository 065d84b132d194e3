"""What the Ray dashboard shows after a few runs: started in its own process by
``test_dashboard.py`` (the suite's own Ray has no dashboard, and one process holds one Ray).

``python -m tests.dashboard.dashboard_probe OUT AUDIT_URL`` starts a fresh local Ray with the
dashboard (its state API) and a metrics export port, plays two diagnoses on a pool of one
RunActor whose tools run as Ray tasks, and while the actors are alive reads the state API
(``ray.util.state.list_actors`` / ``list_tasks``) and scrapes the node's Prometheus endpoint. It
writes what it saw to OUT as JSON; the test judges it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import socket
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import httpx
import ray
from ray.util.state import list_actors, list_tasks

from actors.factory import RAY_NAMESPACE
from actors.pool import RunPool
from actors.testing import FakeDepsFactory
from harness.contracts.ingress import RunRequest

ACTOR_PREFIX = "dashboard-run-actor"
TOOL_TASKS = {"tool:search_knowledge", "tool:query_logs", "tool:query_mysql"}
WANTED_METRICS = {
    "ray_harness_runs_total",
    "ray_harness_tool_invocations_total",
    "ray_harness_model_calls_total",
    "ray_harness_model_tokens_total",
    "ray_harness_run_latency_ms_count",
    "ray_harness_tool_latency_ms_count",
    "ray_harness_tool_queue_wait_ms_count",
    "ray_harness_audit_rows_written_total",
}
_SAMPLE = re.compile(r"^(ray_harness_\w+)(?:\{(.*)\})? ([0-9.e+]+)$")
_WAIT_S = 40.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _metrics(port: int) -> dict[str, float]:
    """Harness series by name, summed over labels and worker processes."""
    totals: dict[str, float] = defaultdict(float)
    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text
    for line in text.splitlines():
        found = _SAMPLE.match(line)
        if found:
            totals[found.group(1)] += float(found.group(3))
    return dict(totals)


def _state(dashboard: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Actors and tasks as the dashboard's state API lists them (this Ray's, by address: the
    machine may run other instances)."""
    actors = [
        {"name": a.name, "class_name": a.class_name, "state": a.state}
        for a in list_actors(address=dashboard, limit=1000, raise_on_missing_output=False)
    ]
    tasks = [
        {"name": t.name, "func_or_class_name": t.func_or_class_name, "state": t.state}
        for t in list_tasks(address=dashboard, limit=10_000, raise_on_missing_output=False)
    ]
    return actors, tasks


def _settled(actors: list[dict[str, Any]], tasks: list[dict[str, Any]]) -> bool:
    alive = {(a["class_name"], a["state"]) for a in actors}
    finished = {t["name"] for t in tasks if t["state"] == "FINISHED"}
    return (
        ("RunActor", "ALIVE") in alive
        and ("AuditWriterActor", "ALIVE") in alive
        and finished >= TOOL_TASKS
    )


def _exported(metrics: dict[str, float], runs: int) -> bool:
    return set(metrics) >= WANTED_METRICS and metrics["ray_harness_runs_total"] >= runs


async def _observe(audit_url: str, dashboard: str, metrics_port: int) -> dict[str, Any]:
    # A first tool task waits for its worker process to start: allow it, on a loaded machine.
    deps = FakeDepsFactory(tool_execution="ray", audit_url=audit_url, execute_timeout_s=30.0)
    async with RunPool(1, 2, deps, name_prefix=ACTOR_PREFIX) as pool:
        kinds = [
            (await pool.run(RunRequest(question=q), timeout_s=60)).kind
            for q in ("why @intent=DIAGNOSIS", "why again @intent=DIAGNOSIS")
        ]
        deadline = time.monotonic() + _WAIT_S
        actors, tasks = await asyncio.to_thread(_state, dashboard)
        while not _settled(actors, tasks) and time.monotonic() < deadline:
            await asyncio.sleep(0.5)
            actors, tasks = await asyncio.to_thread(_state, dashboard)
        metrics = await asyncio.to_thread(_metrics, metrics_port)
        # Each process exports every second or so: wait for both runs, not just the names.
        while not _exported(metrics, len(kinds)) and time.monotonic() < deadline:
            await asyncio.sleep(0.5)
            metrics = await asyncio.to_thread(_metrics, metrics_port)
    return {"kinds": kinds, "actors": actors, "tasks": tasks, "metrics": metrics}


def main(out: Path, audit_url: str) -> None:
    metrics_port = _free_port()
    context = ray.init(
        address="local",  # a Ray of its own, never one that is already running
        num_cpus=2,
        include_dashboard=True,
        dashboard_host="127.0.0.1",
        dashboard_port=_free_port(),
        log_to_driver=False,
        logging_level=logging.WARNING,
        namespace=RAY_NAMESPACE,
        _metrics_export_port=metrics_port,
    )
    try:
        dashboard = f"http://{context.dashboard_url}"
        seen = asyncio.run(_observe(audit_url, dashboard, metrics_port))
    finally:
        ray.shutdown()
    out.write_text(json.dumps(seen, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2])
