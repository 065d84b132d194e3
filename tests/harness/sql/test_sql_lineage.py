"""Column lineage: every output column knows its base columns and whether it must be masked."""

from __future__ import annotations

import pytest

from harness.contracts.errors import SqlRejected
from harness.sql.plan import PlanColumn
from harness.sql.policy import SqlPolicy
from harness.sql.validator import SqlValidator
from tests.paths import FIXTURES

POLICY_PATH = FIXTURES / "sql_policy.json"
DS = "shop-primary"

PW = "shop.customers.password_hash"
EMAIL = "shop.customers.email"
TOKEN = "shop.api_tokens.token"


@pytest.fixture(scope="module")
def validator() -> SqlValidator:
    return SqlValidator(SqlPolicy.load(POLICY_PATH))


def columns(validator: SqlValidator, sql: str) -> list[tuple[str, list[str], bool]]:
    plan = validator.validate(DS, sql)
    return [(c.name, c.sources, c.sensitive) for c in plan.columns]


CASES = {
    "bare sensitive": (
        "SELECT password_hash FROM shop.customers",
        [("password_hash", [PW], True)],
    ),
    "aliased sensitive": (
        "SELECT email AS contact FROM shop.customers",
        [("contact", [EMAIL], True)],
    ),
    "parenthesised sensitive": (
        "SELECT (email) AS e FROM shop.customers",
        [("e", [EMAIL], True)],
    ),
    "non-sensitive stays unmasked": (
        "SELECT id, name, region FROM shop.customers",
        [
            ("id", ["shop.customers.id"], False),
            ("name", ["shop.customers.name"], False),
            ("region", ["shop.customers.region"], False),
        ],
    ),
    "via cte alias": (
        "WITH c AS (SELECT id, password_hash AS p FROM shop.customers) "
        "SELECT c.id, c.p AS hidden FROM c",
        [("id", ["shop.customers.id"], False), ("hidden", [PW], True)],
    ),
    "via derived table alias": (
        "SELECT d.k FROM (SELECT email AS k FROM shop.customers) AS d",
        [("k", [EMAIL], True)],
    ),
    "via two levels": (
        "WITH a AS (SELECT token AS t, customer_id FROM shop.api_tokens), "
        "b AS (SELECT t AS prefix FROM a) SELECT prefix AS p FROM b",
        [("p", [TOKEN], True)],
    ),
    "via union branch": (
        "SELECT name AS v FROM shop.customers UNION ALL SELECT email FROM shop.customers",
        [("v", [EMAIL, "shop.customers.name"], True)],
    ),
    "via second union branch only": (
        "SELECT scope FROM shop.api_tokens UNION ALL SELECT token FROM shop.api_tokens "
        "UNION ALL SELECT provider FROM shop.payments",
        [("scope", ["shop.api_tokens.scope", TOKEN, "shop.payments.provider"], True)],
    ),
    "count star over a sensitive table": (
        "SELECT COUNT(*) AS total FROM shop.customers",
        [("total", [], False)],
    ),
    "join keeps sides apart": (
        "SELECT o.id AS order_id, c.email, o.status FROM shop.orders o "
        "JOIN shop.customers c ON c.id = o.customer_id",
        [
            ("order_id", ["shop.orders.id"], False),
            ("email", [EMAIL], True),
            ("status", ["shop.orders.status"], False),
        ],
    ),
    "window value": (
        "SELECT id, LAG(total_cents) OVER (PARTITION BY customer_id ORDER BY id) AS prev "
        "FROM shop.orders",
        [
            ("id", ["shop.orders.id"], False),
            (
                "prev",
                ["shop.orders.customer_id", "shop.orders.id", "shop.orders.total_cents"],
                False,
            ),
        ],
    ),
    "window next to a bare sensitive column": (
        "SELECT token, ROW_NUMBER() OVER (ORDER BY id) AS n FROM shop.api_tokens",
        [("token", [TOKEN], True), ("n", ["shop.api_tokens.id"], False)],
    ),
    "star over a derived table": (
        "SELECT * FROM (SELECT id, token FROM shop.api_tokens) AS t",
        [("id", ["shop.api_tokens.id"], False), ("token", [TOKEN], True)],
    ),
    "cte column list renames": (
        "WITH x(email, id) AS (SELECT id, email FROM shop.customers) SELECT x.id FROM x",
        [("id", [EMAIL], True)],
    ),
    "derived column list renames": (
        "SELECT d.name FROM (SELECT email, id FROM shop.customers UNION ALL "
        "SELECT name, id FROM shop.customers) AS d(name, id)",
        [("name", [EMAIL, "shop.customers.name"], True)],
    ),
    "alias named like a sensitive column": (
        "SELECT name AS email FROM shop.customers ORDER BY email",
        [("email", ["shop.customers.name"], False)],
    ),
    "literal has no source": (
        "SELECT 'x' AS tag, id FROM shop.orders",
        [("tag", [], False), ("id", ["shop.orders.id"], False)],
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_output_lineage(validator: SqlValidator, case: str) -> None:
    sql, expected = CASES[case]
    assert columns(validator, sql) == expected


def test_plan_columns_are_typed_plan_columns(validator: SqlValidator) -> None:
    plan = validator.validate(DS, "SELECT password_hash AS x FROM shop.customers")
    assert plan.columns == [PlanColumn(name="x", sources=[PW], sensitive=True)]


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT UPPER(password_hash) AS x FROM shop.customers",
        "SELECT LENGTH(email) FROM shop.customers",
        "WITH c AS (SELECT id, password_hash AS p FROM shop.customers) SELECT LOWER(c.p) FROM c",
        "SELECT d.k FROM (SELECT CONCAT(name, '/', email) AS k FROM shop.customers) AS d",
        "WITH a AS (SELECT token AS t FROM shop.api_tokens), "
        "b AS (SELECT SUBSTRING(t, 1, 4) AS prefix FROM a) SELECT prefix AS p FROM b",
        "SELECT CASE WHEN card_token IS NULL THEN 'none' ELSE 'card' END AS kind "
        "FROM shop.payments",
        "SELECT COUNT(DISTINCT email) AS n FROM shop.customers",
        "SELECT c.id, (SELECT MAX(t.token) FROM shop.api_tokens t "
        "WHERE t.customer_id = c.id) AS last_token FROM shop.customers c",
        "SELECT c.id, (SELECT t.token FROM shop.api_tokens t "
        "WHERE t.customer_id = c.id LIMIT 1) AS last_token FROM shop.customers c",
        "SELECT region, email FROM shop.customers GROUP BY region",
    ],
)
def test_values_computed_from_sensitive_columns_are_refused(
    validator: SqlValidator, sql: str
) -> None:
    # Masking a computed value is not enough: what is computed can fail, or not, per value.
    with pytest.raises(SqlRejected) as caught:
        validator.validate(DS, sql)
    assert caught.value.context["reason"] == "SENSITIVE_COLUMN_IN_EXPRESSION"


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT id FROM shop.customers WHERE password_hash = '$2b$12$abc'",
        "SELECT id FROM shop.customers WHERE UPPER(email) = 'A@B.C'",
        "SELECT c.id FROM shop.customers c JOIN shop.api_tokens t ON t.token = 'x'",
        "WITH a AS (SELECT token AS t FROM shop.api_tokens) SELECT 1 FROM a WHERE a.t > 'm'",
        "SELECT x FROM (SELECT LENGTH(email) AS x FROM shop.customers) d ORDER BY x",
        "SELECT v FROM (SELECT name AS v FROM shop.customers UNION ALL "
        "SELECT email FROM shop.customers) u WHERE u.v LIKE 'a%'",
        "SELECT (SELECT COUNT(*) FROM shop.orders o WHERE o.customer_id = c.id "
        "AND c.email LIKE '%@corp.com') AS n FROM shop.customers c",
        "SELECT id FROM shop.customers c WHERE EXISTS "
        "(SELECT 1 FROM shop.api_tokens t WHERE t.customer_id = c.id AND t.token = 'x')",
        "SELECT name FROM shop.customers GROUP BY name HAVING COUNT(DISTINCT email) > 1",
        "SELECT id, SUM(id) OVER (PARTITION BY LEFT(password_hash, 7)) AS s FROM shop.customers",
        "SELECT id, SUM(id) OVER w AS s FROM shop.customers WINDOW w AS (PARTITION BY email)",
        "SELECT email AS name FROM shop.customers ORDER BY name",
        "WITH x(a) AS (SELECT email FROM shop.customers) SELECT 1 FROM x WHERE a = 'x'",
        "SELECT id FROM shop.customers WHERE (id, email) IN ((1, 'a'))",
    ],
)
def test_sensitive_values_never_reach_a_predicate(validator: SqlValidator, sql: str) -> None:
    with pytest.raises(SqlRejected) as caught:
        validator.validate(DS, sql)
    assert caught.value.context["reason"] == "SENSITIVE_COLUMN_IN_PREDICATE"


def test_masking_follows_the_executed_binding(validator: SqlValidator) -> None:
    # An unqualified name in a correlated subquery is bound (and rewritten) to the outer table
    # that holds it in the allowlist, so MySQL cannot bind it to a denied inner column.
    plan = validator.validate(
        DS,
        "SELECT o.id FROM shop.orders o WHERE EXISTS "
        "(SELECT 1 FROM shop.payments p WHERE p.order_id = o.id AND customer_id = 3)",
    )
    assert "`o`.`customer_id` = 3" in plan.sql
