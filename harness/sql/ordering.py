"""Row order that no hidden value can steer.

Why. A database returns rows in the order of the access path it picks, and for a table with
sensitive columns that path can be an index on a sensitive column: ``SELECT id FROM
shop.customers LIMIT 3`` scans the covering index on ``email`` on SQLite and MariaDB alike and
returns the customers with the alphabetically first e-mails, although it never names ``email``.
So everything that depends on the order in which rows are read reveals how hidden values sort
against each other: which rows a LIMIT/OFFSET keeps and the order they are shown in, how the
ties of an ORDER BY fall, the first row SQLite takes for a scalar subquery, a GROUP_CONCAT, a
ROW_NUMBER/LAG/FIRST_VALUE, the row a non-aggregated column of a grouped select is taken from,
ANY_VALUE, a RAND(seed) sequence, the partial sums of a SUM that overflows (SQLite) or rounds.

What. In a statement that reads any table with sensitive columns — *hazardous*; any other
statement reads no hidden value at all and is left exactly as it is —

1. every query that chooses or orders rows gets an ORDER BY that is a *total* order on
   non-sensitive values: the outermost query (the validator gives it a LIMIT), any SELECT or
   set operation with LIMIT or OFFSET (derived tables, CTEs, IN subqueries, set branches) and
   every scalar subquery (SQLite silently takes its first row). The model's own ORDER BY items
   (already refused when they touch a sensitive column) come first, then the tie-breakers
   below;
2. every GROUP_CONCAT is ordered by the model's items and then by its own values, so the
   concatenation — and where ``group_concat_max_len`` cuts it — is canonical;
3. every order-dependent window function (ROW_NUMBER, NTILE, LAG, LEAD, FIRST/LAST/NTH_VALUE,
   any aggregate over a ROWS frame) gets the row tie-breakers in its window ORDER BY. RANK,
   DENSE_RANK, PERCENT_RANK, CUME_DIST and RANGE-framed aggregates give peers one value and
   are left alone (a tie-breaker would change their meaning);
4. what cannot be ordered is refused, ORDER_DEPENDS_ON_HIDDEN_VALUES: ANY_VALUE, RAND,
   JSON_ARRAYAGG and JSON_OBJECTAGG (no portable ORDER BY); ROLLUP (MariaDB refuses ORDER BY
   beside it); a column of a grouped select that is neither grouped on, aggregated, nor
   determined by a grouped key (SQLite and MariaDB both take it from the first row read —
   ``SELECT id, COUNT(*) FROM shop.customers`` names the customer with the first e-mail);
   SUM/AVG/STDDEV/VARIANCE over anything but a plain column, a literal, a COUNT, a MIN/MAX of
   a plain column or a CASE/IF whose results are small integer literals (a crafted float or
   near-2^63 integer makes the result, or SQLite's "integer overflow", depend on the order of
   the partial sums); an order-dependent window function over a named window (other functions
   share its ORDER BY).

Tie-breakers. A row of a plain SELECT is one combination of rows of its sources (FROM and
JOIN), so the sources' keys, in order, identify it: a base table's policy ``key``; for a
derived table or CTE, the key it projects (its sources' keys, its GROUP BY expressions, all of
its columns when it is DISTINCT or a de-duplicating set operation). A source without a key
contributes every non-sensitive column it has: rows that agree on all of them differ only in
masked values, which can only be copied bare to the result and show as the mask there, so
their relative order cannot be observed by anything downstream. A grouped SELECT is ordered by
its GROUP BY expressions, a DISTINCT one by its outputs, an implicit aggregate has one row, and
a set operation is ordered by all of its non-sensitive outputs (the same argument). A table
whose primary key is itself sensitive therefore needs no refusal: it declares no key (or a
non-sensitive unique one) and is ordered by its visible columns.

Why not the alternatives. Re-ordering rows in the projector fixes only the order shown, not
which rows a LIMIT keeps. Index hints (IGNORE INDEX, SQLite's NOT INDEXED) differ per dialect,
need the policy to know index names, and cannot help when the primary key is sensitive (the
clustered order then *is* the hidden order). Refusing every LIMIT without a total ORDER BY
would refuse nearly every statement, since the validator adds a LIMIT to all of them.

Residual (documented, not closed here): values that compare equal yet print differently (case
or trailing-space variants under MariaDB's ``_ci`` collations) tie in a sort on non-key columns,
and GROUP BY, DISTINCT, MIN and MAX keep whichever variant they read first. Policy keys make the
order itself exact; the representative of such a group stays the database's choice. The time a
short-circuiting EXISTS/IN subquery takes to find its first match is not made order-independent.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import partial

from sqlglot import exp
from sqlglot.optimizer.scope import Scope, build_scope, walk_in_scope

from harness.sql.functions import function_name, words
from harness.sql.lineage import LineageAnalyzer, groups_rows
from harness.sql.policy import DatasourcePolicy, TablePolicy
from harness.sql.reasons import RejectReason, reject

__all__ = ["enforce_total_order", "is_hazardous"]

_DIALECT = "mysql"
_REASON = RejectReason.ORDER_DEPENDS_ON_HIDDEN_VALUES


def _classes(names: str) -> tuple[type[exp.Expr], ...]:
    return tuple(cls for name in words(names) if isinstance(cls := getattr(exp, name, None), type))


_ORDER_DEPENDENT_FUNCTIONS = _classes("AnyValue Rand JSONObjectAgg JSONArrayAgg")
_ORDER_DEPENDENT_ANONYMOUS = frozenset({"JSON_ARRAYAGG", "JSON_OBJECTAGG", "RAND"})
_ORDER_SENSITIVE_WINDOWS = _classes("RowNumber Ntile Lag Lead FirstValue LastValue NthValue")
_ARITHMETIC_AGGREGATES = _classes("Sum Avg Stddev StddevPop StddevSamp Variance VariancePop")
_SET_MEMBERSHIP = (exp.In, exp.Exists, exp.Any, exp.All)
# What a column may stand under in a subquery that stops at its first match (EXISTS, IN, ANY,
# ALL): comparisons and logic, which can neither fail nor take long. Anything computed from a
# column there (arithmetic that can overflow, a function that can fail or be slow) runs only
# on the rows the scan reaches before the match, in the order of an index on a hidden value:
# an error or a timeout on a chosen row then tells how two hidden values sort.
# Per-row values that are 0, 1 or NULL: a sum of them counts rows, exactly, in any order.
_PREDICATES = _classes(
    "EQ NEQ GT GTE LT LTE NullSafeEQ NullSafeNEQ Is In Between Like ILike And Or Not"
)
_FIRST_MATCH_SAFE = _PREDICATES + _classes(
    "Paren Alias Where Having Join Group Order Ordered Tuple Distinct Select From Subquery "
    "Exists Any All"
)
_FOLDED_CLAUSES = frozenset({"from", "from_", "joins", "where", "group"})

_Edit = Callable[[], None]


def is_hazardous(tables: frozenset[str], datasource: DatasourcePolicy) -> bool:
    """True when any of ``tables`` (``schema.table``) has a sensitive column (or is unknown)."""
    for key in tables:
        schema, _, table = key.partition(".")
        policy = datasource.table(schema, table)
        if policy is None or policy.sensitive:
            return True
    return False


def enforce_total_order(
    root: exp.Expr,
    datasource: DatasourcePolicy,
    analyzer: LineageAnalyzer,
    tables: frozenset[str],
) -> None:
    """Make every order-dependent part of a hazardous ``root`` total, or refuse it.

    ``root`` is the qualified statement that ``analyzer`` has already checked; it is rewritten
    in place. The outermost query is ordered as if it had a LIMIT (the validator adds one).

    Raises:
        SqlRejected: ORDER_DEPENDS_ON_HIDDEN_VALUES for what no ORDER BY can make canonical.
    """
    if is_hazardous(tables, datasource):
        _Orderer(datasource, analyzer).run(root)


class _Orderer:
    def __init__(self, datasource: DatasourcePolicy, analyzer: LineageAnalyzer) -> None:
        self._datasource = datasource
        self._analyzer = analyzer
        self._edits: list[_Edit] = []

    def run(self, root: exp.Expr) -> None:
        scope_root = build_scope(root)
        if scope_root is None:
            reject(RejectReason.NOT_SELECT)
        # Every check runs before the first edit, so a refusal leaves no half-rewritten tree.
        # Scopes come children first (post-order), and tie-breakers are built when their edit
        # runs, so a copied expression already carries the order given to its subqueries.
        for scope in scope_root.traverse():
            expression = scope.expression
            if _stops_at_first_match(scope):
                for inner in scope.traverse():
                    _refuse_computed_columns(inner)
            if isinstance(expression, exp.Select):
                self._refuse_unorderable(scope, expression)
                self._order_windows(scope, expression)
                self._order_group_concats(expression)
            if expression is root or _chooses_rows(expression) or _is_scalar(scope):
                self._order_query(scope)
        for edit in self._edits:
            edit()

    # -- refusals --------------------------------------------------------------------------

    def _refuse_unorderable(self, scope: Scope, select: exp.Select) -> None:
        for node in walk_in_scope(select):
            if isinstance(node, _ORDER_DEPENDENT_FUNCTIONS) or (
                isinstance(node, exp.Anonymous)
                and str(node.name).upper() in _ORDER_DEPENDENT_ANONYMOUS
            ):
                reject(_REASON, function_name(node) if isinstance(node, exp.Func) else None)
            elif isinstance(node, exp.Group) and any(
                node.args.get(key) for key in ("rollup", "cube", "grouping_sets")
            ):
                reject(_REASON, "ROLLUP")
            elif isinstance(node, _ARITHMETIC_AGGREGATES) and not self._plain_argument(node, scope):
                reject(_REASON, function_name(node) if isinstance(node, exp.Func) else None)
        if groups_rows(select):
            self._refuse_first_row_columns(scope, select)

    def _plain_argument(self, aggregate: exp.Expr, scope: Scope) -> bool:
        """True when ``aggregate`` sums a plain column (through bare projections) or a literal."""
        argument = aggregate.this
        if isinstance(argument, exp.Distinct):
            if len(argument.expressions) != 1:
                return False
            argument = argument.expressions[0]
        while isinstance(argument, exp.Paren):
            argument = argument.this
        if isinstance(argument, (exp.Literal, exp.Null, exp.Count, *_PREDICATES)):
            return True  # one constant, row counts, or 0/1 per row (SUM(status = 'failed'))
        if isinstance(argument, (exp.Min, exp.Max)):
            return self._plain_argument(argument, scope)  # values of the column itself
        if isinstance(argument, (exp.Case, exp.If)):
            # A count of matching rows, or a column's values where a condition holds.
            return all(
                _small_integer(value)
                or (isinstance(value, exp.Column) and self._plain_column(value, scope))
                for value in _results(argument)
            )
        return isinstance(argument, exp.Column) and self._plain_column(argument, scope)

    def _plain_column(self, column: exp.Column, scope: Scope) -> bool:
        owner = _owner(column, scope)
        if owner is None:
            return False
        source = owner.sources[column.table]
        if isinstance(source, exp.Table):
            return True
        if not isinstance(source, Scope):
            return False
        names = [output.name.lower() for output in self._analyzer.outputs(source)]
        if column.name.lower() not in names:
            return False
        return self._plain_output(source, names.index(column.name.lower()))

    def _plain_output(self, scope: Scope, index: int) -> bool:
        expression = scope.expression
        if isinstance(expression, exp.SetOperation):
            return all(self._plain_output(branch, index) for branch in scope.set_operation_scopes)
        if not isinstance(expression, exp.Select) or groups_rows(expression):
            return False
        projections = expression.selects
        if index >= len(projections):
            return False
        inner = _unwrap(projections[index])
        return isinstance(inner, exp.Column) and self._plain_column(inner, scope)

    def _refuse_first_row_columns(self, scope: Scope, select: exp.Select) -> None:
        """Refuse a column a grouped select would take from whichever row it read first."""
        group = select.args.get("group")
        keys = {_text(e) for e in group.expressions} if group is not None else set()
        keyed = {
            alias
            for alias in _source_aliases(select)
            if (key := self._source_key(scope.sources.get(alias))) is not None
            and all(_text(exp.column(name, table=alias)) in keys for name in key)
        }
        aliases = {p.alias.lower() for p in select.selects if isinstance(p, exp.Alias)}
        for column in walk_in_scope(select):
            if not isinstance(column, exp.Column) or _clause(column, select) in _FOLDED_CLAUSES:
                continue
            if not column.table:
                if column.name.lower() in aliases:
                    continue  # an output alias (ORDER BY, HAVING): checked as a projection
                reject(_REASON, column.name)
            if column.table not in scope.sources or column.table in keyed:
                continue  # a correlated reference is the outer query's business
            if _aggregated(column, select) or _grouped(column, select, keys):
                continue
            reject(_REASON, f"{column.table}.{column.name}")
        # A correlated subquery outside WHERE and FROM reads this select's columns once per
        # group: the same rule (in WHERE it reads them once per row, before grouping).
        for subquery in scope.subquery_scopes:
            if _clause(subquery.expression, select) in _FOLDED_CLAUSES:
                continue
            for inner in subquery.traverse():
                for column in walk_in_scope(inner.expression):
                    if not isinstance(column, exp.Column) or _owner(column, inner) is not scope:
                        continue
                    if column.table in keyed or _text(column) in keys:
                        continue
                    reject(_REASON, f"{column.table}.{column.name}")

    # -- rewrites --------------------------------------------------------------------------

    def _order_query(self, scope: Scope) -> None:
        expression = scope.expression

        def edit() -> None:
            if isinstance(expression, exp.Select):
                breakers = self._select_tiebreakers(scope, expression)
            else:
                breakers = self._set_tiebreakers(scope)
            _append_order(expression, breakers)

        self._edits.append(edit)

    def _order_windows(self, scope: Scope, select: exp.Select) -> None:
        for window in walk_in_scope(select):
            if not isinstance(window, exp.Window):
                continue
            spec = window.args.get("spec")
            rows_frame = spec is not None and str(spec.args.get("kind") or "").upper() == "ROWS"
            if not isinstance(window.this, exp.Func):
                # A WINDOW clause definition: a ROWS frame there is used by ``OVER w``, whose
                # ORDER BY cannot be completed without rewriting the definition.
                if rows_frame:
                    reject(_REASON, "named window")
                continue
            if not (isinstance(window.this, _ORDER_SENSITIVE_WINDOWS) or rows_frame):
                continue
            if window.args.get("alias"):
                reject(_REASON, "named window")
            self._edits.append(partial(self._order_window, window, scope, select))

    def _order_group_concats(self, select: exp.Select) -> None:
        for node in walk_in_scope(select):
            if isinstance(node, exp.GroupConcat):
                self._edits.append(partial(_order_group_concat, node))

    def _order_window(self, window: exp.Window, scope: Scope, select: exp.Select) -> None:
        _append_order(window, self._row_order(scope, select))

    # -- tie-breakers ----------------------------------------------------------------------

    def _select_tiebreakers(self, scope: Scope, select: exp.Select) -> list[exp.Expr]:
        if groups_rows(select) or not select.args.get("distinct"):
            return self._row_order(scope, select)
        # DISTINCT: the output rows are distinct, so all (non-sensitive) outputs order them.
        breakers: list[exp.Expr] = []
        outputs = self._analyzer.outputs(scope)
        for projection, output in zip(select.selects, outputs, strict=True):
            if self._analyzer.is_sensitive(output.sources):
                continue
            inner = _unwrap(projection)
            breakers.append(
                inner.copy() if isinstance(inner, exp.Column) else exp.column(output.name)
            )
        return breakers

    def _row_order(self, scope: Scope, select: exp.Select) -> list[exp.Expr]:
        """What identifies a row of ``select`` before DISTINCT: group keys or source keys."""
        if groups_rows(select):
            group = select.args.get("group")
            return [e.copy() for e in group.expressions] if group is not None else []
        breakers: list[exp.Expr] = []
        for alias in _source_aliases(select):
            source = scope.sources.get(alias)
            key = self._source_key(source)
            names = key if key is not None else self._source_columns(source)
            breakers.extend(exp.column(name, table=alias) for name in names)
        return breakers

    def _set_tiebreakers(self, scope: Scope) -> list[exp.Expr]:
        outputs = self._analyzer.outputs(scope)
        unique = len({o.name.lower() for o in outputs}) == len(outputs)
        return [
            exp.column(output.name) if unique else exp.Literal.number(position)
            for position, output in enumerate(outputs, start=1)
            if not self._analyzer.is_sensitive(output.sources)
        ]

    # -- keys ------------------------------------------------------------------------------

    def _source_key(self, source: object) -> list[str] | None:
        """Column names that identify a row of one source, or None."""
        if isinstance(source, exp.Table):
            key = self._table_policy(source).key
            return None if key is None else list(key)
        if isinstance(source, Scope):
            return self._output_key(source)
        return None

    def _source_columns(self, source: object) -> list[str]:
        """Every non-sensitive column of one source (the fallback order)."""
        if isinstance(source, exp.Table):
            return self._table_policy(source).visible
        if isinstance(source, Scope):
            return [
                output.name
                for output in self._analyzer.outputs(source)
                if not self._analyzer.is_sensitive(output.sources)
            ]
        reject(RejectReason.UNRESOLVED_LINEAGE, "order source")

    def _output_key(self, scope: Scope) -> list[str] | None:
        """Output names of ``scope`` that identify its rows, or None when it projects none."""
        outputs = self._analyzer.outputs(scope)
        clean = not any(self._analyzer.is_sensitive(o.sources) for o in outputs)
        expression = scope.expression
        if isinstance(expression, exp.SetOperation):
            deduplicates = not isinstance(expression, exp.Union) or expression.args.get("distinct")
            return [o.name for o in outputs] if deduplicates and clean else None
        if not isinstance(expression, exp.Select):
            return None
        if groups_rows(expression):
            group = expression.args.get("group")
            if group is None:
                return []  # one row
            wanted = list(group.expressions)
        elif expression.args.get("distinct"):
            return [o.name for o in outputs] if clean else None
        else:
            wanted = []
            for alias in _source_aliases(expression):
                key = self._source_key(scope.sources.get(alias))
                if key is None:
                    return None
                wanted.extend(exp.column(name, table=alias) for name in key)
        names: list[str] = []
        for target in wanted:
            name = _projected(expression, target)
            if name is None:
                return None
            names.append(name)
        return names

    def _table_policy(self, table: exp.Table) -> TablePolicy:
        policy = self._datasource.table(table.db.lower(), table.name.lower())
        if policy is None:
            reject(RejectReason.TABLE_NOT_ALLOWED, f"{table.db}.{table.name}")
        return policy


# ------------------------------------------------------------------------------ helpers


def _text(node: exp.Expr) -> str:
    return node.sql(dialect=_DIALECT, identify=True, comments=False)


def _unwrap(projection: exp.Expr) -> exp.Expr:
    inner = projection.this if isinstance(projection, exp.Alias) else projection
    while isinstance(inner, exp.Paren):
        inner = inner.this
    return inner


def _chooses_rows(expression: exp.Expr) -> bool:
    return bool(expression.args.get("limit") or expression.args.get("offset"))


def _is_scalar(scope: Scope) -> bool:
    """True for a subquery used as a value (SQLite takes its first row), not as a set."""
    return scope.is_subquery and not _in_set_membership(scope)


def _stops_at_first_match(scope: Scope) -> bool:
    """True for a subquery of EXISTS, IN, ANY or ALL: the database may stop reading it at the
    first row that matches."""
    return scope.is_subquery and _in_set_membership(scope)


def _in_set_membership(scope: Scope) -> bool:
    parent = scope.expression.parent
    while isinstance(parent, (exp.Subquery, exp.Paren)):
        parent = parent.parent
    return isinstance(parent, _SET_MEMBERSHIP)


def _source_aliases(select: exp.Select) -> list[str]:
    from_ = select.args.get("from_") or select.args.get("from")
    if from_ is None:
        return []
    joins: list[exp.Join] = select.args.get("joins") or []
    return [from_.this.alias_or_name, *(join.this.alias_or_name for join in joins)]


def _owner(column: exp.Column, scope: Scope) -> Scope | None:
    """The scope whose source the (qualified) column reads, nearest first as in MySQL."""
    current: Scope | None = scope
    while current is not None and column.table not in current.sources:
        current = current.parent
    return current


def _clause(node: exp.Expr, select: exp.Select) -> str:
    child, parent = node, node.parent
    while parent is not None and parent is not select:
        child, parent = parent, parent.parent
    return str(child.arg_key) if parent is select else ""


def _aggregated(column: exp.Column, select: exp.Select) -> bool:
    """True inside a (non-window) aggregate of ``select``: folded over the group's rows."""
    parent = column.parent
    while parent is not None and parent is not select:
        if isinstance(parent, exp.AggFunc) and not isinstance(parent.parent, exp.Window):
            return True
        parent = parent.parent
    return False


