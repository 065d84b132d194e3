"""The cell cap pushed into a plan's statement: text cut one past the cap, numbers untouched.

The rewrite itself (both forms) on validated plans, then what it does on a real SQLite; the
MySQL form on a real MariaDB is in ``tests/integration/test_bounded_fetch_mariadb.py``.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
import sqlglot
from sqlglot import exp

from harness.adapters.demo_db import sqlite_demo_engine
from harness.adapters.readonly_sql import ReadOnlySqlBackend, _to_sqlite
from harness.demo.database import DEMO_DATASOURCE
from harness.errors import ErrorCode, RawTooLarge, SqlRejected
from harness.projectors.mysql import MysqlProjector
from harness.raw import RawResponse
from harness.sql.cells import cap_dynamic_columns, cap_text_columns, zero_row_statement
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
        assert cap_dynamic_columns(statement, max_cell_chars=5) == statement
        assert zero_row_statement(statement) == statement


def test_a_position_outside_the_result_or_a_cap_below_one_is_a_bug() -> None:
    sql = _demo("SELECT id FROM customers")
    with pytest.raises(ValueError):
        cap_text_columns(sql, [1], max_cell_chars=5)
    with pytest.raises(ValueError):
        cap_dynamic_columns(sql, max_cell_chars=0)


def test_the_sqlite_form_tests_each_value_for_text_or_blob() -> None:
    sql = _demo("SELECT id, name FROM customers")
    transpiled = _to_sqlite(cap_dynamic_columns(sql, max_cell_chars=9))
    assert transpiled.count("TYPEOF(") == 2 and transpiled.count("SUBSTRING(") == 2
    assert '"customers"."id" END AS "id"' in transpiled  # the name is kept


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

LONG = 5000


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


def _rows(sql: str, max_cell_chars: int, path: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as db:
        return db.execute(
            _to_sqlite(cap_dynamic_columns(sql, max_cell_chars=max_cell_chars))
        ).fetchall()


def test_on_sqlite_numbers_stay_numbers_and_long_text_and_blobs_are_cut(
    cells: tuple[ReadOnlySqlBackend, SqlValidator],
) -> None:
    backend, validator = cells
    plan = validator.validate("scratch", "SELECT id, n, t, b, mixed FROM cells ORDER BY id")
    path = Path(str(backend._engines["scratch"].url.database))
    short, long = _rows(plan.sql, 100, path)
    assert short == (1, 1.5, "short", b"\x00\xff", 42)
    assert (long[0], long[1], long[2], long[3], long[4]) == (
        2,
        None,
        "t" * 100,
        b"\x01" * 100,
        "m" * 100,
    )
    # With room for every value, the executor returns them whole, each with its type.
    raw = backend.fetch(plan, max_raw_bytes=RAW_CAP)
    assert raw["rows"][0] == [1, 1.5, "short", {"$base64": "AP8="}, 42]
    assert raw["rows"][1][2] == "t" * LONG and raw["rows"][1][4] == "m" * LONG


def test_on_sqlite_a_cell_past_the_cap_fails_the_call_and_is_never_returned_cut(
    cells: tuple[ReadOnlySqlBackend, SqlValidator],
) -> None:
    backend, validator = cells
    plan = validator.validate("scratch", "SELECT id, t FROM cells ORDER BY id")
    whole = RawResponse.of(backend.fetch(plan, max_raw_bytes=RAW_CAP))
    assert RawResponse.of(backend.fetch(plan, max_raw_bytes=whole.size)) == whole
    with pytest.raises(RawTooLarge) as caught:
        backend.fetch(plan, max_raw_bytes=whole.size - 1)
    assert caught.value.error_code is ErrorCode.RAW_TOO_LARGE
    # A cap far below the cell: the 5000-character cell arrives cut at 101 characters (the
    # count, the JSON of both rows, passes the cap with it), never whole and never returned.
    with pytest.raises(RawTooLarge) as small:
        backend.fetch(plan, max_raw_bytes=100)
    assert 100 < small.value.context["read_bytes"] < 300
