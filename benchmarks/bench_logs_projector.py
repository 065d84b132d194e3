"""Micro-benchmark of the query_logs projector and the redactor (one core, wall clock).

Prints human-readable figures, then, as its last line, one JSON object::

    {"projector_lines_per_s": ..., "projector_warm_lines_per_s": ..., "projector_lines": 100000,
     "demo_lines_per_s": ..., "demo_warm_lines_per_s": ..., "redact_lines_per_s": ...,
     "redact_demo_lines_per_s": ..., "observation_bytes": ..., "raw_bytes": ...}

Projector figures are medians of ``repeats`` projections with a cold cache of mined batches
(cleared before each) and as many with a warm one (the same result projected again). Lines/s
are wall clock; the CPU figures (``process_time``, steadier on a shared machine) split a cold
projection into the miner's batch (``TemplateMiner.mine_batch``) and the projector's own work.
Run: ``.venv/bin/python benchmarks/bench_logs_projector.py``.
"""

from __future__ import annotations

import json
import random
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from harness.backends.logs_embedded import EMBEDDED_LOGS_FORMAT, EmbeddedLogBackend
from harness.logmining import TemplateMiner
from harness.projectors._logs_cache import shared_cache
from harness.projectors.logs import LogsProjector, LogsProjectorLimits
from harness.redaction import Redactor
from harness.testing.tools import RAW_CAP
from harness.tools.arguments import QueryLogsRequest

__all__ = ["main", "measure_projector", "measure_redaction", "synthetic_events"]

START = datetime(2026, 11, 2, 13, 0, tzinfo=UTC)
SERVICES = ("checkout-api", "payment-service", "inventory-service", "api-gateway")
# Typical application log shapes with variable numbers, ids, addresses and a few secrets.
_SHAPES = (
    ("INFO", "GET /api/v1/orders/{n} 200 {ms}ms"),
    ("INFO", "order {n} placed by customer {c} total_cents={n2}"),
    ("DEBUG", "cache hit key=stock:SKU-{n} ttl_s=300"),
    ("INFO", "worker started pid={pid} host=ip-10-0-{a}-{b}.ec2.internal"),
    (
        "WARN",
        "slow query took {ms}ms: SELECT id FROM orders WHERE customer_id = {c} AND status = 'OPEN'",
    ),
    ("WARN", "HikariPool-1 - Connection is not available, request timed out after {ms}ms."),
    ("ERROR", "payment call failed order_id={n}: 504 GATEWAY_TIMEOUT from 10.0.{a}.{b}:8080"),
    ("ERROR", "auth rejected token={tok} user=user{c}@example.com"),
    ("INFO", "retrying attempt={a} backoff_ms={ms} pod=checkout-api-7d9f8b6c5-x2kqp"),
)


def synthetic_events(count: int = 100_000, seed: int = 7) -> list[dict[str, Any]]:
    """``count`` embedded-format events over two hours, deterministic for a seed."""
    rng = random.Random(seed)
    step_ms = 2 * 3600 * 1000 / count
    events = []
    for index in range(count):
        level, shape = _SHAPES[rng.randrange(len(_SHAPES))]
        message = shape.format(
            n=rng.randrange(100000, 999999),
            n2=rng.randrange(100, 99999),
            c=rng.randrange(1, 5000),
            ms=rng.randrange(1, 5000),
            pid=rng.randrange(100, 60000),
            a=rng.randrange(0, 255),
            b=rng.randrange(0, 255),
            tok="".join(rng.choice("ABCDEFabcdef0123456789") for _ in range(32)),
        )
        ts = START + timedelta(milliseconds=index * step_ms)
        events.append(
            {
                "ts": ts.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                "service": SERVICES[index % len(SERVICES)],
                "level": level,
                "message": message,
            }
        )
    return events


def measure_projector(
    events: list[dict[str, Any]],
    request: QueryLogsRequest | None = None,
    limits: LogsProjectorLimits | None = None,
    repeats: int = 3,
) -> dict[str, Any]:
    """Project one embedded raw result of ``events``; return cold and warm lines/s and sizes."""
    request = request or QueryLogsRequest(start=START, end=START + timedelta(hours=2), level=None)
    raw = {"format": EMBEDDED_LOGS_FORMAT, "events": events, "matched": len(events),
           "limit_hit": False}  # fmt: skip
    projector = LogsProjector(limits)
    timings: dict[str, list[float]] = {"cold": [], "warm": []}
    cpu: dict[str, list[float]] = {"cold": [], "warm": [], "miner": []}
    with _miner_clock() as miner:
        for _ in range(repeats):
            shared_cache().clear()
            for state in ("cold", "warm"):
                miner.reset()
                began, began_cpu = time.perf_counter(), time.process_time()
                projection = projector.project("bench", request, raw)
                timings[state].append(time.perf_counter() - began)
                cpu[state].append(time.process_time() - began_cpu)
                if state == "cold":
                    cpu["miner"].append(miner.cpu_s)
    cold, warm = (statistics.median(timings[state]) for state in ("cold", "warm"))
    cold_cpu, warm_cpu, miner_cpu = (statistics.median(cpu[k]) for k in ("cold", "warm", "miner"))
    return {
        "cpu_ms": round(cold_cpu * 1000, 1),
        "warm_cpu_ms": round(warm_cpu * 1000, 1),
        "miner_cpu_ms": round(miner_cpu * 1000, 1),
        "own_cpu_ms": round((cold_cpu - miner_cpu) * 1000, 1),
        "lines": len(events),
        "seconds": round(cold, 3),
        "lines_per_s": round(len(events) / cold),
        "warm_seconds": round(warm, 3),
        "warm_lines_per_s": round(len(events) / warm),
        "observation_bytes": len(projection.observation.model_dump_json().encode()),
        "raw_bytes": len(json.dumps(raw).encode()),
        "templates_total": len(projection.facts.evidence_identities),
        "templates_shown": len(projection.observation.templates),
        "events_shown": len(projection.observation.events),
    }


