"""Cell caps pushed into the statement: no text cell of a result arrives longer than the cap.

A database driver hands a row over whole: a single cell of ``REPEAT(name, 300000)`` is in the
process's memory before anything could count it. So the executor does not run a plan's
statement as it is, but with every text value of its result wrapped so that it can never be
more than ``max_cell_chars`` characters long, ``max_cell_chars`` being one past the bytes the
fetch may fill. A cell cut there still passes the fetch's byte count (a character is at least
one byte), so the call ends RAW_TOO_LARGE: the cap only decides how much of an oversized cell
is read before the call fails, never what a successful call returns.

Which values are text is decided from types, and from the database's own:

* **MySQL/MariaDB** type every expression statically. The executor runs the statement once
  with ``LIMIT 0`` (:func:`zero_row_statement`), which the MySQL manual names as the way to
  learn the types of a result's columns: the optimizer answers an empty set without reading
  a row. Every column whose type is not a number, a date or time, or a bit value is wrapped in
  ``LEFT(expr, n)`` (:func:`cap_text_columns`); a number or a date is never wrapped, so it
  keeps its type, and its width is bounded by the type itself. The server's result types are
  used rather than sqlglot's ``annotate_types``, which is not MySQL's type aggregation (it
  types ``COALESCE(id, REPEAT(name, 9))`` as INT and a UNION of an INT and a VARCHAR column
  as INT: the cell it would leave unwrapped is a string of any length), and rather than the
  policy, which names columns, not their types.
* **SQLite** types values, not columns: one column may hold a number in one row and a string
  in the next. Every output is wrapped as ``CASE WHEN typeof(x) IN ('text', 'blob') THEN
  substr(x, 1, n) ELSE x END`` (:func:`cap_dynamic_columns`), which cuts strings and blobs
  and leaves every other value as it is, row by row.

Only the select lists that produce the result are wrapped: the outermost SELECT, or each
branch of a set operation (a branch's list is the result's). Subqueries, CTEs and predicates
are untouched, as are the output names (each wrapped value keeps its alias). A prefix keeps
the order of values that differ within their first ``n`` characters, so ``ORDER BY`` an
output, ``DISTINCT`` and ``UNION`` choose the same rows, except among values longer than the
cap — and a result holding one of those fails anyway.

The rewrite is applied by the executor to ``MysqlQueryPlan.sql``, after the validator's
checks: it never reaches the lineage analysis, so it cannot relax the sensitive-column rule,
and a model that writes ``LEFT(email, 5)`` itself is still refused.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from functools import lru_cache

import sqlglot
from sqlglot import exp

__all__ = ["cap_dynamic_columns", "cap_text_columns", "zero_row_statement"]

_DIALECT = "mysql"


def zero_row_statement(sql: str) -> str:
    """``sql`` (MySQL) with its outermost LIMIT set to 0: the result's columns and types,
    no row."""
    return _zero_row(sql)


def cap_text_columns(sql: str, columns: Collection[int], *, max_cell_chars: int) -> str:
    """``sql`` (MySQL) with the result columns at ``columns`` (0-based) wrapped in
    ``LEFT(expr, max_cell_chars)``.

    Raises:
        ValueError: ``max_cell_chars`` is below 1, or a position is not a result column.
    """
    if not columns:
        return sql
    return _capped(sql, tuple(sorted(set(columns))), max_cell_chars, dynamic=False)


def cap_dynamic_columns(sql: str, *, max_cell_chars: int) -> str:
    """``sql`` (MySQL syntax, to be transpiled to SQLite) with every result column wrapped as
    ``CASE WHEN TYPEOF(x) IN ('text', 'blob') THEN SUBSTRING(x, 1, max_cell_chars) ELSE x
    END``.

    Raises:
        ValueError: ``max_cell_chars`` is below 1.
    """
    return _capped(sql, None, max_cell_chars, dynamic=True)


@lru_cache(maxsize=256)
def _zero_row(sql: str) -> str:
    tree = _parse(sql)
    if tree is None:
        return sql
    tree.set("limit", exp.Limit(expression=exp.Literal.number(0)))
    return tree.sql(dialect=_DIALECT, comments=False)


@lru_cache(maxsize=512)
def _capped(
    sql: str, columns: tuple[int, ...] | None, max_cell_chars: int, *, dynamic: bool
) -> str:
    if max_cell_chars < 1:
        raise ValueError("max_cell_chars must be at least 1")
    tree = _parse(sql)
    if tree is None:
        return sql
    wrap: Callable[[exp.Expr], exp.Expr] = (
        (lambda value: _typeof_prefix(value, max_cell_chars))
        if dynamic
        else (lambda value: _left(value, max_cell_chars))
    )
    for select in _result_selects(tree):
        projections = list(select.expressions)
        wanted = range(len(projections)) if columns is None else columns
        for position in wanted:
            if not 0 <= position < len(projections):
                raise ValueError(f"no result column at position {position}")
            projections[position] = _wrapped(projections[position], wrap)
        select.set("expressions", projections)
    return tree.sql(dialect=_DIALECT, comments=False)


def _parse(sql: str) -> exp.Expr | None:
    """The one query of ``sql``; None when ``sql`` is anything else.

    Anything else is never a plan the validator built (a write, several statements, text
    that does not parse): it passes unchanged, so that the database's own guards (the
    read-only transaction, one statement per call) refuse it as they did before.
    """
    try:
        statements = sqlglot.parse(sql, read=_DIALECT)
    except sqlglot.errors.ParseError:
        return None
    if len(statements) != 1 or not isinstance(statements[0], exp.Select | exp.SetOperation):
        return None
    return statements[0]


def _result_selects(query: exp.Expr) -> list[exp.Select]:
    """The SELECTs whose lists are the result's: the query itself, or each set branch."""
    while isinstance(query, exp.Subquery):
        query = query.this
    if isinstance(query, exp.SetOperation):
        return [*_result_selects(query.left), *_result_selects(query.right)]
    if isinstance(query, exp.Select):
        return [query]
    raise ValueError(f"not a query: {type(query).__name__}")


def _wrapped(projection: exp.Expr, wrap: Callable[[exp.Expr], exp.Expr]) -> exp.Expr:
    # The output keeps its name: the alias it had, or the name a bare column gave it.
    if isinstance(projection, exp.Alias):
        return exp.alias_(wrap(projection.this), projection.args["alias"].copy())
    name = projection.alias_or_name
    return (
        exp.alias_(wrap(projection), exp.to_identifier(name, quoted=True))
        if name
        else wrap(projection)
    )


def _left(value: exp.Expr, max_chars: int) -> exp.Expr:
    return exp.Left(this=value, expression=exp.Literal.number(max_chars))


def _typeof_prefix(value: exp.Expr, max_chars: int) -> exp.Expr:
    kinds = [exp.Literal.string("text"), exp.Literal.string("blob")]
    typeof = exp.Anonymous(this="TYPEOF", expressions=[value.copy()])
    length = exp.Literal.number(max_chars)
    prefix = exp.Substring(this=value.copy(), start=exp.Literal.number(1), length=length)
    return exp.Case(
        ifs=[exp.If(this=exp.In(this=typeof, expressions=kinds), true=prefix)],
        default=value,
    )
