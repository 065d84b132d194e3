"""What the model is told about the readable schema: the policy's allowlist as plain text.

A model can only write a query the validator accepts when it knows which tables and columns
it may read. The ``query_mysql`` tool definition therefore carries the allowlist, one table a
line, sensitive columns marked — text a language model reads, in a form regular enough that
the offline demo model reads it as well (:func:`parse_catalog`)::

    Readable tables of datasource shop-primary (default schema shop); a column marked * is
    masked and may only be selected, never filtered, joined, grouped or sorted on:
    - ops.config_changes: id, service, config_key, old_value, new_value, changed_by, changed_at
    - shop.customers: id, name, email*, password_hash*, created_at, region

Tables are listed in name order; a policy with very many tables is cut at ``max_tables`` and
says how many were left out (the validator still decides what may be read).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from harness.sql.policy import SqlPolicy

__all__ = ["CatalogTable", "describe_tables", "parse_catalog"]

_HEADER = re.compile(r"^Readable tables of datasource (?P<datasource>[A-Za-z0-9_.-]+)\b")
_TABLE = re.compile(
    r"^- (?P<schema>[a-z_][a-z0-9_$]*)\.(?P<table>[a-z_][a-z0-9_$]*): (?P<cols>.+)$"
)
_MASKED = "*"


@dataclass(frozen=True, kw_only=True)
class CatalogTable:
    """One readable table as the catalog text names it."""

    datasource: str
    schema: str
    table: str
    columns: tuple[str, ...]
    sensitive: frozenset[str]

    @property
    def qualified(self) -> str:
        return f"{self.schema}.{self.table}"


def describe_tables(policy: SqlPolicy, *, max_tables: int = 80) -> str:
    """The allowlist of ``policy`` as the catalog text (empty when it allows nothing)."""
    blocks: list[str] = []
    for name, datasource in sorted(policy.datasources.items()):
        tables = sorted(
            (schema_name, table_name, table)
            for schema_name, schema in datasource.schemas.items()
            for table_name, table in schema.tables.items()
        )
        if not tables:
            continue
        default = (
            f" (default schema {datasource.default_schema})" if datasource.default_schema else ""
        )
        lines = [
            f"Readable tables of datasource {name}{default}; a column marked {_MASKED} is masked "
            "and may only be selected, never filtered, joined, grouped or sorted on:"
        ]
        for schema_name, table_name, table in tables[:max_tables]:
            sensitive = set(table.sensitive)
            columns = ", ".join(c + (_MASKED if c in sensitive else "") for c in table.columns)
            lines.append(f"- {schema_name}.{table_name}: {columns}")
        if len(tables) > max_tables:
            lines.append(f"(and {len(tables) - max_tables} more tables not listed)")
        blocks.append("\n".join(lines))
    return "\n".join(blocks)


def parse_catalog(text: str) -> list[CatalogTable]:
    """The tables a catalog text names, in the order it names them."""
    found: list[CatalogTable] = []
    datasource: str | None = None
    for line in text.splitlines():
        header = _HEADER.match(line.strip())
        if header:
            datasource = header["datasource"]
            continue
        table = _TABLE.match(line.strip())
        if table is None or datasource is None:
            continue
        names = [c.strip() for c in table["cols"].split(",") if c.strip()]
        found.append(
            CatalogTable(
                datasource=datasource,
                schema=table["schema"],
                table=table["table"],
                columns=tuple(c.rstrip(_MASKED) for c in names),
                sensitive=frozenset(c.rstrip(_MASKED) for c in names if c.endswith(_MASKED)),
            )
        )
    return found
