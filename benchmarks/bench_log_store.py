"""Log-store benchmark: the indexed embedded store vs the full scan it replaced (issue 11).

Prints a readable table and, as its last line, one JSON object with the same figures.

1. CPU ms per query (median of ``--repeats`` timed rounds, caches warm) for the demo run's
   query shapes over the bundled demo store (60k events), for the scan and the indexed store;
   each shape's raw responses are checked identical first.
2. Load: reading the store and building it (the scan kept a key list; the indexed store adds
   its partitions), CPU ms, median.
3. Memory of each store beyond its events (tracemalloc; the scan after a substring query, once
   it holds every folded message), and the process RSS the indexed store's build adds.
4. A whole demo run: CPU ms per in-process DiagnosisRun (offline model through the openai SDK,
   embedded tool plane, inline tools), median of ``--runs`` runs per backend, the two backends
   interleaved run by run so that machine load hits both alike.

The scan (``_ScanBackend``) is the pre-index ``EmbeddedLogBackend.fetch`` algorithm restated
here as the baseline, over the same loaded events: bisect the time range, then walk the slice
testing service, level rank and (for a ``query``) the raw prefilter and the redacted match view
of every event.

Usage: ``python benchmarks/bench_log_store.py [--repeats 15] [--runs 10]``.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import functools
import gc
import json
import os
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from harness.backends._log_store import LogStore
from harness.backends.log_query import LogQuery, lower_chars, match_view
from harness.backends.logs_embedded import (
    EMBEDDED_LOGS_FORMAT,
    EmbeddedLogBackend,
    _epoch_ms,
    _read_store,
    level_rank,
)
from harness.contracts.raw import RawResponse
from harness.redaction import Redactor
from harness.testing.tools import RAW_CAP
from harness.tools.arguments import QueryLogsRequest

_H13 = "2026-11-02T13:00:00Z"
_H15 = "2026-11-02T15:00:00Z"
SHAPES: dict[str, dict[str, Any]] = {
    "demo run: checkout-api WARN+ 13:05-15:00": {
        "start": "2026-11-02T13:05:00Z", "end": _H15, "services": ["checkout-api"], "level": "WARN"
    },
    "checkout-api ERROR, 2 h": {
        "start": _H13, "end": _H15, "services": ["checkout-api"], "level": "ERROR"
    },
    "all services WARN+, 2 h": {"start": _H13, "end": _H15, "level": "WARN"},
    "all services, 5 min": {"start": "2026-11-02T14:05:00Z", "end": "2026-11-02T14:10:00Z"},
    "checkout-api ERROR 'hikari', 2 h": {
        "start": _H13, "end": _H15, "services": ["checkout-api"], "level": "ERROR",
        "query": "hikari",
    },
    "all services 'timeout', 2 h": {"start": _H13, "end": _H15, "query": "timeout"},
    "FATAL, 2 h": {"start": _H13, "end": _H15, "level": "FATAL"},
    "everything, 2 h (limit 20k)": {"start": _H13, "end": _H15},
}  # fmt: skip


class _ScanBackend:
    """The replaced algorithm: one bisect, then a walk over every event of the range."""

    def __init__(self, events: list[dict[str, Any]], keys: list[int], max_events: int) -> None:
        self.events, self.keys, self.max_events = events, keys, max_events
        self.folded: list[str] | None = None
        self.views: list[str | None] = [None] * len(events)
        self.redactor = Redactor()

    def fetch(self, request: QueryLogsRequest, *, max_raw_bytes: int) -> dict[str, Any]:
        low = bisect.bisect_left(self.keys, _epoch_ms(request.start))
        high = bisect.bisect_left(self.keys, _epoch_ms(request.end))
        services = set(request.services)
        min_rank = level_rank(request.level) if request.level else None
        query = LogQuery.of(request.query) if request.query else None
        if query is not None and self.folded is None:
            self.folded = [lower_chars(str(e.get("message", ""))) for e in self.events]
        events: list[dict[str, Any]] = []
        matched = 0
        for index in range(low, high):
            event = self.events[index]
            if services and event.get("service") not in services:
                continue
            if min_rank is not None and level_rank(event.get("level")) < min_rank:
                continue
            if query is not None:
                assert self.folded is not None
                if not query.may_match(self.folded[index]):
                    continue
                view = self.views[index]
                if view is None:
                    view = self.views[index] = match_view(
                        self.redactor.redact(str(event.get("message", "")))
                    )
                if not query.matches(view):
                    continue
            matched += 1
            if len(events) < self.max_events:
                events.append(dict(event))
        return {
            "format": EMBEDDED_LOGS_FORMAT,
            "events": events,
            "matched": matched,
            "limit_hit": matched > self.max_events,
        }


def _cpu_ms(call: Callable[[], object]) -> float:
    started = time.process_time()
    call()
    return (time.process_time() - started) * 1000


def _median(samples: list[float]) -> float:
    return round(statistics.median(samples), 3)


def _raw(backend: Any, request: QueryLogsRequest) -> RawResponse:
    return RawResponse.of(backend.fetch(request, max_raw_bytes=RAW_CAP))


def _queries(scan: _ScanBackend, indexed: EmbeddedLogBackend, repeats: int) -> list[dict[str, Any]]:
    rows = []
    for name, shape in SHAPES.items():
        request = QueryLogsRequest(**shape)
        # As an executor calls a backend: the response and its serialised raw, whose bytes
        # must be identical (the indexed store assembles them from each event's JSON).
        expected, got = _raw(scan, request), _raw(indexed, request)  # also warms the caches
        assert got.json == expected.json, name
        got_value = got.value()
        scan_ms: list[float] = []
        indexed_ms: list[float] = []
        for _ in range(repeats):
            scan_ms.append(_cpu_ms(functools.partial(_raw, scan, request)))
            indexed_ms.append(_cpu_ms(functools.partial(_raw, indexed, request)))
        before, after = _median(scan_ms), _median(indexed_ms)
        rows.append(
            {
                "shape": name,
                "matched": got_value["matched"],
                "returned": len(got_value["events"]),
                "scan_ms": before,
                "indexed_ms": after,
                "scan_queries_per_s": round(1000 / before, 1) if before else None,
                "indexed_queries_per_s": round(1000 / after, 1) if after else None,
                "speedup": round(before / after, 1) if after else None,
            }
        )
    return rows


def _load(repeats: int) -> dict[str, Any]:
    path = EmbeddedLogBackend().path
    events = _read_store(path).events
    keys = [_epoch_ms(datetime.fromisoformat(str(e["ts"]))) for e in events]
    read = [_cpu_ms(lambda: _read_store(path)) for _ in range(repeats)]
    built = [_cpu_ms(lambda: LogStore.of(events, keys)) for _ in range(repeats)]
    return {"read_and_build_ms": _median(read), "build_only_ms": _median(built)}


def _memory(events: list[dict[str, Any]], keys: list[int]) -> dict[str, Any]:
    """Bytes each store holds beyond the (shared) events, by tracemalloc; RSS of the build."""
    timeout = QueryLogsRequest(**SHAPES["all services 'timeout', 2 h"])
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    # The scan kept the key list its loader made (new int objects); the indexed store keeps
    # arrays and lets the loader's list go.
    scan_keys = [_epoch_ms(datetime.fromisoformat(str(e["ts"]))) for e in events]
    scan = _ScanBackend(events, scan_keys, 20000)
    del scan_keys
    scan_plain = tracemalloc.get_traced_memory()[0] - base
    scan.fetch(timeout, max_raw_bytes=RAW_CAP)
    scan_queried = tracemalloc.get_traced_memory()[0] - base
    del scan
    gc.collect()
    base = tracemalloc.get_traced_memory()[0]
    store = LogStore.of(events, keys)
    indexed_plain = tracemalloc.get_traced_memory()[0] - base
    _select(store, timeout)
    indexed_queried = tracemalloc.get_traced_memory()[0] - base
    del store
    gc.collect()
    base = tracemalloc.get_traced_memory()[0]
    loaded = _read_store(EmbeddedLogBackend().path)
    whole = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    del loaded
    return {
        "events": len(events),
        "whole_store_mib": _mib(whole),
        "scan_mib": _mib(scan_plain),
        "indexed_mib": _mib(indexed_plain),
        "scan_after_substring_query_mib": _mib(scan_queried),
        "indexed_after_substring_query_mib": _mib(indexed_queried),
        "indexed_build_rss_mib": _build_rss_mib(),
    }


def _mib(n: int) -> float:
    return round(n / (1024 * 1024), 2)


def _select(store: LogStore, request: QueryLogsRequest) -> None:
    assert request.query is not None
    store.select(
        start_ms=_epoch_ms(request.start),
        end_ms=_epoch_ms(request.end),
        services=frozenset(request.services),
        min_rank=None,
        query=LogQuery.of(request.query),
        redactor=Redactor(),
        limit=20000,
    )


_RSS_PROBE = """
import gzip, json, os
from datetime import datetime
from harness.backends._log_store import LogStore
from harness.backends.logs_embedded import EmbeddedLogBackend, _epoch_ms
def rss():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
with gzip.open(EmbeddedLogBackend().path, "rt", encoding="utf-8") as lines:
    events = [json.loads(line) for line in lines if line.strip()]
