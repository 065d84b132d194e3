"""The read-only SQL executor: runs validated ``MysqlQueryPlan`` objects and nothing else.

Defence in depth around the validator. Each plan runs

* on MariaDB/MySQL: in a session marked ``TRANSACTION READ ONLY`` (so that even a statement
  that implicitly commits cannot write afterwards), inside ``START TRANSACTION READ ONLY``,
  under a server-side statement timeout (the ``max_statement_time`` session variable on
  MariaDB, ``max_execution_time`` on MySQL), always rolled back;
* on SQLite (the embedded default): transpiled from MySQL by sqlglot, on a connection with
  ``PRAGMA query_only=ON``, under a ``sqlite3`` progress-handler deadline, always rolled back.

Engines handed in are assumed dedicated to this executor: the read-only session flag stays on
their pooled connections. In production the datasource user should also hold only SELECT.

Cost bound. On MariaDB/MySQL a plan that carries ``max_explain_rows`` (every plan the validator
builds does, from the policy) is first run as ``EXPLAIN`` in the same read-only transaction and
under the same statement timeout; when the database's row estimate exceeds the bound the
statement is not executed and the executor raises :class:`harness.contracts.errors.SqlRejected`
(SQL_REJECTED, ``context["reason"] == "ROW_ESTIMATE_TOO_LARGE"``) — a policy refusal, not a
backend failure, so it keeps the code the model already knows for refused SQL. See
:func:`explain_row_estimate` for the arithmetic. SQLite has no row estimate (``EXPLAIN QUERY
PLAN`` names a strategy, not a size), so the bound does not apply there; the statement timeout
(the progress handler) still does, and the validator refuses cross products on both.

Bounded memory. A fetch may fill ``max_raw_bytes``; rows are read one at a time (a server-side
cursor on MariaDB/MySQL, so the driver never buffers the result) and each row's JSON is
counted as it arrives — the count is the raw's JSON, byte for byte — so the fetch stops with
RAW_TOO_LARGE at the first row that passes the cap. A single cell cannot be counted before it
has arrived whole, so each database is kept from handing over a cell larger than the cap:

* on MariaDB/MySQL the statement that runs is the plan's with every text column of the result
  cut one character past the cap, ``LEFT(expr, max_raw_bytes + 1)``, the text columns being
  those the server types as neither numbers nor dates (the plan run with ``LIMIT 0`` gives
  the types, no row is read; see :mod:`harness.sql.cells`). An oversized cell still fails the
  call; it only never arrives larger than that. A row holds at most ``max_raw_bytes + 1``
  characters per text column;
* on SQLite, which types values rather than columns, the connection's own per-value limit
  (``SQLITE_LIMIT_LENGTH``) is set to ``max_raw_bytes + 1`` bytes for the statement: SQLite
  refuses to read or make any string or blob longer than that (SQLITE_TOOBIG, mapped to
  RAW_TOO_LARGE), so an oversized value is refused before it is loaded, in SQLite's memory
  as well as in Python's. A statement that builds a longer value on its way (a long
  GROUP_CONCAT inside a LENGTH) is refused the same way: it would need more than the cap.

Failures surface as ``BackendError`` with BACKEND_ERROR or BACKEND_TIMEOUT; the database's own
message is logged locally after redaction and never reaches the model.
"""

from __future__ import annotations

import logging
import math
import re
import sqlite3
import time
import uuid
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import sqlalchemy as sa
import sqlglot
from pydantic_core import to_json
from sqlglot import exp
from sqlglot.errors import ErrorLevel

from harness.adapters._sql_explain import explain_row_estimate
from harness.adapters._sql_values import json_safe_value
from harness.contracts.errors import BackendError, ErrorCode, RawTooLarge, SqlRejected
from harness.contracts.rawcap import RawCap
from harness.sql.cells import cap_text_columns, zero_row_statement
from harness.sql.plan import MysqlQueryPlan
from harness.sql.reasons import EXPLANATIONS, RejectReason

__all__ = ["RAW_FORMAT", "ReadOnlySqlBackend", "explain_row_estimate", "json_safe_value"]

logger = logging.getLogger(__name__)

RAW_FORMAT = "sql/v1"

