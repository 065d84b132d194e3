"""Tool-plane benchmark: boundary overhead, log projector throughput, observation economy.

Prints a readable table and, as its last line, one JSON object with the same figures.

1. Boundary overhead per call against real Redis (HARNESS_BENCH_REDIS_URL, default
   redis://127.0.0.1:6379/15; falls back to fakeredis with a note when Redis is down), with
   backend and projector time measured inside the call and subtracted.
2. Log projector lines/s on 100k generated demo lines (one core), with a cold cache of mined
   batches (cleared before each cold run: what a fresh process pays) and a warm one (the same
   query projected again, as every run of a question does); the two observations must be equal.
   Twice: the events as plain JSON data (what a remote backend's parsed response gives, and the
   goal's row), then as the embedded and file stores hand them over (an ``EventList`` with the
   fields the projector reads beside the events); the observations must be equal too.
3. Observation bytes vs raw bytes for that result.
4. At an equal 8 KB observation budget: share of distinct templates and of line mass that our
   observation covers vs a "last 100 lines" truncation baseline cut to the same 8 KB.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import statistics
import time
import uuid
from collections import Counter
from datetime import UTC, datetime
from typing import Any

from harness.backends._log_store import LogStore
from harness.clock import SystemClock
from harness.contracts.envelope import ToolCallEnvelope, ToolPolicy
from harness.embedded.demo.generate_logs import generate_events
from harness.projectors._logs_cache import shared_cache
from harness.projectors._logs_raw import parse_raw
from harness.projectors._logs_select import RANKS
from harness.projectors.logs import LogsProjector, LogsProjectorLimits
from harness.redaction import Redactor
from harness.run.boundary import ToolBoundary
from harness.run.budget import Budgets, RunBudget
from harness.run.context import RunContext
from harness.testing.tools import DocsProjector, docs_raw
from harness.tools import InlineToolExecutor, ToolRegistry, ToolSpec
from harness.tools.arguments import QueryLogsRequest, SearchKnowledgeRequest

OBS_BUDGET_BYTES = 8 * 1024


class _TimedBackend:
    def __init__(self) -> None:
        self.spent_s = 0.0
        self.raw = docs_raw("a", "b")

    def fetch(self, request: Any, *, max_raw_bytes: int) -> Any:
        t0 = time.perf_counter()
        raw = self.raw
        self.spent_s += time.perf_counter() - t0
        return raw


class _TimedProjector:
    def __init__(self) -> None:
        self.inner = DocsProjector()
        self.spent_s = 0.0

    def project(self, tool_call_id: str, request: Any, raw: Any) -> Any:
        t0 = time.perf_counter()
        out = self.inner.project(tool_call_id, request, raw)
        self.spent_s += time.perf_counter() - t0
        return out


def _store() -> tuple[Any, str]:
    from harness.adapters.redis_store import RedisCanonicalStore, fakeredis_store

    url = os.environ.get("HARNESS_BENCH_REDIS_URL", "redis://127.0.0.1:6379/15")
    try:
        import redis

        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
    except Exception:
        return fakeredis_store(prefix="bench", ttl_s=600), "fakeredis (real Redis unreachable)"
    import redis.asyncio as aioredis

    return RedisCanonicalStore(
        aioredis.from_url(url), prefix=f"bench{uuid.uuid4().hex[:6]}", ttl_s=600
    ), "redis"


async def _boundary_overhead(n_calls: int) -> dict[str, Any]:
    store, kind = _store()
    backend, projector = _TimedBackend(), _TimedProjector()
    spec = ToolSpec(name="search_knowledge", description="kb", request_model=SearchKnowledgeRequest)
    executor = InlineToolExecutor(
        {spec.name: backend}, {spec.name: projector}, project_in_thread=False
    )
    clock = SystemClock()
    samples: list[float] = []
    for i in range(n_calls):
        if i % 10 == 0:  # a fresh run every 10 calls keeps budgets and duplicate control realistic
            run = RunContext.open(
                run_id=f"bench-{uuid.uuid4().hex[:12]}", now=clock.now(), timeout_s=600
            )
            run.start()
            boundary = ToolBoundary(
                run=run,
                budget=RunBudget(Budgets(max_tool_calls=100, max_tool_calls_per_tool={})),
                registry=ToolRegistry.of([spec]),
                policy=ToolPolicy(authorized_tools=frozenset({spec.name})),
                store=store,
                executor=executor,
                clock=clock,
            )
        env = ToolCallEnvelope(
            run_id=run.run_id,
            tool_call_id=f"c{i}",
            tool_name=spec.name,
            arguments=json.dumps({"query": f"q{i}"}),
        )
        before = backend.spent_s + projector.spent_s
        t0 = time.perf_counter()
        result = await boundary.call(env)
        elapsed = time.perf_counter() - t0
        assert result.outcome == "OBSERVATION", result.error_code
        samples.append(elapsed - (backend.spent_s + projector.spent_s - before))
    warm = sorted(samples[n_calls // 10 :])
    return {
        "store": kind,
        "calls": len(warm),
        "p50_ms": round(statistics.median(warm) * 1000, 3),
        "p99_ms": round(warm[int(len(warm) * 0.99) - 1] * 1000, 3),
    }


def _raw_for(events: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "format": "embedded-jsonl/v1",
        "events": events,
        "matched": len(events),
        "limit_hit": False,
    }


def _stored_raw(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The value the embedded store hands a projector for every one of ``events``."""
    keys = [int(datetime.fromisoformat(e["ts"]).timestamp() * 1000) for e in events]
    store = LogStore.of(events, keys)
    selection = store.select(
        start_ms=min(keys),
        end_ms=max(keys) + 1,
        services=frozenset(),
        min_rank=None,
        query=None,
        redactor=Redactor(),
        limit=len(events),
    )
    assert selection.events.fields is not None and selection.events == events
    return _raw_for(selection.events)


