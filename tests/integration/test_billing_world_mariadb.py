"""The billing world on a real MariaDB: ``sql-policy init`` round trip and a whole diagnosis.

The world's ``billing.sql`` is loaded into a database of the test's own (created and dropped
here, nothing else on the server is touched). The policy drafted from it validates, lists its
guesses, and ``sql-check`` honours it; a run on the logs, this database and the runbook folder
releases the same root cause as on SQLite. Needs MariaDB on 127.0.0.1:3306 (root, empty
password); under ``CI=true`` an unreachable server fails the tests, elsewhere they skip.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from harness.adapters.embedded import build_run_deps, build_tool_plane
from harness.contracts.ingress import RunRequest
from harness.contracts.results import DiagnosisReport
from harness.diagnosis import DiagnosisRun
from harness.settings import Settings
from harness.trace import ToolInvocation
from harness.workspace import resolve_workspace
from serve.cli import main
from tests.billing_world import AS_OF, QUESTION, WORLD, demo_words_in, mariadb_world, secrets_in
from tests.serve.cli.test_cli_sql_policy import assert_round_trip

pytestmark = pytest.mark.mysql

ADMIN_URL = os.environ.get("HARNESS_TEST_MYSQL_URL", "mysql+pymysql://root@127.0.0.1:3306/")


@pytest.fixture(scope="module")
def database() -> Iterator[str]:
    probe = sa.create_engine(ADMIN_URL, connect_args={"connect_timeout": 3})
    try:
        with probe.connect() as conn:
            conn.exec_driver_sql("SELECT 1")
    except sa.exc.OperationalError as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"MariaDB unreachable at {ADMIN_URL} under CI=true: {exc.orig}")
        pytest.skip(f"MariaDB unreachable at {ADMIN_URL}")
    finally:
        probe.dispose()
    with mariadb_world(ADMIN_URL) as url:
        yield url


def test_policy_round_trip_and_a_diagnosis_on_mariadb(
    database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = sa.make_url(database).database
    assert schema is not None and schema.startswith("harness_billing_")
    policy = tmp_path / "sql-policy.json"
    assert main(["sql-policy", "init", "--db", database, "--out", str(policy)]) == 0
    printed = capsys.readouterr().out
    assert_round_trip(policy, printed, schema)

    assert (
        main(
            ["sql-check", "--policy", str(policy), f"SELECT id, iban FROM {schema}.payment_methods"]
        )
        == 0
    )
    plan = json.loads(capsys.readouterr().out)
    assert [(c["name"], c["sensitive"]) for c in plan["columns"]] == [("id", False), ("iban", True)]
    refused = f"SELECT COUNT(*) FROM {schema}.customers GROUP BY date_of_birth"
    assert main(["sql-check", "--policy", str(policy), refused]) == 3
    assert "SENSITIVE_COLUMN" in capsys.readouterr().out

    workspace = resolve_workspace(
        {
            "logs": {"paths": [str(WORLD / "logs")]},
            "database": {"url": database, "policy": str(policy)},
            "runbooks": {"path": str(WORLD / "runbooks")},
        },
        base=tmp_path,
    )
    settings = Settings()
    plane = build_tool_plane(settings, workspace=workspace)
    run = DiagnosisRun(
        RunRequest(question=QUESTION, as_of=AS_OF), build_run_deps(settings, plane=plane)
    )
    report = asyncio.run(run.execute())
    assert isinstance(report, DiagnosisReport), report
    (root,) = [c for c in report.conclusions if c.kind.value == "ROOT_CAUSE"]
    # The cause is stated with what links it to the symptom (the symptom names its column).
    assert root.statement.startswith(
        "Schema migration 42 on billing-api: rename column invoices.tax_region to tax_zone by "
        "flyway at 2026-03-10 09:36:52 UTC; the symptom names tax_region"
    )
    text = report.model_dump_json()
    assert demo_words_in(text) == [] and secrets_in(text) == []
    calls = [e.details for e in run.trace.events if isinstance(e.details, ToolInvocation)]
    tables = {
        table
        for call in calls
        if call.tool_name == "query_mysql"
        for record in [asyncio.run(plane.store.get(run.run_id, call.tool_call_id))]
        if record is not None
        for table in record.agent_result["scope"]["tables"]
    }
    assert tables == {f"{schema}.{t}" for t in ("invoices", "releases", "schema_migrations")}