# Server error numbers that mean "the statement ran out of time" rather than "it failed".
_TIMEOUT_ERRNOS = frozenset({1969, 3024, 1317, 1028})
_QUOTED = re.compile(r"'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.|\"\")*\"")
# How many SQLite VM instructions run between deadline checks; small enough to react within
# milliseconds, large enough to cost nothing measurable.
_SQLITE_PROGRESS_STEPS = 2_000
# The smallest per-value length limit set on SQLite (bytes): room for any schema statement.
_SQLITE_MIN_LENGTH = 64 * 1024
# MySQL protocol column types whose values are bounded by the type itself: numbers, dates and
# times, YEAR, BIT and NULL. Every other type (strings, blobs, JSON, ENUM/SET, geometry and
# any type this table does not know) is capped as text.
_BOUNDED_FIELD_TYPES = frozenset(
    {
        0,  # DECIMAL
        1,  # TINY
        2,  # SHORT
        3,  # LONG
        4,  # FLOAT
        5,  # DOUBLE
        6,  # NULL
        7,  # TIMESTAMP
        8,  # LONGLONG
        9,  # INT24
        10,  # DATE
        11,  # TIME
        12,  # DATETIME
        13,  # YEAR
        14,  # NEWDATE
        16,  # BIT
        246,  # NEWDECIMAL
    }
)
# The raw's JSON without its values: what the byte count adds to the values it counts.
_ENVELOPE = '{"format":,"datasource":,"columns":,"rows":[],"row_count":}'
# Rows are handed over one at a time by a server-side cursor: a batch would hold that many
# rows, each up to the cell cap per text column, before the count could look at them.
_STREAM = {"stream_results": True, "max_row_buffer": 1}


