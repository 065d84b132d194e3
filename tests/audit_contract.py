"""Checks every SQL audit backend must pass (SQLite in tests/harness, MariaDB in integration)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from harness.adapters.audit_sql import SqlAuditStore
from harness.adapters.audit_tables import METADATA
from harness.adapters.migrations import VERSION_TABLE, downgrade, head, upgrade
from harness.audit.records import ReasoningAccess
from harness.testing.clock import FakeClock
from harness.testing.records import run_record

__all__ = ["AT", "AUDIT_TABLES", "check_migrations", "check_store", "drift"]

AT = datetime(2024, 5, 1, 14, 5, 7, 123456, tzinfo=UTC)
AUDIT_TABLES = {
    "agent_reasoning_audit",
    "agent_step",
    "diagnosis_run",
    "diagnosis_trace_event",
    "reasoning_access_audit",
    "tool_invocation",
}


def drift(engine: sa.Engine, metadata: sa.MetaData = METADATA) -> list[object]:
    """What autogenerate would change to make the database match ``metadata``."""
    with engine.connect() as conn:
        context = MigrationContext.configure(
            conn, opts={"version_table": VERSION_TABLE, "compare_type": True}
        )
        return list(compare_metadata(context, metadata))


def _tables(engine: sa.Engine) -> set[str]:
    return set(sa.inspect(engine).get_table_names())


def check_migrations(engine: sa.Engine) -> None:
    """Empty → head → base → head, with no drift at head; a planted drift is found."""
    assert _tables(engine) & AUDIT_TABLES == set()
    upgrade(engine)
    assert _tables(engine) >= AUDIT_TABLES | {VERSION_TABLE}
    assert drift(engine) == []
    with engine.connect() as conn:
        version = conn.execute(sa.text(f"SELECT version_num FROM {VERSION_TABLE}")).scalar_one()
    assert version == head()
    downgrade(engine)
    assert _tables(engine) & AUDIT_TABLES == set()
    upgrade(engine)
    assert drift(engine) == []
    # The comparison can fail: a model with one more index and one more column drifts.
    planted = sa.MetaData()
    for table in METADATA.tables.values():
        table.to_metadata(planted)
    runs = planted.tables["diagnosis_run"]
    runs.append_column(sa.Column("extra", sa.Integer))
    sa.Index("ix_diagnosis_run_status", runs.c.status)
    kinds = sorted(d[0] for d in drift(engine, planted) if isinstance(d, tuple))
    assert kinds == ["add_column", "add_index"], kinds


def check_store(store: SqlAuditStore, clock: FakeClock) -> None:
    """Round trip of whole records, the reads' order and filters, expiry, purge, idempotence."""
    asyncio.run(_check_store(store, clock))


async def _check_store(store: SqlAuditStore, clock: FakeClock) -> None:
    first = run_record("run-a", at=AT, owner="alice", session_id="s1")
    second = run_record("run-b", at=AT + timedelta(seconds=5), owner="bob", session_id="s1")
    third = run_record(
        "run-c", at=AT + timedelta(seconds=9), owner="alice", session_id="s2", tools=0, steps=0
    )
    await store.write([first, second])
    await store.write([third])

    assert await store.run("run-a") == first.run
    assert await store.run("run-zz") is None
    assert await store.timeline("run-b") == second.trace
    assert await store.timeline("run-zz") == []
    assert [r.run_id for r in await store.runs()] == ["run-c", "run-b", "run-a"]
    assert [r.run_id for r in await store.runs(owner="alice")] == ["run-c", "run-a"]
    assert [r.run_id for r in await store.runs(session_id="s1")] == ["run-b", "run-a"]
    assert [r.run_id for r in await store.runs(owner="alice", session_id="s1")] == ["run-a"]
    assert [r.run_id for r in await store.runs(limit=1)] == ["run-c"]
    assert await store.reasoning("run-a") == first.reasoning

    # The same batch again (its commit's reply was lost): no error, nothing doubled.
    await store.write([first, run_record("run-d", at=AT + timedelta(seconds=12))])
    assert [e.sequence_no for e in await store.timeline("run-a")] == list(range(1, 31))
    assert (await store.run("run-d")) is not None

    access = ReasoningAccess(
        run_id="run-a", session_id="s1", principal="mallory", at=AT, allowed=False, reason="OWNER"
    )
    await store.record_access(access)
    assert await store.accesses("run-a") == [access]

    # Reasoning expires 30 days after the run: hidden at once, deleted by purge, counted once.
    assert clock.now() == AT, "the store's clock must start at AT"
    clock.advance(timedelta(days=30, seconds=7).total_seconds())
    assert await store.reasoning("run-a") == []
    assert await store.reasoning("run-c") == third.reasoning
    purged = await asyncio.gather(store.purge(clock.now()), store.purge(clock.now()))
    assert sum(purged) == 16  # run-a and run-b, 8 rows each
    assert await store.purge(clock.now()) == 0
    assert await store.reasoning("run-c") == third.reasoning

    # Run metadata past its retention goes whole: the run, its calls, steps, timeline and
    # reasoning, and reads of reasoning from before; counted once when purges race.
    cutoff = AT + timedelta(seconds=6)
    purged = await asyncio.gather(store.purge_runs(cutoff), store.purge_runs(cutoff))
    assert sum(purged) == 2  # run-a and run-b
    assert await store.purge_runs(cutoff) == 0
    assert await store.run("run-a") is None and await store.run("run-b") is None
    assert await store.timeline("run-a") == [] and await store.reasoning("run-b") == []
    assert await store.accesses("run-a") == []
    assert [r.run_id for r in await store.runs()] == ["run-d", "run-c"]
    assert await store.timeline("run-c") == third.trace
