"""Reflect a user's database with SQLAlchemy's inspector: the input of ``sql-policy init``.

Only names and types are read (``Inspector.get_table_names``, ``get_view_names``,
``get_columns``), never a row. By default only the URL's own schema is reflected — on a shared
server the other databases are somebody else's — and more are named explicitly.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

import sqlalchemy as sa

from harness.adapters.sql_urls import datasource_name, open_url, shown_url
from harness.contracts.errors import BackendError, ErrorCode
from harness.sql.reflection import ReflectedColumn, ReflectedTable

__all__ = ["ReflectedDatabase", "reflect_database"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class ReflectedDatabase:
    """What the inspector found, and how to name it."""

    tables: list[ReflectedTable]
    default_schema: str | None
    datasource: str
    source: str
    case_sensitive: bool


def reflect_database(
    url: str, *, schemas: Sequence[str] = (), connect_timeout_s: int = 10
) -> ReflectedDatabase:
    """Reflect the tables and views of ``schemas`` (default: the URL's own schema).

    Raises:
        WorkspaceError: The URL is not usable or names a missing SQLite file.
        BackendError: BACKEND_ERROR when the database cannot be reached or read.
    """
    parsed = open_url(url)
    connect_args = (
        {"connect_timeout": connect_timeout_s} if parsed.get_backend_name() == "mysql" else {}
    )
    engine = sa.create_engine(parsed, connect_args=connect_args)
    try:
        inspector = sa.inspect(engine)
        default = inspector.default_schema_name
        names = list(schemas) or ([default] if default else [])
        tables: list[ReflectedTable] = []
        for schema in names:
            for table in sorted(
                {*inspector.get_table_names(schema), *inspector.get_view_names(schema)}
            ):
                columns = tuple(
                    ReflectedColumn(name=str(c["name"]), type_name=_type_name(c["type"], engine))
                    for c in inspector.get_columns(table, schema)
                )
                tables.append(ReflectedTable(schema=schema, name=table, columns=columns))
        # MySQL compares table names case-sensitively unless lower_case_table_names is set.
        case_sensitive = engine.dialect.name == "mysql" and not getattr(
            engine.dialect, "_casing", 0
        )
    except sa.exc.SQLAlchemyError as exc:
        log.warning("schema reflection failed: %s", type(exc).__name__)
        raise BackendError(
            ErrorCode.BACKEND_ERROR,
            "the database cannot be reflected",
            {"error": type(exc).__name__},
        ) from None
    finally:
        engine.dispose()
    return ReflectedDatabase(
        tables=tables,
        default_schema=default,
        datasource=datasource_name(parsed),
        source=shown_url(url),
        case_sensitive=case_sensitive,
    )


def _type_name(type_: sa.types.TypeEngine[object], engine: sa.Engine) -> str:
    try:
        return str(type_.compile(dialect=engine.dialect))
    except sa.exc.CompileError:  # a type the dialect cannot render back
        return type(type_).__name__.upper()
