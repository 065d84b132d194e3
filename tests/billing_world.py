"""The billing world (``tests/fixtures/billing_world``): its facts, and its database built anew.

A second incident written for this project — another stack, another cause — so that a test can
show the harness diagnosing a world it was not built around. The helpers copy the world to a
temporary folder, build its SQLite database from ``billing.sql`` or load the same script into
a database of its own on MariaDB (dropped afterwards), and name what must never be shown.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import sqlalchemy as sa

from tests.paths import FIXTURES, REPO

__all__ = [
    "AS_OF",
    "DEMO_WORDS",
    "QUESTION",
    "SECRETS",
    "WORLD",
    "WORLD_SERVICES",
    "copy_world",
    "demo_words_in",
    "mariadb_world",
    "script_statements",
    "secrets_in",
]

WORLD = FIXTURES / "billing_world"
QUESTION = "Why is invoice-consumer failing since 09:41?"
AS_OF = datetime(2026, 3, 10, 10, 0, tzinfo=UTC)
WORLD_SERVICES = frozenset({"invoice-consumer", "billing-api", "ledger-worker"})
# In the logs and the database on purpose; never in anything the harness shows or records.
SECRETS = (
    "Rb7-Kq2pWx9Lm",
    "sk_live_51HxQ2eZvKYlo2C8a9XyZ1234abcd",
    "4111111111111111",
    "5555555555554444",
    "DE89370400440532013000",
    "ana.silva@example.com",
    "1986-04-12",
)


def _demo_words() -> frozenset[str]:
    index = json.loads((REPO / "harness/embedded/demo/data/runbooks/index.json").read_text())
    words = {
        "checkout", "shop", "hikari", "hikaripool", "orders", "config_changes", "deployments",
        "api-gateway", "payment-service", "inventory-service", "shop-primary", "chg-4821",
    }  # fmt: skip
    return frozenset(words | {str(entry["doc_id"]) for entry in index})


DEMO_WORDS = _demo_words()
"""Names only the bundled demo uses: its services, tables, tickets and runbook ids."""


def demo_words_in(text: str) -> list[str]:
    """The demo's names that occur in ``text`` as whole words."""
    lowered = text.lower()
    return sorted(
        w for w in DEMO_WORDS if re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", lowered)
    )


def secrets_in(text: str) -> list[str]:
    return [secret for secret in SECRETS if secret in text]


def script_statements() -> list[str]:
    """``billing.sql`` as single statements (comment lines dropped)."""
    text = (WORLD / "billing.sql").read_text()
    body = "\n".join(line for line in text.splitlines() if not line.startswith("--"))
    return [s.strip() for s in body.split(";\n") if s.strip()]


def copy_world(directory: Path) -> Path:
    """A copy of the world in ``directory`` with its SQLite database ``billing.db`` built."""
    world = directory / "billing_world"
    shutil.copytree(WORLD, world, ignore=shutil.ignore_patterns("billing.db", "sql-policy.json"))
    with sqlite3.connect(world / "billing.db") as db:
        db.executescript((world / "billing.sql").read_text())
    return world


@contextmanager
def mariadb_world(admin_url: str) -> Iterator[str]:
    """A database of its own on the server, holding ``billing.sql``; its URL; dropped after."""
    name = f"harness_billing_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(admin_url, connect_args={"connect_timeout": 3})
    try:
        with admin.begin() as conn:
            conn.exec_driver_sql(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4")
        try:
            with admin.begin() as conn:
                conn.exec_driver_sql(f"USE `{name}`")
                for statement in script_statements():
                    conn.exec_driver_sql(statement.replace("%", "%%"))
            yield sa.make_url(admin_url).set(database=name).render_as_string(hide_password=False)
        finally:
            with admin.begin() as conn:
                conn.exec_driver_sql(f"DROP DATABASE IF EXISTS `{name}`")
    finally:
        admin.dispose()
