"""SQL for ``query_mysql``: the allowlist policy, the validator and the plan it emits.

``policy`` is datasource → schema → table → column allowlists with sensitive columns;
``validator`` turns one model-written SELECT into a :class:`MysqlQueryPlan` or refuses it with
a :class:`RejectReason` (``constructs``, ``functions``, ``lineage`` and ``joins`` are its
rules); the read-only executor in ``harness.adapters`` runs only plans, on MariaDB/MySQL with
the result's text cells cut one character past the fetch's raw cap (``cells``).
"""

from harness.sql.cells import cap_text_columns, zero_row_statement
from harness.sql.plan import MysqlQueryPlan, PlanColumn
from harness.sql.policy import SqlPolicy
from harness.sql.reasons import EXPLANATIONS, RejectReason
from harness.sql.validator import SqlValidator

__all__ = [
    "EXPLANATIONS",
    "MysqlQueryPlan",
    "PlanColumn",
    "RejectReason",
    "SqlPolicy",
    "SqlValidator",
    "cap_text_columns",
    "zero_row_statement",
]
