"""``SqlValidator``: one model-written MySQL SELECT in, one :class:`MysqlQueryPlan` out.

The pipeline, each step refusing with a stable reason (see :mod:`harness.sql.reasons`):

1. datasource known, text within ``max_sql_chars``, no ``/*! */`` or ``/*+ */`` in the raw text;
2. parse with sqlglot (MySQL dialect): exactly one statement, a SELECT or set operation;
3. construct allowlist (:mod:`harness.sql.constructs`) and function allowlist;
4. ``*`` only where the policy allows it (:func:`harness.sql.lineage.check_stars`);
5. ``sqlglot.optimizer.qualify`` against a schema built from the allowlist, so that every
   column is bound to a table alias and every table to its schema;
6. name resolution, allowlists, lineage and the sensitive-column rule
   (:class:`harness.sql.lineage.LineageAnalyzer`);
7. no cross product in any SELECT (:func:`harness.sql.joins.check_join_graph`);
8. in a statement that reads a table with sensitive columns, every row choice and every
   order-dependent value made total on non-sensitive values, or refused
   (:func:`harness.sql.ordering.enforce_total_order`);
9. LIMIT enforced on the outermost query (added, or clamped to ``max_limit``); no OFFSET
   anywhere above ``max_offset``.

The plan carries the policy's ``max_explain_rows``: the executor refuses the plan when the
database's own row estimate exceeds it (MySQL/MariaDB ``EXPLAIN``; see
:mod:`harness.adapters.readonly_sql`).

The executor runs ``plan.sql``: sqlglot's regeneration of the *qualified* tree, with every
identifier quoted and no comments. Executing the regenerated text rather than the model's text
is what makes the checks sound — MySQL receives exactly the statement that was analysed, with
no name left for it to resolve differently (an unqualified name that MySQL would bind to a
denied column of another table, an alias MySQL would read as a column, a comment MySQL would
execute).
"""

from __future__ import annotations

import logging
import re
from functools import lru_cache

from pydantic import BaseModel
from sqlglot import exp, parse
from sqlglot.errors import OptimizeError, SqlglotError
from sqlglot.optimizer.qualify import qualify

from harness.contracts.errors import SqlRejected
from harness.sql.constructs import check_constructs, check_raw_text, classify_unparsable
from harness.sql.joins import check_join_graph
from harness.sql.lineage import LineageAnalyzer, check_stars
from harness.sql.ordering import enforce_total_order
from harness.sql.plan import MysqlQueryPlan, PlanColumn
from harness.sql.policy import DatasourcePolicy, SqlPolicy
from harness.sql.reasons import RejectReason, reject
from harness.tools.arguments import QueryMysqlRequest

__all__ = ["SqlValidator"]

_DIALECT = "mysql"
_log = logging.getLogger(__name__)
_LITERALS = (exp.Literal, exp.HexString, exp.BitString, exp.National)
_MAX_DERIVED_NAME = 64
_CANONICAL_ALIAS = re.compile(r"^_t\d+$")