def _projector_throughput(raw: dict[str, Any], repeats: int) -> dict[str, Any]:
    """Lines/s of one projection with a cold cache (cleared first) and with a warm one.

    Cold and warm runs alternate, ``repeats`` of each; medians of wall time (and, for a shared
    machine, of this process's CPU time). The warm observation must equal the cold one. Full
    (generation 2) garbage collections during the cold runs are counted: one costs ~50-70 ms
    here, as the collector walks the result's 100k-element columns, so objects the collector
    tracks that a projection leaves behind per distinct line show up in this count first.
    """
    request = QueryLogsRequest(start="2026-11-02T13:00:00Z", end="2026-11-02T15:00:00Z")
    events = raw["events"]
    projector = LogsProjector()
    cache = shared_cache()
    wall: dict[str, list[float]] = {"cold": [], "warm": []}
    cpu: dict[str, list[float]] = {"cold": [], "warm": []}
    projection = None
    full_collections = {"cold": 0, "warm": 0}
    state = "cold"

    def count_full(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] == 2:
            full_collections[state] += 1

    gc.callbacks.append(count_full)
    for _ in range(repeats):
        cache.clear()
        for state in ("cold", "warm"):
            t0, c0 = time.perf_counter(), time.process_time()
            result = projector.project("bench", request, raw)
            wall[state].append(time.perf_counter() - t0)
            cpu[state].append(time.process_time() - c0)
            if projection is None:
                projection = result
            json_now = result.observation.model_dump_json()
            assert json_now == projection.observation.model_dump_json(), "cache changed it"
    gc.callbacks.remove(count_full)
    assert projection is not None
    raw_bytes = len(json.dumps({**raw, "events": list(events)}, separators=(",", ":")).encode())
    obs_bytes = len(projection.observation.model_dump_json().encode())
    seconds = {state: statistics.median(times) for state, times in wall.items()}
    cpu_s = {state: statistics.median(times) for state, times in cpu.items()}
    return {
        "lines": len(events),
        "repeats": repeats,
        "seconds_median": round(seconds["cold"], 3),
        "lines_per_s": int(len(events) / seconds["cold"]),
        "seconds_median_warm": round(seconds["warm"], 3),
        "lines_per_s_warm": int(len(events) / seconds["warm"]),
        "cpu_lines_per_s": int(len(events) / cpu_s["cold"]),
        "cpu_lines_per_s_warm": int(len(events) / cpu_s["warm"]),
        "full_collections_cold": full_collections["cold"],
        "full_collections_warm": full_collections["warm"],
        "warm_equals_cold": True,
        "raw_bytes": raw_bytes,
        "observation_bytes": obs_bytes,
        "compression_ratio": round(raw_bytes / obs_bytes, 1),
        "projection": projection,
    }


