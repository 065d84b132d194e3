"""The ordering rule (:mod:`harness.sql.ordering`): total orders over tables with hidden values.

Statements that read a table with sensitive columns get a total ORDER BY wherever rows are
chosen or an order-dependent value is computed, or are refused with
ORDER_DEPENDS_ON_HIDDEN_VALUES; statements over other tables are left as they were. Every
accepted plan is a fixpoint of validation and runs on SQLite.
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from harness.adapters.demo_db import sqlite_demo_engine
from harness.adapters.readonly_sql import ReadOnlySqlBackend
from harness.contracts.errors import BackendError, SqlRejected
from harness.sql.policy import SqlPolicy, TablePolicy
from harness.sql.validator import SqlValidator
from harness.testing.tools import RAW_CAP
from tests.paths import FIXTURES

DS = "shop-primary"
ORDER = "ORDER_DEPENDS_ON_HIDDEN_VALUES"


@pytest.fixture(scope="module")
def validator() -> SqlValidator:
    return SqlValidator(SqlPolicy.load(FIXTURES / "sql_policy.json"))


def _sql(validator: SqlValidator, sql: str) -> str:
    plan = validator.validate(DS, sql)
    assert validator.validate(DS, plan.sql).sql == plan.sql, "not a fixpoint"
    return plan.sql


def _reason(validator: SqlValidator, sql: str) -> str | None:
    try:
        validator.validate(DS, sql)
    except SqlRejected as rejected:
        return str(rejected.context["reason"])
    return None


REWRITES = {
    "outer LIMIT": (
        "SELECT id FROM shop.customers LIMIT 3",
        "ORDER BY `customers`.`id` LIMIT 3",
    ),
    "the enforced LIMIT": (
        "SELECT id, email FROM shop.customers",
        "ORDER BY `customers`.`id` LIMIT 100",
    ),
    "ties of the model's order": (
        "SELECT id FROM shop.customers ORDER BY region DESC LIMIT 3",
        "ORDER BY `customers`.`region` DESC, `customers`.`id` LIMIT 3",
    ),
    "a join: both keys": (
        "SELECT c.name FROM shop.customers c JOIN shop.orders o ON o.customer_id = c.id",
        "ORDER BY `c`.`id`, `o`.`id` LIMIT 100",
    ),
    "derived table with LIMIT": (
        "SELECT d.id FROM (SELECT id FROM shop.customers LIMIT 3) AS d",
        "ORDER BY `customers`.`id` LIMIT 3) AS `d` ORDER BY `d`.`id` LIMIT 100",
    ),
    "CTE with LIMIT": (
        "WITH s AS (SELECT id, email FROM shop.customers LIMIT 2) SELECT s.id FROM s",
        "ORDER BY `customers`.`id` LIMIT 2) SELECT `s`.`id` AS `id` FROM `s` AS `s` "
        "ORDER BY `s`.`id` LIMIT 100",
    ),
    "IN subquery with LIMIT": (
        "SELECT o.id FROM shop.orders o WHERE o.customer_id IN "
        "(SELECT c.id FROM shop.customers c LIMIT 3)",
        "FROM `shop`.`customers` AS `c` ORDER BY `c`.`id` LIMIT 3) ORDER BY `o`.`id` LIMIT 100",
    ),
    "scalar subquery (SQLite takes its first row)": (
        "SELECT (SELECT c.id FROM shop.customers c) AS x",
        "FROM `shop`.`customers` AS `c` ORDER BY `c`.`id`) AS `x` LIMIT 100",
    ),
    "set operation: its visible outputs": (
        "SELECT id, email FROM shop.customers UNION ALL SELECT id, token FROM shop.api_tokens",
        "ORDER BY `id` LIMIT 100",
    ),
    "grouped: the group keys": (
        "SELECT region, COUNT(*) AS n FROM shop.customers GROUP BY region ORDER BY n DESC",
        "GROUP BY `customers`.`region` ORDER BY `n` DESC, `region` LIMIT 100",
    ),
    "distinct: the outputs": (
        "SELECT DISTINCT region FROM shop.customers",
        "ORDER BY `customers`.`region` LIMIT 100",
    ),
    "GROUP_CONCAT: its own values": (
        "SELECT GROUP_CONCAT(id) AS g FROM shop.customers",
        "GROUP_CONCAT(`customers`.`id` ORDER BY `customers`.`id` SEPARATOR ',')",
    ),
    "GROUP_CONCAT: after the model's order": (
        "SELECT GROUP_CONCAT(name ORDER BY region) AS g FROM shop.customers",
        "ORDER BY `customers`.`region`, `customers`.`name` SEPARATOR ',')",
    ),
    "ROW_NUMBER() OVER ()": (
        "SELECT id, ROW_NUMBER() OVER () AS r FROM shop.customers",
        "ROW_NUMBER() OVER (ORDER BY `customers`.`id`) AS `r`",
    ),
    "LAG over a partition": (
        "SELECT id, LAG(id) OVER (PARTITION BY region ORDER BY created_at) AS p "
        "FROM shop.customers",
        "ORDER BY `customers`.`created_at`, `customers`.`id`) AS `p`",
    ),
    "an aggregate over a ROWS frame": (
        "SELECT id, SUM(id) OVER (ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s "
        "FROM shop.customers",
        "SUM(`customers`.`id`) OVER (ORDER BY `customers`.`id` ROWS BETWEEN 1 PRECEDING",
    ),
    "derived source without a projected key: its visible columns": (
        "SELECT d.region FROM (SELECT region, email FROM shop.customers) AS d",
        "ORDER BY `d`.`region` LIMIT 100",
    ),
    "grouped derived source: its group key": (
        "SELECT d.region, d.n FROM (SELECT region, COUNT(*) AS n FROM shop.customers "
        "GROUP BY region) AS d",
        "AS `d` ORDER BY `d`.`region` LIMIT 100",
    ),
}


@pytest.mark.parametrize("case", sorted(REWRITES))
def test_hazardous_statements_get_a_total_order(validator: SqlValidator, case: str) -> None:
    sql, expected = REWRITES[case]
    assert expected in _sql(validator, sql)


UNCHANGED = [
    # RANK and friends give peers one value; RANGE-framed aggregates too: no tie-breaker.
    "SELECT id, RANK() OVER (ORDER BY region) AS r FROM shop.customers",
    "SELECT id, SUM(id) OVER (ORDER BY region) AS s FROM shop.customers",
    "SELECT id, COUNT(*) OVER (PARTITION BY region) AS n FROM shop.customers",
]


@pytest.mark.parametrize("sql", UNCHANGED)
def test_peer_valued_windows_keep_their_order(validator: SqlValidator, sql: str) -> None:
    window = _sql(validator, sql).split(" OVER (", 1)[1].split(")", 1)[0]
    assert "`id`" not in window


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT id FROM shop.orders LIMIT 3",
        "SELECT status, COUNT(*) AS n FROM shop.orders GROUP BY status",
        "SELECT id, ROW_NUMBER() OVER () AS r FROM ops.deployments",
        "SELECT GROUP_CONCAT(sku) AS g FROM shop.order_items",
        "SELECT id, RAND(1) AS r FROM ops.services",
        "SELECT customer_id, status FROM shop.orders GROUP BY customer_id",
    ],
)
def test_statements_without_hidden_values_are_left_alone(validator: SqlValidator, sql: str) -> None:
    # No table with a sensitive column: nothing the result depends on is hidden.
    assert "ORDER BY" not in _sql(validator, sql)


REFUSED = [
    "SELECT id, COUNT(*) AS n FROM shop.customers",
    "SELECT region, name FROM shop.customers GROUP BY region",
    "SELECT region, COUNT(*) AS n FROM shop.customers GROUP BY region ORDER BY MAX(id), name",
    "SELECT c.region, (SELECT COUNT(*) FROM shop.orders o WHERE o.customer_id = c.id) AS n "
    "FROM shop.customers c GROUP BY c.region",
    "SELECT region, SUM(id) OVER () AS s FROM shop.customers GROUP BY region",
    "SELECT ANY_VALUE(name) AS n FROM shop.customers",
    "SELECT id, RAND(7) AS r FROM shop.customers ORDER BY r",
    "SELECT id, RAND() AS r FROM shop.customers",
    "SELECT JSON_ARRAYAGG(id) AS j FROM shop.customers",
    "SELECT region, COUNT(*) AS n FROM shop.customers GROUP BY region WITH ROLLUP",
    "SELECT SUM(CASE WHEN id = 5 THEN 9223372036854775807 ELSE 1 END) AS s FROM shop.customers",
    "SELECT SUM(CASE WHEN id = 5 THEN 2147483649 ELSE 1 END) AS s FROM shop.customers",
    "SELECT SUM(IF(id = 5, 0.1, 1)) AS s FROM shop.customers",
    "SELECT SUM(CASE WHEN id = 5 THEN 1e300 ELSE 1 END) AS s FROM shop.customers",
    # A subquery that stops at its first match may compute nothing from a column: an error or
    # a slow value on one row would tell whether the scan reached it before the match.
    "SELECT EXISTS (SELECT 1 FROM shop.customers AS x WHERE CASE WHEN x.id = 7 "
    "THEN ABS(x.id - 9223372036854775807 - 2) ELSE 0 END = 1) AS e",
    "SELECT o.id FROM shop.orders o WHERE NOT EXISTS (SELECT 1 FROM shop.customers c "
    "WHERE c.id = o.customer_id AND c.id * 2 > 3)",
    "SELECT o.id FROM shop.orders o WHERE o.customer_id IN (SELECT c.id FROM shop.customers c "
    "WHERE LENGTH(c.name) > 3)",
    "SELECT o.status, COUNT(*) AS n FROM shop.orders o GROUP BY o.status HAVING EXISTS "
    "(SELECT 1 FROM (SELECT id FROM shop.customers) AS d WHERE d.id + 0 = 7)",
    "SELECT AVG(id * 1e300) AS a FROM shop.customers",
    "SELECT SUM(d.v) AS s FROM (SELECT id * 2 AS v FROM shop.customers) AS d",
    "SELECT STDDEV(o.total_cents / 3) AS s FROM shop.orders o JOIN shop.customers c "
    "ON c.id = o.customer_id",
    "SELECT id, ROW_NUMBER() OVER w AS r FROM shop.customers WINDOW w AS (ORDER BY region)",
]


@pytest.mark.parametrize("sql", REFUSED)
def test_what_no_order_can_fix_is_refused(validator: SqlValidator, sql: str) -> None:
    assert _reason(validator, sql) == ORDER


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT region, COUNT(*) AS n, SUM(id) AS s, AVG(DISTINCT id) AS a FROM shop.customers "
        "GROUP BY region",
        "SELECT c.id, c.name, COUNT(o.id) AS n FROM shop.customers c "
        "LEFT JOIN shop.orders o ON o.customer_id = c.id GROUP BY c.id",
        "SELECT o.status, SUM(COUNT(*)) OVER () AS total FROM shop.orders o "
        "JOIN shop.customers c ON c.id = o.customer_id GROUP BY o.status",
        "SELECT SUM(d.id) AS s FROM (SELECT id FROM shop.customers UNION ALL "
        "SELECT id FROM shop.api_tokens) AS d",
        "SELECT DATE_FORMAT(created_at, '%Y-%m') AS m, COUNT(*) AS n FROM shop.customers "
        "GROUP BY DATE_FORMAT(created_at, '%Y-%m')",
        # Counting rows that match: small integer results sum exactly in any order.
        "SELECT SUM(CASE WHEN region = 'eu' THEN 1 ELSE 0 END) AS eu, COUNT(*) AS n "
        "FROM shop.customers",
        "SELECT region, SUM(IF(region = 'eu', 1, 0)) AS eu FROM shop.customers GROUP BY region",
        "SELECT AVG(CASE WHEN region = 'eu' THEN 100 END) AS pct FROM shop.customers",
        # A comparison is 0 or 1 per row; 1.0 is an integer too; a column where a condition
        # holds sums like the column itself.
        "SELECT SUM(region = 'eu') AS eu FROM shop.customers",
        "SELECT AVG(CASE WHEN region = 'eu' THEN 1.0 ELSE 0 END) AS share FROM shop.customers",
        "SELECT SUM(IF(region = 'eu', id, 0)) AS s FROM shop.customers",
        "SELECT SUM(CASE WHEN id = 5 THEN id ELSE 1 END) AS s FROM shop.customers",
        # A correlated subquery in WHERE reads a row before grouping, not a group.
        "SELECT COUNT(*) AS n FROM shop.customers c WHERE NOT EXISTS "
        "(SELECT 1 FROM shop.api_tokens t WHERE t.customer_id = c.id)",
        "SELECT c.region, COUNT(*) AS n FROM shop.customers c WHERE EXISTS (SELECT 1 FROM "
        "shop.orders o WHERE o.customer_id = c.id AND o.status = 'failed') GROUP BY c.region",
        # Comparisons and logic in a first-match subquery, and computing on constants only.
        "SELECT o.id FROM shop.orders o WHERE o.customer_id IN (SELECT c.id FROM "
        "shop.customers c WHERE c.region IN ('eu', 'us') AND c.id BETWEEN 1 AND 50)",
        "SELECT o.id FROM shop.orders o WHERE EXISTS (SELECT 1 FROM shop.customers c WHERE "
        "c.id = o.customer_id AND c.created_at > DATE_SUB('2026-11-02', INTERVAL 7 DAY))",
    ],
)
def test_order_independent_aggregates_stay_legal(validator: SqlValidator, sql: str) -> None:
    _sql(validator, sql)


def _policy(table: dict[str, object]) -> SqlPolicy:
    return SqlPolicy.model_validate(
        {
            "datasources": {
                DS: {
                    "default_schema": "s",
                    "schemas": {"s": {"tables": {"t": table, "u": {"columns": ["id", "t_id"]}}}},
                }
            }
        }
    )


def test_a_key_may_not_hold_a_sensitive_or_unlisted_column() -> None:
    with pytest.raises(ValidationError, match="sensitive"):
        TablePolicy(columns=["id", "secret"], sensitive=["secret"], key=["secret"])
    with pytest.raises(ValidationError, match="listed"):
        TablePolicy(columns=["id"], key=["other"])
    assert TablePolicy(columns=["ID", "a"], key=["Id"]).key == ["id"]


def test_a_table_whose_primary_key_is_sensitive_is_ordered_by_its_visible_columns() -> None:
    # tokens(token PRIMARY KEY, scope, created_at): no key to declare; the visible columns
    # order the rows up to rows that differ only in the masked token, which look identical.
    policy = _policy({"columns": ["token", "scope", "created_at"], "sensitive": ["token"]})
    executed = SqlValidator(policy).validate(DS, "SELECT token, scope FROM s.t LIMIT 5").sql
    assert executed.endswith("ORDER BY `t`.`scope`, `t`.`created_at` LIMIT 5")
    with pytest.raises(SqlRejected):
        SqlValidator(policy).validate(DS, "SELECT scope FROM s.t ORDER BY token")


def test_rewritten_plans_run_on_sqlite(tmp_path_factory: pytest.TempPathFactory) -> None:
    validator = SqlValidator(SqlPolicy.demo())
    backend = ReadOnlySqlBackend({DS: sqlite_demo_engine(tmp_path_factory.mktemp("ordering"))})
    for case, (sql, _) in REWRITES.items():
        plan = validator.validate(DS, sql)
        try:
            raw = backend.fetch(plan, max_raw_bytes=RAW_CAP)
        except BackendError:
            # SQLite before 3.44 has no ORDER BY inside GROUP_CONCAT: a refusal for every
            # hidden order alike, never a wrong order.
            assert "GROUP_CONCAT" in plan.sql, case
            continue
        assert raw["row_count"] >= 0, case
    ordered = backend.fetch(
        validator.validate(DS, "SELECT id FROM shop.customers LIMIT 3"), max_raw_bytes=RAW_CAP
    )
    assert ordered["rows"] == [[1], [2], [3]]
