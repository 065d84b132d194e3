"""A sensitive column may only be a bare projection: every other use is refused, at any depth.

Written as an attacker would probe the rule: each class below is one way to make an outcome (a
row count, an order, an error, a NULL) depend on a masked value, with several spellings each.
The property tests generate such uses from a small grammar and show that none is accepted,
while the same statement over a non-sensitive column is, and that bare projections through any
chain of CTEs, derived tables and UNION ALL stay accepted and masked.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.contracts.errors import SqlRejected
from harness.sql.policy import SqlPolicy
from harness.sql.validator import SqlValidator
from tests.paths import FIXTURES

DS = "shop-primary"
EXPR = "SENSITIVE_COLUMN_IN_EXPRESSION"
PRED = "SENSITIVE_COLUMN_IN_PREDICATE"
SENSITIVE_REASONS = {EXPR, PRED}


@pytest.fixture(scope="module")
def validator() -> SqlValidator:
    return SqlValidator(SqlPolicy.load(FIXTURES / "sql_policy.json"))


def reason_of(validator: SqlValidator, sql: str) -> str | None:
    """The refusal reason, or None when the statement is accepted."""
    try:
        validator.validate(DS, sql)
    except SqlRejected as rejected:
        return str(rejected.context["reason"])
    return None


T = "FROM shop.api_tokens"
C = "FROM shop.customers"

# Sub-class → [(statement, reason)]. Every statement makes something depend on a hidden value.
ATTACKS: dict[str, list[tuple[str, str]]] = {
    "CASE/IF over SUBSTRING": [
        (f"SELECT id, CASE WHEN SUBSTRING(token, 1, 1) > 'm' THEN 1 ELSE 0 END AS b {T}", EXPR),
        (f"SELECT id, IF(SUBSTRING(token, 3, 1) = 'a', 'yes', 'no') AS b {T}", EXPR),
        (f"SELECT CASE SUBSTRING(password_hash, 8, 1) WHEN 'a' THEN 1 END AS b {C}", EXPR),
        (f"SELECT id, IF(MID(token, 2, 1) < 'k', 1, 0) AS b {T}", EXPR),
        (f"SELECT id, CASE WHEN LEFT(email, 1) = 'a' THEN id END AS b {C}", EXPR),
    ],
    "ASCII/HEX/ORD/CONV": [
        (f"SELECT id, ASCII(SUBSTRING(token, 1, 1)) > 100 AS b {T}", EXPR),
        (f"SELECT id, HEX(SUBSTRING(token, 1, 1)) > '6D' AS b {T}", EXPR),
        (f"SELECT id, ORD(token) AS b {T}", EXPR),
        (f"SELECT id, CONV(HEX(token), 16, 10) AS b {T}", EXPR),
        (f"SELECT id, HEX(password_hash) AS h {C}", EXPR),
        (f"SELECT id, MD5(token) AS digest {T}", EXPR),
    ],
    "arithmetic, overflow and division errors": [
        (f"SELECT id, IF(ASCII(token) > 100, ABS(-9223372036854775807 - 1), 0) AS b {T}", EXPR),
        (f"SELECT id, 9223372036854775807 + ASCII(token) AS b {T}", EXPR),
        (f"SELECT id, 1 / (ASCII(token) - 115) AS b {T}", EXPR),
        (f"SELECT id, EXP(ASCII(SUBSTRING(token, 1, 1)) * 10) AS b {T}", EXPR),
        (f"SELECT id, token + 0 AS b {T}", EXPR),
        ("SELECT id, LENGTH(card_token) * 1000 AS b FROM shop.payments", EXPR),
    ],
    "string operators, implicit casts and collations": [
        (f"SELECT id, token || 'x' AS b {T}", EXPR),
        (f"SELECT id, CONCAT(token, '') AS b {T}", EXPR),
        (f"SELECT id, token = 0 AS b {T}", EXPR),
        (f"SELECT id, CAST(token AS UNSIGNED) AS b {T}", EXPR),
        (f"SELECT id, token COLLATE utf8mb4_bin AS b {T}", EXPR),
        (f"SELECT id, token LIKE 'sk_live_a%' AS b {T}", EXPR),
        ("SELECT id, COALESCE(card_token, 'none') AS b FROM shop.payments", EXPR),
    ],
    "JSON functions": [
        (f"SELECT id, JSON_VALID(token) AS b {T}", EXPR),
        (f"SELECT id, JSON_LENGTH(token) AS b {T}", EXPR),
        (f"SELECT id, JSON_UNQUOTE(token) AS b {T}", EXPR),
        (f"SELECT id, JSON_TYPE(token) AS b {T}", EXPR),
        (f"SELECT id {T} WHERE JSON_CONTAINS(token, '1')", PRED),
        (f"SELECT id, JSON_EXTRACT(token, '$.a') AS b {T}", EXPR),
        (f"SELECT id, token ->> '$.a' AS b {T}", EXPR),
    ],
    "aggregates, explicit and implied": [
        (f"SELECT MAX(token) AS m {T}", EXPR),
        (f"SELECT COUNT(DISTINCT token) AS n {T}", EXPR),
        (f"SELECT GROUP_CONCAT(token) AS g {T}", EXPR),
        (f"SELECT customer_id, MIN(token) AS m {T} GROUP BY customer_id", EXPR),
        (f"SELECT region, email {C} GROUP BY region", EXPR),
        (f"SELECT COUNT(*) AS n, email {C}", EXPR),
    ],
    "window functions": [
        (f"SELECT id, LAG(token) OVER (ORDER BY id) AS prev {T}", EXPR),
        (f"SELECT id, FIRST_VALUE(email) OVER () AS f {C}", EXPR),
        (f"SELECT id, ROW_NUMBER() OVER (ORDER BY token) AS n {T}", PRED),
        (f"SELECT id, RANK() OVER (PARTITION BY SUBSTRING(token, 1, 1)) AS r {T}", PRED),
        (f"SELECT id, COUNT(*) OVER w AS n {T} WINDOW w AS (PARTITION BY token)", PRED),
    ],
    "WHERE and COUNT(*) with a sensitive predicate": [
        (f"SELECT COUNT(*) AS n {T} WHERE token > 'sk_live_m'", PRED),
        (f"SELECT id {T} WHERE token LIKE 'sk_live_a%'", PRED),
        (f"SELECT id {T} WHERE token BETWEEN 'a' AND 'm'", PRED),
        (f"SELECT id {C} WHERE password_hash IN ('a', 'b')", PRED),
        ("SELECT id FROM shop.payments WHERE card_token IS NULL", PRED),
        (f"SELECT id {T} WHERE token REGEXP '^sk_live_[a-m]'", PRED),
        (f"SELECT id {T} WHERE HEX(SUBSTRING(token, 1, 1)) > '6D'", PRED),
    ],
    "ORDER BY: column, alias, position, expression": [
        (f"SELECT id {T} ORDER BY token", PRED),
        (f"SELECT id, token AS t {T} ORDER BY t", PRED),
        (f"SELECT id, token {T} ORDER BY 2", PRED),
        (f"SELECT id {T} ORDER BY ASCII(token) DESC", PRED),
        (f"SELECT id {T} ORDER BY CASE WHEN token > 'm' THEN 0 ELSE 1 END", PRED),
        (f"SELECT id, name {C} UNION ALL SELECT id, email {C} ORDER BY 2", PRED),
    ],
    "GROUP BY / HAVING": [
        (f"SELECT COUNT(*) AS n {T} GROUP BY token", PRED),
        (f"SELECT token, COUNT(*) AS n {T} GROUP BY 1", PRED),
        (f"SELECT COUNT(*) AS n {T} GROUP BY SUBSTRING(token, 1, 1)", PRED),
        (f"SELECT customer_id {T} GROUP BY customer_id HAVING MAX(token) > 'm'", PRED),
        (f"SELECT token AS t {T} HAVING t > 'm'", PRED),
    ],
    "JOIN ON / USING / NATURAL": [
        (
            "SELECT a.id FROM shop.api_tokens a JOIN shop.api_tokens b "
            "ON b.id = a.id AND SUBSTRING(a.token, 1, 1) > 'm'",
            PRED,
        ),
        ("SELECT a.id FROM shop.api_tokens a JOIN shop.api_tokens b USING (token)", PRED),
        (
            "SELECT c.id FROM shop.customers c JOIN shop.api_tokens t ON t.token = c.name",
            PRED,
        ),
        (
            "SELECT c.id FROM shop.customers c JOIN shop.api_tokens t "
            "ON t.customer_id = c.id AND t.token LIKE 'sk_%'",
            PRED,
        ),
        ("SELECT id FROM shop.api_tokens NATURAL JOIN shop.customers", "SYNTAX_NOT_ALLOWED"),
    ],
    "subqueries: EXISTS, IN, scalar, ANY, correlated": [
        (
            "SELECT id FROM shop.orders o WHERE EXISTS (SELECT 1 FROM shop.api_tokens t "
            "WHERE t.customer_id = o.customer_id AND t.token > 'sk_live_m')",
            PRED,
        ),
        ("SELECT id FROM shop.customers WHERE name IN (SELECT token FROM shop.api_tokens)", PRED),
        ("SELECT (SELECT token FROM shop.api_tokens LIMIT 1) AS t FROM shop.orders", EXPR),
        ("SELECT EXISTS (SELECT token FROM shop.api_tokens) AS e FROM shop.orders", EXPR),
        ("SELECT id FROM shop.orders WHERE 'm' < ANY (SELECT token FROM shop.api_tokens)", PRED),
        (
            "SELECT c.email, (SELECT COUNT(*) FROM shop.orders o WHERE o.customer_id = c.id "
            "AND c.email > 'm') AS n FROM shop.customers c",
            PRED,
        ),
        (
            "SELECT (SELECT c.password_hash FROM shop.orders o WHERE o.customer_id = c.id "
            "LIMIT 1) AS h FROM shop.customers c",
            EXPR,
        ),
    ],
    "CTEs and derived tables": [
        (
            f"WITH x AS (SELECT id, token > 'sk_live_m' AS b {T}) SELECT id FROM x",
            EXPR,
        ),
        (
            # Both rules are broken; the predicate is named first.
            f"WITH x AS (SELECT id, token > 'sk_live_m' AS b {T}) SELECT id FROM x WHERE b",
            PRED,
        ),
        (f"WITH x AS (SELECT id, token {T}) SELECT id FROM x WHERE x.token > 'm'", PRED),
        (f"WITH x AS (SELECT id, token {T}) SELECT id, UPPER(x.token) AS u FROM x", EXPR),
        (f"SELECT d.id FROM (SELECT id, ASCII(token) AS a {T}) d", EXPR),
        (f"SELECT d.id FROM (SELECT id, token AS t {T}) d ORDER BY d.t", PRED),
        (
            f"WITH a AS (SELECT token AS t {T}), b AS (SELECT t AS u FROM a) "
            "SELECT COUNT(*) AS n FROM b WHERE u LIKE 's%'",
            PRED,
        ),
        (f"WITH x(v) AS (SELECT token {T}) SELECT LENGTH(v) AS n FROM x", EXPR),
    ],
    "UNION, INTERSECT, EXCEPT": [
        (
            f"SELECT v FROM (SELECT name AS v {C} UNION ALL SELECT email {C}) u WHERE u.v > 'm'",
            PRED,
        ),
        (
            f"SELECT COUNT(*) AS n FROM (SELECT token AS v {T} UNION SELECT 'sk_live_x') u",
            PRED,
        ),
        (f"SELECT name {C} UNION SELECT email {C}", PRED),
        (f"SELECT token {T} INTERSECT SELECT name {C}", PRED),
        (f"SELECT token {T} EXCEPT SELECT name {C}", PRED),
    ],
    "DISTINCT": [
        (f"SELECT DISTINCT token {T}", PRED),
        (f"SELECT DISTINCT customer_id, token {T}", PRED),
        (f"SELECT d.t FROM (SELECT DISTINCT token AS t {T}) d", PRED),
    ],
    "aliases that shadow and star expansion": [
        (f"SELECT token AS scope {T} ORDER BY scope", PRED),
        ("SELECT t.token AS id FROM shop.api_tokens t ORDER BY id", PRED),
        (f"WITH x AS (SELECT token AS scope {T}) SELECT scope FROM x WHERE scope = 'x'", PRED),
        (f"SELECT * FROM (SELECT id, token {T}) t WHERE t.token > 'm'", PRED),
        (f"SELECT t.* FROM (SELECT token {T}) t ORDER BY 1", PRED),
        (f"SELECT name AS email, UPPER(email) AS n {C}", EXPR),
    ],
    # The databases read a parenthesised or collated integer as a position, like a bare one.
    "ORDER BY position in parentheses or with a collation": [
        (f"SELECT id, email {C} ORDER BY (2) LIMIT 3", PRED),
        (f"SELECT id, email {C} ORDER BY ((2)) DESC LIMIT 3", PRED),
        (f"SELECT id, email {C} ORDER BY (+2) LIMIT 3", PRED),
        (f"SELECT id, email {C} ORDER BY 2 COLLATE nocase LIMIT 3", PRED),
        (f"SELECT d.id FROM (SELECT id, password_hash {C} ORDER BY (2) LIMIT 1) d", PRED),
        (
            f"SELECT id, token {T} WHERE id = 3 UNION ALL SELECT 0, 'sk_live_m' ORDER BY (2) LIMIT 1",
            PRED,
        ),
    ],
    # Two outputs of one name: SQLite sorts by the first, so the name cannot be trusted.
    "ORDER BY a name two outputs carry": [
        (f"SELECT email AS id, id {C} ORDER BY id LIMIT 3", "UNRESOLVED_LINEAGE"),
        (f"SELECT email AS region, region {C} ORDER BY region LIMIT 3", "UNRESOLVED_LINEAGE"),
        (
            f"SELECT token AS v, id AS v {T} WHERE id = 3 UNION ALL SELECT 'sk_live_m', 0 "
            "ORDER BY v LIMIT 1",
            "UNRESOLVED_LINEAGE",
        ),
    ],
}


def _cases() -> list[tuple[str, str, str]]:
    return [(group, sql, reason) for group, cases in ATTACKS.items() for sql, reason in cases]


@pytest.mark.parametrize(("group", "sql", "reason"), _cases())
def test_each_attack_is_refused_with_its_reason(
    validator: SqlValidator, group: str, sql: str, reason: str
) -> None:
    assert reason_of(validator, sql) == reason, group


def test_every_class_has_several_inputs() -> None:
    assert all(len(cases) >= 3 for cases in ATTACKS.values())


def test_an_alias_is_not_a_column_inside_its_own_select_list(validator: SqlValidator) -> None:
    # MySQL binds `name` in the second item to the table's column, never to the alias of email
    # (the reverse spelling, computing on `email`, is refused above): the plan says the same.
    plan = validator.validate(DS, f"SELECT email AS name, UPPER(name) AS n {C}")
    assert [(c.name, c.sensitive) for c in plan.columns] == [("name", True), ("n", False)]


# ------------------------------------------------------------- bare projections stay legal

BARE = {
    "bare": (f"SELECT id, token {T}", {"token"}),
    "aliased and parenthesised": (f"SELECT id, token AS t, (token) AS p {T}", {"t", "p"}),
    "filtered, ordered and limited on other columns": (
        f"SELECT id, token {T} WHERE scope = 'read' ORDER BY created_at DESC LIMIT 5 OFFSET 10",
        {"token"},
    ),
    "through a CTE and a derived table": (
        f"WITH x AS (SELECT id, token {T}) SELECT d.id, d.token FROM (SELECT id, token FROM x) d",
        {"token"},
    ),
    "through UNION ALL": (
        f"SELECT name AS v {C} UNION ALL SELECT email {C} UNION ALL SELECT token {T}",
        {"v"},
    ),
    "star over a derived table": (f"SELECT * FROM (SELECT id, token {T}) t", {"token"}),
    "next to a join, a window and a group elsewhere": (
        "SELECT c.id, c.email, COUNT(*) OVER (PARTITION BY c.region) AS per_region, "
        "(SELECT COUNT(*) FROM shop.orders o WHERE o.customer_id = c.id) AS orders "
        "FROM shop.customers c JOIN shop.api_tokens t ON t.customer_id = c.id",
        {"email"},
    ),
}


@pytest.mark.parametrize("case", sorted(BARE))
def test_bare_projections_are_accepted_and_masked(validator: SqlValidator, case: str) -> None:
    sql, masked = BARE[case]
    plan = validator.validate(DS, sql)
    assert {c.name for c in plan.columns if c.sensitive} == masked


# ----------------------------------------------------------------------------- properties

LAYERS = [
    # Not LOWER: sqlglot reads LOWER(HEX(x)) as one LowerHex node, outside the allowlist.
    "UPPER({e})",
    "SUBSTRING({e}, 2, 1)",
    "ASCII({e})",
    "HEX({e})",
    "LENGTH({e})",
    "CONCAT({e}, 'x')",
    "REVERSE({e})",
    "MD5({e})",
    "JSON_UNQUOTE({e})",
    "JSON_VALID({e})",
    "COALESCE({e}, 'z')",
    "CAST({e} AS CHAR)",
    "({e} > 'm')",
    "({e} = 'sk')",
    "({e} LIKE 'a%')",
    "({e} IN ('a', 'b'))",
    "({e} IS NULL)",
    "({e} + 1)",
    "(1 / ({e} - 5))",
    "CASE WHEN {e} > 'm' THEN 1 ELSE 0 END",
    "IF({e} < 'k', 1, 0)",
    "IF({e} > 'm', ABS(-9223372036854775807 - 1), 0)",
    "NULLIF({e}, 'a')",
    "GREATEST({e}, 'm')",
]

# Where the computed expression {e} lands; {src} is the api_tokens source, aliased `a`.
PLACEMENTS = [
    "SELECT a.id, {e} AS v FROM {src}",
    "SELECT a.id FROM {src} WHERE {e} IS NOT NULL",
    "SELECT a.id FROM {src} ORDER BY {e}",
    "SELECT COUNT(*) AS n FROM {src} GROUP BY {e}",
    "SELECT a.customer_id FROM {src} GROUP BY a.customer_id HAVING MAX({e}) IS NOT NULL",
    "SELECT a.id FROM {src} JOIN shop.customers c ON c.id = a.customer_id AND {e} IS NOT NULL",
    "WITH x AS (SELECT a.id, {e} AS v FROM {src}) SELECT x.id FROM x",
    "SELECT d.id FROM (SELECT a.id, {e} AS v FROM {src}) AS d",
    "SELECT o.id, (SELECT MAX({e}) FROM {src}) AS v FROM shop.orders o",
    # (EXISTS would refuse the control too: nothing is computed in a first-match subquery.)
    "SELECT o.id FROM shop.orders o WHERE (SELECT COUNT(*) FROM {src} WHERE {e} IS NOT NULL) > 0",
    "SELECT a.id, ROW_NUMBER() OVER (PARTITION BY {e} ORDER BY a.id) AS r FROM {src}",
    "SELECT a.id, SUM(a.id) OVER (ORDER BY {e}) AS r FROM {src}",
]

_BASE = "SELECT id, customer_id, token, scope FROM shop.api_tokens"
# How the column reaches the expression: from the table, or passed bare through a CTE, a
# derived table, a UNION ALL (with a non-sensitive branch) or a `*` over a derived table.
# (prefix, source) pairs; the source is always aliased `a`.
SOURCES = [
    ("", "shop.api_tokens AS a"),
    (f"WITH p AS ({_BASE}) ", "p AS a"),
    ("", f"({_BASE}) AS a"),
    ("", f"({_BASE} UNION ALL SELECT id, id, name, region FROM shop.customers) AS a"),
    ("", f"(SELECT * FROM ({_BASE}) AS q) AS a"),
]


@st.composite
def computed_uses(draw: st.DrawFn) -> tuple[str, str]:
    """One statement computing on ``token``, and the same statement on ``scope`` (control)."""
    layers = draw(st.lists(st.sampled_from(LAYERS), min_size=1, max_size=3))
    placement = draw(st.sampled_from(PLACEMENTS))
    prefix, source = draw(st.sampled_from(SOURCES))
    qualified = draw(st.booleans())

    def statement(column: str) -> str:
        expression = f"a.{column}" if qualified else column
        for layer in layers:
            expression = layer.format(e=expression)
        sql = placement.format(e=expression, src=source)
        if prefix and sql.startswith("WITH "):
            return prefix.rstrip() + ", " + sql.removeprefix("WITH ")
        return prefix + sql

    return statement("token"), statement("scope")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=computed_uses())
def test_no_computation_over_a_sensitive_column_is_ever_accepted(
    validator: SqlValidator, case: tuple[str, str]
) -> None:
    sensitive, control = case
    # The control proves the statement is otherwise legal: only the column differs.
    assert reason_of(validator, control) is None, control
    assert reason_of(validator, sensitive) in SENSITIVE_REASONS, sensitive


@st.composite
def bare_chains(draw: st.DrawFn) -> tuple[str, str]:
    """A bare sensitive column passed through random layers; returns (sql, output name)."""
    name = "token"
    sql = "SELECT id, customer_id, token FROM shop.api_tokens"
    if draw(st.booleans()):
        sql += " WHERE scope = 'read'"
    for index in range(draw(st.integers(min_value=0, max_value=3))):
        layer = draw(st.sampled_from(["cte", "derived", "union", "rename", "star"]))
        new = f"v{index}" if layer == "rename" else name
        if layer == "cte":
            sql = f"WITH c{index} AS ({sql}) SELECT id, customer_id, {name} FROM c{index}"
        elif layer == "derived":
            sql = f"SELECT d{index}.id, d{index}.customer_id, d{index}.{name} FROM ({sql}) AS d{index}"
        elif layer == "union":
            sql = (
                f"SELECT u{index}.id, u{index}.customer_id, u{index}.{name} FROM ({sql} "
                f"UNION ALL SELECT id, customer_id, scope FROM shop.api_tokens) AS u{index}"
            )
        elif layer == "rename":
            sql = f"SELECT r{index}.id, r{index}.customer_id, r{index}.{name} AS {new} FROM ({sql}) AS r{index}"
        else:
            sql = f"SELECT * FROM ({sql}) AS s{index}"
        name = new
    if draw(st.booleans()):
        sql += " ORDER BY id"
    if draw(st.booleans()):
        sql += f" LIMIT {draw(st.integers(min_value=0, max_value=50))}"
    return sql, name


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=bare_chains())
def test_bare_projections_through_any_chain_stay_accepted_and_masked(
    validator: SqlValidator, case: tuple[str, str]
) -> None:
    sql, name = case
    plan = validator.validate(DS, sql)
    assert [(c.name, c.sensitive) for c in plan.columns] == [
        ("id", False),
        ("customer_id", False),
        (name, True),
    ], sql


@pytest.mark.parametrize(
    ("sql", "order"),
    [
        (
            "SELECT status, COUNT(*) FROM shop.orders GROUP BY (1) ORDER BY (2) DESC",
            "ORDER BY `count(*)` DESC",
        ),
        ("SELECT id, status FROM shop.orders ORDER BY (2)", "ORDER BY `status`"),
        (
            "SELECT o.id, c.id FROM shop.orders o JOIN shop.customers c ON c.id = o.customer_id "
            "ORDER BY o.id",
            "ORDER BY `o`.`id`",
        ),
    ],
)
def test_positions_of_visible_outputs_are_read_as_the_outputs_they_name(
    validator: SqlValidator, sql: str, order: str
) -> None:
    assert order in validator.validate(DS, sql).sql