class SqlValidator:
    """Checks model-written SQL against a :class:`SqlPolicy` and builds executable plans.

    Args:
        policy: Datasources, allowlists, sensitive columns and limits.
    """

    def __init__(self, policy: SqlPolicy, *, cache_size: int = 1024) -> None:
        self._policy = policy
        # A plan is a pure function of (policy, datasource, sql) and validating costs tens of
        # milliseconds of sqlglot work; agents repeat the same queries across runs. Only
        # accepted plans are cached (an exception is never cached).
        self._cached = lru_cache(maxsize=cache_size)(self._validate)

    @property
    def policy(self) -> SqlPolicy:
        """The policy this validator enforces."""
        return self._policy

    def planner(self, request: BaseModel) -> MysqlQueryPlan:
        """``ToolSpec.planner`` adapter: a ``QueryMysqlRequest`` to its plan.

        Raises:
            SqlRejected: The statement breaks the policy.
            TypeError: The request is not a ``QueryMysqlRequest`` (a wiring bug).
        """
        if not isinstance(request, QueryMysqlRequest):
            raise TypeError(f"expected QueryMysqlRequest, got {type(request).__name__}")
        return self.validate(request.datasource, request.sql)

    def validate(self, datasource: str, sql: str) -> MysqlQueryPlan:
        """Validate one statement and return the plan the executor may run.

        Args:
            datasource: Logical datasource name, as in the policy.
            sql: The model's SQL text (MySQL dialect).

        Raises:
            SqlRejected: ``context["reason"]`` names the rule that refused the statement.
        """
        plan: MysqlQueryPlan = self._cached(datasource, sql)
        return plan

    def _validate(self, datasource: str, sql: str) -> MysqlQueryPlan:
        source_policy = self._policy.datasources.get(datasource)
        if source_policy is None:
            reject(RejectReason.UNKNOWN_DATASOURCE, datasource[:64])
        if len(sql) > self._policy.max_sql_chars:
            reject(RejectReason.SQL_TOO_LONG)
        check_raw_text(sql)
        root = _parse_single(sql)
        check_constructs(
            root,
            max_joins=self._policy.max_joins,
            max_depth=self._policy.max_subquery_depth,
        )
        _check_limit_literals(root, max_offset=self._policy.max_offset)
        try:
            return self._plan(datasource, source_policy, root)
        except SqlRejected:
            raise
        except Exception as error:
            # Fail closed: a tree that sqlglot cannot qualify or scope (or that trips an
            # internal error) cannot be proven safe, and the boundary expects a rejection.
            if not isinstance(error, (SqlglotError, RecursionError)):
                _log.warning("sql validator internal error: %s", type(error).__name__)
            reject(RejectReason.UNRESOLVED_LINEAGE, type(error).__name__)

    def _plan(
        self, datasource: str, source_policy: DatasourcePolicy, root: exp.Expr
    ) -> MysqlQueryPlan:
        _bare_positions(root)
        _lower_identifiers(root)
        _exists_star_to_one(root)
        check_stars(root, source_policy)
        _name_projections(root)
        try:
            root = qualify(
                root,
                dialect=_DIALECT,
                schema=_sqlglot_schema(source_policy),
                db=source_policy.default_schema,
                validate_qualify_columns=False,
                quote_identifiers=False,
            )
        except OptimizeError as error:
            # qualify knows only allowlisted columns, so "unknown" means "not allowlisted".
            if str(error).startswith("Unknown column"):
                reject(RejectReason.COLUMN_NOT_ALLOWED)
            raise
        _inline_nested_order_aliases(root)
        analyzer = LineageAnalyzer(source_policy)
        lineage = analyzer.analyze(root)
        check_join_graph(root)
        enforce_total_order(root, source_policy, analyzer, lineage.tables)
        limit = self._enforce_limit(root)
        sql = root.sql(dialect=_DIALECT, identify=True, comments=False)
        plan = MysqlQueryPlan(
            datasource=datasource,
            sql=sql,
            normalized_sql=_normalized(root),
            redacted_sql=_redacted(root),
            tables=sorted(lineage.tables),
            columns=[
                PlanColumn(
                    name=column.name,
                    sources=sorted(column.sources),
                    sensitive=analyzer.is_sensitive(column.sources),
                )
                for column in lineage.columns
            ],
            limit=limit,
            max_explain_rows=self._policy.max_explain_rows,
        )
        _check_round_trip(plan.sql)
        return plan

    def _enforce_limit(self, root: exp.Expr) -> int:
        """Add the default LIMIT or clamp the given one on the outermost query."""
        current = root.args.get("limit")
        if current is None:
            limit = self._policy.default_limit
        else:
            limit = min(_int_literal(current.expression), self._policy.max_limit)
        root.set("limit", exp.Limit(expression=exp.Literal.number(limit)))
        return limit


def _parse_single(sql: str) -> exp.Expr:
    try:
        statements = parse(sql, read=_DIALECT)
    except SqlRejected:
        raise
    except Exception as error:  # any parser failure means "not valid MySQL"
        reject(classify_unparsable(sql), type(error).__name__)
    if len(statements) != 1 or statements[0] is None:
        reject(RejectReason.NOT_SINGLE_STATEMENT)
    root = statements[0]
    # `(SELECT ...)` parses as a bare subquery; it is the same statement without parentheses.
    while isinstance(root, exp.Subquery) and set(_set_args(root)) <= {"this"}:
        root = root.this
    if not isinstance(root, (exp.Select, exp.SetOperation)):
        reject(RejectReason.NOT_SELECT, type(root).__name__)
    root.pop()
    return root


def _set_args(node: exp.Expr) -> list[str]:
    return [key for key, value in node.args.items() if value not in (None, [], False)]


def _int_literal(node: exp.Expr | None) -> int:
    if isinstance(node, exp.Literal) and node.is_int:
        return int(node.this)
    reject(RejectReason.LIMIT_NOT_LITERAL)


def _check_limit_literals(root: exp.Expr, *, max_offset: int) -> None:
    for node in root.find_all(exp.Limit, exp.Offset):
        value = _int_literal(node.expression)
        if isinstance(node, exp.Offset) and value > max_offset:
            reject(RejectReason.OFFSET_TOO_LARGE)


def _bare_positions(root: exp.Expr) -> None:
    """Write every ORDER BY / GROUP BY position as the bare integer the databases read it as.

    MySQL, MariaDB and SQLite drop the parentheses around ``ORDER BY (2)`` and SQLite the
    COLLATE of ``ORDER BY 2 COLLATE nocase``: both still sort by the second output. Left as
    written, the position would pass for a constant and escape every check of what the
    outputs may be ordered by; as a bare integer, qualify resolves it to the output it names.
    """
    for clause in root.find_all(exp.Order, exp.Group):
        for item in clause.expressions:
            target = item.this if isinstance(item, exp.Ordered) else item
            inner = target
            while isinstance(inner, (exp.Paren, exp.Collate)):
                inner = inner.this
            if inner is not target and isinstance(inner, exp.Literal) and inner.is_int:
                target.replace(inner.copy())