class ReadOnlySqlBackend:
    """``ToolBackend`` for ``query_mysql``: fetches the raw result of one plan.

    Args:
        engines: Logical datasource → SQLAlchemy engine or URL. URLs are turned into engines
            with ``pool_pre_ping`` and client-side socket timeouts.
        statement_timeout_s: Server-side (or SQLite progress-handler) limit per statement.
        max_rows: Safety cap on fetched rows; the plan's own LIMIT should always be lower, so
            exceeding it is an error rather than a silent truncation.
    """

    def __init__(
        self,
        engines: Mapping[str, sa.Engine | str],
        *,
        statement_timeout_s: float = 5.0,
        max_rows: int = 10_000,
    ) -> None:
        if statement_timeout_s <= 0:
            raise ValueError("statement_timeout_s must be positive")
        if max_rows < 1:
            raise ValueError("max_rows must be at least 1")
        self.statement_timeout_s = statement_timeout_s
        self.max_rows = max_rows
        self._engines: dict[str, sa.Engine] = {
            name: self._engine(value) for name, value in engines.items()
        }

    def _engine(self, value: sa.Engine | str) -> sa.Engine:
        if isinstance(value, sa.Engine):
            return value
        url = sa.make_url(value)
        connect_args: dict[str, Any] = {}
        if url.get_backend_name() == "mysql":
            # A socket read timeout backs up the server-side limit when the network stalls.
            grace_s = max(2, math.ceil(self.statement_timeout_s * 2))
            connect_args = {"connect_timeout": 5, "read_timeout": grace_s}
        return sa.create_engine(url, pool_pre_ping=True, connect_args=connect_args)

    @property
    def datasources(self) -> frozenset[str]:
        """The logical datasources this executor can reach."""
        return frozenset(self._engines)

    def fetch(self, request: Any, *, max_raw_bytes: int) -> dict[str, Any]:
        """Run one plan and return ``{"format", "datasource", "columns", "rows", "row_count"}``.

        Raises:
            BackendError: BACKEND_ERROR for anything but a plan, an unknown datasource or a
                database failure; BACKEND_TIMEOUT when the statement timeout fired.
            SqlRejected: On MariaDB/MySQL, the database estimates more rows than the plan's
                ``max_explain_rows`` (reason ROW_ESTIMATE_TOO_LARGE); nothing was executed.
            RawTooLarge: The rows read so far passed ``max_raw_bytes``.
        """
        if not isinstance(request, MysqlQueryPlan):
            raise BackendError(
                ErrorCode.BACKEND_ERROR,
                "the SQL executor runs only MysqlQueryPlan objects",
                {"reason": "not_a_plan", "type": type(request).__name__},
            )
        engine = self._engines.get(request.datasource)
        if engine is None:
            raise BackendError(
                ErrorCode.BACKEND_ERROR,
                "unknown datasource",
                {"reason": "unknown_datasource", "datasource": request.datasource},
            )
        incident = uuid.uuid4().hex[:12]
        started = time.monotonic()
        # The count is the raw's JSON, byte for byte: the members before the rows now, each
        # row as it arrives, the row count once the rows are known.
        cap = RawCap(max_raw_bytes)
        cap.charge(len(_ENVELOPE) + len(to_json(RAW_FORMAT)) + len(to_json(request.datasource)))
        try:
            if engine.dialect.name == "sqlite":
                columns, rows = self._run_sqlite(engine, request.sql, cap)
            elif engine.dialect.name in {"mysql", "mariadb"}:
                columns, rows = self._run_mysql(engine, request, cap)
            else:
                raise BackendError(
                    ErrorCode.BACKEND_ERROR,
                    "unsupported database dialect",
                    {"reason": "unsupported_dialect", "dialect": engine.dialect.name},
                )
        except (BackendError, SqlRejected, RawTooLarge):
            raise
        except _SqliteDeadline as exc:
            raise self._fail(
                ErrorCode.BACKEND_TIMEOUT, request, incident, started, exc, True
            ) from None
        except sa.exc.DBAPIError as exc:
            code = ErrorCode.BACKEND_TIMEOUT if _is_timeout(exc) else ErrorCode.BACKEND_ERROR
            retryable = code is ErrorCode.BACKEND_TIMEOUT or exc.connection_invalidated
            raise self._fail(code, request, incident, started, exc, retryable) from None
        except Exception as exc:
            # Transpile failures and driver oddities alike: a code outward, the detail here.
            raise self._fail(
                ErrorCode.BACKEND_ERROR, request, incident, started, exc, False
            ) from None
        cap.charge(len(str(len(rows))))
        return {
            "format": RAW_FORMAT,
            "datasource": request.datasource,
            "columns": columns,
            "rows": rows,
            "row_count": len(rows),
        }

    # ------------------------------------------------------------ MariaDB / MySQL

    def _run_mysql(
        self, engine: sa.Engine, plan: MysqlQueryPlan, cap: RawCap
    ) -> tuple[list[str], list[list[Any]]]:
        with engine.connect() as conn:
            try:
                conn.exec_driver_sql("SET SESSION TRANSACTION READ ONLY")
                # A session variable, not a ``SET STATEMENT … FOR`` prefix: MariaDB numbers
                # the prefix's SELECT too, which would shift the ids EXPLAIN gives subqueries
                # (see ``explain_row_estimate``).
                if conn.dialect.is_mariadb:  # type: ignore[attr-defined]
                    seconds = f"{self.statement_timeout_s:.3f}"
                    conn.exec_driver_sql(f"SET SESSION max_statement_time = {seconds}")
                else:
                    millis = max(1, round(self.statement_timeout_s * 1000))
                    conn.exec_driver_sql(f"SET SESSION max_execution_time = {millis}")
                conn.exec_driver_sql("START TRANSACTION READ ONLY")
                if plan.max_explain_rows is not None:
                    self._check_estimate(conn, plan, plan.max_explain_rows)
                text_columns = self._text_columns(conn, plan.sql)
                sql = cap_text_columns(plan.sql, text_columns, max_cell_chars=cap.max_raw_bytes + 1)
                # '%' would otherwise be read as a pyformat placeholder by the driver.
                result = conn.exec_driver_sql(sql.replace("%", "%%"), execution_options=_STREAM)
                try:
                    return self._collect(result, cap)
                except BaseException:
                    _abandon(conn)
                    raise
            finally:
                conn.rollback()

    @staticmethod
    def _text_columns(conn: sa.Connection, sql: str) -> list[int]:
        """Positions of the result columns whose type is not bounded (see the module doc).

        The statement runs with ``LIMIT 0``: the server sends its column types and no row.
        """
        probe = conn.exec_driver_sql(zero_row_statement(sql).replace("%", "%%"))
        try:
            description = probe.cursor.description or ()
        finally:
            probe.close()
        return [i for i, column in enumerate(description) if column[1] not in _BOUNDED_FIELD_TYPES]

    def _check_estimate(self, conn: sa.Connection, plan: MysqlQueryPlan, limit: int) -> None:
        """Refuse the plan, before it runs, when the database expects it to read too much."""
        explained = conn.exec_driver_sql(("EXPLAIN " + plan.sql).replace("%", "%%"))
        keys = [str(key).lower() for key in list(explained.keys())]
        lines = [dict(zip(keys, row, strict=True)) for row in explained.fetchall()]
        estimate = explain_row_estimate(lines, plan.sql)
        if estimate > limit:
            logger.info(
                "sql plan refused by its row estimate: %d > %d",
                estimate,
                limit,
                extra={"datasource": plan.datasource},
            )
            reason = RejectReason.ROW_ESTIMATE_TOO_LARGE
            raise SqlRejected(
                message=EXPLANATIONS[reason],
                context={
                    "reason": reason.value,
                    "estimated_rows": estimate,
                    "max_explain_rows": limit,
                },
            )

    # ------------------------------------------------------------ SQLite

    def _run_sqlite(
        self, engine: sa.Engine, sql: str, cap: RawCap
    ) -> tuple[list[str], list[list[Any]]]:
        """Run one plan's text on SQLite, no value longer than one byte past the cap.

        A plan's ``max_explain_rows`` does not apply here: SQLite has no row estimate to compare
        it with. Its cost is bounded by the progress-handler deadline only.
        """
        sqlite_sql = _to_sqlite(sql)
        with engine.connect() as conn:
            raw = conn.connection.driver_connection
            if not isinstance(raw, sqlite3.Connection):
                raise TypeError("the SQLite engine must use the sqlite3 driver")
            deadline = time.monotonic() + self.statement_timeout_s
            fired: list[bool] = []

            def check_deadline() -> int:
                if time.monotonic() >= deadline:
                    fired.append(True)
                    return 1  # non-zero aborts the statement with "interrupted"
                return 0

            raw.execute("PRAGMA query_only = ON")
            raw.set_progress_handler(check_deadline, _SQLITE_PROGRESS_STEPS)
            # The limit never goes below what reading the schema of an attached database
            # takes; a value that small is counted whole anyway.
            length = max(cap.max_raw_bytes + 1, _SQLITE_MIN_LENGTH)
            previous = raw.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, length)
            try:
                # sqlite3 uses qmark parameters, so '%' in the text is literal and stays as is.
                result = conn.exec_driver_sql(sqlite_sql)
                return self._collect(result, cap)
            except sa.exc.DBAPIError as exc:
                if fired:
                    raise _SqliteDeadline() from None
                if getattr(exc.orig, "sqlite_errorcode", None) != sqlite3.SQLITE_TOOBIG:
                    raise
            finally:
                raw.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, previous)
                raw.set_progress_handler(None, 0)
                conn.rollback()
        # SQLite refused a value longer than the limit, which is past the cap.
        raise cap.too_large(cap.used + length)

    # ------------------------------------------------------------ shared

    def _collect(
        self, result: sa.CursorResult[Any], cap: RawCap
    ) -> tuple[list[str], list[list[Any]]]:
        """The result's rows, read one at a time, each row's JSON counted as it arrives.

        Raises:
            RawTooLarge: The rows read passed the cap (the rest is never read).
            BackendError: More rows than the executor's row cap.
        """
        if not result.returns_rows:
            raise BackendError(
                ErrorCode.BACKEND_ERROR, "statement returned no result set", {"reason": "no_rows"}
            )
        columns = [str(name) for name in list(result.keys())]
        cap.charge(len(to_json(columns)))
        rows: list[list[Any]] = []
        while (row := result.fetchone()) is not None:
            if len(rows) == self.max_rows:
                raise BackendError(
                    ErrorCode.BACKEND_ERROR,
                    "result exceeds the executor's row cap",
                    {"reason": "max_rows", "max_rows": self.max_rows},
                )
            values = [json_safe_value(v) for v in row]
            cap.charge(len(to_json(values)) + (1 if rows else 0))  # and a comma between rows
            rows.append(values)
        return columns, rows

    def _fail(
        self,
        code: ErrorCode,
        plan: MysqlQueryPlan,
        incident: str,
        started: float,
        exc: BaseException,
        retryable: bool,
    ) -> BackendError:
        elapsed_ms = round((time.monotonic() - started) * 1000)
        logger.warning(
            "sql plan failed: %s [%s] %s",
            code.value,
            type(exc).__name__,
            _redact_detail(exc),
            extra={"incident": incident, "datasource": plan.datasource, "elapsed_ms": elapsed_ms},
        )
        return BackendError(
            code,
            "sql plan failed",
            {"incident": incident, "datasource": plan.datasource, "elapsed_ms": elapsed_ms},
            # Timeouts and dropped connections may pass on a retry; SQL errors never will.
            retryable=retryable,
        )


