"""SqlValidator: what is refused (with which reason), what passes, and the plan it builds."""

from __future__ import annotations

import json

import pytest
import sqlglot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from sqlglot import exp

from harness.contracts.errors import ErrorCode, SqlRejected
from harness.sql.plan import MysqlQueryPlan, PlanColumn
from harness.sql.policy import SqlPolicy
from harness.sql.validator import SqlValidator
from harness.tools import QUERY_MYSQL, default_specs
from harness.tools.arguments import QueryMysqlRequest, SearchKnowledgeRequest
from tests.paths import FIXTURES

POLICY_PATH = FIXTURES / "sql_policy.json"
DS = "shop-primary"


@pytest.fixture(scope="module")
def policy() -> SqlPolicy:
    return SqlPolicy.load(POLICY_PATH)


@pytest.fixture(scope="module")
def validator(policy: SqlPolicy) -> SqlValidator:
    return SqlValidator(policy)


def reason_of(validator: SqlValidator, sql: str, datasource: str = DS) -> str:
    with pytest.raises(SqlRejected) as caught:
        validator.validate(datasource, sql)
    assert caught.value.error_code is ErrorCode.SQL_REJECTED
    return str(caught.value.context["reason"])


# ------------------------------------------------------------------------ refused, by reason

FORBIDDEN = [
    # Writes.
    ("INSERT INTO shop.orders (id) VALUES (1)", "NOT_SELECT"),
    ("INSERT INTO shop.orders SELECT * FROM shop.orders", "NOT_SELECT"),
    ("UPDATE shop.orders SET status = 'PAID' WHERE id = 1", "NOT_SELECT"),
    ("DELETE FROM shop.orders WHERE id = 1", "NOT_SELECT"),
    ("REPLACE INTO shop.orders (id) VALUES (1)", "NOT_SELECT"),
    ("MERGE INTO shop.orders USING x ON 1 = 1 WHEN MATCHED THEN DELETE", "NOT_SELECT"),
    ("TRUNCATE TABLE shop.orders", "NOT_SELECT"),
    ("LOAD DATA INFILE '/etc/passwd' INTO TABLE shop.orders", "NOT_SELECT"),
    # DDL and administration.
    ("CREATE TABLE shop.x (id INT)", "NOT_SELECT"),
    ("CREATE TABLE shop.x AS SELECT id FROM shop.orders", "NOT_SELECT"),
    ("DROP TABLE shop.orders", "NOT_SELECT"),
    ("ALTER TABLE shop.orders ADD COLUMN x INT", "NOT_SELECT"),
    ("RENAME TABLE shop.orders TO shop.orders_old", "NOT_SELECT"),
    ("GRANT ALL ON *.* TO 'x'@'%'", "NOT_SELECT"),
    ("SET @x = 1", "NOT_SELECT"),
    ("SET GLOBAL max_connections = 1", "NOT_SELECT"),
    ("CALL shop.refund_all()", "NOT_SELECT"),
    ("DO SLEEP(5)", "NOT_SELECT"),
    ("HANDLER shop.orders OPEN", "NOT_SELECT"),
    ("SHOW TABLES", "NOT_SELECT"),
    ("DESCRIBE shop.orders", "NOT_SELECT"),
    ("EXPLAIN SELECT id FROM shop.orders", "NOT_SELECT"),
    ("USE mysql", "NOT_SELECT"),
    ("VALUES ROW(1)", "NOT_SELECT"),
    # Multi-statement and stacked queries.
    ("SELECT id FROM shop.orders; SELECT id FROM shop.orders", "NOT_SINGLE_STATEMENT"),
    ("SELECT id FROM shop.orders; DROP TABLE shop.orders", "NOT_SINGLE_STATEMENT"),
    ("SELECT id FROM shop.orders WHERE id = 1; DELETE FROM shop.orders", "NOT_SINGLE_STATEMENT"),
    ("SELECT id FROM shop.orders;;", "NOT_SINGLE_STATEMENT"),
    ("SELECT id FROM shop.orders; LOAD DATA INFILE 'x' INTO TABLE y", "NOT_SINGLE_STATEMENT"),
    # Sleeps, file and system access.
    ("SELECT SLEEP(5)", "FUNCTION_NOT_ALLOWED"),
    ("SELECT id FROM shop.orders WHERE id = 1 AND SLEEP(5)", "FUNCTION_NOT_ALLOWED"),
    ("SELECT id FROM shop.orders ORDER BY SLEEP(1)", "FUNCTION_NOT_ALLOWED"),
    ("SELECT BENCHMARK(1000000, MD5('a'))", "FUNCTION_NOT_ALLOWED"),
    ("SELECT id FROM shop.orders WHERE 0 = BENCHMARK(3000000, MD5(1))", "FUNCTION_NOT_ALLOWED"),
    ("SELECT LOAD_FILE('/etc/passwd')", "FUNCTION_NOT_ALLOWED"),
    ("SELECT GET_LOCK('a', 10)", "FUNCTION_NOT_ALLOWED"),
    ("SELECT RELEASE_LOCK('a')", "FUNCTION_NOT_ALLOWED"),
    ("SELECT MASTER_POS_WAIT('binlog.000001', 4)", "FUNCTION_NOT_ALLOWED"),
    ("SELECT USER()", "FUNCTION_NOT_ALLOWED"),
    ("SELECT CURRENT_USER()", "FUNCTION_NOT_ALLOWED"),
    ("SELECT DATABASE()", "FUNCTION_NOT_ALLOWED"),
    ("SELECT VERSION()", "FUNCTION_NOT_ALLOWED"),
    ("SELECT CONNECTION_ID()", "FUNCTION_NOT_ALLOWED"),
    ("SELECT UUID_SHORT()", "FUNCTION_NOT_ALLOWED"),
    ("SELECT sys_exec('id')", "FUNCTION_NOT_ALLOWED"),
    ("SELECT my_udf(id) FROM shop.orders", "FUNCTION_NOT_ALLOWED"),
    (
        "SELECT EXTRACTVALUE(1, CONCAT(0x7e, (SELECT name FROM shop.customers)))",
        "FUNCTION_NOT_ALLOWED",
    ),
    ("SELECT UPDATEXML(1, CONCAT(0x7e, VERSION()), 1)", "FUNCTION_NOT_ALLOWED"),
    # INTO and locking reads.
    ("SELECT id FROM shop.orders INTO OUTFILE '/tmp/orders'", "INTO_CLAUSE"),
    ("SELECT id INTO OUTFILE '/tmp/orders' FROM shop.orders", "INTO_CLAUSE"),
    ("SELECT id FROM shop.orders INTO DUMPFILE '/tmp/orders'", "INTO_CLAUSE"),
    ("SELECT id INTO @x FROM shop.orders", "INTO_CLAUSE"),
    ("SELECT id FROM shop.orders FOR UPDATE", "LOCKING_CLAUSE"),
    ("SELECT id FROM shop.orders LOCK IN SHARE MODE", "LOCKING_CLAUSE"),
    ("SELECT id FROM shop.orders FOR SHARE", "LOCKING_CLAUSE"),
    (
        "SELECT id FROM shop.orders WHERE id IN (SELECT order_id FROM shop.payments FOR UPDATE)",
        "LOCKING_CLAUSE",
    ),
    # Variables.
    ("SELECT @x", "USER_VARIABLE"),
    ("SELECT id FROM shop.orders WHERE id = @x", "USER_VARIABLE"),
    ("SELECT id FROM shop.orders LIMIT @n", "USER_VARIABLE"),
    ("SELECT @@version", "SYSTEM_VARIABLE"),
    ("SELECT @@global.secure_file_priv", "SYSTEM_VARIABLE"),
    ("SELECT id FROM shop.orders WHERE @@hostname = 'db1'", "SYSTEM_VARIABLE"),
    # System schemas and unlisted tables.
    ("SELECT table_name FROM information_schema.tables", "SCHEMA_NOT_ALLOWED"),
    (
        "SELECT id FROM shop.orders WHERE id IN (SELECT 1 FROM information_schema.columns)",
        "SCHEMA_NOT_ALLOWED",
    ),
    ("SELECT user FROM mysql.user", "SCHEMA_NOT_ALLOWED"),
    ("SELECT id FROM performance_schema.threads", "SCHEMA_NOT_ALLOWED"),
    ("SELECT id FROM sys.version", "SCHEMA_NOT_ALLOWED"),
    ("SELECT id FROM billing.invoices", "SCHEMA_NOT_ALLOWED"),
    ("SELECT id FROM shop.secrets", "TABLE_NOT_ALLOWED"),
    ("SELECT id FROM secrets", "TABLE_NOT_ALLOWED"),
    # Executable comments and hints.
    (
        "SELECT id FROM shop.orders WHERE id = 1 /*!50000 UNION SELECT token FROM shop.api_tokens */",
        "COMMENT_HINT",
    ),
    ("SELECT /*! SLEEP(5) */ 1", "COMMENT_HINT"),
    ("SELECT /*+ MAX_EXECUTION_TIME(1) */ id FROM shop.orders", "COMMENT_HINT"),
    # Columns.
    ("SELECT ssn FROM shop.customers", "COLUMN_NOT_ALLOWED"),
    ("SELECT c.ssn FROM shop.customers AS c", "COLUMN_NOT_ALLOWED"),
    ("SELECT id FROM shop.customers WHERE ssn = '1'", "COLUMN_NOT_ALLOWED"),
    (
        "SELECT id FROM shop.orders o JOIN shop.customers c ON c.id = o.customer_id",
        "UNRESOLVED_LINEAGE",
    ),
    ("SELECT d.nope FROM (SELECT id FROM shop.orders) AS d", "COLUMN_NOT_ALLOWED"),
    ("SELECT ops.orders.id FROM shop.orders", "UNRESOLVED_LINEAGE"),
    ("SELECT o.id FROM shop.orders o, shop.customers o", "UNRESOLVED_LINEAGE"),
    ("SELECT * FROM shop.customers", "STAR_OVER_DENIED_COLUMNS"),
    ("SELECT c.* FROM shop.customers AS c", "STAR_OVER_DENIED_COLUMNS"),
    ("SELECT * FROM ops.deployments", "STAR_OVER_DENIED_COLUMNS"),
    (
        "SELECT * FROM shop.orders o JOIN shop.payments p ON p.order_id = o.id",
        "STAR_OVER_DENIED_COLUMNS",
    ),
    # Sensitive columns outside the select list.
    ("SELECT id FROM shop.customers WHERE password_hash = 'x'", "SENSITIVE_COLUMN_IN_PREDICATE"),
    ("SELECT id FROM shop.customers WHERE email LIKE 'a%'", "SENSITIVE_COLUMN_IN_PREDICATE"),
    ("SELECT id FROM shop.customers ORDER BY email", "SENSITIVE_COLUMN_IN_PREDICATE"),
    ("SELECT email AS e FROM shop.customers ORDER BY e", "SENSITIVE_COLUMN_IN_PREDICATE"),
    ("SELECT email FROM shop.customers ORDER BY 1", "SENSITIVE_COLUMN_IN_PREDICATE"),
    ("SELECT email, COUNT(*) FROM shop.customers GROUP BY email", "SENSITIVE_COLUMN_IN_PREDICATE"),
    (
        "SELECT region FROM shop.customers GROUP BY region HAVING MAX(email) > 'm'",
        "SENSITIVE_COLUMN_IN_PREDICATE",
    ),
    (
        "SELECT id, RANK() OVER (PARTITION BY password_hash) AS r FROM shop.customers",
        "SENSITIVE_COLUMN_IN_PREDICATE",
    ),
    (
        "SELECT id, ROW_NUMBER() OVER (ORDER BY email) AS r FROM shop.customers",
        "SENSITIVE_COLUMN_IN_PREDICATE",
    ),
    (
        "SELECT c.id FROM shop.customers c JOIN shop.api_tokens t ON t.token = c.name",
        "SENSITIVE_COLUMN_IN_PREDICATE",
    ),
    (
        "SELECT id FROM shop.orders WHERE customer_id IN (SELECT customer_id FROM shop.api_tokens WHERE token LIKE 'a%')",
        "SENSITIVE_COLUMN_IN_PREDICATE",
    ),
    (
        "SELECT id FROM shop.orders WHERE customer_id IN (SELECT LENGTH(email) FROM shop.customers)",
        "SENSITIVE_COLUMN_IN_PREDICATE",
    ),
    (
        "SELECT id FROM shop.orders o WHERE (SELECT p.card_token FROM shop.payments p WHERE p.order_id = o.id) = 'x'",
        "SENSITIVE_COLUMN_IN_PREDICATE",
    ),
    (
        "WITH c AS (SELECT id, email AS e FROM shop.customers) SELECT id FROM c WHERE e = 'x'",
        "SENSITIVE_COLUMN_IN_PREDICATE",
    ),
    (
        "SELECT d.id FROM (SELECT id, UPPER(token) AS t FROM shop.api_tokens) d WHERE d.t = 'X'",
        "SENSITIVE_COLUMN_IN_PREDICATE",
    ),
    ("SELECT DISTINCT email FROM shop.customers", "SENSITIVE_COLUMN_IN_PREDICATE"),
    (
        "SELECT name FROM shop.customers UNION SELECT email FROM shop.customers",
        "SENSITIVE_COLUMN_IN_PREDICATE",
    ),
    # Other constructs outside the allowlist.
    ("SELECT id FROM shop.orders NATURAL JOIN shop.payments", "SYNTAX_NOT_ALLOWED"),
    (
        "WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r) SELECT n FROM r",
        "SYNTAX_NOT_ALLOWED",
    ),
    ("SELECT id FROM shop.orders WHERE id = ?", "SYNTAX_NOT_ALLOWED"),
    ("SELECT id FROM shop.orders USE INDEX (PRIMARY)", "SYNTAX_NOT_ALLOWED"),
    ("SELECT id FROM shop.orders PARTITION (p0)", "SYNTAX_NOT_ALLOWED"),
    ("SELECT SQL_CALC_FOUND_ROWS id FROM shop.orders", "SYNTAX_NOT_ALLOWED"),
    ("SELECT id FROM shop.orders LIMIT -1", "LIMIT_NOT_LITERAL"),
    ("SELECT id FROM shop.orders LIMIT 1.5", "LIMIT_NOT_LITERAL"),
    # Not SQL at all.
    ("SELECT id FROM shop.orders WHERE", "PARSE_ERROR"),
    ("SELECT 'unterminated FROM shop.orders", "PARSE_ERROR"),
]


