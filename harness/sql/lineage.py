"""Name resolution and column lineage over a qualified statement.

Input is a statement that ``sqlglot.optimizer.qualify`` has already rewritten: every table
carries its schema and an alias, every resolvable column carries its table alias, and ``*`` is
expanded. :class:`LineageAnalyzer` then walks sqlglot's scope tree and

* checks that every base table is allowlisted and every column reference resolves — through
  table aliases, CTEs, derived tables, set operations and correlated outer scopes — to an
  allowlisted column (``UNRESOLVED_LINEAGE`` / ``COLUMN_NOT_ALLOWED`` otherwise);
* computes, for each output column, the set of ``schema.table.column`` it derives from: every
  column that occurs anywhere in the projection counts, including inside CASE conditions,
  aggregates and scalar subqueries;
* enforces the one rule for sensitive columns. A reference is *tainted* when its lineage
  includes a sensitive base column — directly, or through a CTE, a derived table, a set
  operation, an alias or an expanded ``*``. A tainted reference may only be a *bare* column
  (optionally aliased or parenthesised) directly in a SELECT list that neither groups nor
  aggregates; its output is then itself tainted and the same rule applies to every reference
  to it, up to the outermost query, where the projector masks it. Anywhere else is a refusal:
  WHERE, JOIN ON (USING is rewritten to ON), GROUP BY, HAVING, ORDER BY (positions and aliases
  included), window PARTITION/ORDER, DISTINCT and de-duplicating or comparing set operations
  are SENSITIVE_COLUMN_IN_PREDICATE; a function, operator, CASE, CAST, aggregate (explicit or
  implied by grouping), window function or a subquery used as a value over it is
  SENSITIVE_COLUMN_IN_EXPRESSION.

Why so strict: whatever a statement computes from a masked value can change an outcome the
model sees — a row count, an order, an error (an overflow taken only for some values), a
latency — and so leaks the value one bit per call, however well the projector masks the cell
itself. A bare value is copied, never inspected, so nothing about the result depends on it.

:func:`check_stars` runs earlier, on the unqualified tree, because qualification erases the
difference between a written ``*`` and an explicit column list.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from sqlglot import exp
from sqlglot.optimizer.scope import Scope, build_scope, walk_in_scope

from harness.sql.policy import FORBIDDEN_SCHEMAS, DatasourcePolicy, TablePolicy
from harness.sql.reasons import RejectReason, reject

__all__ = ["Lineage", "LineageAnalyzer", "OutputColumn", "check_stars", "groups_rows"]


@dataclass(frozen=True, kw_only=True)
class OutputColumn:
    """One result column and the base columns its values derive from."""

    name: str
    sources: frozenset[str]


@dataclass(frozen=True, kw_only=True)
class Lineage:
    """What a statement reads and where each output column comes from."""

    tables: frozenset[str]
    columns: tuple[OutputColumn, ...]


def _table_policy(
    datasource: DatasourcePolicy, table: exp.Table, default_schema: str | None
) -> tuple[str, TablePolicy]:
    """``schema.table`` and its policy, or a refusal naming the first missing level."""
    if table.args.get("catalog"):
        reject(RejectReason.TABLE_NOT_ALLOWED, table.sql(dialect="mysql"))
    schema = (table.db or default_schema or "").lower()
    name = table.name.lower()
    if not schema:
        reject(RejectReason.TABLE_NOT_ALLOWED, name)
    if schema in FORBIDDEN_SCHEMAS or schema not in datasource.schemas:
        reject(RejectReason.SCHEMA_NOT_ALLOWED, schema)
    policy = datasource.table(schema, name)
    if policy is None:
        reject(RejectReason.TABLE_NOT_ALLOWED, f"{schema}.{name}")
    return f"{schema}.{name}", policy


def _is_star(node: exp.Expr) -> bool:
    return isinstance(node, exp.Star) or (
        isinstance(node, exp.Column) and isinstance(node.this, exp.Star)
    )


def check_stars(root: exp.Expr, datasource: DatasourcePolicy) -> None:
    """Refuse ``*`` / ``t.*`` over any base table whose policy does not allow it.

    A star over a CTE or derived table is fine: its columns are the inner projections, which
    are checked themselves.
    """
    scope_root = build_scope(root)
    if scope_root is None:
        reject(RejectReason.NOT_SELECT)
    for scope in scope_root.traverse():
        if not isinstance(scope.expression, exp.Select):
            continue
        for projection in scope.expression.selects:
            if not _is_star(projection):
                continue
            if isinstance(projection, exp.Column) and projection.table:
                target = scope.selected_sources.get(projection.table)
                if target is None:
                    reject(RejectReason.UNRESOLVED_LINEAGE, projection.table)
                targets = [target[1]]
            else:
                targets = [source for _, source in scope.selected_sources.values()]
            for source in targets:
                if isinstance(source, exp.Table):
                    key, policy = _table_policy(datasource, source, datasource.default_schema)
                    if not policy.star_allowed:
                        reject(RejectReason.STAR_OVER_DENIED_COLUMNS, key)


def _clause_of(node: exp.Expr, select: exp.Expr) -> str:
    """``"projection"`` when ``node`` feeds a select-list value, else ``"predicate"``.

    Window PARTITION BY / ORDER BY and named windows order or group rows, so they count as
    predicates even inside a projection.
    """
    child = node
    parent = node.parent
    while parent is not None and parent is not select:
        if isinstance(parent, exp.Window) and child.arg_key in ("partition_by", "order"):
            return "predicate"
        child, parent = parent, parent.parent
    return "projection" if parent is select and child.arg_key == "expressions" else "predicate"


class LineageAnalyzer:
    """Resolves one qualified statement against one datasource's policy.

    Args:
        datasource: The datasource policy (allowlists and sensitive columns).
    """

    def __init__(self, datasource: DatasourcePolicy) -> None:
        self._datasource = datasource
        self._sensitive = frozenset(
            f"{schema_name}.{table_name}.{column}"
            for schema_name, schema in datasource.schemas.items()
            for table_name, table in schema.tables.items()
            for column in table.sensitive
        )
        self._outputs_cache: dict[int, tuple[OutputColumn, ...]] = {}
        self._in_progress: set[int] = set()
        self._tables: set[str] = set()
        # Sensitive-column violations are collected over the whole statement and the most
        # telling one is raised at the end: a predicate over a hidden value before a computation.
        self._violations: dict[RejectReason, str] = {}

    def analyze(self, root: exp.Expr) -> Lineage:
        """Check every scope of ``root`` and return its lineage (raises SqlRejected)."""
        scope_root = build_scope(root)
        if scope_root is None:
            reject(RejectReason.NOT_SELECT)
        for table in root.find_all(exp.Table):
            # A table without a schema after qualification can only be a CTE reference; the
            # scope walk below proves it by resolving it to the CTE.
            if table.db or table.args.get("catalog"):
                self._base_table(table)
        for scope in scope_root.traverse():
            self._check_scope(scope)
        for reason in _SENSITIVE_PRIORITY:
            if reason in self._violations:
                reject(reason, self._violations[reason])
        return Lineage(tables=frozenset(self._tables), columns=self._outputs(scope_root))

    def is_sensitive(self, sources: frozenset[str]) -> bool:
        """True when any source column is sensitive."""
        return not self._sensitive.isdisjoint(sources)

    def outputs(self, scope: Scope) -> tuple[OutputColumn, ...]:
        """The output columns of one scope of the analysed statement, with their lineage."""
        return self._outputs(scope)

    # -- scopes ----------------------------------------------------------------------------

    def _check_scope(self, scope: Scope) -> None:
        if scope.udtf_scopes:
            reject(RejectReason.SYNTAX_NOT_ALLOWED, "table function")
        for source in scope.sources.values():
            if isinstance(source, exp.Table):
                self._base_table(source)
            elif not isinstance(source, Scope):
                reject(RejectReason.SYNTAX_NOT_ALLOWED, type(source).__name__)
        expression = scope.expression
        if isinstance(expression, exp.SetOperation):
            self._check_set_operation(scope, expression)
        elif isinstance(expression, exp.Select):
            self._check_select(scope, expression)
        else:
            reject(RejectReason.SYNTAX_NOT_ALLOWED, type(expression).__name__)

    def _check_set_operation(self, scope: Scope, expression: exp.SetOperation) -> None:
        outputs = self._outputs(scope)
        by_name = {column.name.lower(): column.sources for column in outputs}
        named = Counter(column.name.lower() for column in outputs)
        for node in walk_in_scope(expression):
            if isinstance(node, exp.Column):
                _refuse_ambiguous(node, named)
                sources = by_name.get(node.name.lower())
                if sources is None or node.table:
                    reject(RejectReason.UNRESOLVED_LINEAGE, node.name)
                # Only ORDER BY of the whole set operation names its outputs here.
                self._forbid_sensitive(sources, node.name)
        for position in _positional_references(expression):
            self._forbid_sensitive(_nth(outputs, position).sources, f"position {position}")
        # UNION DISTINCT, INTERSECT and EXCEPT compare whole rows.
        deduplicates = not isinstance(expression, exp.Union) or expression.args.get("distinct")
        if deduplicates:
            for column in outputs:
                self._forbid_sensitive(column.sources, column.name)

    def _check_select(self, scope: Scope, select: exp.Select) -> None:
        aliases = {
            projection.alias.lower(): projection
            for projection in select.selects
            if isinstance(projection, exp.Alias)
        }
        named = Counter(projection.alias_or_name.lower() for projection in select.selects)
        self._check_unique_sources(select)
        grouped = groups_rows(select)
        for node in walk_in_scope(select):
            if isinstance(node, exp.Star):
                if not isinstance(node.parent, exp.Count):
                    reject(RejectReason.STAR_OVER_DENIED_COLUMNS)
            elif isinstance(node, exp.Column):
                in_order_by = _in_order_by(node, select)
                if in_order_by:
                    _refuse_ambiguous(node, named)
                alias = aliases.get(node.name.lower()) if in_order_by else None
                if alias is not None and not node.table:
                    sources = self._expression_sources(alias.this, scope)
                else:
                    sources = self._resolve(node, scope)
                if self.is_sensitive(sources):
                    self._check_tainted_reference(node, select, grouped=grouped)
        outputs = self._outputs(scope)
        for position in _positional_references(select):
            self._forbid_sensitive(_nth(outputs, position).sources, f"position {position}")
        for subquery in scope.subquery_scopes:
            # A subquery used as a value or a predicate (scalar, IN, EXISTS, ANY/ALL) computes
            # on what it selects, so it may not select anything tainted, even bare.
            in_predicate = _clause_of(subquery.expression, select) == "predicate"
            for column in self._outputs(subquery):
                if self.is_sensitive(column.sources):
                    self._violate(
                        RejectReason.SENSITIVE_COLUMN_IN_PREDICATE
                        if in_predicate
                        else RejectReason.SENSITIVE_COLUMN_IN_EXPRESSION,
                        column.name,
                    )
        if select.args.get("distinct"):
            for column in outputs:
                self._forbid_sensitive(column.sources, column.name)

    def _check_tainted_reference(
        self, column: exp.Column, select: exp.Select, *, grouped: bool
    ) -> None:
        """Refuse a tainted reference anywhere but as a bare projection of a row-wise select."""
        if _clause_of(column, select) == "predicate":
            self._violate(RejectReason.SENSITIVE_COLUMN_IN_PREDICATE, column.name)
        elif not _is_bare_projection(column, select) or grouped:
            # A bare column of a grouped select is an implicit aggregate (any value of the
            # group): the database chooses among hidden values.
            self._violate(RejectReason.SENSITIVE_COLUMN_IN_EXPRESSION, column.name)

    def _check_unique_sources(self, select: exp.Select) -> None:
        # sqlglot keys sources by alias, so a repeated alias would silently shadow a table.
        names = []
        from_ = select.args.get("from_") or select.args.get("from")
        if from_ is not None:
            names.append(from_.this.alias_or_name.lower())
        names.extend(join.this.alias_or_name.lower() for join in select.args.get("joins") or [])
        if len(names) != len(set(names)):
            reject(RejectReason.UNRESOLVED_LINEAGE, "duplicate table alias")

    def _forbid_sensitive(self, sources: frozenset[str], name: str) -> None:
        if self.is_sensitive(sources):
            self._violate(RejectReason.SENSITIVE_COLUMN_IN_PREDICATE, name)

    def _violate(self, reason: RejectReason, name: str) -> None:
        self._violations.setdefault(reason, name)

    # -- lineage ---------------------------------------------------------------------------

    def _outputs(self, scope: Scope) -> tuple[OutputColumn, ...]:
        key = id(scope.expression)
        cached = self._outputs_cache.get(key)
        if cached is not None:
            return cached
        if key in self._in_progress:
            reject(RejectReason.UNRESOLVED_LINEAGE, "recursive reference")
        self._in_progress.add(key)
        expression = scope.expression
        if isinstance(expression, exp.SetOperation):
            left, right = scope.set_operation_scopes
            left_columns, right_columns = self._outputs(left), self._outputs(right)
            if len(left_columns) != len(right_columns):
                reject(RejectReason.UNRESOLVED_LINEAGE, "set operation arity")
            outputs = tuple(
                OutputColumn(name=lhs.name, sources=lhs.sources | rhs.sources)
                for lhs, rhs in zip(left_columns, right_columns, strict=True)
            )
        elif isinstance(expression, exp.Select):
            outputs = tuple(
                OutputColumn(
                    name=projection.alias_or_name,
                    sources=self._expression_sources(projection, scope),
                )
                for projection in expression.selects
            )
        else:
            reject(RejectReason.SYNTAX_NOT_ALLOWED, type(expression).__name__)
        self._in_progress.discard(key)
        self._outputs_cache[key] = outputs
        return outputs

    def _expression_sources(self, expression: exp.Expr, scope: Scope) -> frozenset[str]:
        """Every base column a projection's value depends on, scalar subqueries included."""
        nested = {id(sub.expression): sub for sub in scope.subquery_scopes}
        sources: set[str] = set()
        for node in walk_in_scope(expression):
            if isinstance(node, exp.Column):
                if _is_star(node):
                    reject(RejectReason.STAR_OVER_DENIED_COLUMNS)
                sources |= self._resolve(node, scope)
            elif isinstance(node, exp.Query) and id(node) in nested:
                for column in self._outputs(nested[id(node)]):
                    sources |= column.sources
        return frozenset(sources)

    def _resolve(self, column: exp.Column, scope: Scope) -> frozenset[str]:
        """The base columns one qualified reference reads (nearest scope wins, as in MySQL)."""
        name = column.name.lower()
        if _is_star(column):
            reject(RejectReason.STAR_OVER_DENIED_COLUMNS, column.table or "*")
        if column.args.get("catalog"):
            reject(RejectReason.UNRESOLVED_LINEAGE, name)
        if not column.table:
            self._unqualified(name, scope)
        current: Scope | None = scope
        while current is not None and column.table not in current.sources:
            current = current.parent
        if current is None:
            reject(RejectReason.UNRESOLVED_LINEAGE, f"{column.table}.{name}")
        source = current.sources[column.table]
        if isinstance(source, exp.Table):
            key, policy = self._base_table(source)
            if column.db and column.db.lower() != key.split(".")[0]:
                reject(RejectReason.UNRESOLVED_LINEAGE, f"{column.db}.{column.table}.{name}")
            if name not in policy.columns:
                reject(RejectReason.COLUMN_NOT_ALLOWED, f"{key}.{name}")
            return frozenset({f"{key}.{name}"})
        if column.db:
            reject(RejectReason.UNRESOLVED_LINEAGE, f"{column.db}.{column.table}.{name}")
        matches = [out.sources for out in self._outputs(source) if out.name.lower() == name]
        if not matches:
            reject(RejectReason.UNRESOLVED_LINEAGE, f"{column.table}.{name}")
        return frozenset().union(*matches)

    def _unqualified(self, name: str, scope: Scope) -> None:
        """Refuse a reference qualify could not attach to a table (it never resolves)."""
        holders = 0
        for source in scope.sources.values():
            if isinstance(source, exp.Table):
                policy = self._datasource.table(source.db.lower(), source.name.lower())
                holders += policy is not None and name in policy.columns
            elif isinstance(source, Scope):
                holders += any(out.name.lower() == name for out in self._outputs(source))
        reason = RejectReason.UNRESOLVED_LINEAGE if holders > 1 else RejectReason.COLUMN_NOT_ALLOWED
        reject(reason, name)

    def _base_table(self, table: exp.Table) -> tuple[str, TablePolicy]:
        key, policy = _table_policy(self._datasource, table, None)
        self._tables.add(key)
        return key, policy


