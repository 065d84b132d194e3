"""The SQL access policy: which datasource, schema, table and column a query may read.

A policy is loaded from JSON (``SqlPolicy.load``) and is the only input besides the SQL text
that :class:`harness.sql.validator.SqlValidator` uses. Its shape::

    {"default_limit": 100, "max_limit": 500, "max_explain_rows": 1000000,
     "datasources": {"shop-primary": {"default_schema": "shop", "schemas": {
        "shop": {"tables": {"customers": {
            "columns": ["id", "name", "email"], "sensitive": ["email"], "key": ["id"],
            "star": false}}}}}}}

``columns`` is an allowlist: a column of the real table that is not listed is denied. A
``sensitive`` column must also be listed; it is readable only as a bare column of a select list
(never computed on, filtered, joined, grouped or sorted on) and its values are always masked by
the projector. Because the validator never sees the real table, a ``*`` can only be honoured
when the policy declares ``"star": true`` (the allowlist is the whole table) and the table has
no sensitive columns.

``key`` names non-sensitive columns whose values identify a row (the primary key, or a unique
non-sensitive key). It is what makes an order *total* without reading a hidden value: in a
statement that reads a table with sensitive columns, the validator completes every row-choosing
or order-dependent ORDER BY with the keys of the rows it sorts (:mod:`harness.sql.ordering`).
A key may never contain a sensitive column — ordering by one is exactly the leak the rule
closes — so a table whose primary key is sensitive declares no key (or a non-sensitive unique
column); its rows are then ordered by every non-sensitive column, which orders them up to rows
that look identical to the model.

A generated policy (``harness sql-policy init``) also carries a ``review`` record: where it was
reflected from and which sensitive columns were guessed (:mod:`harness.sql.review`).

``max_explain_rows`` bounds cost where the database can estimate it: on MySQL/MariaDB the
executor runs ``EXPLAIN`` before the statement and refuses a plan whose row estimate exceeds it.

Identifiers are normalised to lower case on load: MySQL column names are case-insensitive, and
the validator rewrites every reference to the policy's spelling, so the executed statement reads
exactly the tables the policy names.
"""

from __future__ import annotations

import re
from importlib.resources import files
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

from harness.sql.review import PolicyReview

__all__ = [
    "DEFAULT_MAX_EXPLAIN_ROWS",
    "FORBIDDEN_SCHEMAS",
    "DatasourcePolicy",
    "SchemaPolicy",
    "SqlPolicy",
    "TablePolicy",
]

FORBIDDEN_SCHEMAS = frozenset({"information_schema", "mysql", "performance_schema", "sys"})
"""MySQL's own catalogues: never readable, whatever a policy file says."""

DEFAULT_MAX_EXPLAIN_ROWS = 1_000_000
"""Default bound on the database's row estimate of one statement (see ``max_explain_rows``)."""

# Plain identifiers only: policy names end up in generated SQL and in sqlglot schemas.
_NAME = re.compile(r"^[a-z_][a-z0-9_$]{0,63}$")


def _name(value: str, what: str) -> str:
    lowered = value.strip().lower()
    if not _NAME.match(lowered):
        raise ValueError(f"{what} {value!r} is not a plain identifier")
    return lowered


