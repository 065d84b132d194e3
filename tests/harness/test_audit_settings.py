"""Audit settings: the embedded default is a SQLite file in the user's data directory;
HARNESS_AUDIT_URL selects MySQL/MariaDB; the writer's limits are validated at start-up."""

from __future__ import annotations

import pytest
from platformdirs import user_data_path
from pydantic import ValidationError

from harness.audit_writer import AuditWriterPolicy
from harness.settings import Settings


def test_default_audit_database_is_a_sqlite_file_in_the_user_data_dir(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("HARNESS_AUDIT_URL", raising=False)
    expected = user_data_path("diagnosis-harness") / "audit.sqlite"
    assert Settings().audit_database_url() == f"sqlite:///{expected}"


def test_audit_url_and_writer_settings_come_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HARNESS_AUDIT_URL", "mysql+pymysql://audit@db:3306/audit")
    monkeypatch.setenv("HARNESS_AUDIT_BATCH_ROWS", "500")
    monkeypatch.setenv("HARNESS_AUDIT_FLUSH_INTERVAL_S", "0.5")
    monkeypatch.setenv("HARNESS_AUDIT_MAX_QUEUED_ROWS", "5000")
    settings = Settings()
    assert settings.audit_database_url() == "mysql+pymysql://audit@db:3306/audit"
    assert settings.audit_writer_policy() == AuditWriterPolicy(
        batch_rows=500, flush_interval_s=0.5, max_queued_rows=5000
    )


def test_a_queue_smaller_than_a_batch_is_refused_at_start_up() -> None:
    with pytest.raises(ValidationError, match="audit_max_queued_rows"):
        Settings(audit_batch_rows=1000, audit_max_queued_rows=999)
