"""The cell cap: on MariaDB text cut one past the cap in the statement, numbers untouched; on
SQLite the database's own per-value limit.

The rewrite itself on validated plans, then SQLite's limit on a real SQLite; the rewrite on a
real MariaDB is in ``tests/integration/test_bounded_fetch_mariadb.py``.
"""

from __future__ import annotations

import sqlite3

import pytest
import sqlglot
from sqlglot import exp

from harness.adapters.demo_db import sqlite_demo_engine
from harness.adapters.readonly_sql import ReadOnlySqlBackend
from harness.contracts.errors import ErrorCode, RawTooLarge, SqlRejected
from harness.contracts.raw import RawResponse
from harness.embedded.demo.database import DEMO_DATASOURCE
from harness.projectors.mysql import MysqlProjector
from harness.sql.cells import cap_text_columns, zero_row_statement
from harness.sql.policy import SqlPolicy
from harness.sql.validator import SqlValidator
from harness.testing.tools import RAW_CAP
from harness.tools.arguments import QueryMysqlRequest

DEMO = SqlValidator(SqlPolicy.demo())


def _demo(sql: str) -> str:
    return DEMO.validate(DEMO_DATASOURCE, sql).sql


def _selects(sql: str) -> list[exp.Expr]:
    return list(sqlglot.parse_one(sql, read="mysql").selects)


def _without_selects(sql: str) -> str:
    tree = sqlglot.parse_one(sql, read="mysql")
    for select in tree.find_all(exp.Select):
        if select.parent is None or isinstance(select.parent, exp.SetOperation | exp.Subquery):
            select.set("expressions", [exp.Star()])
    return tree.sql(dialect="mysql")


# ---------------------------------------------------------------- the rewrite


def test_text_columns_are_cut_one_past_the_cap_and_every_other_column_is_left_as_it_is() -> None:
    sql = _demo("SELECT id, name, created_at, REPEAT(name, 3) AS r FROM customers")
    capped = cap_text_columns(sql, [1, 3], max_cell_chars=11)
    before, after = _selects(sql), _selects(capped)
    assert [p.alias_or_name for p in after] == [p.alias_or_name for p in before]
    assert [after[0], after[2]] == [before[0], before[2]]  # the number and the date
    for position in (1, 3):
        cut = after[position].this
        assert isinstance(cut, exp.Left) and cut.expression == exp.Literal.number(11)
        assert cut.this == before[position].this
    # FROM, ORDER BY and LIMIT are those of the plan.
    assert _without_selects(capped) == _without_selects(sql)
    assert cap_text_columns(sql, [], max_cell_chars=11) == sql


def test_each_branch_of_a_set_operation_is_cut_and_nothing_nested_is() -> None:
    sql = _demo(
        "SELECT name FROM customers WHERE name IN (SELECT name FROM customers LIMIT 5) "
        "UNION ALL SELECT region FROM customers ORDER BY name"
    )
    capped = cap_text_columns(sql, [0], max_cell_chars=7)
    tree = sqlglot.parse_one(capped, read="mysql")
    assert isinstance(tree, exp.Union)
    lefts = list(tree.find_all(exp.Left))
    assert len(lefts) == 2
    assert all(isinstance(left.parent, exp.Alias) for left in lefts)  # select-list items only
    nested = tree.find(exp.In)
    assert nested is not None and nested.find(exp.Left) is None
    assert tree.args["order"].sql(dialect="mysql") == "ORDER BY `name`"


def test_the_type_probe_reads_no_row_and_keeps_everything_else() -> None:
    sql = _demo("SELECT region, COUNT(*) AS n FROM customers GROUP BY region ORDER BY n DESC")
    probe = zero_row_statement(sql)
    tree = sqlglot.parse_one(probe, read="mysql")
    assert tree.args["limit"].expression == exp.Literal.number(0)
    assert _selects(probe) == _selects(sql)


def test_anything_but_one_query_passes_unchanged_for_the_database_to_refuse() -> None:
    for statement in (
        "UPDATE shop.orders SET status = 'HACKED'",
        "SELECT 1; UPDATE shop.orders SET status = 'HACKED'",
        "SELEC nothing",
    ):
        assert cap_text_columns(statement, [0], max_cell_chars=5) == statement
        assert zero_row_statement(statement) == statement


def test_a_position_outside_the_result_or_a_cap_below_one_is_a_bug() -> None:
    sql = _demo("SELECT id FROM customers")
    with pytest.raises(ValueError):
        cap_text_columns(sql, [1], max_cell_chars=5)
    with pytest.raises(ValueError):
        cap_text_columns(sql, [0], max_cell_chars=0)


