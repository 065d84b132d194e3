"""SqlAuditStore: the :class:`~harness.audit.records.AuditStore` on SQL (MySQL/MariaDB or SQLite).

One run's :class:`~harness.audit.records.RunRecord` becomes rows of the six tables of
:mod:`harness.adapters.audit_tables`; a batch of records is one transaction with one
``executemany`` per table. Times are written as naive UTC and read back timezone-aware.

The engine is synchronous (PyMySQL for MySQL/MariaDB, sqlite3 for the embedded default) and is
driven from asyncio through ``asyncio.to_thread``. Statement parameters and exception text are
never logged — SQLAlchemy's errors quote parameters — only the exception's class; engines are
created with ``hide_parameters=True`` as a second guard.

The store upgrades its database to the migrations' head (:mod:`harness.adapters.migrations`)
before its first statement.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from harness.adapters.audit_rows import (
    access_of,
    access_row,
    event_of,
    insert_records,
    json_serializer,
    naive_utc,
    reasoning_of,
    run_of,
)
from harness.adapters.audit_tables import (
    AGENT_STEP,
    DIAGNOSIS_RUN,
    REASONING_ACCESS,
    REASONING_AUDIT,
    TOOL_INVOCATION,
    TRACE_EVENT,
)
from harness.adapters.migrations import upgrade
from harness.audit.records import (
    ReasoningAccess,
    ReasoningAudit,
    RunAudit,
    RunRecord,
)
from harness.clock import SystemClock
from harness.ports import Clock
from harness.settings import Settings
from harness.trace import TraceEvent

__all__ = ["SqlAuditStore", "create_audit_engine", "open_audit_store"]

log = logging.getLogger(__name__)

_PURGE_CHUNK = 1000


def create_audit_engine(url: str, *, timeout_s: float = 30.0) -> sa.Engine:
    """A synchronous engine for the audit database.

    Args:
        url: SQLAlchemy URL: ``mysql+pymysql://…`` (MySQL/MariaDB) or ``sqlite:///path``
            (the embedded default; the file's directory is created).
        timeout_s: Connect, read and write timeout on MySQL/MariaDB; lock wait on SQLite.
            A database slower than this fails the statement instead of holding the writer.
    """
    parsed = sa.make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = sa.create_engine(
            parsed,
            hide_parameters=True,
            json_serializer=json_serializer,
            connect_args={"timeout": timeout_s},
        )
        sa.event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    seconds = max(1, round(timeout_s))
    return sa.create_engine(
        parsed,
        hide_parameters=True,
        json_serializer=json_serializer,
        pool_pre_ping=True,
        pool_recycle=3600,
        connect_args={
            "connect_timeout": seconds,
            "read_timeout": seconds,
            "write_timeout": seconds,
            "charset": "utf8mb4",
        },
    )


def open_audit_store(
    settings: Settings | None = None, *, clock: Clock | None = None
) -> SqlAuditStore:
    """The deployment's audit store (``HARNESS_AUDIT_URL``, else the embedded SQLite file),
    upgraded to head now — for the CLI and the HTTP layer, which read it.

    Raises:
        sqlalchemy.exc.SQLAlchemyError: The database is unreachable or refuses the upgrade.
    """
    settings = settings or Settings()
    return SqlAuditStore.open(
        settings.audit_database_url(), timeout_s=settings.audit_timeout_s, clock=clock
    )


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # WAL lets readers (the CLI) work while the writer writes; NORMAL is durable enough for an
    # audit that is best effort by design, and much faster than FULL.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


class SqlAuditStore:
    """:class:`~harness.audit.records.AuditStore` over SQLAlchemy Core.

    Args:
        engine: The audit database (see :func:`create_audit_engine`).
        clock: Decides which reasoning rows have expired; the system clock by default.
        migrate: Upgrade the database to the migrations' head before the first statement.
            A failed upgrade fails that call and is tried again on the next one.
    """

    def __init__(self, engine: sa.Engine, *, clock: Clock | None = None, migrate: bool = True):
        self.engine = engine
        self.clock = clock or SystemClock()
        self._migrated = not migrate
        self._migrate_lock = threading.Lock()

    @classmethod
    def open(
        cls, url: str, *, timeout_s: float = 30.0, clock: Clock | None = None
    ) -> SqlAuditStore:
        """A store on ``url``, upgraded to head now (raises when the database is unusable)."""
        store = cls(create_audit_engine(url, timeout_s=timeout_s), clock=clock)
        store.ensure_schema()
        return store

    def ensure_schema(self) -> None:
        """Upgrade the database to head once (blocking; the async methods call it in a thread)."""
        if self._migrated:
            return
        with self._migrate_lock:
            if not self._migrated:
                upgrade(self.engine)
                self._migrated = True

    def close(self) -> None:
        """Release the engine's connections."""
        self.engine.dispose()

    # ------------------------------------------------------------------ writes

    async def write(self, records: Sequence[RunRecord]) -> None:
        """Store a batch: one ``executemany`` per table, all in one transaction.

        A batch the database refuses as data (a record whose run is already stored — a batch
        retried after its commit's reply was lost — or one that breaks the schema) falls back
        to one transaction per record: stored runs are skipped, a record that cannot be stored
        is skipped and logged. Connection and server failures raise.
        """
        if records:
            await asyncio.to_thread(self._write, records)

    def _write(self, records: Sequence[RunRecord]) -> None:
        self.ensure_schema()
        try:
            with self.engine.begin() as conn:
                insert_records(conn, records)
        except (sa.exc.IntegrityError, sa.exc.DataError) as exc:
            log.warning(
                "audit batch refused; writing records one by one n=%d error=%s",
                len(records),
                type(exc).__name__,
            )
            self._write_each(records)

    def _write_each(self, records: Sequence[RunRecord]) -> None:
        for record in records:
            try:
                with self.engine.begin() as conn:
                    stored = conn.execute(
                        sa.select(DIAGNOSIS_RUN.c.run_id).where(
                            DIAGNOSIS_RUN.c.run_id == record.run.run_id
                        )
                    ).first()
                    if stored is None:
                        insert_records(conn, [record])
            except (sa.exc.IntegrityError, sa.exc.DataError) as exc:
                # This record can never be stored (it contradicts itself or the schema):
                # retrying would only hold back the others.
                log.warning("audit record refused and skipped error=%s", type(exc).__name__)

    async def record_access(self, access: ReasoningAccess) -> None:
        """Store one reasoning read attempt."""
        await asyncio.to_thread(self._record_access, access)

    def _record_access(self, access: ReasoningAccess) -> None:
        self.ensure_schema()
        with self.engine.begin() as conn:
            conn.execute(sa.insert(REASONING_ACCESS), [access_row(access)])

    async def purge(self, now: datetime) -> int:
        """Delete reasoning rows that expired before ``now``; return how many.

        Deletes in chunks of ids, so no statement holds many row locks; each delete re-checks
        the expiry and counts only the rows it removed, so purges running at the same time
        neither fail nor count a row twice.
        """
        return await asyncio.to_thread(self._purge, naive_utc(now))

    def _purge(self, now: datetime) -> int:
        self.ensure_schema()
        table = REASONING_AUDIT
        expired = table.c.expires_at < now
        deleted = 0
        while True:
            with self.engine.begin() as conn:
                ids = list(
                    conn.execute(
                        sa.select(table.c.id)
                        .where(expired)
                        .order_by(table.c.id)
                        .limit(_PURGE_CHUNK)
                    ).scalars()
                )
                if not ids:
                    return deleted
                result = conn.execute(sa.delete(table).where(table.c.id.in_(ids), expired))
                deleted += result.rowcount

    async def purge_runs(self, before: datetime) -> int:
        """Delete the runs created before ``before`` with their rows; return how many runs.

        In chunks of runs, each in one transaction (children first, so a run's rows never
        outlive it); reads of reasoning before ``before`` go too. Safe to run concurrently:
        a run deleted by another purge is not counted twice.
        """
        return await asyncio.to_thread(self._purge_runs, naive_utc(before))

    def _purge_runs(self, before: datetime) -> int:
        self.ensure_schema()
        runs = DIAGNOSIS_RUN
        old = runs.c.created_at < before
        deleted = 0
        while True:
            with self.engine.begin() as conn:
                ids = list(
                    conn.execute(
                        sa.select(runs.c.run_id)
                        .where(old)
                        .order_by(runs.c.run_id)
                        .limit(_PURGE_CHUNK)
                    ).scalars()
                )
                if not ids:
                    break
                for child in (TOOL_INVOCATION, AGENT_STEP, TRACE_EVENT, REASONING_AUDIT):
                    conn.execute(sa.delete(child).where(child.c.run_id.in_(ids)))
                result = conn.execute(sa.delete(runs).where(runs.c.run_id.in_(ids), old))
                deleted += result.rowcount
        with self.engine.begin() as conn:
            conn.execute(sa.delete(REASONING_ACCESS).where(REASONING_ACCESS.c.at < before))
        return deleted

    # ------------------------------------------------------------------ reads

    async def timeline(self, run_id: str) -> list[TraceEvent]:
        """One run's trace events ordered by ``sequence_no, id``; empty when unknown."""
        query = (
            sa.select(TRACE_EVENT)
            .where(TRACE_EVENT.c.run_id == run_id)
            .order_by(TRACE_EVENT.c.sequence_no, TRACE_EVENT.c.id)
        )
        return [event_of(row) for row in await self._rows(query)]

    async def run(self, run_id: str) -> RunAudit | None:
        """One run's row; None when unknown."""
        rows = await self._rows(sa.select(DIAGNOSIS_RUN).where(DIAGNOSIS_RUN.c.run_id == run_id))
        return run_of(rows[0]) if rows else None

    async def runs(
        self, *, limit: int = 50, owner: str | None = None, session_id: str | None = None
    ) -> list[RunAudit]:
        """Recent runs, newest first, optionally of one owner or one session."""
        table = DIAGNOSIS_RUN
        query = sa.select(table)
        if owner is not None:
            query = query.where(table.c.owner == owner)
        if session_id is not None:
            query = query.where(table.c.session_id == session_id)
        query = query.order_by(table.c.created_at.desc(), table.c.run_id.desc()).limit(limit)
        return [run_of(row) for row in await self._rows(query)]

    async def reasoning(self, run_id: str) -> list[ReasoningAudit]:
        """The reasoning rows of one run in the order they were recorded, expired ones excluded."""
        table = REASONING_AUDIT
        query = (
            sa.select(table)
            .where(table.c.run_id == run_id, table.c.expires_at >= naive_utc(self.clock.now()))
            .order_by(table.c.id)
        )
        return [reasoning_of(row) for row in await self._rows(query)]

    async def accesses(self, run_id: str) -> list[ReasoningAccess]:
        """The reasoning read attempts on one run, oldest first (for operators and tests)."""
        table = REASONING_ACCESS
        query = sa.select(table).where(table.c.run_id == run_id).order_by(table.c.at, table.c.id)
        return [access_of(row) for row in await self._rows(query)]

    async def _rows(self, query: sa.Select[Any]) -> list[sa.Row[Any]]:
        return await asyncio.to_thread(self._fetch, query)

    def _fetch(self, query: sa.Select[Any]) -> list[sa.Row[Any]]:
        self.ensure_schema()
        with self.engine.connect() as conn:
            return list(conn.execute(query))