@pytest.mark.parametrize(("sql", "reason"), FORBIDDEN)
def test_forbidden_statements_are_refused_with_their_reason(
    validator: SqlValidator, sql: str, reason: str
) -> None:
    assert reason_of(validator, sql) == reason


def test_unknown_datasource_and_too_long_text(validator: SqlValidator, policy: SqlPolicy) -> None:
    assert (
        reason_of(validator, "SELECT id FROM shop.orders", "shop-replica") == "UNKNOWN_DATASOURCE"
    )
    padding = " " * policy.max_sql_chars
    assert reason_of(validator, f"SELECT id FROM shop.orders{padding}") == "SQL_TOO_LONG"


def test_offset_is_bounded_at_its_edge_anywhere_in_the_statement(policy: SqlPolicy) -> None:
    validator = SqlValidator(policy)
    edge = policy.max_offset
    assert validator.validate(DS, f"SELECT id FROM shop.orders ORDER BY id LIMIT 5 OFFSET {edge}")
    assert validator.validate(DS, f"SELECT id FROM shop.orders ORDER BY id LIMIT {edge}, 5")
    for sql in (
        f"SELECT id FROM shop.orders ORDER BY id LIMIT 5 OFFSET {edge + 1}",
        f"SELECT id FROM shop.orders ORDER BY id LIMIT {edge + 1}, 5",
        f"SELECT x.id FROM (SELECT id FROM shop.orders ORDER BY id LIMIT 1 OFFSET {10**12}) AS x",
        f"SELECT id FROM shop.orders WHERE id IN (SELECT id FROM shop.orders ORDER BY id "
        f"LIMIT 1 OFFSET {edge + 1})",
    ):
        assert reason_of(validator, sql) == "OFFSET_TOO_LARGE", sql


