"""Stable reasons for refusing a SQL statement, and the one way to raise them.

Every refusal is a :class:`harness.contracts.errors.SqlRejected` whose ``context["reason"]`` is a
:class:`RejectReason` value. Callers (the boundary, the CLI, tests) branch on the reason; the
optional ``detail`` names the offending identifier or keyword and never carries a literal value.
All reasons but one come from the validator, before anything runs; ROW_ESTIMATE_TOO_LARGE comes
from the read-only executor on MySQL/MariaDB, which compares the database's EXPLAIN estimate
with the plan's bound before executing the statement.
"""

from __future__ import annotations

from enum import Enum
from typing import NoReturn

from harness.contracts.errors import SqlRejected

__all__ = ["EXPLANATIONS", "RejectReason", "reject"]


class RejectReason(str, Enum):
    """Why the validator refused a statement; released values never change."""

    SQL_TOO_LONG = "SQL_TOO_LONG"
    PARSE_ERROR = "PARSE_ERROR"
    NOT_SINGLE_STATEMENT = "NOT_SINGLE_STATEMENT"
    NOT_SELECT = "NOT_SELECT"
    COMMENT_HINT = "COMMENT_HINT"
    INTO_CLAUSE = "INTO_CLAUSE"
    LOCKING_CLAUSE = "LOCKING_CLAUSE"
    USER_VARIABLE = "USER_VARIABLE"
    SYSTEM_VARIABLE = "SYSTEM_VARIABLE"
    FUNCTION_NOT_ALLOWED = "FUNCTION_NOT_ALLOWED"
    SYNTAX_NOT_ALLOWED = "SYNTAX_NOT_ALLOWED"
    TOO_MANY_JOINS = "TOO_MANY_JOINS"
    SUBQUERY_TOO_DEEP = "SUBQUERY_TOO_DEEP"
    LIMIT_NOT_LITERAL = "LIMIT_NOT_LITERAL"
    OFFSET_TOO_LARGE = "OFFSET_TOO_LARGE"
    UNKNOWN_DATASOURCE = "UNKNOWN_DATASOURCE"
    SCHEMA_NOT_ALLOWED = "SCHEMA_NOT_ALLOWED"
    TABLE_NOT_ALLOWED = "TABLE_NOT_ALLOWED"
    COLUMN_NOT_ALLOWED = "COLUMN_NOT_ALLOWED"
    STAR_OVER_DENIED_COLUMNS = "STAR_OVER_DENIED_COLUMNS"
    SENSITIVE_COLUMN_IN_PREDICATE = "SENSITIVE_COLUMN_IN_PREDICATE"
    UNRESOLVED_LINEAGE = "UNRESOLVED_LINEAGE"
    SENSITIVE_COLUMN_IN_EXPRESSION = "SENSITIVE_COLUMN_IN_EXPRESSION"
    CROSS_PRODUCT = "CROSS_PRODUCT"
    ROW_ESTIMATE_TOO_LARGE = "ROW_ESTIMATE_TOO_LARGE"
    ORDER_DEPENDS_ON_HIDDEN_VALUES = "ORDER_DEPENDS_ON_HIDDEN_VALUES"


EXPLANATIONS: dict[RejectReason, str] = {
    RejectReason.SQL_TOO_LONG: "The statement is longer than the policy allows.",
    RejectReason.PARSE_ERROR: "The statement is not valid MySQL.",
    RejectReason.NOT_SINGLE_STATEMENT: "Exactly one statement is allowed.",
    RejectReason.NOT_SELECT: "Only a read-only SELECT (or UNION of SELECTs) is allowed.",
    RejectReason.COMMENT_HINT: "Executable comments and optimizer hints are not allowed.",
    RejectReason.INTO_CLAUSE: "SELECT ... INTO (files or variables) is not allowed.",
    RejectReason.LOCKING_CLAUSE: "Locking reads (FOR UPDATE, FOR SHARE) are not allowed.",
    RejectReason.USER_VARIABLE: "User variables (@name) are not allowed.",
    RejectReason.SYSTEM_VARIABLE: "System variables (@@name) are not allowed.",
    RejectReason.FUNCTION_NOT_ALLOWED: "The statement calls a function outside the allowlist.",
    RejectReason.SYNTAX_NOT_ALLOWED: "The statement uses a construct outside the allowlist.",
    RejectReason.TOO_MANY_JOINS: "The statement joins more tables than the policy allows.",
    RejectReason.SUBQUERY_TOO_DEEP: "Subqueries are nested deeper than the policy allows.",
    RejectReason.LIMIT_NOT_LITERAL: "LIMIT and OFFSET must be non-negative integer literals.",
    RejectReason.OFFSET_TOO_LARGE: (
        "OFFSET skips more rows than the policy allows; narrow the rows with WHERE instead."
    ),
    RejectReason.UNKNOWN_DATASOURCE: "The datasource is not configured.",
    RejectReason.SCHEMA_NOT_ALLOWED: "The schema is not allowlisted for this datasource.",
    RejectReason.TABLE_NOT_ALLOWED: "The table is not allowlisted (qualify it with its schema).",
    RejectReason.COLUMN_NOT_ALLOWED: "A referenced column is not allowlisted.",
    RejectReason.STAR_OVER_DENIED_COLUMNS: "`*` is not allowed over this table; name columns.",
    RejectReason.SENSITIVE_COLUMN_IN_PREDICATE: (
        "Sensitive columns may only be selected, never filtered, joined, grouped or sorted on."
    ),
    RejectReason.UNRESOLVED_LINEAGE: (
        "A column reference is ambiguous or cannot be traced to an allowlisted column; "
        "qualify it with its table alias."
    ),
    RejectReason.SENSITIVE_COLUMN_IN_EXPRESSION: (
        "A sensitive column may only be selected as a bare column (optionally aliased), never "
        "computed on: no function, operator, CASE, CAST, aggregate or subquery over it."
    ),
    RejectReason.CROSS_PRODUCT: (
        "Every joined table must be linked to the others by a join condition (ON, USING or a "
        "comparison in WHERE); a cross product is not allowed."
    ),
    RejectReason.ROW_ESTIMATE_TOO_LARGE: (
        "The database estimates that the statement reads more rows than the policy allows."
    ),
    RejectReason.ORDER_DEPENDS_ON_HIDDEN_VALUES: (
        "Over a table with sensitive columns, a value may not depend on the order in which the "
        "database reads rows: no ANY_VALUE, RAND, JSON_ARRAYAGG/JSON_OBJECTAGG or ROLLUP, no "
        "column outside GROUP BY and aggregates in a grouped select, SUM/AVG/STDDEV/VARIANCE "
        "only over a plain column, and no order-dependent window function over a named window."
    ),
}


def reject(reason: RejectReason, detail: str | None = None) -> NoReturn:
    """Raise the stable refusal for ``reason``.

    Args:
        reason: The rule that refused the statement.
        detail: An identifier or keyword naming the offender; never a literal value.
    """
    context: dict[str, str] = {"reason": reason.value}
    if detail:
        context["detail"] = detail[:128]
    raise SqlRejected(message=EXPLANATIONS[reason], context=context)