def _in_order_by(node: exp.Expr, select: exp.Select) -> bool:
    """True when ``node`` sits in ``select``'s own ORDER BY (where MySQL sees select aliases)."""
    order = select.args.get("order")
    if order is None:
        return False
    parent = node.parent
    while parent is not None and parent is not select:
        if parent is order:
            return True
        parent = parent.parent
    return False


_ANONYMOUS_AGGREGATES = frozenset({"JSON_ARRAYAGG"})
_SENSITIVE_PRIORITY = (
    RejectReason.SENSITIVE_COLUMN_IN_PREDICATE,
    RejectReason.SENSITIVE_COLUMN_IN_EXPRESSION,
)


def _is_bare_projection(column: exp.Column, select: exp.Select) -> bool:
    """True when ``column`` *is* a select-list item: bare, parenthesised or aliased."""
    child: exp.Expr = column
    parent = column.parent
    while isinstance(parent, exp.Paren):
        child, parent = parent, parent.parent
    if isinstance(parent, exp.Alias) and parent.this is child:
        child, parent = parent, parent.parent
    return parent is select and child.arg_key == "expressions"


def groups_rows(select: exp.Select) -> bool:
    """True when ``select`` folds rows: GROUP BY, or an aggregate outside any window."""
    if select.args.get("group"):
        return True
    having = select.args.get("having")
    for item in [*select.selects, *([having] if having is not None else [])]:
        for node in walk_in_scope(item):
            aggregate = isinstance(node, exp.AggFunc) or (
                isinstance(node, exp.Anonymous) and str(node.name).upper() in _ANONYMOUS_AGGREGATES
            )
            if aggregate and not _under_window(node, select):
                return True
    return False