keys = [_epoch_ms(datetime.fromisoformat(e["ts"])) for e in events]
before = rss()
store = LogStore.of(events, keys)
print(rss() - before)
"""


def _build_rss_mib() -> float:
    """RSS the index build adds in a fresh process (here freed pools would hide it)."""
    out = subprocess.run(
        [sys.executable, "-c", _RSS_PROBE], capture_output=True, text=True, check=True
    )
    return _mib(int(out.stdout.strip()))


async def _runs(scan: _ScanBackend, runs: int) -> dict[str, Any]:
    from harness.adapters.embedded import build_run_deps, build_tool_plane
    from harness.contracts.ingress import RunRequest
    from harness.diagnosis import DiagnosisRun
    from harness.embedded.demo import INCIDENT_QUESTION, WINDOW_END
    from harness.settings import Settings

    settings = Settings()
    deps = {}
    for name in ("scan", "indexed"):
        plane = build_tool_plane(settings)
        if name == "scan":
            plane.backends["query_logs"] = scan  # type: ignore[assignment]
        deps[name] = build_run_deps(settings, plane=plane)
    released: dict[str, set[str]] = {"scan": set(), "indexed": set()}
    samples: dict[str, list[float]] = {"scan": [], "indexed": []}

    async def one(name: str) -> float:
        request = RunRequest(question=INCIDENT_QUESTION, as_of=WINDOW_END, deadline_s=300)
        started = time.process_time()
        result = await DiagnosisRun(request, deps[name]).execute()
        released[name].add(type(result).__name__)
        return (time.process_time() - started) * 1000

    for name in deps:  # warm: the store loads, the first run's caches fill
        await one(name)
    for _ in range(runs):
        for name in deps:
            samples[name].append(await one(name))
    return {
        "runs": runs,
        "released": {name: sorted(kinds) for name, kinds in released.items()},
        "scan_cpu_ms_per_run": _median(samples["scan"]),
        "indexed_cpu_ms_per_run": _median(samples["indexed"]),
        "samples_ms": {name: [round(s, 1) for s in values] for name, values in samples.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15, help="timed rounds per query shape")
    parser.add_argument("--runs", type=int, default=10, help="demo runs per backend")
    args = parser.parse_args()

    indexed = EmbeddedLogBackend()
    store = indexed._load()
    events = store.events
    keys = [_epoch_ms(datetime.fromisoformat(str(e["ts"]))) for e in events]
    scan = _ScanBackend(events, keys, indexed.max_events)
    queries = _queries(scan, indexed, args.repeats)
    load = _load(max(3, args.repeats // 5))
    memory = _memory(events, keys)
    run = asyncio.run(_runs(scan, args.runs))

    width = max(len(row["shape"]) for row in queries)
    print(f"Log store benchmark — demo store, {len(events)} events; CPU ms, medians")
    print(
        f"{'query shape'.ljust(width)}  {'matched':>7}  {'scan ms':>8}  {'indexed ms':>10}"
        f"  {'x':>6}"
    )
    for row in queries:
        print(
            f"{row['shape'].ljust(width)}  {row['matched']:>7}  {row['scan_ms']:>8.2f}"
            f"  {row['indexed_ms']:>10.2f}  {row['speedup'] or 0:>6.1f}"
        )
    print(
        f"load: read + build {load['read_and_build_ms']:.0f} ms, of which index build "
        f"{load['build_only_ms']:.0f} ms"
    )
    print(
        f"memory: the loaded store {memory['whole_store_mib']} MiB; beyond its events: scan "
        f"{memory['scan_mib']} MiB, indexed {memory['indexed_mib']} MiB (tracemalloc); after "
        f"an all-services substring query: scan {memory['scan_after_substring_query_mib']} MiB, "
        f"indexed {memory['indexed_after_substring_query_mib']} MiB; index build RSS "
        f"+{memory['indexed_build_rss_mib']} MiB (fresh process)"
    )
    print(
        f"demo run, in process, inline tools ({run['runs']} runs each): "
        f"scan {run['scan_cpu_ms_per_run']:.1f} ms CPU/run, "
        f"indexed {run['indexed_cpu_ms_per_run']:.1f} ms CPU/run; released "
        f"{run['released']}"
    )
    print(
        json.dumps(
            {
                "queries": queries,
                "load": load,
                "memory": memory,
                "demo_run": run,
                "cpus": os.cpu_count(),
                "at": datetime.now(UTC).isoformat(),
            }
        )
    )


if __name__ == "__main__":
    main()
