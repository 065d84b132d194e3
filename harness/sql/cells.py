"""The cell cap pushed into a plan's statement: no text cell of a result arrives longer than n.

A database driver hands a row over whole: a single cell of ``REPEAT(name, 300000)`` is in the
process's memory before anything could count it. So on MariaDB/MySQL the executor does not
run a plan's statement as it is, but with every text value of its result wrapped in
``LEFT(expr, n)``, ``n`` being one character past the bytes the fetch may fill. A cell cut
there still passes the fetch's byte count (a character is at least one byte), so the call
ends RAW_TOO_LARGE: the cut only decides how much of an oversized cell is read before the
call fails, never what a successful call returns.

Which values are text is decided from types, and from the database's own. MySQL and MariaDB
type every expression statically; the executor runs the statement once with ``LIMIT 0``
(:func:`zero_row_statement`), which the MySQL manual names as the way to learn the types of a
result's columns (the optimizer answers an empty set without reading a row), and wraps every
column whose type is not a number, a date or time, or a bit value (:func:`cap_text_columns`).
A number or a date is never wrapped, so it keeps its type; its width is bounded by the type.
The server's result types are used rather than sqlglot's ``annotate_types``, which is not
MySQL's type aggregation (it types ``COALESCE(id, REPEAT(name, 9))`` as INT and a UNION of an
INT and a VARCHAR column as INT: the cell it would leave unwrapped is a string of any
length), and rather than the policy, which names columns, not their types. (SQLite needs no
rewrite: it has a length limit of its own per value, which the executor sets; see
:mod:`harness.adapters.readonly_sql`.)

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

from collections.abc import Collection
from functools import lru_cache

import sqlglot
from sqlglot import exp

__all__ = ["cap_text_columns", "zero_row_statement"]

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
    if max_cell_chars < 1:
        raise ValueError("max_cell_chars must be at least 1")
    if not columns:
        return sql
    return _capped(sql, tuple(sorted(set(columns))), max_cell_chars)


@lru_cache(maxsize=256)
def _zero_row(sql: str) -> str:
    tree = _parse(sql)
    if tree is None:
        return sql
    tree.set("limit", exp.Limit(expression=exp.Literal.number(0)))
    return tree.sql(dialect=_DIALECT, comments=False)


@lru_cache(maxsize=512)
def _capped(sql: str, columns: tuple[int, ...], max_cell_chars: int) -> str:
    tree = _parse(sql)
    if tree is None:
        return sql
    for select in _result_selects(tree):
        projections = list(select.expressions)
        for position in columns:
            if not 0 <= position < len(projections):
                raise ValueError(f"no result column at position {position}")
            projections[position] = _left(projections[position], max_cell_chars)
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


def _left(projection: exp.Expr, max_chars: int) -> exp.Expr:
    # The output keeps its name: the alias it had, or the name a bare column gave it.
    if isinstance(projection, exp.Alias):
        value, alias = projection.this, projection.args["alias"].copy()
    else:
        value, alias = projection, exp.to_identifier(projection.alias_or_name, quoted=True)
    cut = exp.Left(this=value, expression=exp.Literal.number(max_chars))
    return exp.alias_(cut, alias) if alias.name else cut
