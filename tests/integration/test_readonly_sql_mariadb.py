"""ReadOnlySqlBackend against a real MariaDB: demo install, plans, read-only, timeouts, EXPLAIN.

Needs MariaDB on 127.0.0.1:3306 (root, empty password). Under ``CI=true`` an unreachable
server fails the tests; elsewhere they are skipped.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
from collections.abc import Iterator
from decimal import Decimal

import pytest
import sqlalchemy as sa

from harness.adapters.demo_db import (
    DEFAULT_MARIADB_URL,
    install_mariadb,
    mariadb_engine,
    sqlite_demo_engine,
)
from harness.adapters.embedded import build_tool_plane
from harness.adapters.readonly_sql import ReadOnlySqlBackend, explain_row_estimate
from harness.contracts.envelope import ToolCallEnvelope
from harness.contracts.errors import BackendError, ErrorCode, SqlRejected
from harness.contracts.invocation import InvocationStatus
from harness.embedded.demo.database import DEMO_DATASOURCE, demo_policy_text, shop_sql_sha256
from harness.projectors.mysql import MysqlProjector
from harness.settings import Settings
from harness.sql.plan import MysqlQueryPlan, PlanColumn
from harness.sql.policy import SqlPolicy
from harness.sql.validator import SqlValidator
from harness.testing.tools import RAW_CAP

pytestmark = pytest.mark.mysql

URL = os.environ.get("HARNESS_TEST_MYSQL_URL", DEFAULT_MARIADB_URL)


def _plan(sql: str, columns: dict[str, bool] | None = None) -> MysqlQueryPlan:
    columns = columns or {}
    return MysqlQueryPlan(
        datasource=DEMO_DATASOURCE,
        sql=sql,
        normalized_sql=" ".join(sql.lower().split()),
        redacted_sql=sql,
        tables=["shop.orders"],
        columns=[PlanColumn(name=n, sensitive=s) for n, s in columns.items()],
        limit=100,
    )


@pytest.fixture(scope="module")
def admin() -> Iterator[sa.Engine]:
    engine = mariadb_engine(URL, connect_timeout_s=3)
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql("SELECT 1")
    except sa.exc.OperationalError as exc:
        engine.dispose()
        if os.environ.get("CI") == "true":
            pytest.fail(f"MariaDB unreachable at {URL} under CI=true: {exc.orig}")
        pytest.skip(f"MariaDB unreachable at {URL}")
    install_mariadb(engine)
    yield engine
    engine.dispose()


@pytest.fixture(scope="module")
def executor(admin: sa.Engine) -> Iterator[ReadOnlySqlBackend]:
    executor = ReadOnlySqlBackend({DEMO_DATASOURCE: URL}, statement_timeout_s=0.5)
    yield executor
    for engine in executor._engines.values():
        engine.dispose()


def _scalar(admin: sa.Engine, sql: str, **params: object) -> object:
    with admin.connect() as conn:
        return conn.execute(sa.text(sql), params).scalar_one()


def test_install_is_idempotent_and_marked_with_the_script_hash(admin: sa.Engine) -> None:
    assert install_mariadb(admin) is False
    comment = _scalar(
        admin,
        "SELECT table_comment FROM information_schema.tables "
        "WHERE table_schema = 'ops' AND table_name = 'services'",
    )
    assert comment == f"harness-demo sha256={shop_sql_sha256()}"
    with admin.connect() as conn:
        tables = {
            (r[0], r[1])
            for r in conn.exec_driver_sql(
                "SELECT table_schema, table_name FROM information_schema.tables "
                "WHERE table_schema IN ('shop', 'ops')"
            )
        }
    assert tables == {
        ("shop", "customers"),
        ("shop", "orders"),
        ("shop", "order_items"),
        ("shop", "payments"),
        ("shop", "api_tokens"),
        ("ops", "services"),
        ("ops", "deployments"),
        ("ops", "config_changes"),
        ("ops", "feature_flags"),
    }


CHANGE_IMPACT_SQL = """
SELECT cc.ticket, cc.config_key, cc.old_value, cc.new_value, cc.changed_by, s.team,
       COUNT(o.id) AS failed_within_1h,
       RANK() OVER (ORDER BY COUNT(o.id) DESC) AS impact_rank