def _abandon(conn: sa.Connection) -> None:
    """Drop a connection whose unbuffered result still has rows, without reading them.

    A fetch that stops early (the cap, the row cap, a cancel) leaves rows unread, and PyMySQL
    would read every one of them to discard it before the connection could be used or closed
    (up to the plan's LIMIT times the cell cap). Dropping the connection ends the statement
    on the server instead; the pool opens a fresh one. PyMySQL is told first that nothing is
    pending (``unbuffered_active``, its own flag), so that the cursor, once collected, does
    not try to drain a closed socket.
    """
    pending: Any = getattr(conn.connection.driver_connection, "_result", None)
    if getattr(pending, "unbuffered_active", False):
        pending.unbuffered_active = False
    conn.invalidate()


class _SqliteDeadline(Exception):
    """The progress handler stopped a SQLite statement at its deadline."""


@lru_cache(maxsize=1024)
def _to_sqlite(sql: str) -> str:
    statements = sqlglot.parse(sql, read="mysql")
    if len(statements) != 1 or statements[0] is None:
        raise ValueError("a plan holds exactly one statement")
    tree = statements[0].transform(_sqlite_datetime_arithmetic)
    return tree.sql(dialect="sqlite", unsupported_level=ErrorLevel.RAISE)


_SQLITE_UNITS = {"SECOND": 1, "MINUTE": 1, "HOUR": 1, "DAY": 1, "WEEK": 7, "MONTH": 1, "YEAR": 1}