def test_join_and_nesting_limits(policy: SqlPolicy) -> None:
    strict = SqlValidator(policy.model_copy(update={"max_joins": 1, "max_subquery_depth": 1}))
    two_joins = (
        "SELECT o.id FROM shop.orders o JOIN shop.payments p ON p.order_id = o.id "
        "JOIN shop.order_items i ON i.order_id = o.id"
    )
    assert reason_of(strict, two_joins) == "TOO_MANY_JOINS"
    nested = (
        "SELECT id FROM shop.orders WHERE customer_id IN "
        "(SELECT id FROM shop.customers WHERE id IN (SELECT customer_id FROM shop.api_tokens))"
    )
    assert reason_of(strict, nested) == "SUBQUERY_TOO_DEEP"
    assert SqlValidator(policy).validate(DS, two_joins).tables == [
        "shop.order_items",
        "shop.orders",
        "shop.payments",
    ]


def test_rejection_context_never_carries_literals(validator: SqlValidator) -> None:
    with pytest.raises(SqlRejected) as caught:
        validator.validate(DS, "SELECT id FROM shop.customers WHERE email = 'alice@example.com'")
    assert "alice" not in json.dumps(caught.value.context)
    assert "alice" not in str(caught.value)


# ------------------------------------------------------------------------------ allowed

