"""Audit settings: the embedded default is a SQLite file in the user's data directory;
HARNESS_AUDIT_URL selects MySQL/MariaDB; the writer's limits are validated at start-up."""

from __future__ import annotations

from pathlib import Path

import pytest
from platformdirs import user_data_path
from pydantic import ValidationError

from harness.audit.writer import AuditWriterPolicy
from harness.settings import Settings


def test_default_audit_database_is_a_sqlite_file_in_the_user_data_dir(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("HARNESS_AUDIT_URL", raising=False)
    monkeypatch.delenv("HARNESS_DATA_DIR", raising=False)
    expected = user_data_path("diagnosis-harness") / "audit.sqlite"
    assert Settings().audit_database_url() == f"sqlite:///{expected}"


def test_the_data_directory_setting_moves_the_audit_database_with_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("HARNESS_AUDIT_URL", raising=False)
    monkeypatch.setenv("HARNESS_DATA_DIR", str(tmp_path / "data"))
    assert Settings().audit_database_url() == f"sqlite:///{tmp_path / 'data' / 'audit.sqlite'}"


def test_a_database_left_at_the_default_place_is_found_when_the_data_directory_moves(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("HARNESS_AUDIT_URL", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    old = user_data_path("diagnosis-harness") / "audit.sqlite"
    assert old.is_relative_to(tmp_path)
    moved = Settings(data_dir=tmp_path / "data")
    assert moved.stranded_audit_database() is None  # nothing at the old place
    old.parent.mkdir(parents=True)
    old.write_bytes(b"")
    assert moved.stranded_audit_database() == old
    # Once the new place has a database of its own, or no second place is set, nothing is.
    assert Settings(data_dir=None).stranded_audit_database() is None
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "audit.sqlite").write_bytes(b"")
    assert moved.stranded_audit_database() is None


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
