"""A private audit database on the shared MariaDB: ``audit_test_<random>``, dropped afterwards.

Skips when MariaDB is unreachable, fails under ``CI=true``.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from harness.adapters.demo_db import DEFAULT_MARIADB_URL

__all__ = ["MARIADB_URL", "audit_database"]

MARIADB_URL = os.environ.get("HARNESS_TEST_MYSQL_URL", DEFAULT_MARIADB_URL)


@pytest.fixture
def audit_database() -> Iterator[sa.URL]:
    """The URL of a fresh, empty database on the shared server (dropped at teardown)."""
    server = sa.make_url(MARIADB_URL)
    admin = sa.create_engine(server, connect_args={"connect_timeout": 3})
    name = f"audit_test_{uuid.uuid4().hex[:12]}"
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f"CREATE DATABASE {name} CHARACTER SET utf8mb4")
    except sa.exc.OperationalError as exc:
        admin.dispose()
        if os.environ.get("CI") == "true":
            pytest.fail(f"MariaDB unreachable at {server!r} under CI=true: {exc.orig}")
        pytest.skip(f"MariaDB unreachable at {server!r}")
    try:
        yield server.set(database=name)
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f"DROP DATABASE IF EXISTS {name}")
        admin.dispose()