ALLOWED = {
    "join": (
        "SELECT o.id, o.status, c.region FROM shop.orders o "
        "JOIN shop.customers c ON c.id = o.customer_id WHERE o.status = 'FAILED'",
        ["shop.customers", "shop.orders"],
    ),
    "left join": (
        "SELECT o.id, p.provider FROM shop.orders o LEFT JOIN shop.payments p ON p.order_id = o.id",
        ["shop.orders", "shop.payments"],
    ),
    "join using": (
        "SELECT o.id, i.sku FROM shop.orders o JOIN shop.order_items i USING (id)",
        ["shop.order_items", "shop.orders"],
    ),
    "group by having": (
        "SELECT error_code, COUNT(*) AS n, SUM(total_cents) AS cents FROM shop.orders "
        "WHERE created_at >= '2026-11-02 14:00:00' GROUP BY error_code HAVING COUNT(*) > 5 "
        "ORDER BY n DESC",
        ["shop.orders"],
    ),
    "group by alias and position": (
        "SELECT status AS s, COUNT(*) FROM shop.orders GROUP BY s ORDER BY 2 DESC",
        ["shop.orders"],
    ),
    "window functions": (
        "SELECT id, customer_id, ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY created_at) "
        "AS rn, RANK() OVER (PARTITION BY status ORDER BY total_cents DESC) AS rk, "
        "LAG(status) OVER (PARTITION BY customer_id ORDER BY created_at) AS prev_status "
        "FROM shop.orders",
        ["shop.orders"],
    ),
    "cte": (
        "WITH failed AS (SELECT id, customer_id FROM shop.orders WHERE status = 'FAILED') "
        "SELECT c.region, COUNT(*) AS n FROM failed f JOIN shop.customers c "
        "ON c.id = f.customer_id GROUP BY c.region",
        ["shop.customers", "shop.orders"],
    ),
    "in subquery": (
        "SELECT id FROM shop.orders WHERE customer_id IN "
        "(SELECT id FROM shop.customers WHERE region = 'eu-west')",
        ["shop.customers", "shop.orders"],
    ),
    "exists star": (
        "SELECT o.id FROM shop.orders o WHERE NOT EXISTS "
        "(SELECT * FROM shop.payments p WHERE p.order_id = o.id)",
        ["shop.orders", "shop.payments"],
    ),
    "correlated unqualified": (
        "SELECT o.id FROM shop.orders o WHERE EXISTS "
        "(SELECT 1 FROM shop.payments p WHERE p.order_id = o.id AND p.status = 'DECLINED')",
        ["shop.orders", "shop.payments"],
    ),
    "derived table": (
        "SELECT t.service, t.n FROM (SELECT service, COUNT(*) AS n FROM ops.deployments "
        "GROUP BY service) AS t WHERE t.n > 1",
        ["ops.deployments"],
    ),
    "scalar subquery": (
        "SELECT s.name, (SELECT MAX(d.deployed_at) FROM ops.deployments d "
        "WHERE d.service = s.name) AS last_deploy FROM ops.services s",
        ["ops.deployments", "ops.services"],
    ),
    "union": (
        "SELECT service, changed_at AS at FROM ops.config_changes "
        "UNION SELECT service, deployed_at FROM ops.deployments ORDER BY at DESC",
        ["ops.config_changes", "ops.deployments"],
    ),
    "date functions": (
        "SELECT DATE_FORMAT(created_at, '%Y-%m-%d %H:00') AS hour, "
        "AVG(TIMESTAMPDIFF(SECOND, created_at, updated_at)) AS avg_s FROM shop.orders "
        "WHERE created_at >= DATE_SUB(NOW(), INTERVAL 2 HOUR) GROUP BY hour",
        ["shop.orders"],
    ),
    "count star over sensitive table": ("SELECT COUNT(*) FROM shop.customers", ["shop.customers"]),
    "sensitive only in select list": (
        "SELECT id, email, password_hash AS h FROM shop.customers WHERE region = 'eu'",
        ["shop.customers"],
    ),
    "star over fully declared table": ("SELECT * FROM ops.services", ["ops.services"]),
    "case and string functions": (
        "SELECT CASE WHEN f.enabled THEN 'on' ELSE 'off' END AS state, "
        "CONCAT(f.service, ':', f.flag) AS k, COALESCE(f.updated_at, NOW()) AS t "
        "FROM ops.feature_flags f",
        ["ops.feature_flags"],
    ),
    "default schema and case": (
        "select O.ID, O.Status from Orders o where O.ERROR_CODE like 'DB_%'",
        ["shop.orders"],
    ),
    "three part column": ("SELECT shop.orders.id FROM shop.orders", ["shop.orders"]),
    "JSON paths": (
        "SELECT JSON_EXTRACT(new_value, '$.timeout_ms') AS t, new_value ->> '$.pool.max' AS m, "
        "JSON_EXTRACT(new_value, '$.items[0].name') AS n FROM ops.config_changes",
        ["ops.config_changes"],
    ),
}