def _template_labels(raw: Any) -> list[str]:
    """Each raw event's template id, in raw order: the identity the observation uses.

    Measurement only: it reuses the projector's own mining step (a private method on purpose,
    so that both sides of the coverage comparison count the same templates).
    """
    events = parse_raw(raw)
    mined = LogsProjector()._mine(events)
    labels = [""] * len(events)
    for index, code in zip(events.index, mined.codes, strict=True):
        labels[index] = mined.groups[code // RANKS].template_id
    return labels


def _coverage(events: list[dict[str, Any]], projection: Any) -> dict[str, Any]:
    """Template and line-mass coverage of our observation vs a tail-truncation baseline.

    Template identity is the projector's own (mined over the whole result), so both sides are
    measured against the same set of distinct templates.
    """
    labels = _template_labels(_raw_for(events))
    mass = Counter(labels)
    total_templates, total_lines = len(mass), len(labels)

    observation = projection.observation
    ours = {t.ref.removeprefix("tpl:") for t in observation.templates}
    ours |= {e.template_ref.removeprefix("tpl:") for e in observation.events}

    # Baseline: the last 100 lines, cut to the same byte budget.
    tail: list[int] = []
    used = 0
    for i in range(len(events) - 1, max(-1, len(events) - 101), -1):
        size = len(json.dumps(events[i], separators=(",", ":")).encode())
        if used + size > OBS_BUDGET_BYTES:
            break
        used += size
        tail.append(i)
    baseline = {labels[i] for i in tail}

    def share(templates: set[str]) -> tuple[float, float]:
        return len(templates) / total_templates, sum(mass[t] for t in templates) / total_lines

    ours_t, ours_m = share(ours)
    base_t, base_m = share(baseline)
    return {
        "distinct_templates": total_templates,
        "ours_templates": len(ours),
        "ours_template_share": round(ours_t, 4),
        "ours_line_mass_share": round(ours_m, 4),
        "tail_templates": len(baseline),
        "tail_template_share": round(base_t, 4),
        "tail_line_mass_share": round(base_m, 4),
        "template_coverage_ratio": round(ours_t / base_t, 2) if base_t else None,
        "line_mass_ratio": round(ours_m / base_m, 2) if base_m else None,
        "tail_lines_kept": len(tail),
    }


def main() -> None:
    n_calls = int(os.environ.get("BENCH_CALLS", "2000"))
    n_lines = int(os.environ.get("BENCH_LINES", "100000"))
    overhead = asyncio.run(_boundary_overhead(n_calls))
    events = list(generate_events(n_lines))
    repeats = int(os.environ.get("BENCH_REPEATS", "5"))
    throughput = _projector_throughput(_raw_for(events), repeats)
    stored = _projector_throughput(_stored_raw(events), repeats)
    assert (
        stored.pop("projection").observation.model_dump_json()
        == throughput["projection"].observation.model_dump_json()
    ), "the store's fields changed the observation"
    limits = LogsProjectorLimits()
    assert limits.max_observation_bytes == OBS_BUDGET_BYTES
    coverage = _coverage(events, throughput.pop("projection"))

    rows = [
        ("boundary overhead p50 (ms)", overhead["p50_ms"], "≤ 1"),
        ("boundary overhead p99 (ms)", overhead["p99_ms"], ""),
        ("store", overhead["store"], ""),
        (
            "log projector lines/s (1 core), cold | warm",
            f"{throughput['lines_per_s']} | {throughput['lines_per_s_warm']}",
            "≥ 150000",
        ),
        (
            "  the same, events from the embedded store",
            f"{stored['lines_per_s']} | {stored['lines_per_s_warm']}",
            "",
        ),
        (
            "full GCs in cold | warm runs",
            f"{throughput['full_collections_cold']} | {throughput['full_collections_warm']}",
            "",
        ),
        ("raw bytes", throughput["raw_bytes"], ""),
        ("observation bytes", throughput["observation_bytes"], f"≤ {OBS_BUDGET_BYTES}"),
        ("raw / observation", throughput["compression_ratio"], ""),
        ("distinct templates in 100k lines", coverage["distinct_templates"], ""),
        (
            "template share: ours vs tail",
            f"{coverage['ours_template_share']} vs {coverage['tail_template_share']}",
            "",
        ),
        (
            "line-mass share: ours vs tail",
            f"{coverage['ours_line_mass_share']} vs {coverage['tail_line_mass_share']}",
            "",
        ),
        ("template coverage ratio", coverage["template_coverage_ratio"], "≥ 3"),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"{'figure'.ljust(width)}  {'value':>22}  goal")
    for name, value, goal in rows:
        print(f"{name.ljust(width)}  {value!s:>22}  {goal}")
    print(
        json.dumps(
            {
                "boundary": overhead,
                "log_projector": throughput,
                "log_projector_stored": stored,
                "coverage": coverage,
                "at": datetime.now(UTC).isoformat(),
            }
        )
    )


if __name__ == "__main__":
    main()
