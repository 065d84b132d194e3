"""Syntactic checks on a parsed statement: what may appear at all, before names are resolved.

The check is an allowlist of sqlglot node classes. Known-dangerous constructs are recognised
first so that the refusal names the precise rule (INTO, locking reads, variables, hints,
functions); anything else outside the allowlist is SYNTAX_NOT_ALLOWED. Checking the parsed
tree is sound because the executor runs the text sqlglot regenerates from this tree, so a
construct sqlglot did not see cannot reach the database.
"""

from __future__ import annotations

import re

from sqlglot import exp

from harness.sql.functions import function_name, is_allowed_function, words
from harness.sql.reasons import RejectReason, reject

__all__ = ["check_constructs", "check_raw_text", "classify_unparsable", "subquery_depth"]

# MySQL executes the body of `/*! ... */` and reads optimizer hints from `/*+ ... */`; sqlglot
# treats both as plain comments, so they are refused on the raw text before parsing.
_EXECUTABLE_COMMENT = re.compile(r"/\*\s*[!+]")

# Used only to name the refusal of text sqlglot cannot parse (the refusal itself is certain).
_LEADING_WORD = re.compile(r"^[\s(]*([A-Za-z_]+)")
_INTO_FILE = re.compile(r"\bINTO\s+(OUTFILE|DUMPFILE)\b", re.IGNORECASE)
_STACKED = re.compile(r";\s*[A-Za-z(]")

_ALLOWED_NODES: frozenset[type[exp.Expr]] = frozenset(
    cls
    for name in words(
        "Select Union Intersect Except Subquery From Join Where Group Having Order Ordered "
        "Limit Offset With CTE TableAlias Table Column Identifier Alias Star Literal Boolean "
        "Null HexString BitString National Introducer Paren Tuple Neg Not And Or Xor EQ NEQ "
        "GT GTE LT LTE NullSafeEQ Is In Between Like Escape Add Sub Mul Div IntDiv Mod "
        "BitwiseAnd BitwiseOr BitwiseXor BitwiseNot BitwiseLeftShift BitwiseRightShift "
        "Distinct Window WindowSpec Interval Var DataType DataTypeParam Any All CharacterSet "
        "Rollup JSONPath JSONPathRoot JSONPathKey JSONPathSubscript JSONPathWildcard"
    )
    if isinstance(cls := getattr(exp, name, None), type)
)

# Statement kinds that must never appear, even nested (sqlglot falls back to Command for
# statements it cannot parse, e.g. CALL or REPLACE).
_STATEMENTS: tuple[type[exp.Expr], ...] = tuple(
    cls
    for name in words("DML DDL Command Set Show Use Describe Transaction Commit Rollback Values")
    if isinstance(cls := getattr(exp, name, None), type)
)

# Order matters: when a statement breaks several rules, the first listed names the refusal.
_PRIORITY = (
    RejectReason.NOT_SELECT,
    RejectReason.INTO_CLAUSE,
    RejectReason.LOCKING_CLAUSE,
    RejectReason.COMMENT_HINT,
    RejectReason.SYSTEM_VARIABLE,
    RejectReason.USER_VARIABLE,
    RejectReason.FUNCTION_NOT_ALLOWED,
    RejectReason.SYNTAX_NOT_ALLOWED,
)


def check_raw_text(sql: str) -> None:
    """Refuse executable comments and optimizer hints anywhere in the text."""
    if _EXECUTABLE_COMMENT.search(sql):
        reject(RejectReason.COMMENT_HINT)


def classify_unparsable(sql: str) -> RejectReason:
    """The most telling reason for text that does not parse as one MySQL statement."""
    leading = _LEADING_WORD.match(sql)
    if leading and leading.group(1).upper() not in ("SELECT", "WITH", "TABLE"):
        return RejectReason.NOT_SELECT
    if _INTO_FILE.search(sql):
        return RejectReason.INTO_CLAUSE
    if _STACKED.search(sql):
        return RejectReason.NOT_SINGLE_STATEMENT
    return RejectReason.PARSE_ERROR


def _violation(node: exp.Expr) -> tuple[RejectReason, str] | None:
    kind = type(node).__name__
    if isinstance(node, _STATEMENTS):
        return RejectReason.NOT_SELECT, kind
    if isinstance(node, exp.Into):
        return RejectReason.INTO_CLAUSE, "INTO"
    if isinstance(node, exp.Lock):
        return RejectReason.LOCKING_CLAUSE, "FOR UPDATE/SHARE"
    if isinstance(node, exp.Hint):
        return RejectReason.COMMENT_HINT, "hint"
    if isinstance(node, exp.SessionParameter):
        return RejectReason.SYSTEM_VARIABLE, "@@"
    if isinstance(node, exp.Parameter):
        return RejectReason.USER_VARIABLE, "@"
    if type(node) in _ALLOWED_NODES:
        # Some operators (AND, OR, COLLATE) are Func subclasses in sqlglot; they are syntax.
        return _shape_violation(node)
    if isinstance(node, exp.Func):
        if is_allowed_function(node):
            return None
        return RejectReason.FUNCTION_NOT_ALLOWED, function_name(node)
    return RejectReason.SYNTAX_NOT_ALLOWED, kind


def _shape_violation(node: exp.Expr) -> tuple[RejectReason, str] | None:
    if isinstance(node, exp.Join) and str(node.args.get("method") or "").upper() == "NATURAL":
        # NATURAL joins on every same-named column, denied ones included.
        return RejectReason.SYNTAX_NOT_ALLOWED, "NATURAL JOIN"
    if isinstance(node, exp.With) and node.args.get("recursive"):
        return RejectReason.SYNTAX_NOT_ALLOWED, "WITH RECURSIVE"
    if isinstance(node, exp.Select) and node.args.get("operation_modifiers"):
        return RejectReason.SYNTAX_NOT_ALLOWED, "SELECT modifier"
    return None


def check_constructs(root: exp.Expr, *, max_joins: int, max_depth: int) -> None:
    """Refuse any construct outside the allowlist, then the size limits.

    Args:
        root: The parsed statement (a SELECT or set operation).
        max_joins: Most JOIN clauses (comma joins included).
        max_depth: Deepest SELECT nesting (CTE bodies and subqueries count one level each).
    """
    found: dict[RejectReason, str] = {}
    for node in root.walk():
        violation = _violation(node)
        if violation is not None:
            found.setdefault(*violation)
    for reason in _PRIORITY:
        if reason in found:
            reject(reason, found[reason])
    if sum(1 for _ in root.find_all(exp.Join)) > max_joins:
        reject(RejectReason.TOO_MANY_JOINS)
    if subquery_depth(root) > max_depth:
        reject(RejectReason.SUBQUERY_TOO_DEEP)


def subquery_depth(root: exp.Expr) -> int:
    """How many SELECTs enclose the most deeply nested SELECT (set branches do not count)."""
    deepest = 0
    for select in root.find_all(exp.Select):
        depth = 0
        parent = select.parent
        while parent is not None:
            if isinstance(parent, exp.Select):
                depth += 1
            parent = parent.parent
        deepest = max(deepest, depth)
    return deepest