@pytest.mark.parametrize("case", sorted(ALLOWED))
def test_allowed_analytical_queries_pass(validator: SqlValidator, case: str) -> None:
    sql, tables = ALLOWED[case]
    plan = validator.validate(DS, sql)
    assert plan.tables == tables
    assert plan.limit == 100
    # The executed text is a fixpoint: validating it again changes nothing.
    assert validator.validate(DS, plan.sql).sql == plan.sql


def test_plan_whole_structure(validator: SqlValidator) -> None:
    plan = validator.validate(
        DS,
        "select o.id, c.email, o.total_cents / 100 AS eur "
        "from shop.orders o join shop.customers c on c.id = o.customer_id "
        "where o.status = 'FAILED'  limit 20",
    )
    assert plan == MysqlQueryPlan(
        datasource=DS,
        sql=(
            "SELECT `o`.`id` AS `id`, `c`.`email` AS `email`, `o`.`total_cents` / 100 AS `eur` "
            "FROM `shop`.`orders` AS `o` JOIN `shop`.`customers` AS `c` "
            "ON `c`.`id` = `o`.`customer_id` WHERE `o`.`status` = 'FAILED' "
            # customers has sensitive columns: the row choice of LIMIT is made total on keys.
            "ORDER BY `o`.`id`, `c`.`id` LIMIT 20"
        ),
        normalized_sql=(
            "SELECT `_t0`.`id` AS `id`, `_t1`.`email` AS `email`, `_t0`.`total_cents` / 100 AS "
            "`eur` FROM `shop`.`orders` AS `_t0` JOIN `shop`.`customers` AS `_t1` "
            "ON `_t1`.`id` = `_t0`.`customer_id` WHERE `_t0`.`status` = 'FAILED' "
            "ORDER BY `_t0`.`id`, `_t1`.`id` LIMIT 20"
        ),
        redacted_sql=(
            "SELECT o.id AS id, c.email AS email, o.total_cents / ? AS eur "
            "FROM shop.orders AS o JOIN shop.customers AS c "
            "ON c.id = o.customer_id WHERE o.status = ? ORDER BY o.id, c.id LIMIT 20"
        ),
        tables=["shop.customers", "shop.orders"],
        columns=[
            PlanColumn(name="id", sources=["shop.orders.id"], sensitive=False),
            PlanColumn(name="email", sources=["shop.customers.email"], sensitive=True),
            PlanColumn(name="eur", sources=["shop.orders.total_cents"], sensitive=False),
        ],
        limit=20,
        max_explain_rows=1_000_000,
    )


