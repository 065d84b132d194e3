"""The workspace: harness.toml and flags validated into one checked world, or a stable refusal."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from harness.contracts.errors import ErrorCode, WorkspaceError
from harness.workspace import (
    WorkspaceReason,
    absolute_sqlite_url,
    load_workspace,
    merge_sections,
    resolve_workspace,
)

POLICY = {
    "datasources": {
        "billing": {
            "default_schema": "main",
            "schemas": {"main": {"tables": {"invoices": {"columns": ["id", "status"]}}}},
        }
    }
}
SECRET = "s3cret-Pw-771"


@pytest.fixture()
def world(tmp_path: Path) -> Path:
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "app.log").write_text("2026-03-10T09:41:07Z ERROR boom\n")
    (tmp_path / "runbooks").mkdir()
    (tmp_path / "runbooks" / "lag.md").write_text("# Lag\n\nRevert the migration.\n")
    (tmp_path / "policy.json").write_text(json.dumps(POLICY))
    sqlite3.connect(tmp_path / "billing.db").close()
    return tmp_path


TOML = """\
as_of = 2026-03-10T10:00:00Z

[logs]
paths = ["logs"]
service = "invoice-consumer"

[database]
url = "sqlite:///billing.db"
policy = "policy.json"

[runbooks]
path = "runbooks"
"""


def test_a_workspace_file_resolves_relative_to_itself(world: Path, tmp_path: Path) -> None:
    (world / "harness.toml").write_text(TOML)
    workspace = load_workspace(world)  # the folder holding harness.toml
    assert workspace.logs is not None and workspace.database is not None
    assert workspace.runbooks is not None and workspace.as_of is not None
    assert workspace.logs.paths == [world / "logs"]
    assert (workspace.logs.service, workspace.logs.format) == ("invoice-consumer", "auto")
    assert workspace.database.url.get_secret_value() == f"sqlite:///{world / 'billing.db'}"
    assert (workspace.database.policy, workspace.datasource) == (world / "policy.json", "billing")
    assert workspace.runbooks.path == world / "runbooks"
    assert workspace.as_of.isoformat() == "2026-03-10T10:00:00+00:00"
    assert load_workspace(world / "harness.toml") == workspace


def test_flags_lie_over_the_file_table_by_table() -> None:
    base = {"logs": {"paths": ["logs"], "service": "a"}, "as_of": "x"}
    assert merge_sections(base, {"logs": {"service": "b"}, "runbooks": {"path": "/r"}}) == {
        "logs": {"paths": ["logs"], "service": "b"},
        "as_of": "x",
        "runbooks": {"path": "/r"},
    }


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("sqlite:///billing.db", "sqlite:///{base}/billing.db"),
        ("sqlite+pysqlite:///db/x.db?timeout=5", "sqlite+pysqlite:///{base}/db/x.db?timeout=5"),
        ("sqlite:////abs/x.db", "sqlite:////abs/x.db"),
        ("sqlite://", "sqlite://"),
        ("mysql+pymysql://root@127.0.0.1/billing", "mysql+pymysql://root@127.0.0.1/billing"),
    ],
)
def test_only_relative_sqlite_files_are_made_absolute(url: str, expected: str) -> None:
    assert absolute_sqlite_url(url, Path("/w")) == expected.format(base="/w")


def _refusal(data: dict[str, Any], base: Path) -> WorkspaceError:
    with pytest.raises(WorkspaceError) as refused:
        resolve_workspace(data, base=base)
    assert refused.value.error_code is ErrorCode.WORKSPACE_INVALID
    return refused.value


DB = {"url": "sqlite:///billing.db", "policy": "policy.json"}


@pytest.mark.parametrize(
    ("data", "reason", "says"),
    [
        ({}, "EMPTY", "at least one of"),
        ({"logs": {"pathz": ["logs"]}}, "INVALID", "logs.pathz: Extra inputs are not permitted"),
        ({"logs": {"paths": []}}, "INVALID", "logs.paths"),
        ({"logs": {"paths": ["logs"], "format": "xml"}}, "INVALID", "logs.format"),
        ({"logs": {"paths": ["nope"]}}, "NOT_FOUND", "log paths not found"),
        ({"logs": {"paths": ["logs"], "formats": {"*.log": "csv"}}}, "INVALID", "logs.formats"),
        ({"logs": {"paths": ["logs"], "timezone": "Mars/Olympus"}}, "INVALID", "logs.timezone"),
        ({"logs": {"paths": ["runbooks"]}}, "NO_LOGS", "no log file found"),
        ({"database": {**DB, "url": "postgresql://u@h/db"}}, "INVALID", "sqlite, mysql or mariadb"),
        ({"database": {**DB, "url": "sqlite:///absent.db"}}, "NOT_FOUND", "it is never created"),
        ({"database": {**DB, "policy": "absent.json"}}, "NOT_FOUND", "harness sql-policy init"),
        ({"database": {**DB, "policy": "logs/app.log"}}, "POLICY", "is not valid"),
        ({"database": {**DB, "datasource": "shop"}}, "POLICY", "'shop' is not in the SQL policy"),
        ({"runbooks": {"path": "logs"}}, "NO_RUNBOOKS", "no markdown runbook"),
        ({"runbooks": {"path": "nope"}}, "NOT_FOUND", "runbook folder not found"),
    ],
)
def test_each_bad_input_has_a_stable_reason_and_says_what_to_fix(
    world: Path, data: dict[str, Any], reason: str, says: str
) -> None:
    refused = _refusal(data, world)
    assert refused.context == {"reason": reason}
    assert WorkspaceReason(reason).value == reason
    assert says in refused.message


def test_an_unreadable_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError) as missing:
        load_workspace(tmp_path)
    (tmp_path / "harness.toml").write_text("[logs\npaths = 1")
    with pytest.raises(WorkspaceError) as broken:
        load_workspace(tmp_path)
    assert missing.value.context == broken.value.context == {"reason": "UNREADABLE"}
    assert "is not valid TOML" in broken.value.message


def test_a_datasource_must_be_named_when_the_policy_has_several(world: Path) -> None:
    two = {"datasources": {**POLICY["datasources"], "other": POLICY["datasources"]["billing"]}}
    (world / "policy.json").write_text(json.dumps(two))
    assert "name one" in _refusal({"database": DB}, world).message
    chosen = resolve_workspace({"database": {**DB, "datasource": "other"}}, base=world)
    assert chosen.datasource == "other"


def test_the_database_url_is_never_shown(world: Path) -> None:
    url = f"mysql+pymysql://billing:{SECRET}@db.internal/billing"
    refused = _refusal({"database": {"url": url, "policy": "absent.json"}}, world)
    assert SECRET not in refused.message and SECRET not in str(refused.context)
    workspace = resolve_workspace({"database": {"url": url, "policy": "policy.json"}}, base=world)
    shown = [repr(workspace), str(workspace), *workspace.describe(), workspace.model_dump_json()]
    assert not [text for text in shown if SECRET in text]
    bad = _refusal({"database": {"url": f"postgresql://u:{SECRET}@h/db", "policy": "x"}}, world)
    assert SECRET not in bad.message