def _grouped(column: exp.Column, select: exp.Select, keys: set[str]) -> bool:
    """True when the column, or an expression around it, is one of the GROUP BY items."""
    node: exp.Expr | None = column
    while node is not None and node is not select:
        if _text(node) in keys:
            return True
        node = node.parent
    return False


def _projected(select: exp.Select, target: exp.Expr) -> str | None:
    """The output name under which ``select`` projects ``target`` as it is, if it does."""
    wanted = _text(target)
    for projection in select.selects:
        if _text(_unwrap(projection)) == wanted:
            return str(projection.alias_or_name)
    return None


_SMALL_INTEGER = 2**31


def _results(node: exp.Case | exp.If) -> list[exp.Expr | None]:
    """The values a CASE or IF can return (None for a missing ELSE: NULL)."""
    if isinstance(node, exp.Case):
        values = [branch.args.get("true") for branch in node.args.get("ifs") or []]
        values.append(node.args.get("default"))
        return values
    return [node.args.get("true"), node.args.get("false")]


def _small_integer(value: exp.Expr | None) -> bool:
    """True for NULL or a literal whose value is an integer of at most 2^31 (``1``, ``1.0``):
    a sum of such values is exact and cannot overflow in any order of the rows (the failure
    rate idiom ``SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END)``)."""
    if value is None or isinstance(value, exp.Null):
        return True
    if not isinstance(value, exp.Literal) or value.is_string:
        return False
    try:
        number = float(value.this)
    except ValueError:
        return False
    return number.is_integer() and abs(number) <= _SMALL_INTEGER


