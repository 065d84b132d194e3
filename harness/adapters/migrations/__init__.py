"""Alembic migrations of the audit schema, configured in code (no ``alembic.ini`` needed).

``upgrade(engine)`` brings a database to head, ``downgrade(engine, "base")`` takes it back;
both run on MySQL/MariaDB and SQLite. The version is kept in ``audit_alembic_version`` so the
audit can share a database with other Alembic-managed schemas. Authors of a new revision can
still use the CLI: ``alembic -x url=sqlite:///audit.sqlite -c /dev/null`` with
``script_location`` pointing here, or :func:`config` from a Python shell.
"""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config

__all__ = ["VERSION_TABLE", "config", "downgrade", "head", "upgrade"]

VERSION_TABLE = "audit_alembic_version"
_HERE = Path(__file__).resolve().parent


def config(connection: sa.Connection | None = None) -> Config:
    """An Alembic config for these migrations, optionally bound to an open connection."""
    cfg = Config()
    cfg.set_main_option("script_location", str(_HERE))
    cfg.attributes["connection"] = connection
    return cfg


def upgrade(engine: sa.Engine, revision: str = "head") -> None:
    """Upgrade the audit schema of ``engine``'s database to ``revision``."""
    with engine.begin() as conn:
        command.upgrade(config(conn), revision)


def downgrade(engine: sa.Engine, revision: str = "base") -> None:
    """Downgrade the audit schema of ``engine``'s database to ``revision``."""
    with engine.begin() as conn:
        command.downgrade(config(conn), revision)


def head() -> str:
    """The head revision of the migrations."""
    from alembic.script import ScriptDirectory

    heads = ScriptDirectory.from_config(config()).get_heads()
    assert len(heads) == 1, "the audit migrations must have one head"
    return heads[0]
