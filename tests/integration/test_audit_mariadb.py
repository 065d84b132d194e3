"""The SQL audit on a real MariaDB: migrations without drift, the store's reads and writes."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from harness.adapters.audit_sql import SqlAuditStore, create_audit_engine
from harness.testing.clock import FakeClock
from tests.audit_contract import AT, check_migrations, check_store
from tests.integration.audit_db import audit_database

pytestmark = pytest.mark.mysql
__all__ = ["audit_database"]  # the fixture


def test_migrations_upgrade_downgrade_and_match_the_models(audit_database: sa.URL) -> None:
    engine = create_audit_engine(audit_database.render_as_string(hide_password=False))
    try:
        check_migrations(engine)
    finally:
        engine.dispose()


def test_store_round_trips_records_and_serves_the_reads(audit_database: sa.URL) -> None:
    clock = FakeClock(AT)
    url = audit_database.render_as_string(hide_password=False)
    store = SqlAuditStore(create_audit_engine(url), clock=clock)
    try:
        check_store(store, clock)
    finally:
        store.close()
