"""Install the bundled demo database into MariaDB/MySQL or into SQLite.

The same ``shop.sql`` script (MySQL dialect) feeds both targets. For MariaDB it runs as
written after ``CREATE DATABASE shop`` / ``ops``; for the embedded default every statement is
transpiled by sqlglot (``read="mysql", write="sqlite"``) and run on a SQLite connection that has
``shop`` and ``ops`` attached, so that plans naming ``shop.orders`` run unchanged on both.

Both installs are idempotent: a target that already holds the script with the same SHA-256 is
left alone; anything else is dropped and rebuilt.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sqlite3
import uuid
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path

import sqlalchemy as sa
import sqlglot
from sqlglot.errors import ErrorLevel

from harness.embedded.demo.database import DEMO_SCHEMAS, shop_sql_sha256, shop_sql_statements

__all__ = [
    "DEFAULT_MARIADB_URL",
    "install_mariadb",
    "mariadb_engine",
    "sqlite_demo_engine",
    "transpile_to_sqlite",
]

logger = logging.getLogger(__name__)

DEFAULT_MARIADB_URL = "mysql+pymysql://root@127.0.0.1:3306/"

# The install marker lives in a table comment so that the schemas keep exactly the demo tables.
_MARKER_TABLE = "services"
_MARKER_SCHEMA = "ops"
_MARKER_PREFIX = "harness-demo sha256="
_INDEX_ON_QUALIFIED_TABLE = re.compile(r"^CREATE (UNIQUE )?INDEX (\w+) ON (\w+)\.(\w+)")


def transpile_to_sqlite(statement: str) -> str:
    """Transpile one MySQL statement to SQLite; table options SQLite lacks are dropped."""
    return _transpile_to_sqlite(statement)


@lru_cache(maxsize=4096)
def _transpile_to_sqlite(statement: str) -> str:
    # ENGINE=/CHARSET= have no SQLite meaning; dropping them silently is the intent.
    out = sqlglot.transpile(
        statement, read="mysql", write="sqlite", unsupported_level=ErrorLevel.IGNORE
    )
    if len(out) != 1:
        raise ValueError("expected exactly one statement")
    # SQLite qualifies the index, not the table: CREATE INDEX shop.ix ON orders(...).
    return _INDEX_ON_QUALIFIED_TABLE.sub(r"CREATE \1INDEX \3.\2 ON \4", out[0])


@lru_cache(maxsize=4)
def _sqlite_script(cache_dir: Path | None) -> tuple[str, ...]:
    # Transpiling the seed takes seconds; every process (CLI, RunActor, Ray worker) needs it, so
    # the result is cached on disk, in the data directory's cache, by the script's hash and
    # written atomically (race-safe).
    if cache_dir is None:
        return tuple(transpile_to_sqlite(s) for s in shop_sql_statements())
    cache = cache_dir / f"shop-sqlite-{shop_sql_sha256()[:16]}.json"
    try:
        return tuple(json.loads(cache.read_text()))
    except (OSError, ValueError):
        pass
    script = tuple(transpile_to_sqlite(s) for s in shop_sql_statements())
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_suffix(f".{uuid.uuid4().hex}.tmp")
        tmp.write_text(json.dumps(script))
        os.replace(tmp, cache)
    except OSError:
        logger.info("could not cache the transpiled demo script at %s", cache.parent)
    return script


# ---------------------------------------------------------------- SQLite


def sqlite_demo_engine(
    directory: Path | str | None = None, *, cache_dir: Path | None = None
) -> sa.Engine:
    """An engine over the demo database on SQLite, installed and ready.

    Args:
        directory: Where ``shop.sqlite`` and ``ops.sqlite`` live. They are (re)built when
            missing or stale. ``None`` builds a private in-memory database instead, shared by
            all connections of the returned engine and alive as long as the engine.
        cache_dir: Where the transpiled seed script is cached across processes (the data
            directory's ``cache``); None: transpiled once per process.

    Returns:
        An engine whose connections have ``shop`` and ``ops`` attached.
    """
    if directory is None:
        return _memory_engine(cache_dir)
    root = Path(directory)
    root.mkdir(parents=True, exist_ok=True)
    files = {schema: root / f"{schema}.sqlite" for schema in DEMO_SCHEMAS}
    stamp = _sqlite_stamp()

    def connect() -> sqlite3.Connection:
        conn = sqlite3.connect(":memory:", check_same_thread=False)
        for schema, path in files.items():
            conn.execute("ATTACH DATABASE ? AS " + _quote_ident(schema), (str(path),))
        return conn

    probe = connect()
    try:
        current = all(path.exists() for path in files.values()) and all(
            probe.execute(f"PRAGMA {_quote_ident(s)}.user_version").fetchone()[0] == stamp
            for s in DEMO_SCHEMAS
        )
    finally:
        probe.close()
    if not current:
        for path in files.values():
            path.unlink(missing_ok=True)
        conn = connect()
        try:
            _load_sqlite(conn, cache_dir)
        finally:
            conn.close()
    return _sqlite_engine(connect)


def _memory_engine(cache_dir: Path | None) -> sa.Engine:
    # Named shared-cache memory databases let every pooled connection see the same data; the
    # keeper connection, captured by the creator closure, keeps them alive with the engine.
    tag = uuid.uuid4().hex

    def connect() -> sqlite3.Connection:
        conn = sqlite3.connect(
            f"file:harness-demo-{tag}-main?mode=memory&cache=shared",
            uri=True,
            check_same_thread=False,
        )
        for schema in DEMO_SCHEMAS:
            uri = f"file:harness-demo-{tag}-{schema}?mode=memory&cache=shared"
            conn.execute("ATTACH DATABASE ? AS " + _quote_ident(schema), (uri,))
        return conn

    keeper = connect()
    _load_sqlite(keeper, cache_dir)

    def creator() -> sqlite3.Connection:
        assert keeper is not None  # referenced so the memory databases outlive every pool reset
        return connect()

    return _sqlite_engine(creator)


def _sqlite_engine(creator: Callable[[], sqlite3.Connection]) -> sa.Engine:
    # A bare "sqlite://" URL would get SingletonThreadPool, which closes connections that other
    # threads may still use; backends run in worker threads, so pool them like any database.
    return sa.create_engine("sqlite://", creator=creator, poolclass=sa.pool.QueuePool)


def _load_sqlite(conn: sqlite3.Connection, cache_dir: Path | None) -> None:
    with conn:
        for statement in _sqlite_script(cache_dir):
            conn.execute(statement)
        for schema in DEMO_SCHEMAS:
            conn.execute(f"PRAGMA {_quote_ident(schema)}.user_version = {_sqlite_stamp()}")


def _sqlite_stamp() -> int:
    # user_version is a signed 32-bit integer: 31 bits of the script hash identify the content.
    return int(shop_sql_sha256()[:8], 16) & 0x7FFFFFFF


# ---------------------------------------------------------------- MariaDB / MySQL


def mariadb_engine(url: str = DEFAULT_MARIADB_URL, *, connect_timeout_s: int = 5) -> sa.Engine:
    """A plain (read-write) engine for installing the demo; not for running plans."""
    return sa.create_engine(
        url, pool_pre_ping=True, connect_args={"connect_timeout": connect_timeout_s}
    )


def install_mariadb(engine: sa.Engine, *, force: bool = False) -> bool:
    """Create the ``shop`` and ``ops`` databases on a MySQL-family server and load the script.

    Args:
        engine: A read-write engine with rights to create and drop the two databases.
        force: Rebuild even when the installed content hash matches.

    Returns:
        True when the script was (re)loaded, False when the current content was already there.
    """
    expected = _MARKER_PREFIX + shop_sql_sha256()
    if not force and _installed_marker(engine) == expected:
        return False
    with engine.begin() as conn:
        for schema in DEMO_SCHEMAS:
            conn.exec_driver_sql(f"DROP DATABASE IF EXISTS {_quote_mysql(schema)}")
            conn.exec_driver_sql(
                f"CREATE DATABASE {_quote_mysql(schema)} "
                "CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"
            )
    with engine.begin() as conn:
        _run_all(conn, shop_sql_statements())
        # Written last: a half-finished load never looks current to the next caller.
        conn.exec_driver_sql(
            f"ALTER TABLE {_quote_mysql(_MARKER_SCHEMA)}.{_quote_mysql(_MARKER_TABLE)} "
            f"COMMENT = '{expected}'"
        )
    logger.info("demo database installed", extra={"sha256": shop_sql_sha256()[:12]})
    return True


def _installed_marker(engine: sa.Engine) -> str | None:
    with engine.connect() as conn:
        row = conn.execute(
            sa.text(
                "SELECT table_comment FROM information_schema.tables "
                "WHERE table_schema = :schema AND table_name = :table"
            ),
            {"schema": _MARKER_SCHEMA, "table": _MARKER_TABLE},
        ).first()
    return None if row is None else str(row[0])


def _run_all(conn: sa.Connection, statements: Iterable[str]) -> None:
    for statement in statements:
        # exec_driver_sql passes text through untouched (no bind-parameter parsing of ':').
        conn.exec_driver_sql(statement.replace("%", "%%"))


def _quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _quote_mysql(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"
