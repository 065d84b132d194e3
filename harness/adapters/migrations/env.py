"""Alembic environment of the audit schema: runs on the connection the caller handed in."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context

from harness.adapters.audit_tables import METADATA
from harness.adapters.migrations import VERSION_TABLE


def _run(connection: sa.Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=METADATA,
        version_table=VERSION_TABLE,
        compare_type=True,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


def _main() -> None:
    connection = context.config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    # The Alembic command line: ``-x url=...`` names the database.
    url = context.get_x_argument(as_dictionary=True).get("url")
    if not url:
        raise SystemExit("pass the database as: alembic -x url=<sqlalchemy url> ...")
    engine = sa.create_engine(url)
    try:
        with engine.begin() as conn:
            _run(conn)
    finally:
        engine.dispose()


_main()
