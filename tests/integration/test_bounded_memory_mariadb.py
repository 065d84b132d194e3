"""Issue 34 on a real MariaDB: the issue's own example, and the cell cap in the statement.

The acceptance test runs ``SELECT id, REPEAT(name, 300000) AS r FROM customers`` (100 rows
of about 3.5 MB: 330 MB in all, over 300 times the cap) through a real ToolBoundary in a
fresh process with the raw cap at 1 MiB per call: RAW_TOO_LARGE, the record in ERROR, and a
peak RSS rise of at most 4 MiB (on main the same call held the whole result: 1.1 GiB at the
default 16 MiB cap). The other tests show what the statement that runs is: text columns cut
one past the cap by ``LEFT``, the columns MariaDB types as numbers or dates left as they are.

Needs MariaDB on 127.0.0.1:3306 (root, empty password). Under ``CI=true`` an unreachable
server fails the tests; elsewhere they are skipped.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa

from harness.adapters.demo_db import DEFAULT_MARIADB_URL, install_mariadb, mariadb_engine
from harness.adapters.readonly_sql import ReadOnlySqlBackend
from harness.contracts.errors import RawTooLarge
from harness.contracts.raw import RawResponse
from harness.embedded.demo.database import DEMO_DATASOURCE
from harness.sql.policy import SqlPolicy
from harness.sql.validator import SqlValidator
from harness.testing.tools import RAW_CAP
from tests.peak_rss import assert_bounded_raw_too_large, measure_call

pytestmark = pytest.mark.mysql

URL = os.environ.get("HARNESS_TEST_MYSQL_URL", DEFAULT_MARIADB_URL)
VALIDATOR = SqlValidator(SqlPolicy.demo())


@pytest.fixture(scope="module")
def admin() -> Iterator[sa.Engine]:
    engine = mariadb_engine(URL, connect_timeout_s=3)
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql("SELECT 1")
    except sa.exc.OperationalError as exc:
        engine.dispose()
        if os.environ.get("CI") == "true":
            pytest.fail(f"MariaDB unreachable at {URL} under CI=true: {exc.orig}")
        pytest.skip(f"MariaDB unreachable at {URL}")
    install_mariadb(engine)
    yield engine
    engine.dispose()


@pytest.fixture(scope="module")
def executed(admin: sa.Engine) -> Iterator[tuple[ReadOnlySqlBackend, list[str]]]:
    """The executor, and every statement it sends (recorded from the engine's events)."""
    backend = ReadOnlySqlBackend({DEMO_DATASOURCE: URL})
    statements: list[str] = []
    engine = backend._engines[DEMO_DATASOURCE]

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(statement)

    sa.event.listen(engine, "before_cursor_execute", record)
    yield backend, statements
    engine.dispose()


def _fetch(
    executed: tuple[ReadOnlySqlBackend, list[str]], sql: str, max_raw_bytes: int = RAW_CAP
) -> tuple[dict[str, Any], str]:
    backend, statements = executed
    statements.clear()
    raw = backend.fetch(VALIDATOR.validate(DEMO_DATASOURCE, sql), max_raw_bytes=max_raw_bytes)
    return raw, statements[-1]


def test_the_issues_example_ends_raw_too_large_in_bounded_memory(admin: sa.Engine) -> None:
    setup = f"""
        from harness.adapters.embedded import tool_plane_of
        from harness.adapters.readonly_sql import ReadOnlySqlBackend
        from harness.settings import Settings
        from harness.sql.policy import SqlPolicy

        plane = tool_plane_of(
            Settings(), policy=SqlPolicy.demo(),
            backends={{"query_mysql": ReadOnlySqlBackend({{"shop-primary": {URL!r}}})}},
            datasource="shop-primary",
        )
        SQL = {{"datasource": "shop-primary"}}
        warm = call(plane, "query_mysql", {{**SQL, "sql": "SELECT id, name FROM customers"}}, "warm")
        assert warm["outcome"] == "OBSERVATION", warm
    """
    measured = measure_call(
        setup,
        """result = call(plane, "query_mysql", {**SQL, "sql": "SELECT id, REPEAT(name, 300000) AS r FROM customers"})""",
    )
    assert_bounded_raw_too_large(measured)


def test_only_the_columns_mariadb_types_as_text_are_cut(
    executed: tuple[ReadOnlySqlBackend, list[str]],
) -> None:
    raw, statement = _fetch(
        executed,
        "SELECT id, total_cents, total_cents / 3 AS third, status, created_at, "
        "COALESCE(id, REPEAT(status, 2)) AS mixed FROM orders ORDER BY id LIMIT 2",
    )
    n = RAW_CAP + 1
    assert statement.startswith(
        "SELECT `orders`.`id` AS `id`, `orders`.`total_cents` AS `total_cents`, "
        "`orders`.`total_cents` / 3 AS `third`, "
        f"LEFT(`orders`.`status`, {n}) AS `status`, `orders`.`created_at` AS `created_at`, "
        # sqlglot types this INT; MariaDB types it as a string, and so it is cut.
        f"LEFT(COALESCE(`orders`.`id`, REPEAT(`orders`.`status`, 2)), {n}) AS `mixed` "
    )
    row = raw["rows"][0]
    # Numbers stay numbers (a DECIMAL quotient too); the date arrives as ISO text as before.
    assert [isinstance(v, str) for v in row] == [False, False, False, True, True, True]
    assert row[5] == str(row[0])


def test_a_set_operation_is_cut_in_every_branch_and_keeps_its_order(
    executed: tuple[ReadOnlySqlBackend, list[str]],
) -> None:
    sql = (
        "SELECT id AS v FROM customers WHERE id < 3 UNION ALL "
        "SELECT REPEAT(name, 50) FROM customers WHERE id < 3 ORDER BY v LIMIT 10"
    )
    whole, statement = _fetch(executed, sql)
    assert statement.count("LEFT(") == 2
    size = RawResponse.of(whole).size
    again, _ = _fetch(executed, sql, max_raw_bytes=size)
    assert again == whole
    with pytest.raises(RawTooLarge) as caught:
        _fetch(executed, sql, max_raw_bytes=size - 1)
    assert caught.value.context["read_bytes"] == size


def test_a_cell_past_the_cap_arrives_cut_and_fails_the_call(
    executed: tuple[ReadOnlySqlBackend, list[str]],
) -> None:
    sql = "SELECT id, REPEAT(name, 10000) AS r FROM customers ORDER BY id LIMIT 1"
    with pytest.raises(RawTooLarge) as caught:
        _fetch(executed, sql, max_raw_bytes=1000)
    # The first cell is some 100 000 characters; it arrived as 1001 of them.
    assert 1001 < caught.value.context["read_bytes"] < 1100
    # The connection was dropped, not drained; the next call runs on a fresh one.
    raw, _ = _fetch(executed, "SELECT COUNT(*) AS n FROM customers")
    assert raw["rows"][0][0] > 0