# -------------------------------------------------------------------------------- LIMIT


@pytest.mark.parametrize(
    ("sql", "limit", "tail"),
    [
        ("SELECT id FROM shop.orders", 100, "LIMIT 100"),
        ("SELECT id FROM shop.orders LIMIT 7", 7, "LIMIT 7"),
        ("SELECT id FROM shop.orders LIMIT 0", 0, "LIMIT 0"),
        ("SELECT id FROM shop.orders LIMIT 100000", 500, "LIMIT 500"),
        ("SELECT id FROM shop.orders LIMIT 10 OFFSET 9999", 10, "LIMIT 10 OFFSET 9999"),
        ("SELECT id FROM shop.orders LIMIT 5, 100000", 500, "LIMIT 500 OFFSET 5"),
        ("SELECT id FROM shop.orders UNION ALL SELECT id FROM shop.payments", 100, "LIMIT 100"),
        (
            "SELECT id FROM shop.orders UNION ALL SELECT id FROM shop.payments LIMIT 9999",
            500,
            "LIMIT 500",
        ),
        (
            "(SELECT id FROM shop.orders LIMIT 9999) UNION ALL (SELECT id FROM shop.payments)",
            100,
            # payments has a sensitive column: the union is ordered by its outputs first.
            ") ORDER BY `id` LIMIT 100",
        ),
    ],
)
def test_limit_is_enforced_on_the_outer_query(
    validator: SqlValidator, sql: str, limit: int, tail: str
) -> None:
    plan = validator.validate(DS, sql)
    assert (plan.limit, plan.sql.endswith(tail)) == (limit, True)
    outer = sqlglot.parse_one(plan.sql, read="mysql")
    assert int(outer.args["limit"].expression.this) == limit


