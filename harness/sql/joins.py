"""The join graph of each SELECT: every table it reads must be linked to the others.

A cross product — two tables joined without a condition relating them (a comma join, ``CROSS
JOIN``, ``JOIN`` without ``ON``) — costs the product of their sizes whatever the LIMIT says, so
it is refused (CROSS_PRODUCT) before anything runs. The row estimate of the database bounds
what remains (the read-only executor, on MySQL/MariaDB).

The check runs per SELECT over a statement that ``qualify`` has rewritten (every column carries
its table alias; ``USING`` has become ``ON`` equalities). The SELECT's sources — tables, CTEs
and derived tables of its FROM and JOIN clauses — are the vertices. A comparison
(``=``, ``<=>``, ``<``, ``<=``, ``>``, ``>=``, ``BETWEEN``) whose two sides each read columns of
one source, two different ones, is an edge, when it is a conjunct of a JOIN's ``ON`` or of
``WHERE``; under ``OR`` an edge counts only when every branch has it. The graph must be connected. Columns of an
outer query (a correlated subquery) and columns inside a nested subquery are no edges: they do
not restrict how this SELECT's own sources combine.
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.optimizer.scope import build_scope, walk_in_scope

from harness.sql.reasons import RejectReason, reject

__all__ = ["check_join_graph"]

_COMPARISONS = (exp.EQ, exp.NullSafeEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)

_Edge = frozenset[str]


def check_join_graph(root: exp.Expr) -> None:
    """Refuse any SELECT of ``root`` whose sources are not all linked by join conditions.

    Raises:
        SqlRejected: CROSS_PRODUCT, naming a source that no condition links to the first one.
    """
    scope_root = build_scope(root)
    if scope_root is None:
        reject(RejectReason.NOT_SELECT)
    for scope in scope_root.traverse():
        if isinstance(scope.expression, exp.Select):
            _check_select(scope.expression)


def _check_select(select: exp.Select) -> None:
    from_ = select.args.get("from_") or select.args.get("from")
    joins: list[exp.Join] = select.args.get("joins") or []
    if from_ is None or not joins:
        return
    names = [from_.this.alias_or_name.lower(), *(j.this.alias_or_name.lower() for j in joins)]
    vertices = frozenset(names)
    edges: set[_Edge] = set()
    for join in joins:
        on = join.args.get("on")
        if on is not None:
            edges |= _edges(on, vertices)
    where = select.args.get("where")
    if where is not None:
        edges |= _edges(where.this, vertices)
    reached = {names[0]}
    grew = True
    while grew:
        grew = False
        for edge in edges:
            if edge & reached and not edge <= reached:
                reached |= edge
                grew = True
    for name in names:
        if name not in reached:
            reject(RejectReason.CROSS_PRODUCT, name)


def _edges(condition: exp.Expr, vertices: frozenset[str]) -> set[_Edge]:
    """The pairs of sources that ``condition`` (a predicate) links, by the rule above."""
    if isinstance(condition, exp.Paren):
        return _edges(condition.this, vertices)
    if isinstance(condition, exp.And):
        return _edges(condition.this, vertices) | _edges(condition.expression, vertices)
    if isinstance(condition, exp.Or):
        return _edges(condition.this, vertices) & _edges(condition.expression, vertices)
    if isinstance(condition, _COMPARISONS):
        return _between(condition.this, condition.expression, vertices)
    if isinstance(condition, exp.Between):
        return _between(condition.this, condition.args.get("low"), vertices) | _between(
            condition.this, condition.args.get("high"), vertices
        )
    return set()


def _between(left: exp.Expr | None, right: exp.Expr | None, vertices: frozenset[str]) -> set[_Edge]:
    lhs, rhs = _sources(left, vertices), _sources(right, vertices)
    if len(lhs) != 1 or len(rhs) != 1:
        # A side that reads two sources relates them to itself, not to the other side:
        # "a.id + 0 * b.id = a.id" holds for every pair of rows.
        return set()
    return {frozenset((a, b)) for a in lhs for b in rhs if a != b}


def _sources(side: exp.Expr | None, vertices: frozenset[str]) -> set[str]:
    if side is None:
        return set()
    return {
        node.table.lower()
        for node in walk_in_scope(side)
        if isinstance(node, exp.Column) and node.table.lower() in vertices
    }
