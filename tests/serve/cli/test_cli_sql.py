"""``harness sql-check``: exit codes and what it prints."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from harness.sql.plan import MysqlQueryPlan
from harness.sql.policy import SqlPolicy
from serve.cli.sql import register
from tests.paths import FIXTURES

POLICY_PATH = FIXTURES / "sql_policy.json"


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser(prog="harness")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    code = args.handler(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_accepted_statement_prints_the_plan_and_exits_0(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(
        ["sql-check", "--policy", str(POLICY_PATH), "SELECT id, email FROM shop.customers"],
        capsys,
    )
    assert code == 0
    plan = MysqlQueryPlan.model_validate_json(out)
    assert (plan.datasource, plan.tables, plan.limit) == ("shop-primary", ["shop.customers"], 100)
    assert [(c.name, c.sensitive) for c in plan.columns] == [("id", False), ("email", True)]


@pytest.mark.parametrize(
    ("sql", "reason"),
    [
        ("DELETE FROM shop.orders", "NOT_SELECT"),
        ("SELECT SLEEP(10)", "FUNCTION_NOT_ALLOWED"),
        (
            "SELECT id FROM shop.customers WHERE email = 'bob@example.com'",
            "SENSITIVE_COLUMN_IN_PREDICATE",
        ),
    ],
)
def test_rejected_statement_prints_the_reason_and_exits_3(
    capsys: pytest.CaptureFixture[str], sql: str, reason: str
) -> None:
    code, out, _ = run(["sql-check", "--policy", str(POLICY_PATH), sql], capsys)
    first, second = out.splitlines()
    assert (code, first) == (3, f"SQL_REJECTED {reason}")
    assert second and "bob@example.com" not in out


def test_show_policy_prints_the_effective_policy(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["sql-check", "--policy", str(POLICY_PATH), "--show-policy"], capsys)
    assert code == 0
    shown = json.loads(out)
    assert SqlPolicy.model_validate(shown) == SqlPolicy.load(POLICY_PATH)
    customers = shown["datasources"]["shop-primary"]["schemas"]["shop"]["tables"]["customers"]
    assert customers["sensitive"] == ["email", "password_hash"]
    assert {k: shown[k] for k in ("default_limit", "max_limit", "max_joins")} == {
        "default_limit": 100,
        "max_limit": 500,
        "max_joins": 8,
    }


def test_default_policy_is_the_bundled_demo_policy(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["sql-check", "--show-policy"], capsys)
    assert (code, SqlPolicy.model_validate_json(out)) == (0, SqlPolicy.demo())
    code, out, _ = run(["sql-check", "SELECT id FROM shop.orders"], capsys)
    assert code == 0 and MysqlQueryPlan.model_validate_json(out).datasource == "shop-primary"


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert run(["sql-check", "--policy", str(POLICY_PATH)], capsys)[0] == 2
    assert (
        run(["sql-check", "--policy", str(tmp_path / "missing.json"), "SELECT 1"], capsys)[0] == 2
    )
    broken = tmp_path / "broken.json"
    broken.write_text('{"datasources": {"x": {"schemas": {"mysql": {"tables": {}}}}}}')
    assert run(["sql-check", "--policy", str(broken), "SELECT 1"], capsys)[0] == 2
    code, _, err = run(
        ["sql-check", "--policy", str(POLICY_PATH), "--datasource", "nope", "SELECT 1"], capsys
    )
    assert code == 3  # an unknown datasource is a policy refusal, not a usage error
    two = tmp_path / "two.json"
    document = json.loads(POLICY_PATH.read_text())
    document["datasources"]["shop-replica"] = document["datasources"]["shop-primary"]
    two.write_text(json.dumps(document))
    code, _, err = run(["sql-check", "--policy", str(two), "SELECT 1"], capsys)
    assert (code, "shop-primary, shop-replica" in err) == (2, True)
    assert (
        run(
            ["sql-check", "--policy", str(two), "--datasource", "shop-replica", "SELECT 1"], capsys
        )[0]
        == 0
    )
