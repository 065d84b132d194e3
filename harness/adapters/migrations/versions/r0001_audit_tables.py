"""The six audit tables.

Revision ID: 0001
Revises:
Create Date: 2026-12-01

Types are spelled out here rather than imported from ``audit_sql``: a migration must keep
creating what it created when it was written, whatever the models become later.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

_MYSQL = ("mysql", "mariadb")
TIME = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), *_MYSQL)
ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
CIPHERTEXT = sa.LargeBinary().with_variant(mysql.MEDIUMBLOB(), *_MYSQL)
OPTIONS: dict[str, Any] = {
    "mysql_engine": "InnoDB",
    "mysql_charset": "utf8mb4",
    "mysql_collate": "utf8mb4_bin",
}


def _version() -> sa.Column[int]:
    return sa.Column("schema_version", sa.SmallInteger, nullable=False)


def upgrade() -> None:
    op.create_table(
        "diagnosis_run",
        sa.Column("run_id", sa.String(64), nullable=False),
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
        sa.PrimaryKeyConstraint("run_id", name="pk_diagnosis_run"),
        **OPTIONS,
    )
    op.create_index("ix_diagnosis_run_created_at", "diagnosis_run", ["created_at"])
    op.create_index("ix_diagnosis_run_owner_created_at", "diagnosis_run", ["owner", "created_at"])
    op.create_index(
        "ix_diagnosis_run_session_id_created_at", "diagnosis_run", ["session_id", "created_at"]
    )

    op.create_table(
        "tool_invocation",
        sa.Column("run_id", sa.String(64), nullable=False),
        sa.Column("tool_call_id", sa.String(64), nullable=False),
        _version(),
        sa.Column("tool_name", sa.String(64), nullable=False),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("evidence_status", sa.String(16)),
        sa.Column("error_code", sa.String(64)),
        sa.Column("latency_ms", sa.Double, nullable=False),
        sa.Column("request_bytes", sa.BigInteger),
        sa.Column("raw_bytes", sa.BigInteger),
        sa.Column("projection_bytes", sa.BigInteger),
        sa.PrimaryKeyConstraint("run_id", "tool_call_id", name="pk_tool_invocation"),
        **OPTIONS,
    )

    op.create_table(
        "agent_step",
        sa.Column("run_id", sa.String(64), nullable=False),
        sa.Column("step_no", sa.Integer, nullable=False, autoincrement=False),
        _version(),
        sa.Column("token_count", sa.Integer),
        sa.Column("latency_ms", sa.Double, nullable=False),
        sa.Column("tool_calls", sa.Integer, nullable=False),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.PrimaryKeyConstraint("run_id", "step_no", name="pk_agent_step"),
        **OPTIONS,
    )

    op.create_table(
        "diagnosis_trace_event",
        sa.Column("id", ID, nullable=False, autoincrement=True),
        sa.Column("run_id", sa.String(64), nullable=False),
        sa.Column("sequence_no", sa.Integer, nullable=False),
        _version(),
        sa.Column("category", sa.String(16), nullable=False),
        sa.Column("event_type", sa.String(64), nullable=False),
        sa.Column("at", TIME, nullable=False),
        sa.Column("details", sa.JSON, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_diagnosis_trace_event"),
        sa.UniqueConstraint(
            "run_id", "sequence_no", name="uq_diagnosis_trace_event_run_id_sequence_no"
        ),
        **OPTIONS,
    )

    op.create_table(
        "agent_reasoning_audit",
        sa.Column("id", ID, nullable=False, autoincrement=True),
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
        sa.PrimaryKeyConstraint("id", name="pk_agent_reasoning_audit"),
        sa.UniqueConstraint(
            "run_id",
            "component",
            "component_round",
            "attempt",
            name="uq_agent_reasoning_audit_call",
        ),
        **OPTIONS,
    )
    op.create_index("ix_agent_reasoning_audit_expires_at", "agent_reasoning_audit", ["expires_at"])

    op.create_table(
        "reasoning_access_audit",
        sa.Column("id", ID, nullable=False, autoincrement=True),
        sa.Column("run_id", sa.String(64), nullable=False),
        _version(),
        sa.Column("session_id", sa.String(64), nullable=False),
        sa.Column("principal", sa.String(128), nullable=False),
        sa.Column("at", TIME, nullable=False),
        sa.Column("allowed", sa.Boolean, nullable=False),
        sa.Column("reason", sa.String(32), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_reasoning_access_audit"),
        **OPTIONS,
    )
    op.create_index(
        "ix_reasoning_access_audit_run_id_at", "reasoning_access_audit", ["run_id", "at"]
    )
    op.create_index(
        "ix_reasoning_access_audit_principal_at", "reasoning_access_audit", ["principal", "at"]
    )


def downgrade() -> None:
    op.drop_table("reasoning_access_audit")
    op.drop_table("agent_reasoning_audit")
    op.drop_table("diagnosis_trace_event")
    op.drop_table("agent_step")
    op.drop_table("tool_invocation")
    op.drop_table("diagnosis_run")