def _sqlite_datetime_arithmetic(node: exp.Expression) -> exp.Expression:
    """``DATE_ADD(t, INTERVAL n UNIT)`` / ``t ± INTERVAL n UNIT`` → ``DATETIME(t, '±n UNIT')``.

    sqlglot renders these as SQLite ``DATE(...)``, which drops the time of day and so silently
    changes comparisons on DATETIME columns; the demo's incident lives in minutes.
    """
    if isinstance(node, exp.DateAdd | exp.DateSub):
        base, amount, unit = node.this, node.expression, node.text("unit")
        negative = isinstance(node, exp.DateSub)
    elif isinstance(node, exp.Add | exp.Sub) and isinstance(node.expression, exp.Interval):
        base, amount, unit = node.this, node.expression.this, node.expression.text("unit")
        negative = isinstance(node, exp.Sub)
    else:
        return node
    unit = (unit or "DAY").upper()
    if unit not in _SQLITE_UNITS or not isinstance(amount, exp.Literal):
        return node
    try:
        count = int(amount.this) * _SQLITE_UNITS[unit]
    except ValueError:
        return node
    unit = "DAY" if unit == "WEEK" else unit
    modifier = f"{'-' if negative else '+'}{count} {unit}"
    return exp.Anonymous(this="DATETIME", expressions=[base, exp.Literal.string(modifier)])


def _is_timeout(exc: sa.exc.DBAPIError) -> bool:
    args: tuple[Any, ...] = tuple(getattr(exc.orig, "args", ()))
    errno = args[0] if args and isinstance(args[0], int) else None
    if errno in _TIMEOUT_ERRNOS:
        return True
    # PyMySQL reports a socket read timeout as 2013 (lost connection) wrapping a timeout.
    return errno == 2013 and "timed out" in str(args[1:]).lower()


def _redact_detail(exc: BaseException) -> str:
    """The exception text with quoted literals removed and secrets redacted, for the local log."""
    origin = getattr(exc, "orig", None) or exc
    args: tuple[Any, ...] = tuple(getattr(origin, "args", ()))
    if len(args) >= 2 and isinstance(args[0], int):
        # Driver errors are (errno, message); literals in the message may echo row data.
        message = _QUOTED.sub("'?'", str(args[1]))
        text = f"{args[0]}: {message}"
    else:
        text = _QUOTED.sub("'?'", str(origin))
    text = text[:500]
    try:
        from harness.redaction import redact
    except ImportError:
        return text
    return redact(text)
