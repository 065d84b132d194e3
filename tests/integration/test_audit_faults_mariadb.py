"""Audit faults against a real MariaDB: stopped, slow, refusing writes.

The store reaches the server through a TCP proxy the test owns (``tcp_proxy.py``); the shared
server is never stopped. "Refusing writes" is real: a trigger in the test's own database makes
every insert into ``diagnosis_run`` fail with a server error. For each fault, runs with the
in-process AuditWriter release exactly the results of runs without any audit, finish while
the database misbehaves (the runs' clock never moves and each run takes far less wall time
than one delayed statement), and the writer counts the failures. Once the database is back,
new runs are audited again.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa

from harness.adapters.audit_sql import SqlAuditStore, create_audit_engine
from harness.adapters.migrations import upgrade
from harness.audit.writer import AuditWriter, AuditWriterPolicy, AuditWriterStats
from harness.clock import SystemClock
from harness.contracts.ingress import RunRequest
from harness.contracts.results import ReleasedResult
from harness.diagnosis import DiagnosisRun
from harness.testing.clock import FakeClock
from harness.testing.models import ScriptedModel, draft_json, text_reply, tool_reply
from harness.testing.records import run_record
from harness.testing.rig import fake_deps
from tests.integration.audit_db import audit_database
from tests.integration.tcp_proxy import TcpProxy, tcp_proxy

pytestmark = pytest.mark.mysql
__all__ = ["audit_database"]  # the fixture

RUNS = 3
DELAY_S = 3.0
TIMEOUT_S = 1.0
"""The store's connect/read/write timeout: a delayed statement fails after it."""

REFUSE = (
    "CREATE TRIGGER refuse_audit BEFORE INSERT ON diagnosis_run FOR EACH ROW "
    "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'audit writes refused'"
)


def _run(run_id: str, audit: AuditWriter | None) -> DiagnosisRun:
    kb = {"query": "connection pool", "top_k": 3}
    conclusion = {
        "id": "c1",
        "kind": "OBSERVATION",
        "statement": "pool exhausted",
        "confidence": 0.7,
        "citations": [{"tool_call_id": "k1", "item_ref": "doc:a#0"}],
    }
    model = ScriptedModel(
        [
            text_reply(json.dumps({"intent": "DIAGNOSIS"})),
            tool_reply(("search_knowledge", kb, "k1")),
            text_reply(draft_json("an-1", [conclusion])),
            text_reply(json.dumps({"verdict": "SUPPORTED", "issues": []})),
        ]
    )
    deps = dataclasses.replace(fake_deps(model, clock=FakeClock()), audit=audit)
    request = RunRequest(question="Why 500 since 14:05?", analysis_id="an-1", session_id="s1")
    return DiagnosisRun(request, deps, run_id=run_id)


async def _execute(runs: list[DiagnosisRun]) -> tuple[list[ReleasedResult], float]:
    """Results and the slowest run's wall time."""
    results, slowest = [], 0.0
    for run in runs:
        clock = run.deps.clock
        started_fake, started = clock.monotonic(), time.perf_counter()
        results.append(await run.execute())
        slowest = max(slowest, time.perf_counter() - started)
        assert clock.monotonic() == started_fake  # nothing in the run waited on time
        assert run.audit_failures == 0
    return results, slowest


async def _until(predicate: Any, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached"
        await asyncio.sleep(0.05)


@pytest.fixture
def direct_url(audit_database: sa.URL) -> Iterator[str]:
    """The test database, upgraded, reached directly (for checks and for the faults)."""
    url = audit_database.render_as_string(hide_password=False)
    engine = create_audit_engine(url)
    upgrade(engine)
    engine.dispose()
    yield url


@pytest.fixture
def proxy(audit_database: sa.URL) -> Iterator[TcpProxy]:
    with tcp_proxy(audit_database.host or "127.0.0.1", audit_database.port or 3306) as p:
        yield p


def _apply(fault: str, proxy: TcpProxy, direct_url: str) -> None:
    if fault == "stopped":
        proxy.down()
    elif fault == "slow":
        proxy.slow(DELAY_S)
    else:
        engine = sa.create_engine(direct_url)
        with engine.begin() as conn:
            conn.exec_driver_sql(REFUSE)
        engine.dispose()


def _heal(fault: str, proxy: TcpProxy, direct_url: str) -> None:
    proxy.up()
    if fault == "refusing":
        engine = sa.create_engine(direct_url)
        with engine.begin() as conn:
            conn.exec_driver_sql("DROP TRIGGER refuse_audit")
        engine.dispose()


@pytest.mark.parametrize("fault", ["stopped", "slow", "refusing"])
def test_runs_release_identical_results_whatever_the_database_does(
    fault: str, proxy: TcpProxy, direct_url: str, audit_database: sa.URL
) -> None:
    proxied = audit_database.set(host="127.0.0.1", port=proxy.port)
    store = SqlAuditStore(
        create_audit_engine(proxied.render_as_string(hide_password=False), timeout_s=TIMEOUT_S)
    )
    checks = SqlAuditStore.open(direct_url)
    policy = AuditWriterPolicy(batch_rows=50, flush_interval_s=0.2, close_timeout_s=10)

    async def scenario() -> AuditWriterStats:
        writer = AuditWriter(store, SystemClock(), policy)
        # Warm: the store has connected and upgraded through the proxy before the fault.
        await writer.record(run_record("run-warm", at=FakeClock().now()))
        await writer.flush()
        assert writer.stats().written_records == 1

        ids = [f"run-{fault}-{i}" for i in range(RUNS)]
        plain, _ = await _execute([_run(i, None) for i in ids])
        _apply(fault, proxy, direct_url)
        faulty, slowest = await _execute([_run(i, writer) for i in ids])
        assert faulty == plain
        assert slowest < DELAY_S / 3, slowest
        await _until(lambda: writer.stats().failed_flushes >= 1)
        failed = writer.stats()
        assert failed.last_error is not None

        _heal(fault, proxy, direct_url)
        later = [f"run-{fault}-after-{i}" for i in range(RUNS)]
        await _execute([_run(i, writer) for i in later])
        await _until(lambda: writer.stats().queued_records == 0 and not writer._flush)
        for run_id in later:
            assert (await checks.run(run_id)) is not None, run_id
            assert (await checks.timeline(run_id))[0].sequence_no == 1
        await writer.close()
        print(fault, failed, writer.stats())
        return failed

    try:
        stats = asyncio.run(scenario())
    finally:
        store.close()
        checks.close()
    assert stats.failed_flushes >= 1