FROM ops.config_changes AS cc
JOIN ops.services AS s ON s.name = cc.service
LEFT JOIN shop.orders AS o
  ON o.created_at >= cc.changed_at
 AND o.created_at < DATE_ADD(cc.changed_at, INTERVAL 1 HOUR)
 AND o.status = 'FAILED' AND o.error_code = 'DB_POOL_TIMEOUT'
WHERE cc.changed_at >= '2026-11-02 00:00:00'
GROUP BY cc.ticket, cc.config_key, cc.old_value, cc.new_value, cc.changed_by, s.team
ORDER BY impact_rank, cc.ticket
LIMIT 20
"""


def test_the_same_plan_gives_the_same_rows_on_mariadb_and_sqlite(
    executor: ReadOnlySqlBackend, admin: sa.Engine
) -> None:
    plan = SqlValidator(SqlPolicy.model_validate_json(demo_policy_text())).validate(
        DEMO_DATASOURCE, CHANGE_IMPACT_SQL
    )
    on_mariadb = executor.fetch(plan, max_raw_bytes=RAW_CAP)
    on_sqlite = ReadOnlySqlBackend({DEMO_DATASOURCE: sqlite_demo_engine()}).fetch(
        plan, max_raw_bytes=RAW_CAP
    )

    assert on_mariadb == on_sqlite
    top = on_mariadb["rows"][0]
    assert top[:6] == [
        "CHG-4821",
        "spring.datasource.hikari.maximum-pool-size",
        "40",
        "4",
        "deploy-bot",
        "checkout",
    ]
    failed = _scalar(
        admin,
        "SELECT COUNT(*) FROM shop.orders WHERE status = 'FAILED' "
        "AND error_code = 'DB_POOL_TIMEOUT' AND created_at >= '2026-11-02 14:04:12' "
        "AND created_at < '2026-11-02 15:04:12'",
    )
    assert top[6:] == [failed, 1]


def test_percent_signs_reach_the_server_unchanged(
    executor: ReadOnlySqlBackend, admin: sa.Engine
) -> None:
    sql = (
        "SELECT COUNT(*) AS n, '100%' AS pct FROM ops.config_changes "
        "WHERE config_key LIKE '%hikari%'"
    )
    hikari = _scalar(
        admin, "SELECT COUNT(*) FROM ops.config_changes WHERE INSTR(config_key, 'hikari') > 0"
    )
    assert executor.fetch(_plan(sql), max_raw_bytes=RAW_CAP)["rows"] == [[hikari, "100%"]]


def test_values_come_back_json_safe_with_numbers_kept(
    executor: ReadOnlySqlBackend, admin: sa.Engine
) -> None:
    raw = executor.fetch(
        _plan(
            "SELECT MAX(created_at) AS last_at, SUM(total_cents) AS sum_cents, "
            "AVG(total_cents) AS avg_cents, COUNT(*) AS n FROM shop.orders"
        ),
        max_raw_bytes=RAW_CAP,
    )
    with admin.connect() as conn:
        totals = [r[0] for r in conn.exec_driver_sql("SELECT total_cents FROM shop.orders")]
        last = conn.exec_driver_sql(
            "SELECT created_at FROM shop.orders ORDER BY created_at DESC"
        ).first()
    last_at, sum_cents, avg_cents, n = raw["rows"][0]
    assert (last_at, sum_cents, n) == (last[0].isoformat(), sum(totals), len(totals))
    assert type(sum_cents) is int and type(n) is int
    assert isinstance(avg_cents, float)
    assert abs(Decimal(repr(avg_cents)) - Decimal(sum(totals)) / len(totals)) < Decimal("0.0001")


def test_sensitive_columns_are_masked_after_a_real_query(executor: ReadOnlySqlBackend) -> None:
    plan = _plan(
        "SELECT id, token, scope FROM shop.api_tokens ORDER BY id LIMIT 2",
        {"id": False, "token": True, "scope": False},
    )
    raw = executor.fetch(plan, max_raw_bytes=RAW_CAP)
    assert all(row[1].startswith("sk_live_") for row in raw["rows"])
    observation = MysqlProjector().project("call-1", plan, raw).observation
    assert [r.values["token"] for r in observation.rows] == ["***", "***"]
    assert "sk_live_" not in observation.model_dump_json()


# 1792: "Cannot execute statement in a READ ONLY transaction"; 1064: syntax error, because
# the driver never enables multi-statements.
@pytest.mark.parametrize(
    ("statement", "errno"),
    [
        ("UPDATE shop.orders SET status = 'HACKED' WHERE id = {id}", 1792),
        ("DELETE FROM shop.orders WHERE id = {id}", 1792),
        (
            "INSERT INTO shop.orders SELECT id + 1000000, customer_id, 'HACKED', NULL, 0, "
            "created_at, updated_at FROM shop.orders WHERE id = {id}",
            1792,
        ),
        ("CREATE TABLE shop.zz_harness_probe (id INT)", 1792),
        ("DROP TABLE shop.api_tokens", 1792),
        ("SELECT 1; UPDATE shop.orders SET status = 'HACKED' WHERE id = {id}", 1064),
    ],
    ids=["update", "delete", "insert-select", "create", "drop", "multi-statement"],
)
def test_writes_in_a_hand_built_plan_are_refused_by_the_database(
    executor: ReadOnlySqlBackend,
    admin: sa.Engine,
    caplog: pytest.LogCaptureFixture,
    statement: str,
    errno: int,
) -> None:
    order_id = _scalar(admin, "SELECT MIN(id) FROM shop.orders")
    status_before = _scalar(admin, "SELECT status FROM shop.orders WHERE id = :i", i=order_id)
    count_before = _scalar(admin, "SELECT COUNT(*) FROM shop.orders")

    with (
        caplog.at_level(logging.WARNING, logger="harness.adapters.readonly_sql"),
        pytest.raises(BackendError) as info,
    ):
        executor.fetch(_plan(statement.format(id=order_id)), max_raw_bytes=RAW_CAP)

    assert info.value.error_code is ErrorCode.BACKEND_ERROR
    # The server refused the statement itself; a later rollback alone would not show this.
    assert f"] {errno}:" in caplog.text
    assert (
        _scalar(admin, "SELECT status FROM shop.orders WHERE id = :i", i=order_id) == status_before
    )
    assert _scalar(admin, "SELECT COUNT(*) FROM shop.orders") == count_before
    tables = _scalar(
        admin,
        "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema IN ('shop', 'ops')",
    )
    assert tables == 9
    # The pooled connection is still good for reads afterwards.
    assert executor.fetch(_plan("SELECT COUNT(*) AS n FROM ops.services"), max_raw_bytes=RAW_CAP)[
        "rows"
    ] == [[6]]


def test_statement_timeout_stops_a_sleep(executor: ReadOnlySqlBackend) -> None:
    started = time.monotonic()
    with pytest.raises(BackendError) as info:
        executor.fetch(_plan("SELECT SLEEP(3) AS slept"), max_raw_bytes=RAW_CAP)
    elapsed_s = time.monotonic() - started

    assert info.value.error_code is ErrorCode.BACKEND_TIMEOUT
    assert info.value.retryable is True
    assert elapsed_s < 2.0
    assert executor.fetch(_plan("SELECT 1 AS one"), max_raw_bytes=RAW_CAP)["rows"] == [[1]]


def test_statement_timeout_applies_to_a_recursive_cte(executor: ReadOnlySqlBackend) -> None:
    # cte_max_recursion_depth would end a lone recursion at 1000 rows; a cross join keeps the
    # work large enough that only the statement timeout can stop it.
    slow = _plan(
        "WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 1000) "
        "SELECT COUNT(*) AS n FROM r AS a, r AS b, r AS c, r AS d"
    )
    with pytest.raises(BackendError) as info:
        executor.fetch(slow, max_raw_bytes=RAW_CAP)
    assert info.value.error_code is ErrorCode.BACKEND_TIMEOUT


# ---------------------------------------------------------------- the row-estimate bound


def _validated(sql: str, **policy: int) -> MysqlQueryPlan:
    demo = SqlPolicy.model_validate_json(demo_policy_text()).model_copy(update=policy)
    return SqlValidator(demo).validate(DEMO_DATASOURCE, sql)


def _explain(admin: sa.Engine, sql: str) -> list[dict[str, object]]:
    with admin.connect() as conn:
        result = conn.exec_driver_sql("EXPLAIN " + sql.replace("%", "%%"))
        keys = [str(key).lower() for key in list(result.keys())]
        return [dict(zip(keys, row, strict=True)) for row in result]


def _estimate(admin: sa.Engine, sql: str) -> int:
    return explain_row_estimate(_explain(admin, sql), sql)


# The select list overflows when it is evaluated (MariaDB error 1690), so the outcome tells
# whether the statement ran: BACKEND_ERROR if it did, the estimate refusal if it did not.
_BOOM_SQL = (
    "SELECT o.id, ABS(-9223372036854775807 - 1) AS boom FROM shop.orders AS o "
    "JOIN shop.order_items AS i ON i.order_id = o.id WHERE o.status = 'FAILED'"
)


def test_the_row_estimate_bound_is_enforced_at_its_edge_before_anything_runs(
    executor: ReadOnlySqlBackend, admin: sa.Engine
) -> None:
    estimate = _estimate(admin, _validated(_BOOM_SQL).sql)
    assert estimate > 1

    at_limit = _validated(_BOOM_SQL, max_explain_rows=estimate)
    assert at_limit.max_explain_rows == estimate
    with pytest.raises(BackendError) as ran:
        executor.fetch(at_limit, max_raw_bytes=RAW_CAP)
    assert ran.value.error_code is ErrorCode.BACKEND_ERROR  # it ran, and overflowed

    with pytest.raises(SqlRejected) as refused:
        executor.fetch(_validated(_BOOM_SQL, max_explain_rows=estimate - 1), max_raw_bytes=RAW_CAP)
    assert refused.value.error_code is ErrorCode.SQL_REJECTED
    assert refused.value.context == {
        "reason": "ROW_ESTIMATE_TOO_LARGE",
        "estimated_rows": estimate,
        "max_explain_rows": estimate - 1,
    }
    assert refused.value.retryable is False
    # The connection stays usable (the read-only transaction was rolled back).
    assert executor.fetch(_plan("SELECT COUNT(*) AS n FROM ops.services"), max_raw_bytes=RAW_CAP)[
        "rows"
    ] == [[6]]


def test_the_demo_policy_refuses_a_range_join_over_two_large_tables(
    executor: ReadOnlySqlBackend, admin: sa.Engine
) -> None:
    # Linked (so not a cross product), but the range condition makes it one in cost.
    sql = (
        "SELECT o.id, p.id AS payment FROM shop.orders AS o "
        "JOIN shop.payments AS p ON p.created_at >= o.created_at"
    )
    plan = _validated(sql)
    assert plan.max_explain_rows == 100_000 < _estimate(admin, plan.sql)
    with pytest.raises(SqlRejected) as refused:
        executor.fetch(plan, max_raw_bytes=RAW_CAP)
    assert refused.value.context["reason"] == "ROW_ESTIMATE_TOO_LARGE"
    # The analytical query of the incident stays well inside the demo bound.
    impact = _validated(CHANGE_IMPACT_SQL)
    assert _estimate(admin, impact.sql) <= impact.max_explain_rows
    assert executor.fetch(impact, max_raw_bytes=RAW_CAP)["row_count"] > 0


_NESTED_SQL = (
    "SELECT o.id, (SELECT COUNT(*) FROM shop.order_items AS i WHERE i.qty > o.id % 3 AND i.id > "
    "(SELECT COUNT(*) FROM shop.payments AS p WHERE p.amount_cents > i.qty + o.id)) AS n "
    "FROM shop.orders AS o"
)


def test_nested_correlated_subqueries_are_estimated_as_nested_loops(
    executor: ReadOnlySqlBackend, admin: sa.Engine
) -> None:
    # p runs once per row of i, which runs once per row of o: the rows multiply. Read as if
    # each ran once per row of o only (the plain reading), it looked 1000x cheaper.
    plan = _validated(_NESTED_SQL, max_explain_rows=1_000_000)
    lines = _explain(admin, plan.sql)
    rows = {str(line["table"]): int(line["rows"]) for line in lines}  # type: ignore[call-overload]
    assert [str(line["select_type"]) for line in lines] == [
        "PRIMARY",
        "DEPENDENT SUBQUERY",
        "DEPENDENT SUBQUERY",
    ]
    plain = rows["o"] * (1 + rows["i"] + rows["p"])
    assert plain <= 1_000_000 < rows["o"] * rows["i"] * rows["p"]
    assert explain_row_estimate(lines, plan.sql) == rows["o"] * (1 + rows["i"] * (1 + rows["p"]))
    with pytest.raises(SqlRejected) as refused:
        executor.fetch(plan, max_raw_bytes=RAW_CAP)
    assert refused.value.context["reason"] == "ROW_ESTIMATE_TOO_LARGE"

    # Sibling subqueries each run once per row of o: the same bound lets them through.
    siblings = _validated(
        "SELECT o.id, (SELECT COUNT(*) FROM shop.order_items AS i WHERE i.qty > o.id % 3) AS n, "
        "(SELECT COUNT(*) FROM shop.payments AS p WHERE p.amount_cents > o.id) AS m "
        "FROM shop.orders AS o",
        max_explain_rows=1_000_000,
    )
    assert _estimate(admin, siblings.sql) <= 1_000_000
    assert executor.fetch(siblings, max_raw_bytes=RAW_CAP)["row_count"] > 0


def test_through_the_boundary_an_estimate_refusal_is_an_error_after_begin(admin: sa.Engine) -> None:
    # The check runs in the backend, after the canonical record began: the call is an ERROR
    # (budgeted, executed) carrying SQL_REJECTED, the code the model knows for refused SQL.
    plane = build_tool_plane(Settings(mysql_url=URL))
    boundary = plane.open_run()
    sql = (
        "SELECT o.id FROM shop.orders AS o JOIN shop.payments AS p ON p.created_at >= o.created_at"
    )
    envelope = ToolCallEnvelope(
        run_id=boundary.run.run_id,
        tool_call_id="call_estimate",
        tool_name="query_mysql",
        arguments=json.dumps({"datasource": DEMO_DATASOURCE, "sql": sql}),
    )
    result = asyncio.run(boundary.call(envelope))
    assert (result.outcome, result.error_code) == ("ERROR", ErrorCode.SQL_REJECTED)
    assert json.loads(result.model_content()) == {
        "tool_call_id": "call_estimate",
        "error_code": "SQL_REJECTED",
    }
    record = asyncio.run(plane.store.get(boundary.run.run_id, "call_estimate"))
    assert record is not None
    assert (record.invocation_status, record.error_code) == (
        InvocationStatus.ERROR,
        ErrorCode.SQL_REJECTED,
    )
    assert (boundary.budget.ledger.executions, boundary.budget.ledger.rejections) == (1, 0)
