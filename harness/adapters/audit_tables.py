"""The durable audit's six tables, as SQLAlchemy Core metadata.

One run leaves one :class:`~harness.audit.records.RunRecord`; the store spreads it over

=========================  ==========================================================
table                      one row per
=========================  ==========================================================
``diagnosis_run``          run: identity, owner, session, intent, status, result kind,
                           error code, timings, the budget ledger's totals as columns
``tool_invocation``        tool call that entered execution: identity, tool, statuses,
                           code, latency, byte sizes (never a request, SQL, raw or projection)
``agent_step``             diagnosis agent turn: number, tokens, latency, counts
``diagnosis_trace_event``  timeline event, append-only; unique ``(run_id, sequence_no)``
``agent_reasoning_audit``  model call's reasoning: key id, ciphertext, expiry
``reasoning_access_audit`` attempt to read reasoning, allowed or refused
=========================  ==========================================================

Indexes serve the reads the API and operators run: a run's rows by ``run_id`` (primary or
unique keys lead with it), runs by session and by owner, newest first (``(session_id,
created_at)``, ``(owner, created_at)``, ``created_at``), reasoning by ``expires_at`` (purge),
access attempts by run and by principal over time.

Times are stored as naive UTC (``DATETIME(6)`` on MySQL/MariaDB) and read back timezone-aware.
Enums are stored as their string values (no native ENUM: adding a value needs no migration).

The schema is owned by the Alembic migrations in :mod:`harness.adapters.migrations`, which
must create exactly :data:`METADATA` (a test compares them with autogenerate).
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import mysql

__all__ = [
    "AGENT_STEP",
    "CIPHERTEXT",
    "DIAGNOSIS_RUN",
    "ID",
    "METADATA",
    "REASONING_ACCESS",
    "REASONING_AUDIT",
    "TIME",
    "TOOL_INVOCATION",
    "TRACE_EVENT",
]

_MYSQL = ("mysql", "mariadb")
TIME = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), *_MYSQL)
"""Naive UTC with microseconds on every backend."""
ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
"""Autoincrement keys (SQLite autoincrements INTEGER PRIMARY KEY only)."""
CIPHERTEXT = sa.LargeBinary().with_variant(mysql.MEDIUMBLOB(), *_MYSQL)
"""Up to 16 MiB on MySQL/MariaDB (a plain BLOB stops at 64 KiB)."""

_TABLE_OPTIONS: dict[str, Any] = {
    "mysql_engine": "InnoDB",
    "mysql_charset": "utf8mb4",
    # Ids compare byte for byte: run-ab and RUN-AB are two runs.
    "mysql_collate": "utf8mb4_bin",
}

METADATA = sa.MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "pk": "pk_%(table_name)s",
    }
)
"""The audit schema; the migrations must create exactly this (a test compares them)."""


def _version() -> sa.Column[int]:
    return sa.Column("schema_version", sa.SmallInteger, nullable=False)


DIAGNOSIS_RUN = sa.Table(
    "diagnosis_run",
    METADATA,
    sa.Column("run_id", sa.String(64), primary_key=True),
    _version(),
    sa.Column("session_id", sa.String(64), nullable=False),
    sa.Column("owner", sa.String(128), nullable=False),
    sa.Column("analysis_id", sa.String(64), nullable=False),
    sa.Column("intent", sa.String(32)),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("result_kind", sa.String(32)),
    sa.Column("failure_stage", sa.String(32)),
    sa.Column("error_code", sa.String(64)),
    sa.Column("created_at", TIME, nullable=False),
    sa.Column("finished_at", TIME, nullable=False),
    sa.Column("duration_ms", sa.Double, nullable=False),
    # The budget ledger's totals, one column each, so operators can sum and filter them.
    sa.Column("tool_calls", sa.Integer, nullable=False),
    sa.Column("tool_calls_by_tool", sa.JSON, nullable=False),
    sa.Column("executions", sa.Integer, nullable=False),
    sa.Column("rejections", sa.Integer, nullable=False),
    sa.Column("rejections_by_code", sa.JSON, nullable=False),
    sa.Column("request_bytes", sa.BigInteger, nullable=False),
    sa.Column("raw_bytes", sa.BigInteger, nullable=False),
    sa.Column("projection_bytes", sa.BigInteger, nullable=False),
    sa.Column("model_calls", sa.Integer, nullable=False),
    sa.Column("input_tokens", sa.BigInteger, nullable=False),
    sa.Column("output_tokens", sa.BigInteger, nullable=False),
    sa.Column("total_tokens", sa.BigInteger, nullable=False),
    sa.Column("ledger_usage_unavailable", sa.Integer, nullable=False),
    sa.Column("cost_usd", sa.Double, nullable=False),
    sa.Column("usage_unavailable", sa.Integer, nullable=False),
    sa.Column("tokens_reconciled", sa.Boolean, nullable=False),
    sa.Index(None, "created_at"),
    sa.Index(None, "owner", "created_at"),
    sa.Index(None, "session_id", "created_at"),
    **_TABLE_OPTIONS,
)

TOOL_INVOCATION = sa.Table(
    "tool_invocation",
    METADATA,
    sa.Column("run_id", sa.String(64), primary_key=True),
    sa.Column("tool_call_id", sa.String(64), primary_key=True),
    _version(),
    sa.Column("tool_name", sa.String(64), nullable=False),
    sa.Column("outcome", sa.String(16), nullable=False),
    sa.Column("evidence_status", sa.String(16)),
    sa.Column("error_code", sa.String(64)),
    sa.Column("latency_ms", sa.Double, nullable=False),
    sa.Column("request_bytes", sa.BigInteger),
    sa.Column("raw_bytes", sa.BigInteger),
    sa.Column("projection_bytes", sa.BigInteger),
    **_TABLE_OPTIONS,
)

AGENT_STEP = sa.Table(
    "agent_step",
    METADATA,
    sa.Column("run_id", sa.String(64), primary_key=True),
    sa.Column("step_no", sa.Integer, primary_key=True, autoincrement=False),
    _version(),
    sa.Column("token_count", sa.Integer),
    sa.Column("latency_ms", sa.Double, nullable=False),
    sa.Column("tool_calls", sa.Integer, nullable=False),
    sa.Column("outcome", sa.String(16), nullable=False),
    **_TABLE_OPTIONS,
)

TRACE_EVENT = sa.Table(
    "diagnosis_trace_event",
    METADATA,
    sa.Column("id", ID, primary_key=True, autoincrement=True),
    sa.Column("run_id", sa.String(64), nullable=False),
    sa.Column("sequence_no", sa.Integer, nullable=False),
    _version(),
    sa.Column("category", sa.String(16), nullable=False),
    sa.Column("event_type", sa.String(64), nullable=False),
    sa.Column("at", TIME, nullable=False),
    # The typed details model's JSON: metadata only by construction (harness/trace/events.py).
    sa.Column("details", sa.JSON, nullable=False),
    sa.UniqueConstraint("run_id", "sequence_no"),
    **_TABLE_OPTIONS,
)

REASONING_AUDIT = sa.Table(
    "agent_reasoning_audit",
    METADATA,
    sa.Column("id", ID, primary_key=True, autoincrement=True),
    sa.Column("run_id", sa.String(64), nullable=False),
    _version(),
    sa.Column("session_id", sa.String(64), nullable=False),
    sa.Column("owner", sa.String(128), nullable=False),
    sa.Column("component", sa.String(32), nullable=False),
    sa.Column("component_round", sa.Integer, nullable=False),
    sa.Column("attempt", sa.Integer, nullable=False),
    sa.Column("available", sa.Boolean, nullable=False),
    sa.Column("key_id", sa.String(64)),
    sa.Column("ciphertext", CIPHERTEXT),
    sa.Column("created_at", TIME, nullable=False),
    sa.Column("expires_at", TIME, nullable=False),
    sa.UniqueConstraint(
        "run_id", "component", "component_round", "attempt", name="uq_agent_reasoning_audit_call"
    ),
    sa.Index(None, "expires_at"),
    **_TABLE_OPTIONS,
)

REASONING_ACCESS = sa.Table(
    "reasoning_access_audit",
    METADATA,
    sa.Column("id", ID, primary_key=True, autoincrement=True),
    sa.Column("run_id", sa.String(64), nullable=False),
    _version(),
    sa.Column("session_id", sa.String(64), nullable=False),
    sa.Column("principal", sa.String(128), nullable=False),
    sa.Column("at", TIME, nullable=False),
    sa.Column("allowed", sa.Boolean, nullable=False),
    sa.Column("reason", sa.String(32), nullable=False),
    sa.Index(None, "run_id", "at"),
    sa.Index(None, "principal", "at"),
    **_TABLE_OPTIONS,
)
