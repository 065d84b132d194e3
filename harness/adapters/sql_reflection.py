"""Reflect a user's database with SQLAlchemy's inspector: the input of ``sql-policy init``.

Names and types are read (``Inspector.get_table_names``, ``get_view_names``,
``get_columns``), and, when asked, a bounded sample of each text column's non-null values
(``sample`` rows, each cut to a few kilobytes) so that the drafter can judge content as well as
names; the values stay in memory for that judgement only. A column whose sample cannot be read
(no privilege, a type the driver cannot decode) is reported with the error's class, never
silently taken as clean. By default only the URL's own schema is reflected — on a shared
server the other databases are somebody else's — and more are named explicitly.
"""

from __future__ import annotations

import json
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


# Type names of columns that hold text (or text-like JSON); an empty name is SQLite's column
# without a declared type, which may hold anything.
_TEXT_TYPES = ("CHAR", "TEXT", "CLOB", "JSON", "STRING", "NAME", "XML", "ENUM")
# Each sampled value is cut to this many characters: enough for a PEM bundle's first block.
_SAMPLE_CHARS = 4096


def is_text_type(type_name: str) -> bool:
    """Whether a column of this type is sampled: text, JSON, or SQLite's untyped column."""
    upper = type_name.upper()
    return not upper or any(word in upper for word in _TEXT_TYPES)


def reflect_database(
    url: str, *, schemas: Sequence[str] = (), connect_timeout_s: int = 10, sample: int = 0
) -> ReflectedDatabase:
    """Reflect the tables and views of ``schemas`` (default: the URL's own schema).

    With ``sample`` > 0, up to that many non-null values of each text column are read too.

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
                    _sampled(
                        engine,
                        schema,
                        table,
                        ReflectedColumn(
                            name=str(c["name"]), type_name=_type_name(c["type"], engine)
                        ),
                        sample,
                    )
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


def _sampled(
    engine: sa.Engine, schema: str, table: str, column: ReflectedColumn, sample: int
) -> ReflectedColumn:
    """``column`` with up to ``sample`` of its non-null values, or the reason it has none."""
    if sample <= 0 or not is_text_type(column.type_name):
        return column
    field: sa.ColumnClause[object] = sa.column(column.name)
    query = (
        sa.select(field)
        .select_from(sa.table(table, schema=schema))
        .where(field.is_not(None))
        .limit(sample)
    )
    try:
        with engine.connect() as connection:
            rows = connection.execute(query).all()
    except sa.exc.SQLAlchemyError as exc:
        log.info("column sample failed: %s", type(exc).__name__)
        return ReflectedColumn(
            name=column.name, type_name=column.type_name, sample_error=type(exc).__name__
        )
    values = tuple(_text(row[0])[:_SAMPLE_CHARS] for row in rows)
    return ReflectedColumn(name=column.name, type_name=column.type_name, samples=values)


def _text(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).decode("utf-8", errors="replace")
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _type_name(type_: sa.types.TypeEngine[object], engine: sa.Engine) -> str:
    try:
        return str(type_.compile(dialect=engine.dialect))
    except sa.exc.CompileError:  # a type the dialect cannot render back
        return type(type_).__name__.upper()