def _refuse_computed_columns(scope: Scope) -> None:
    """Refuse a value computed from a column in a first-match subquery (``_FIRST_MATCH_SAFE``)."""
    select = scope.expression
    for column in walk_in_scope(select):
        if not isinstance(column, exp.Column):
            continue
        parent = column.parent
        while parent is not None and parent is not select:
            if not isinstance(parent, _FIRST_MATCH_SAFE):
                reject(_REASON, "EXISTS")
            parent = parent.parent


def _append_order(node: exp.Expr, breakers: list[exp.Expr]) -> None:
    """Append the tie-breakers that ``node``'s ORDER BY does not list yet."""
    order = node.args.get("order")
    existing: list[exp.Ordered] = list(order.expressions) if order is not None else []
    seen = {_text(item.this) for item in existing}
    # In a grouped select, qualify names an ORDER BY item that is a projection by its alias;
    # writing it that way keeps the executed text a fixpoint of validation.
    by_alias: dict[str, str] = {}
    if isinstance(node, exp.Select) and node.args.get("group"):
        counts = Counter(node.named_selects)
        by_alias = {
            _text(p.this): p.alias
            for p in node.selects
            if isinstance(p, exp.Alias) and counts[p.alias] == 1
        }
    added: list[exp.Expr] = []
    for breaker in breakers:
        if (alias := by_alias.get(_text(breaker))) is not None:
            breaker = exp.column(alias)
        text = _text(breaker)
        if text not in seen:
            seen.add(text)
            added.append(exp.Ordered(this=breaker, nulls_first=True))
    if not added:
        return
    if order is None:
        node.set("order", exp.Order(expressions=added))
    else:
        order.set("expressions", [*existing, *added])


def _order_group_concat(node: exp.GroupConcat) -> None:
    """``GROUP_CONCAT(v [ORDER BY o])`` → ``GROUP_CONCAT(v ORDER BY o, v)``."""
    this = node.this
    order = this if isinstance(this, exp.Order) else None
    values = order.this if order is not None else this
    pieces = values.expressions if isinstance(values, exp.Distinct) else [values]
    existing: list[exp.Ordered] = list(order.expressions) if order is not None else []
    seen = {_text(item.this) for item in existing}
    added = [
        exp.Ordered(this=piece.copy(), nulls_first=True)
        for piece in pieces
        if _text(piece) not in seen
    ]
    if not added:
        return
    if order is None:
        node.set("this", exp.Order(this=values, expressions=added))
    else:
        order.set("expressions", [*existing, *added])
