"""Cross products are refused before anything runs: every joined source must be linked."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.contracts.errors import SqlRejected
from harness.sql.policy import SqlPolicy
from harness.sql.validator import SqlValidator
from tests.paths import FIXTURES

DS = "shop-primary"


@pytest.fixture(scope="module")
def validator() -> SqlValidator:
    return SqlValidator(SqlPolicy.load(FIXTURES / "sql_policy.json"))


def reason_of(validator: SqlValidator, sql: str) -> str | None:
    try:
        validator.validate(DS, sql)
    except SqlRejected as rejected:
        return str(rejected.context["reason"])
    return None


O_P = "FROM shop.orders o"
REFUSED: dict[str, list[str]] = {
    "comma join": [
        f"SELECT o.id {O_P}, shop.payments p",
        f"SELECT o.id, p.id AS pid {O_P}, shop.payments p WHERE o.status = 'FAILED'",
        "SELECT s.name, d.version FROM ops.services s, ops.deployments d LIMIT 5",
    ],
    "CROSS JOIN and JOIN without ON": [
        f"SELECT o.id {O_P} CROSS JOIN shop.payments p",
        f"SELECT o.id {O_P} JOIN shop.payments p",
        f"SELECT o.id {O_P} INNER JOIN shop.payments p WHERE p.status = 'DECLINED'",
    ],
    "a condition that does not relate the two sides": [
        f"SELECT o.id {O_P} JOIN shop.payments p ON 1 = 1",
        f"SELECT o.id {O_P} JOIN shop.payments p ON p.status = 'DECLINED'",
        f"SELECT o.id {O_P} LEFT JOIN shop.payments p ON o.id = o.customer_id",
        f"SELECT o.id {O_P} JOIN shop.payments p ON p.id IN (1, 2, 3)",
        # A side that reads both sources relates them to itself.
        f"SELECT o.id {O_P} JOIN shop.payments p ON o.id + 0 * p.id = o.id",
        f"SELECT o.id {O_P}, shop.payments p WHERE o.id = o.id + p.id - p.id",
    ],
    "a link under OR that not every branch has": [
        f"SELECT o.id {O_P} JOIN shop.payments p ON p.order_id = o.id OR o.id = 1",
        f"SELECT o.id {O_P}, shop.payments p WHERE p.order_id = o.id OR p.status = 'X'",
        f"SELECT o.id {O_P}, shop.payments p WHERE NOT (p.order_id <> o.id)",
    ],
    "one source of three left out": [
        f"SELECT o.id {O_P} JOIN shop.payments p ON p.order_id = o.id "
        "JOIN shop.order_items i ON i.sku = 'x'",
        f"SELECT o.id {O_P}, shop.payments p, shop.order_items i WHERE p.order_id = o.id",
        "SELECT s.name FROM ops.services s JOIN ops.deployments d ON d.service = s.name "
        "CROSS JOIN ops.feature_flags f",
    ],
    "inside a CTE, a derived table or a subquery": [
        "WITH x AS (SELECT o.id FROM shop.orders o, shop.payments p) SELECT x.id FROM x",
        "SELECT d.id FROM (SELECT o.id FROM shop.orders o CROSS JOIN shop.payments p) AS d",
        "SELECT s.name FROM ops.services s WHERE EXISTS "
        "(SELECT 1 FROM ops.deployments d, ops.feature_flags f WHERE d.service = s.name "
        "AND f.service = s.name)",
        "SELECT a.n FROM (SELECT COUNT(*) AS n FROM shop.orders) a, "
        "(SELECT COUNT(*) AS n FROM shop.payments) b",
    ],
}


@pytest.mark.parametrize(
    ("group", "sql"), [(group, sql) for group, cases in REFUSED.items() for sql in cases]
)
def test_cross_products_are_refused(validator: SqlValidator, group: str, sql: str) -> None:
    assert reason_of(validator, sql) == "CROSS_PRODUCT", group


ACCEPTED = [
    f"SELECT o.id {O_P} JOIN shop.payments p ON p.order_id = o.id",
    f"SELECT o.id {O_P} LEFT JOIN shop.payments p ON p.order_id = o.id AND p.status = 'X'",
    "SELECT o.id, i.sku FROM shop.orders o JOIN shop.order_items i USING (id)",
    f"SELECT o.id {O_P}, shop.payments p WHERE p.order_id = o.id AND o.status = 'FAILED'",
    f"SELECT o.id {O_P} CROSS JOIN shop.payments p WHERE p.order_id <=> o.id",
    f"SELECT o.id {O_P} JOIN shop.payments p ON p.created_at BETWEEN o.created_at AND o.updated_at",
    f"SELECT o.id {O_P} JOIN shop.payments p ON p.created_at >= o.created_at",
    f"SELECT o.id {O_P} JOIN shop.payments p ON (p.order_id = o.id AND p.status = 'A') "
    "OR (p.order_id = o.id + 1)",
    "WITH f AS (SELECT id, customer_id FROM shop.orders WHERE status = 'FAILED') "
    "SELECT c.region, COUNT(*) AS n FROM f JOIN shop.customers c ON c.id = f.customer_id "
    "GROUP BY c.region",
    "SELECT s.name, t.n FROM ops.services s JOIN (SELECT service, COUNT(*) AS n "
    "FROM ops.deployments GROUP BY service) AS t ON t.service = s.name",
    "SELECT cc.ticket, COUNT(o.id) AS n FROM ops.config_changes AS cc "
    "JOIN ops.services AS s ON s.name = cc.service LEFT JOIN shop.orders AS o "
    "ON o.created_at >= cc.changed_at AND o.created_at < DATE_ADD(cc.changed_at, INTERVAL 1 HOUR) "
    "AND o.status = 'FAILED' GROUP BY cc.ticket",
    # A single source is never a cross product, and neither is a correlated subquery.
    "SELECT s.name FROM ops.services s WHERE EXISTS "
    "(SELECT 1 FROM ops.deployments d WHERE d.service = s.name)",
]


@pytest.mark.parametrize("sql", ACCEPTED)
def test_linked_joins_are_accepted(validator: SqlValidator, sql: str) -> None:
    assert reason_of(validator, sql) is None


@st.composite
def join_graphs(draw: st.DrawFn) -> tuple[str, bool]:
    """A join of 2-5 sources with random links in ON or WHERE; and whether it is connected."""
    count = draw(st.integers(min_value=2, max_value=5))
    pairs = [(i, j) for j in range(count) for i in range(j)]
    edges = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=len(pairs)))
    on: dict[int, list[str]] = {j: [] for j in range(count)}
    where: list[str] = []
    for i, j in edges:
        condition = f"t{j}.customer_id = t{i}.id"
        # A link may sit in the ON of the later source (which sees both) or in WHERE.
        (on[j] if draw(st.booleans()) else where).append(condition)
    for j in range(count):
        if draw(st.booleans()):
            on[j].append(f"t{j}.status = 'FAILED'")  # a filter, never a link
    sql = "SELECT t0.id FROM shop.orders AS t0"
    for j in range(1, count):
        kind = draw(st.sampled_from(["JOIN", "LEFT JOIN", "CROSS JOIN", ","]))
        if kind == ",":
            sql += f", shop.orders AS t{j}"
            where.extend(on[j])
        elif on[j]:
            sql += f" {kind} shop.orders AS t{j} ON {' AND '.join(on[j])}"
        else:
            sql += f" {kind} shop.orders AS t{j}"
    if where:
        sql += " WHERE " + " AND ".join(where)
    reached = {0}
    for _ in range(count):
        reached |= {v for i, j in edges for v in (i, j) if i in reached or j in reached}
    return sql, reached == set(range(count))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=join_graphs())
def test_a_join_is_accepted_exactly_when_its_graph_is_connected(
    validator: SqlValidator, case: tuple[str, bool]
) -> None:
    sql, connected = case
    assert reason_of(validator, sql) == (None if connected else "CROSS_PRODUCT"), sql
