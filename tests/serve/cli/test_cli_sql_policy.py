"""``harness sql-policy init`` round trip on a database that is not the demo's (SQLite).

The drafted policy validates, its guesses are printed and recorded for review, ``sql-check``
honours it, and a run's tool plane reads the database through it: a guessed column comes back
masked and cannot be filtered on.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from harness.adapters.embedded import build_tool_plane
from harness.contracts.envelope import ToolCallEnvelope
from harness.sql.policy import SqlPolicy
from harness.workspace import resolve_workspace
from serve.cli import main
from tests.billing_world import copy_world, secrets_in

GUESSES = [
    ("main.customers", "email", "CONTACT"),
    ("main.customers", "phone_number", "CONTACT"),
    ("main.customers", "billing_address", "LOCATION"),
    ("main.customers", "date_of_birth", "BIRTH"),
    ("main.customers", "tax_id", "IDENTITY"),
    ("main.payment_methods", "card_number", "PAYMENT"),
    ("main.payment_methods", "iban", "PAYMENT"),
]


def assert_round_trip(policy_path: Path, printed: str, schema: str) -> SqlPolicy:
    """The file validates, lists every guess for review, and sensitive lists hold exactly them."""
    policy = SqlPolicy.load(policy_path)
    assert policy.review is not None and policy.review.status == "PENDING"
    expected = [(t.replace("main.", f"{schema}."), c, k) for t, c, k in GUESSES]
    assert [(g.table, g.column, g.category) for g in policy.review.sensitive_guesses] == expected
    for table, column, category in expected:
        assert f"  {table}.{column}  {category} (name: " in printed
    (source,) = policy.datasources.values()
    marked = [
        (f"{schema}.{name}", column)
        for name, table in source.schemas[schema].tables.items()
        for column in table.sensitive
    ]
    assert sorted(marked) == sorted((t, c) for t, c, _ in expected)
    assert set(source.schemas[schema].tables) == {
        "customers", "invoices", "payment_methods", "releases", "schema_migrations"
    }  # fmt: skip
    return policy


def check(policy: Path, sql: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["sql-check", "--policy", str(policy), sql])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_init_then_sql_check_then_a_run_honour_the_guesses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    world = copy_world(tmp_path)
    out = tmp_path / "policy" / "billing.json"
    url = f"sqlite:///{world / 'billing.db'}"
    assert main(["sql-policy", "init", "--db", url, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith(f"wrote {out}: datasource billing, 5 tables from {url}; 7 columns")
    assert_round_trip(out, printed, "main")

    code, plan, note = check(out, "SELECT id, email, card_last4 FROM main.payment_methods", capsys)
    assert code == 3 and "SQL_REJECTED COLUMN_NOT_ALLOWED" in plan  # no email column there
    code, plan, note = check(out, "SELECT id, email, full_name FROM main.customers", capsys)
    assert code == 0
    assert [(c["name"], c["sensitive"]) for c in json.loads(plan)["columns"]] == [
        ("id", False),
        ("email", True),
        ("full_name", False),
    ]
    assert (
        note == "note: this policy's review is PENDING (7 guessed sensitive columns to confirm)\n"
    )
    code, refused, _ = check(
        out, "SELECT id FROM main.customers WHERE email LIKE '%@example.com'", capsys
    )
    assert (code, refused.splitlines()[0]) == (3, "SQL_REJECTED SENSITIVE_COLUMN_IN_PREDICATE")

    # A run reads the database through the same policy: guessed columns arrive masked.
    workspace = resolve_workspace({"database": {"url": url, "policy": str(out)}}, base=tmp_path)
    plane = build_tool_plane(workspace=workspace)
    assert plane.registry.names() == ["query_mysql"]  # the world has no logs or runbooks
    boundary = plane.open_run()
    sql = (
        "SELECT c.id, c.email, c.date_of_birth, p.card_number, p.iban FROM main.customers c "
        "JOIN main.payment_methods p ON p.customer_id = c.id"
    )
    envelope = ToolCallEnvelope(
        run_id=boundary.run.run_id,
        tool_call_id="call_pm",
        tool_name="query_mysql",
        arguments=json.dumps({"datasource": "billing", "sql": sql}),
    )
    result = asyncio.run(boundary.call(envelope))
    seen = json.loads(result.model_content())
    assert result.outcome == "OBSERVATION" and len(seen["rows"]) == 4
    assert {v for row in seen["rows"] for k, v in row["values"].items() if k != "id"} == {"***"}
    assert secrets_in(result.model_content()) == []


def test_without_out_the_policy_goes_to_stdout_and_a_file_is_never_overwritten(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    world = copy_world(tmp_path)
    url = f"sqlite:///{world / 'billing.db'}"
    assert main(["sql-policy", "init", "--db", url, "--datasource", "ledger"]) == 0
    captured = capsys.readouterr()
    assert set(SqlPolicy.model_validate_json(captured.out).datasources) == {"ledger"}
    assert "7 columns guessed sensitive" in captured.err
    existing = tmp_path / "policy.json"
    existing.write_text("{}")
    assert main(["sql-policy", "init", "--db", url, "--out", str(existing)]) == 2
    assert existing.read_text() == "{}" and "give --force" in capsys.readouterr().err
    assert main(["sql-policy", "init", "--db", url, "--out", str(existing), "--force"]) == 0
    assert SqlPolicy.load(existing).review is not None


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("sqlite:///{tmp}/absent.db", "WORKSPACE_INVALID NOT_FOUND: SQLite database not found"),
        ("not a url", "WORKSPACE_INVALID DATABASE: not a usable SQLAlchemy URL"),
        ("nosuchdb://host/x", "WORKSPACE_INVALID DATABASE: not a usable SQLAlchemy URL"),
    ],
)
def test_bad_databases_are_stable_errors(
    url: str, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sql-policy", "init", "--db", url.format(tmp=tmp_path)]) == 2
    assert capsys.readouterr().err.startswith(says)
    assert not (tmp_path / "absent.db").exists()  # a typo never creates a database


def test_a_policy_names_its_source_without_the_password() -> None:
    from harness.adapters.sql_urls import shown_url

    assert shown_url("mysql+pymysql://reader:s3cr3t@db.internal/billing") == (
        "mysql+pymysql://reader:***@db.internal/billing"
    )