class _MinerClock:
    """CPU seconds spent in ``TemplateMiner.mine_batch`` since the last ``reset``."""

    def __init__(self) -> None:
        self.cpu_s = 0.0

    def reset(self) -> None:
        self.cpu_s = 0.0


@contextmanager
def _miner_clock() -> Iterator[_MinerClock]:
    """Charge the miner's own time (the cold path's mining) apart from the projector's.

    The benchmark wraps the miner's one batch entry point while it runs; nothing else changes.
    """
    clock = _MinerClock()
    original = TemplateMiner.mine_batch

    def timed(self: TemplateMiner, lines: Any) -> Any:
        began = time.process_time()
        try:
            return original(self, lines)
        finally:
            clock.cpu_s += time.process_time() - began

    TemplateMiner.mine_batch = timed  # type: ignore[method-assign,assignment]
    try:
        yield clock
    finally:
        TemplateMiner.mine_batch = original  # type: ignore[method-assign]


def measure_redaction(lines: list[str]) -> dict[str, Any]:
    """Redact every line once; return lines/s."""
    redactor = Redactor()
    began = time.perf_counter()
    for line in lines:
        redactor.redact(line)
    elapsed = time.perf_counter() - began
    return {"lines": len(lines), "lines_per_s": round(len(lines) / elapsed)}


def main() -> None:
    events = synthetic_events(100_000)
    synthetic = measure_projector(events)
    print(f"projector, 100k synthetic lines: {synthetic['lines_per_s']:,} lines/s cold "
          f"({synthetic['seconds']} s), {synthetic['warm_lines_per_s']:,} warm "
          f"({synthetic['warm_seconds']} s), observation {synthetic['observation_bytes']} B "
          f"of raw {synthetic['raw_bytes']:,} B")  # fmt: skip
    print(f"  CPU: cold {synthetic['cpu_ms']} ms = miner {synthetic['miner_cpu_ms']} ms + "
          f"projector's own {synthetic['own_cpu_ms']} ms; warm {synthetic['warm_cpu_ms']} ms")  # fmt: skip
    demo_raw = (
        EmbeddedLogBackend(max_events=1_000_000)
        .fetch(QueryLogsRequest(start=START, end=START + timedelta(hours=2)), max_raw_bytes=RAW_CAP)
        .value()
    )
    demo = measure_projector(demo_raw["events"])
    print(f"projector, bundled demo logs ({demo['lines']:,} lines): "
          f"{demo['lines_per_s']:,} lines/s cold, {demo['warm_lines_per_s']:,} warm")  # fmt: skip
    print(f"  CPU: cold {demo['cpu_ms']} ms = miner {demo['miner_cpu_ms']} ms + "
          f"projector's own {demo['own_cpu_ms']} ms; warm {demo['warm_cpu_ms']} ms")  # fmt: skip
    redaction = measure_redaction([e["message"] for e in events])
    print(f"redaction, 100k short lines: {redaction['lines_per_s']:,} lines/s")
    demo_redaction = measure_redaction([e["message"] for e in demo_raw["events"]])
    print(f"redaction, bundled demo messages (stack traces included): "
          f"{demo_redaction['lines_per_s']:,} lines/s")  # fmt: skip
    print(
        json.dumps(
            {
                "projector_lines_per_s": synthetic["lines_per_s"],
                "projector_warm_lines_per_s": synthetic["warm_lines_per_s"],
                "projector_lines": synthetic["lines"],
                "demo_lines_per_s": demo["lines_per_s"],
                "demo_warm_lines_per_s": demo["warm_lines_per_s"],
                "demo_lines": demo["lines"],
                "redact_lines_per_s": redaction["lines_per_s"],
                "redact_demo_lines_per_s": demo_redaction["lines_per_s"],
                "projector_cpu_ms": synthetic["cpu_ms"],
                "projector_miner_cpu_ms": synthetic["miner_cpu_ms"],
                "projector_own_cpu_ms": synthetic["own_cpu_ms"],
                "projector_warm_cpu_ms": synthetic["warm_cpu_ms"],
                "demo_cpu_ms": demo["cpu_ms"],
                "demo_miner_cpu_ms": demo["miner_cpu_ms"],
                "demo_own_cpu_ms": demo["own_cpu_ms"],
                "observation_bytes": synthetic["observation_bytes"],
                "raw_bytes": synthetic["raw_bytes"],
            }
        )
    )


if __name__ == "__main__":
    main()
