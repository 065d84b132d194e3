"""The validated, executable form of a ``query_mysql`` request.

The read-only executor runs only :class:`MysqlQueryPlan` objects; only ``SqlValidator`` builds
them. The plan also carries each output column's lineage so that the projector can mask every
value read from a sensitive column, and the policy's row-estimate bound for the executor.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["MysqlQueryPlan", "PlanColumn"]


class PlanColumn(BaseModel):
    """One output column of the plan, with where its values come from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(description="Output column name as the result set labels it.")
    sources: list[str] = Field(
        default_factory=list, description="schema.table.column names the value derives from."
    )
    sensitive: bool = Field(description="True when any source is a sensitive column: mask it.")


class MysqlQueryPlan(BaseModel):
    """A single read-only SELECT that passed every policy check."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    datasource: str = Field(description="Logical datasource the plan runs against.")
    sql: str = Field(description="The statement to execute, MySQL dialect, LIMIT enforced.")
    normalized_sql: str = Field(
        description="Canonical text (literals kept, whitespace/case normalised) for scope identity."
    )
    redacted_sql: str = Field(description="The statement with literals replaced, safe to show.")
    tables: list[str] = Field(description="schema.table names the plan reads, sorted.")
    columns: list[PlanColumn] = Field(description="Output columns in result order.")
    limit: int = Field(description="The row limit the statement enforces.")
    max_explain_rows: int | None = Field(
        default=None,
        ge=1,
        description=(
            "Largest row estimate (MySQL/MariaDB EXPLAIN) the executor may run the plan with; "
            "None only for plans not built from a policy (no estimate is checked)."
        ),
    )