def _lower_identifiers(root: exp.Expr) -> None:
    # MySQL column names and aliases are case-insensitive; the policy is lower case. Table
    # names are matched lower case too and rewritten, so the executor reads the policy's table.
    for identifier in root.find_all(exp.Identifier):
        identifier.set("this", identifier.this.lower())


def _exists_star_to_one(root: exp.Expr) -> None:
    # `EXISTS (SELECT * ...)` reads no column value; `SELECT 1` says so explicitly.
    for exists in root.find_all(exp.Exists):
        query = exists.this
        if isinstance(query, exp.Subquery):
            query = query.this
        if isinstance(query, exp.Select) and any(
            isinstance(p, exp.Star) or (isinstance(p, exp.Column) and isinstance(p.this, exp.Star))
            for p in query.selects
        ):
            query.set("expressions", [exp.Literal.number(1)])


def _name_projections(root: exp.Expr) -> None:
    """Give every computed projection an explicit alias, so result labels are deterministic.

    The label is the expression's own text when it holds no literal (``count(*)``), else
    ``_col_<i>`` — a literal must not leak into a label that ``redacted_sql`` keeps.
    """
    for select in root.find_all(exp.Select):
        used = {p.alias_or_name.lower() for p in select.selects if isinstance(p, exp.Alias)}
        named: list[exp.Expr] = []
        for index, projection in enumerate(select.selects):
            if isinstance(projection, (exp.Alias, exp.Column, exp.Star)):
                named.append(projection)
                continue
            # Lower case like every other identifier, so validating a plan's own text is a no-op.
            text = projection.sql(dialect=_DIALECT, comments=False).lower()
            has_literal = any(isinstance(node, _LITERALS) for node in projection.walk())
            if has_literal or len(text) > _MAX_DERIVED_NAME or text in used or "`" in text:
                text = f"_col_{index}"
            used.add(text)
            named.append(exp.alias_(projection, exp.to_identifier(text, quoted=True)))
        select.set("expressions", named)


def _inline_nested_order_aliases(root: exp.Expr) -> None:
    """Replace a select alias used *inside* an ORDER BY expression by its expression.

    A bare alias (``ORDER BY total``) is unambiguous in MySQL, which prefers select aliases in
    ORDER BY; inside an expression the binding is less clear, so the alias is inlined.
    """
    for select in root.find_all(exp.Select):
        order = select.args.get("order")
        if order is None:
            continue
        aliases = {p.alias: p.this for p in select.selects if isinstance(p, exp.Alias)}
        for column in list(order.find_all(exp.Column)):
            if column.table or column.name not in aliases:
                continue
            if isinstance(column.parent, exp.Ordered):
                continue
            column.replace(aliases[column.name].copy())


def _sqlglot_schema(source_policy: DatasourcePolicy) -> dict[str, object]:
    return {
        schema_name: {
            table_name: {column: "UNKNOWN" for column in table.columns}
            for table_name, table in schema.tables.items()
        }
        for schema_name, schema in source_policy.schemas.items()
    }


def _normalized(root: exp.Expr) -> str:
    """Canonical text for duplicate-scope identity: table aliases renamed ``_t0``, ``_t1``….

    The renaming is one global injective map over alias names, which preserves meaning in
    every scope; it is skipped when the statement already uses a name of that form.
    """
    canonical = root.copy()
    aliases = [
        alias
        for alias in canonical.find_all(exp.TableAlias)
        if isinstance(alias.parent, (exp.Table, exp.Subquery))
    ]
    names = {alias.name for alias in aliases} | {
        table.name for table in canonical.find_all(exp.Table)
    }
    if not any(_CANONICAL_ALIAS.match(name) for name in names):
        mapping: dict[str, str] = {}
        for alias in aliases:
            mapping.setdefault(alias.name, f"_t{len(mapping)}")
            alias.set("this", exp.to_identifier(mapping[alias.name]))
        for column in canonical.find_all(exp.Column):
            if column.table in mapping:
                column.set("table", exp.to_identifier(mapping[column.table]))
    return canonical.sql(dialect=_DIALECT, identify=True, comments=False)


def _redacted(root: exp.Expr) -> str:
    """The executed statement with every value literal shown as ``?`` (limits are kept)."""
    copy = root.copy()
    for node in list(copy.find_all(*_LITERALS)):
        if node.find_ancestor(exp.Limit, exp.Offset, exp.DataType) is None:
            node.replace(exp.Placeholder())
    return copy.sql(dialect=_DIALECT, comments=False)


def _check_round_trip(sql: str) -> None:
    """Postcondition: the executed text parses back to one query and regenerates identically."""
    try:
        statements = parse(sql, read=_DIALECT)
    except Exception:  # a plan that does not re-parse must not run
        reject(RejectReason.SYNTAX_NOT_ALLOWED, "round trip")
    if (
        len(statements) != 1
        or not isinstance(statements[0], (exp.Select, exp.SetOperation))
        or statements[0].sql(dialect=_DIALECT, identify=True, comments=False) != sql
    ):
        reject(RejectReason.SYNTAX_NOT_ALLOWED, "round trip")