# ---------------------------------------------------------------- sensitive columns


def test_a_sensitive_column_is_cut_like_any_text_and_still_masked() -> None:
    plan = DEMO.validate(DEMO_DATASOURCE, "SELECT id, email FROM customers LIMIT 3")
    assert [(c.name, c.sensitive) for c in plan.columns] == [("id", False), ("email", True)]
    capped = cap_text_columns(plan.sql, [1], max_cell_chars=4)
    assert _selects(capped)[1].sql(dialect="mysql") == "LEFT(`customers`.`email`, 4) AS `email`"
    backend = ReadOnlySqlBackend({DEMO_DATASOURCE: sqlite_demo_engine()})
    raw = backend.fetch(plan, max_raw_bytes=RAW_CAP)
    rows = MysqlProjector().project("call_1", plan, raw).observation.model_dump()["rows"]
    assert all("@" not in str(row["values"]["email"]) for row in rows) and len(rows) == 3


def test_a_model_that_cuts_a_sensitive_column_itself_is_still_refused() -> None:
    with pytest.raises(SqlRejected) as caught:
        DEMO.planner(
            QueryMysqlRequest(
                datasource=DEMO_DATASOURCE, sql="SELECT LEFT(email, 3) AS e FROM customers"
            )
        )
    assert caught.value.context["reason"] == "SENSITIVE_COLUMN_IN_EXPRESSION"


# ---------------------------------------------------------------- on a real SQLite

# Longer than the smallest limit the executor sets on SQLite (64 KiB).
LONG = 100_000


@pytest.fixture(scope="module")
def cells(tmp_path_factory: pytest.TempPathFactory) -> tuple[ReadOnlySqlBackend, SqlValidator]:
    path = tmp_path_factory.mktemp("cells") / "cells.sqlite"
    with sqlite3.connect(path) as db:
        # ANY: SQLite keeps each value's own type, a number in one row and a string in another.
        db.execute("CREATE TABLE cells (id INTEGER, n REAL, t TEXT, b BLOB, mixed ANY)")
        db.execute("INSERT INTO cells VALUES (1, 1.5, 'short', x'00ff', 42)")
        db.execute(
            "INSERT INTO cells VALUES (2, NULL, ?, ?, ?)", ("t" * LONG, b"\x01" * LONG, "m" * LONG)
        )
    policy = SqlPolicy.model_validate(
        {
            "datasources": {
                "scratch": {
                    "default_schema": "main",
                    "schemas": {
                        "main": {
                            "tables": {
                                "cells": {
                                    "columns": ["id", "n", "t", "b", "mixed"],
                                    "key": ["id"],
                                }
                            }
                        }
                    },
                }
            }
        }
    )
    return ReadOnlySqlBackend({"scratch": f"sqlite:///{path}"}), SqlValidator(policy)


def test_on_sqlite_a_value_past_the_cap_is_refused_before_it_is_read(
    cells: tuple[ReadOnlySqlBackend, SqlValidator],
) -> None:
    backend, validator = cells
    plan = validator.validate("scratch", "SELECT id, t FROM cells ORDER BY id")
    with pytest.raises(RawTooLarge) as caught:
        backend.fetch(plan, max_raw_bytes=1000)
    # SQLite refused the 100 000-character cell (past its 64 KiB limit) without reading it.
    assert caught.value.error_code is ErrorCode.RAW_TOO_LARGE
    assert caught.value.context["read_bytes"] > 64 * 1024
    # The limit is the statement's: the same pooled connection reads the whole cell next.
    whole = RawResponse.of(backend.fetch(plan, max_raw_bytes=RAW_CAP))
    assert whole.value()["rows"][1] == [2, "t" * LONG]
    assert RawResponse.of(backend.fetch(plan, max_raw_bytes=whole.size)) == whole
    with pytest.raises(RawTooLarge):
        backend.fetch(plan, max_raw_bytes=whole.size - 1)


def test_on_sqlite_every_value_keeps_its_type(
    cells: tuple[ReadOnlySqlBackend, SqlValidator],
) -> None:
    backend, validator = cells
    plan = validator.validate("scratch", "SELECT id, n, t, b, mixed FROM cells ORDER BY id")
    raw = backend.fetch(plan, max_raw_bytes=RAW_CAP)
    assert raw["rows"][0] == [1, 1.5, "short", {"$base64": "AP8="}, 42]
    assert raw["rows"][1][:3] == [2, None, "t" * LONG] and raw["rows"][1][4] == "m" * LONG