# ------------------------------------------------------------------ identity and redaction


def test_normalized_sql_ignores_spelling_but_not_meaning(validator: SqlValidator) -> None:
    def norm(sql: str) -> str:
        return validator.validate(DS, sql).normalized_sql

    base = norm("SELECT o.id FROM shop.orders o WHERE o.status = 'FAILED'")
    assert norm("select  X.ID\nfrom orders AS x where x.STATUS='FAILED' -- why") == base
    assert norm("SELECT o.id FROM shop.orders o WHERE o.status = 'PAID'") != base
    assert norm("SELECT o.id FROM shop.orders o WHERE o.status = 'FAILED' LIMIT 5") != base


def test_redacted_sql_hides_every_value(validator: SqlValidator) -> None:
    plan = validator.validate(
        DS,
        "SELECT id, 'secret-label' FROM shop.orders WHERE error_code = 'DB_POOL_TIMEOUT' "
        "AND total_cents > 4242 AND customer_id IN (0x2a, 7)",
    )
    for value in ("secret-label", "DB_POOL_TIMEOUT", "4242", "2a", "7"):
        assert value not in plan.redacted_sql
    assert "'secret-label'" in plan.sql


# ------------------------------------------------------------------------ planner adapter


def test_planner_adapter_plugs_into_the_tool_spec(validator: SqlValidator) -> None:
    spec = next(s for s in default_specs(mysql_planner=validator.planner) if s.name == QUERY_MYSQL)
    request = QueryMysqlRequest(datasource=DS, sql="SELECT id FROM shop.orders")
    plan = spec.plan(request)
    assert isinstance(plan, MysqlQueryPlan)
    assert spec.normalized_scope(plan) == f"{QUERY_MYSQL}:{DS}:{plan.normalized_sql}"
    with pytest.raises(SqlRejected):
        spec.plan(QueryMysqlRequest(datasource=DS, sql="DELETE FROM shop.orders"))
    with pytest.raises(TypeError):
        validator.planner(SearchKnowledgeRequest(query="x"))


# ---------------------------------------------------------------------------- the policy


def _policy_doc(**table: object) -> dict[str, object]:
    return {
        "datasources": {
            "db": {"schemas": {"s": {"tables": {"t": {"columns": ["id", "secret"], **table}}}}}
        }
    }


def test_policy_round_trips_and_normalises_names(policy: SqlPolicy) -> None:
    assert SqlPolicy.model_validate_json(policy.model_dump_json()) == policy
    loaded = SqlPolicy.model_validate(
        {
            "datasources": {
                "db": {
                    "default_schema": "S",
                    "schemas": {
                        "S": {
                            "tables": {"T": {"columns": ["ID", "Secret"], "sensitive": ["SECRET"]}}
                        }
                    },
                }
            }
        }
    )
    assert loaded.datasources["db"].model_dump() == {
        "default_schema": "s",
        "schemas": {
            "s": {
                "tables": {
                    "t": {"columns": ["id", "secret"], "sensitive": ["secret"], "star": False}
                }
            }
        },
    }
    assert (loaded.default_limit, loaded.max_limit) == (100, 500)


