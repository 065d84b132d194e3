"""Audit benchmark: rows/s into MariaDB through the writer, and runs/s with the audit on vs off.

Prints a readable table and, as its last line, one JSON object with the same figures.

1. Rows/s: ``--records`` synthetic run records of realistic size (``harness.testing.run_record``:
   1 run row, 5 tool invocations, 4 agent steps, 30 trace events, 8 reasoning rows = 48 rows)
   are handed to an :class:`~harness.audit.writer.AuditWriter` over a :class:`SqlAuditStore`
   on a real MariaDB (a private ``audit_test_bench_*`` database, dropped at the end); the time
   runs from the first ``record`` until ``close`` has written the last batch. Goal: at least
   20,000 rows/s.
2. Runs/s: in-process DiagnosisRuns with the offline demo model on the embedded tool plane
   (``build_run_deps``, as ``bench_run_plane.py`` does), ``--concurrency`` in flight, with no
   audit and with the in-process writer into the same MariaDB; batches alternate off/on so
   both see the same machine. Goal: the audit costs at most 5 % of the runs/s.

Each figure is the median of ``--repeats`` timed batches. Usage:
``python benchmarks/bench_audit.py [--repeats 5] [--url mysql+pymysql://root@127.0.0.1:3306/]``
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import os
import statistics
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import sqlalchemy as sa

from harness.adapters.audit_sql import SqlAuditStore
from harness.adapters.demo_db import DEFAULT_MARIADB_URL
from harness.adapters.embedded import build_audit_writer, build_run_deps, build_tool_plane
from harness.audit.writer import AuditWriter, AuditWriterPolicy, record_rows
from harness.clock import SystemClock
from harness.contracts.ingress import RunRequest
from harness.diagnosis import DiagnosisRun, RunDeps
from harness.embedded.demo import INCIDENT_QUESTION, WINDOW_END
from harness.settings import Settings
from harness.testing.records import run_record

GOAL_ROWS_PER_S = 20_000.0
GOAL_MAX_SLOWDOWN = 0.05


@contextlib.contextmanager
def _database(server_url: str) -> Iterator[str]:
    """A fresh database on the server, dropped afterwards; yields its URL."""
    server = sa.make_url(server_url)
    name = f"audit_test_bench_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(server, connect_args={"connect_timeout": 5})
    with admin.connect() as conn:
        conn.exec_driver_sql(f"CREATE DATABASE {name} CHARACTER SET utf8mb4")
    try:
        yield server.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f"DROP DATABASE IF EXISTS {name}")
        admin.dispose()


async def _rows_per_s(url: str, args: argparse.Namespace) -> tuple[list[float], int]:
    store = SqlAuditStore.open(url)
    rates: list[float] = []
    rows = 0
    try:
        start = SystemClock().now()
        for repeat in range(args.repeats):
            records = [run_record(f"run-{repeat}-{i}", at=start) for i in range(args.records)]
            rows = sum(record_rows(r) for r in records)
            policy = AuditWriterPolicy(
                batch_rows=args.batch_rows, max_queued_rows=rows, close_timeout_s=600
            )
            writer = AuditWriter(store, SystemClock(), policy)
            started = time.perf_counter()
            for record in records:
                await writer.record(record)
            await writer.close()
            elapsed = time.perf_counter() - started
            stats = writer.stats()
            if stats.written_rows != rows or stats.failed_flushes:
                raise SystemExit(f"rows benchmark lost rows: {stats}")
            rates.append(rows / elapsed)
    finally:
        store.close()
    return rates, rows


def _request() -> RunRequest:
    return RunRequest(question=INCIDENT_QUESTION, as_of=WINDOW_END, deadline_s=300)


async def _batch(
    deps: RunDeps, writer: AuditWriter | None, runs: int, concurrency: int
) -> tuple[float, float, list[str]]:
    """(runs/s, process CPU ms per run, result kinds) of one batch.

    The CPU figure includes writing the batch's audit records (the writer is flushed after
    the wall clock stopped), so a flush never lands on the next batch's account.
    """
    gate = asyncio.Semaphore(concurrency)

    async def one() -> str:
        async with gate:
            return str((await DiagnosisRun(_request(), deps).execute()).kind)

    cpu, started = time.process_time(), time.perf_counter()
    kinds = await asyncio.gather(*(one() for _ in range(runs)))
    rate = runs / (time.perf_counter() - started)
    if writer is not None:
        await writer.flush()
    return rate, (time.process_time() - cpu) * 1000 / runs, list(kinds)


async def _runs_per_s(url: str, args: argparse.Namespace) -> dict[str, Any]:
    settings = Settings(audit_url=url)
    plane = build_tool_plane(settings)
    off = build_run_deps(settings, plane=plane)
    writer: AuditWriter = build_audit_writer(settings)
    on = dataclasses.replace(off, audit=writer)
    for deps in (off, on):  # warm caches, as a warm actor would be
        await DiagnosisRun(_request(), deps).execute()
    await writer.flush()
    rates: dict[str, list[float]] = {"off": [], "on": []}
    cpu_ms: dict[str, list[float]] = {"off": [], "on": []}
    kinds: set[str] = set()
    order: list[tuple[str, RunDeps, AuditWriter | None]] = [("off", off, None), ("on", on, writer)]
    for repeat in range(args.repeats):
        for mode, deps, sink in order if repeat % 2 == 0 else order[::-1]:
            rate, cpu, batch_kinds = await _batch(deps, sink, args.runs, args.concurrency)
            rates[mode].append(rate)
            cpu_ms[mode].append(cpu)
            kinds.update(batch_kinds)
    await writer.close()
    stats = writer.stats()
    audited = 1 + args.repeats * args.runs
    if stats.written_records != audited:
        raise SystemExit(f"runs benchmark lost audit records: {stats}")
    return {
        "rates": rates,
        "cpu_ms": cpu_ms,
        "result_types": sorted(kinds),
        "audited_rows": stats.written_rows,
    }


def _median(values: list[float]) -> float:
    return round(statistics.median(values), 3)


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    with _database(args.url) as url:
        row_rates, rows = await _rows_per_s(url, args)
        plane = await _runs_per_s(url, args)
    on, off = _median(plane["rates"]["on"]), _median(plane["rates"]["off"])
    cpu_on, cpu_off = _median(plane["cpu_ms"]["on"]), _median(plane["cpu_ms"]["off"])
    slowdown = round(1 - on / off, 4)
    rows_per_s = round(statistics.median(row_rates))
    return {
        "cpus": os.cpu_count(),
        "repeats": args.repeats,
        "rows": {
            "records": args.records,
            "rows_per_batch": rows,
            "batch_rows": args.batch_rows,
            "rows_per_s": rows_per_s,
            "samples": [round(r) for r in row_rates],
            "goal_rows_per_s": GOAL_ROWS_PER_S,
            "meets_goal": rows_per_s >= GOAL_ROWS_PER_S,
        },
        "runs": {
            "model": "offline demo model (openai SDK) + embedded tool plane, in process",
            "concurrency": args.concurrency,
            "runs_per_batch": args.runs,
            "result_types": plane["result_types"],
            "runs_per_s": {"audit_off": off, "audit_on": on},
            "samples": {
                "audit_off": [round(r, 3) for r in plane["rates"]["off"]],
                "audit_on": [round(r, 3) for r in plane["rates"]["on"]],
            },
            "on_over_off": round(on / off, 4),
            "cpu_ms_per_run": {"audit_off": cpu_off, "audit_on": cpu_on},
            "slowdown": slowdown,
            "goal_max_slowdown": GOAL_MAX_SLOWDOWN,
            "meets_goal": slowdown <= GOAL_MAX_SLOWDOWN,
            "audited_rows": plane["audited_rows"],
        },
    }


def _print_table(figures: dict[str, Any]) -> None:
    rows, runs = figures["rows"], figures["runs"]
    verdict: Callable[[bool], str] = lambda ok: "meets" if ok else "misses"  # noqa: E731
    print(f"Audit benchmark — cpus={figures['cpus']} repeats={figures['repeats']}")
    print(
        f"1. writer → MariaDB: {rows['records']} records = {rows['rows_per_batch']} rows per "
        f"batch, batch_rows={rows['batch_rows']}"
    )
    print(f"{'':<14}{'rows/s (median)':>18}   samples")
    print(f"{'writer':<14}{rows['rows_per_s']:>18,}   {rows['samples']}")
    print(f"   {verdict(rows['meets_goal'])} the >= {rows['goal_rows_per_s']:,.0f} rows/s goal")
    print(
        f"2. run plane: {runs['model']}; concurrency={runs['concurrency']} "
        f"runs/batch={runs['runs_per_batch']} results={','.join(runs['result_types'])}"
    )
    print(f"{'audit':<14}{'runs/s (median)':>18}{'CPU ms/run':>12}   samples (runs/s)")
    for mode in ("audit_off", "audit_on"):
        print(
            f"{mode:<14}{runs['runs_per_s'][mode]:>18.2f}{runs['cpu_ms_per_run'][mode]:>12.1f}"
            f"   {runs['samples'][mode]}"
        )
    print(
        f"   on/off = {runs['on_over_off']:.3f} (slowdown {runs['slowdown']:.1%}; "
        f"{verdict(runs['meets_goal'])} the <= {runs['goal_max_slowdown']:.0%} goal)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--url", default=os.environ.get("HARNESS_TEST_MYSQL_URL", DEFAULT_MARIADB_URL)
    )
    parser.add_argument("--records", type=int, default=2000, help="records per rows batch")
    parser.add_argument("--batch-rows", type=int, default=AuditWriterPolicy().batch_rows)
    parser.add_argument("--runs", type=int, default=16, help="runs per timed batch")
    parser.add_argument("--concurrency", type=int, default=2, help="runs in flight")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    figures = asyncio.run(_main(args))
    _print_table(figures)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