class _Config(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TablePolicy(_Config):
    """What may be read from one table."""

    columns: list[str] = Field(min_length=1, description="Allowlisted (readable) columns.")
    sensitive: list[str] = Field(
        default_factory=list,
        description="Allowlisted columns whose values are always masked; never in predicates.",
    )
    star: bool = Field(
        default=False,
        description="True when `columns` is the whole table, so `*` may be expanded to it.",
    )
    key: list[str] | None = Field(
        default=None,
        min_length=1,
        description=(
            "Non-sensitive columns whose values identify a row (primary or unique key): the "
            "tie-breaker that makes an order total; None when the table has none to offer."
        ),
    )

    @field_validator("columns", "sensitive")
    @classmethod
    def _columns(cls, value: list[str]) -> list[str]:
        names = [_name(item, "column") for item in value]
        if len(set(names)) != len(names):
            raise ValueError("column names must be unique (case-insensitively)")
        return names

    @model_validator(mode="after")
    def _sensitive_listed(self) -> TablePolicy:
        missing = sorted(set(self.sensitive) - set(self.columns))
        if missing:
            raise ValueError(f"sensitive columns must also be listed in columns: {missing}")
        return self

    @field_validator("key")
    @classmethod
    def _key_names(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return None
        names = [_name(item, "key column") for item in value]
        if len(set(names)) != len(names):
            raise ValueError("key column names must be unique (case-insensitively)")
        return names

    @model_validator(mode="after")
    def _key_readable(self) -> TablePolicy:
        if self.key is None:
            return self
        unlisted = sorted(set(self.key) - set(self.columns))
        if unlisted:
            raise ValueError(f"key columns must be listed in columns: {unlisted}")
        hidden = sorted(set(self.key) & set(self.sensitive))
        if hidden:
            raise ValueError(f"a key may not contain a sensitive column: {hidden}")
        return self

    @model_serializer(mode="wrap")
    def _omit_undeclared_key(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # A table without a key dumps as it did before keys existed (and loads back the same).
        data: dict[str, Any] = handler(self)
        if self.key is None:
            data.pop("key", None)
        return data

    @property
    def visible(self) -> list[str]:
        """The allowlisted columns that are not sensitive, in policy order."""
        return [column for column in self.columns if column not in self.sensitive]

    @property
    def star_allowed(self) -> bool:
        """``*`` is honoured only over a fully declared table without sensitive columns."""
        return self.star and not self.sensitive


class SchemaPolicy(_Config):
    """The readable tables of one schema (MySQL database)."""

    tables: dict[str, TablePolicy] = Field(description="Table name to its column policy.")

    @field_validator("tables")
    @classmethod
    def _tables(cls, value: dict[str, TablePolicy]) -> dict[str, TablePolicy]:
        out = {_name(key, "table"): table for key, table in value.items()}
        if len(out) != len(value):
            raise ValueError("table names must be unique (case-insensitively)")
        return out


class DatasourcePolicy(_Config):
    """One logical datasource (a MySQL server the executor can reach)."""

    schemas: dict[str, SchemaPolicy] = Field(description="Schema name to its tables.")
    default_schema: str | None = Field(
        default=None, description="Schema that unqualified table names resolve against."
    )

    @field_validator("schemas")
    @classmethod
    def _schemas(cls, value: dict[str, SchemaPolicy]) -> dict[str, SchemaPolicy]:
        out = {_name(key, "schema"): schema for key, schema in value.items()}
        if len(out) != len(value):
            raise ValueError("schema names must be unique (case-insensitively)")
        forbidden = sorted(FORBIDDEN_SCHEMAS & set(out))
        if forbidden:
            raise ValueError(f"system schemas can never be allowlisted: {forbidden}")
        return out

    @field_validator("default_schema")
    @classmethod
    def _default_schema(cls, value: str | None) -> str | None:
        return None if value is None else _name(value, "schema")

    @model_validator(mode="after")
    def _default_known(self) -> DatasourcePolicy:
        if self.default_schema is not None and self.default_schema not in self.schemas:
            raise ValueError(f"default_schema {self.default_schema!r} is not a listed schema")
        return self

    def table(self, schema: str, table: str) -> TablePolicy | None:
        """The policy of ``schema.table`` (lower-case names), or None when not allowlisted."""
        found = self.schemas.get(schema)
        return None if found is None else found.tables.get(table)


class SqlPolicy(_Config):
    """The whole SQL policy: limits plus the datasource → schema → table → column allowlist."""

    default_limit: int = Field(default=100, ge=1, description="LIMIT added when none is given.")
    max_limit: int = Field(default=500, ge=1, description="Larger LIMITs are clamped to this.")
    max_sql_chars: int = Field(default=4000, ge=16, description="Longer SQL text is rejected.")
    max_offset: int = Field(
        default=10_000,
        ge=0,
        description=(
            "Largest OFFSET anywhere in a statement: the database reads and drops every row it "
            "skips, so paging deep costs as much as reading it."
        ),
    )
    max_joins: int = Field(default=8, ge=0, description="Most JOINs in one statement.")
    max_subquery_depth: int = Field(
        default=4, ge=0, description="Deepest nesting of SELECTs (CTEs and subqueries)."
    )
    max_explain_rows: int = Field(
        default=DEFAULT_MAX_EXPLAIN_ROWS,
        ge=1,
        description=(
            "Largest row estimate a statement may have on MySQL/MariaDB, where the executor runs "
            "EXPLAIN first (SQLite gives no estimate: the bound does not apply there)."
        ),
    )
    datasources: dict[str, DatasourcePolicy] = Field(
        description="Logical datasource name to its schemas."
    )
    review: PolicyReview | None = Field(
        default=None,
        description="Provenance of a generated policy and the sensitive columns it guessed.",
    )

    @model_validator(mode="after")
    def _limits(self) -> SqlPolicy:
        if self.default_limit > self.max_limit:
            raise ValueError("default_limit must not exceed max_limit")
        return self

    @model_validator(mode="after")
    def _guesses_name_listed_columns(self) -> SqlPolicy:
        for guess in self.review.sensitive_guesses if self.review else []:
            schema, _, table = guess.table.partition(".")
            source = self.datasources.get(guess.datasource)
            found = source.table(schema, table) if source else None
            if found is None or guess.column not in found.columns:
                raise ValueError(
                    f"review names a column the policy does not list: "
                    f"{guess.datasource}:{guess.table}.{guess.column}"
                )
        return self

    @classmethod
    def load(cls, path: str | Path) -> SqlPolicy:
        """Read and validate a policy JSON file."""
        return cls.model_validate_json(Path(path).read_text(encoding="utf-8"))

    @classmethod
    def demo(cls) -> SqlPolicy:
        """The policy bundled with the demo incident (``harness/embedded/demo/data/policy.json``)."""
        resource = files("harness.embedded.demo").joinpath("data", "policy.json")
        return cls.model_validate_json(resource.read_text(encoding="utf-8"))
