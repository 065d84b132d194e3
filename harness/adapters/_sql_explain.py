"""How many rows a statement is expected to examine, from MySQL/MariaDB tabular ``EXPLAIN``.

Private to :mod:`harness.adapters.readonly_sql`, which refuses a plan whose estimate exceeds
its ``max_explain_rows`` before running it (and re-exports :func:`explain_row_estimate`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import sqlglot
from sqlglot import exp

__all__ = ["explain_row_estimate"]


def explain_row_estimate(lines: Sequence[Mapping[str, Any]], sql: str | None = None) -> int:
    """The rows a statement is expected to examine, from MySQL/MariaDB tabular ``EXPLAIN``.

    Each line is one table access of one SELECT (``id``); its ``rows`` column is the number of
    rows the optimizer expects to read there per combination of the tables before it. So one
    SELECT costs the *product* of its lines' rows (a join), and the statement costs the *sum*
    over its SELECTs (a UNION branch, a derived table or an uncorrelated subquery runs once),
    except that a ``DEPENDENT`` subquery runs once per row of the SELECT it is nested in, and
    that SELECT once per row of its own outer SELECT when it is dependent too: nested
    correlated subqueries multiply all the way out. Tabular EXPLAIN does not say which SELECT
    a subquery is nested in, so that is read from ``sql`` (the statement explained: SELECTs
    are numbered in the order the server parses them, see :func:`_nesting`); without it, or
    when the lines do not fit the statement, every earlier SELECT is taken as a possible outer
    one (an over-count of sibling subqueries, never an under-count of nested ones). At least
    the count of the plain reading (every dependent subquery once per row of the largest
    independent SELECT). Lines without an id (the UNION RESULT) or without rows (no table
    used) count as one row. The result is an estimate, as the database's is; it only ever
    over-counts a filtered join.

    Args:
        lines: EXPLAIN output rows as mappings with lower-case keys (``id``, ``select_type``,
            ``table``, ``rows``).
        sql: The statement explained, in MySQL syntax.
    """
    products: dict[int, int] = {}
    dependent: set[int] = set()
    tables: dict[int, set[str]] = {}
    for line in lines:
        select_id = line.get("id")
        if select_id is None:
            continue
        number = int(select_id)
        rows = line.get("rows")
        products[number] = products.get(number, 1) * max(1, int(rows) if rows is not None else 1)
        if "DEPENDENT" in str(line.get("select_type") or "").upper():
            dependent.add(number)
        table = str(line.get("table") or "")
        if table and not table.startswith("<"):
            tables.setdefault(number, set()).add(table.lower())
    outer = max((p for n, p in products.items() if n not in dependent), default=1)
    plain = sum(p * outer if n in dependent else p for n, p in products.items())
    nesting = _nesting(sql) if sql is not None and dependent else None
    if nesting is not None and not _fits(nesting, tables):
        nesting = None
    # Rows each SELECT yields over all its runs, in id order (an outer SELECT comes first).
    yielded: dict[int, int] = {}
    for number in sorted(products):
        runs = 1
        if number in dependent:
            if nesting is None:
                runs = max(yielded.values(), default=1)
            else:
                parent = nesting[0].get(number)
                while parent is not None and parent not in yielded:
                    parent = nesting[0].get(parent)
                runs = yielded[parent] if parent is not None else 1
        yielded[number] = products[number] * runs
    return max(plain, sum(yielded.values()))


_Nesting = tuple[dict[int, int | None], dict[int, set[str]]]


@lru_cache(maxsize=256)
def _nesting(sql: str) -> _Nesting | None:
    """The SELECTs of ``sql`` numbered as MySQL and MariaDB number them in ``EXPLAIN``, each
    with the number of the SELECT it is nested in (None at the top) and the names and
    aliases of every table in it, nested ones included; None when ``sql`` does not parse.

    The server numbers a SELECT when its parser reaches it: a query block before its WITH
    clause, then its select list, FROM, WHERE and the rest in the order they are written, a
    UNION's branches left to right. That is a depth-first walk of the parse in the order of
    each node's fields (``arg_types``), not the order the fields were filled in.
    """
    try:
        tree = sqlglot.parse_one(sql, read="mysql")
    except sqlglot.errors.ParseError:
        return None
    parents: dict[int, int | None] = {}
    tables: dict[int, set[str]] = {}
    stack: list[tuple[exp.Expr, int | None]] = [(tree, None)]
    while stack:
        node, enclosing = stack.pop()
        if isinstance(node, exp.Select):
            number = len(parents) + 1
            parents[number] = enclosing
            tables[number] = set()
            enclosing = number
        elif isinstance(node, exp.Table) and enclosing is not None:
            names = {node.name.lower(), node.alias_or_name.lower()}
            ancestor: int | None = enclosing
            while ancestor is not None:
                tables[ancestor] |= names
                ancestor = parents[ancestor]
        children = [
            (child, enclosing)
            for key in type(node).arg_types
            for child in _as_list(node.args.get(key))
            if isinstance(child, exp.Expr)
        ]
        stack.extend(reversed(children))
    return parents, tables


def _as_list(value: object) -> list[object]:
    return value if isinstance(value, list) else [value]


def _fits(nesting: _Nesting, tables: Mapping[int, set[str]]) -> bool:
    """Whether EXPLAIN's lines read as the numbering of :func:`_nesting`: each SELECT of the
    plan exists there and reads only tables written inside it (a merged derived table or a
    flattened subquery moves its tables out to an enclosing SELECT, never elsewhere)."""
    parents, written = nesting
    return all(n in parents and names <= written[n] for n, names in tables.items())