def _under_window(node: exp.Expr, select: exp.Select) -> bool:
    parent = node.parent
    while parent is not None and parent is not select:
        if isinstance(parent, exp.Window):
            return True
        parent = parent.parent
    return False


def _refuse_ambiguous(node: exp.Column, named: Counter[str]) -> None:
    """Refuse an unqualified ORDER BY name that two outputs carry.

    Which one a database sorts by differs (SQLite takes the first, the lineage here the last,
    MariaDB refuses): ``SELECT c.email AS id, c.id … ORDER BY id`` would pass as ordered by
    the key while the rows come back in email order.
    """
    if not node.table and named[node.name.lower()] > 1:
        reject(RejectReason.UNRESOLVED_LINEAGE, f"ambiguous {node.name}")


def _positional_references(query: exp.Query) -> list[int]:
    """``ORDER BY 2`` / ``GROUP BY 1`` items left as integer literals (1-based positions).

    qualify rewrites positions into the expressions they name; any it leaves are read here, so
    that a position can never hide a sensitive output.
    """
    positions: list[int] = []
    order = query.args.get("order")
    items = [ordered.this for ordered in order.expressions] if order is not None else []
    group = query.args.get("group")
    if group is not None:
        items.extend(group.expressions)
    for item in items:
        if isinstance(item, exp.Literal) and item.is_int:
            positions.append(int(item.this))
    return positions


def _nth(outputs: tuple[OutputColumn, ...], position: int) -> OutputColumn:
    if not 1 <= position <= len(outputs):
        reject(RejectReason.UNRESOLVED_LINEAGE, f"position {position}")
    return outputs[position - 1]
