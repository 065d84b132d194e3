"""The SQL audit on SQLite (the embedded default): migrations without drift, the store's reads
and writes, the batching writer on top of it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from harness.adapters.audit_sql import SqlAuditStore, create_audit_engine
from harness.audit.writer import AuditWriter, AuditWriterPolicy
from harness.testing.clock import FakeClock
from harness.testing.records import run_record
from tests.audit_contract import AT, check_migrations, check_store


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'nested' / 'audit.sqlite'}"


def test_migrations_upgrade_downgrade_and_match_the_models(url: str) -> None:
    engine = create_audit_engine(url)
    try:
        check_migrations(engine)
    finally:
        engine.dispose()


def test_store_round_trips_records_and_serves_the_reads(url: str) -> None:
    clock = FakeClock(AT)
    store = SqlAuditStore(create_audit_engine(url), clock=clock)
    try:
        check_store(store, clock)
    finally:
        store.close()


def test_writer_batches_records_into_the_database(url: str) -> None:
    async def scenario() -> list[str]:
        store = SqlAuditStore.open(url)
        clock = FakeClock(AT)
        writer = AuditWriter(store, clock, AuditWriterPolicy(batch_rows=100, flush_interval_s=1))
        for i in range(5):
            await writer.record(run_record(f"run-{i}", at=AT))
        await writer.close()
        stats = writer.stats()
        assert (stats.written_records, stats.written_rows, stats.flushes) == (5, 240, 3)
        runs = [r.run_id for r in await store.runs()]
        store.close()
        return runs

    assert sorted(asyncio.run(scenario())) == [f"run-{i}" for i in range(5)]


def test_embedded_deps_audit_a_run_into_the_sqlite_file(url: str) -> None:
    from harness.adapters.embedded import build_audit_writer, build_run_deps
    from harness.contracts.ingress import RunRequest
    from harness.diagnosis import DiagnosisRun
    from harness.embedded.demo import INCIDENT_QUESTION, WINDOW_END
    from harness.settings import Settings

    async def scenario() -> None:
        settings = Settings(audit_url=url)
        writer = build_audit_writer(settings)
        deps = build_run_deps(settings, audit=writer)
        run = DiagnosisRun(RunRequest(question=INCIDENT_QUESTION, as_of=WINDOW_END), deps)
        result = await run.execute()
        await writer.close()
        assert run.record is not None
        store = SqlAuditStore.open(url)
        try:
            assert await store.run(run.run_id) == run.record.run
            assert await store.timeline(run.run_id) == run.record.trace
            assert (await store.run(run.run_id)).result_kind == result.kind  # type: ignore[union-attr]
        finally:
            store.close()

    asyncio.run(scenario())


def test_a_record_the_schema_refuses_is_skipped_without_holding_back_the_others(
    url: str,
) -> None:
    good = run_record("run-good", at=AT)
    bad = run_record("run-bad", at=AT)
    # Two events with one sequence number break the unique (run_id, sequence_no) key.
    bad = bad.model_copy(update={"trace": [*bad.trace, bad.trace[-1]]})

    async def scenario() -> tuple[object, object]:
        store = SqlAuditStore.open(url)
        try:
            await store.write([bad, good])
            return await store.run("run-good"), await store.run("run-bad")
        finally:
            store.close()

    assert asyncio.run(scenario()) == (good.run, None)