@pytest.mark.parametrize(
    "document",
    [
        _policy_doc(sensitive=["password"]),  # sensitive but not listed
        _policy_doc(columns=["id", "ID"]),  # duplicate after lower-casing
        _policy_doc(columns=["id; DROP"]),  # not an identifier
        _policy_doc(unknown=True),  # extra key
        {"datasources": {"db": {"schemas": {"information_schema": {"tables": {}}}}}},
        {"datasources": {"db": {"default_schema": "x", "schemas": {}}}},
        {"default_limit": 600, "max_limit": 500, "datasources": {}},
    ],
)
def test_invalid_policies_do_not_load(document: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        SqlPolicy.model_validate(document)


def test_star_needs_declaration_and_no_sensitive_columns() -> None:
    def star_reason(**table: object) -> str | None:
        validator = SqlValidator(SqlPolicy.model_validate(_policy_doc(**table)))
        try:
            validator.validate("db", "SELECT * FROM s.t")
        except SqlRejected as rejected:
            return str(rejected.context["reason"])
        return None

    assert star_reason() == "STAR_OVER_DENIED_COLUMNS"
    assert star_reason(star=True, sensitive=["secret"]) == "STAR_OVER_DENIED_COLUMNS"
    assert star_reason(star=True) is None


def test_demo_policy_loads() -> None:
    demo = SqlPolicy.demo()
    assert "shop-primary" in demo.datasources


# ------------------------------------------------------------------------------- property

_WORDS = [
    "SELECT",
    "INSERT",
    "INTO",
    "UPDATE",
    "DELETE",
    "REPLACE",
    "DROP",
    "CREATE",
    "ALTER",
    "TRUNCATE",
    "SET",
    "CALL",
    "LOAD",
    "DATA",
    "INFILE",
    "HANDLER",
    "DO",
    "SHOW",
    "GRANT",
    "TABLE",
    "FROM",
    "WHERE",
    "VALUES",
    "UNION",
    "ALL",
    "WITH",
    "AS",
    "ON",
    "JOIN",
    "LIMIT",
    "FOR",
    "LOCK",
    "OUTFILE",
    "shop.orders",
    "shop.customers",
    "id",
    "status",
    "email",
    "x",
    "1",
    "'a'",
    "*",
    "=",
    ",",
    "(",
    ")",
    ";",
    "@v",
    "@@version",
    "SLEEP(1)",
    "COUNT(*)",
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words=st.lists(st.sampled_from(_WORDS), min_size=1, max_size=14))
def test_never_accepts_a_statement_whose_root_is_not_a_select(
    validator: SqlValidator, words: list[str]
) -> None:
    sql = " ".join(words)
    try:
        statements = sqlglot.parse(sql, read="mysql")
    except Exception:  # unparsable text only needs the validator's verdict
        statements = None
    try:
        plan = validator.validate(DS, sql)
    except SqlRejected:
        return
    assert statements is not None and len(statements) == 1
    root = statements[0]
    while isinstance(root, exp.Subquery):
        root = root.this
    assert isinstance(root, (exp.Select, exp.SetOperation))
    executed = sqlglot.parse(plan.sql, read="mysql")
    assert len(executed) == 1 and isinstance(executed[0], (exp.Select, exp.SetOperation))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    verb=st.sampled_from(
        [
            "INSERT",
            "UPDATE",
            "DELETE",
            "REPLACE",
            "DROP",
            "CREATE",
            "ALTER",
            "TRUNCATE",
            "SET",
            "CALL",
            "LOAD",
            "HANDLER",
            "DO",
            "GRANT",
            "RENAME",
        ]
    ),
    words=st.lists(st.sampled_from(_WORDS), max_size=10),
)
def test_a_statement_led_by_a_write_verb_is_always_refused(
    validator: SqlValidator, verb: str, words: list[str]
) -> None:
    with pytest.raises(SqlRejected):
        validator.validate(DS, " ".join([verb, *words]))


def test_plans_carry_the_policy_row_estimate_bound(policy: SqlPolicy) -> None:
    # The executor enforces it on MySQL/MariaDB (EXPLAIN); the validator only hands it on.
    assert SqlPolicy.model_validate({"datasources": {}}).max_explain_rows == 1_000_000
    assert SqlPolicy.demo().max_explain_rows == 100_000
    strict = SqlValidator(policy.model_copy(update={"max_explain_rows": 7}))
    assert strict.validate(DS, "SELECT id FROM shop.orders").max_explain_rows == 7
    with pytest.raises(ValidationError):
        SqlPolicy.model_validate({"max_explain_rows": 0, "datasources": {}})
