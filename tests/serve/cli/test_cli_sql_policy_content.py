"""``harness sql-policy init`` judges columns by their content as well as their names: on a
database of our own whose sensitive columns are named innocently (an ``extra`` JSON holding a
bearer token, ``notes`` with card numbers, a ``dsn``, a ``rendered_env``, a ``key_plain``, a
certificate ``bundle``), every one is proposed with its class and sample count, innocent
columns are not, no sampled value is printed, and what could not be sampled is said. Run as a
new user runs it (the installed ``harness``, fresh HOME), on SQLite and on MariaDB."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from harness.sql.policy import SqlPolicy

HARNESS = Path(sys.executable).parent / "harness"
REPO = Path(__file__).resolve().parents[3]
ADMIN_URL = os.environ.get("HARNESS_TEST_MYSQL_URL", "mysql+pymysql://root@127.0.0.1:3306/")

_PEM = (
    "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n"
    "-----END CERTIFICATE-----\n-----BEGIN PRIVATE KEY-----\n"
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n"
    "-----END PRIVATE KEY-----\n"
)
SECRETS = (
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzdmMtYmlsbGluZyJ9.Zx8Qm2Lp9Vt4Rw7Ks1Jd",
    "4111 1111 1111 1111",
    "Dsn9Passw0rd",
    "Env7Secret42",
    "sk_live_51HqLyjWDarjtT1zdp7dcXYZ",
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj",
)
ROWS = [
    (
        1,
        "checkout",
        '{"headers": {"Authorization": "Bearer ' + SECRETS[0] + '"}, "retries": 3}',
        "customer called, paid with " + SECRETS[1] + " at the desk",
        "postgres://billing:" + SECRETS[2] + "@db01.internal.example.com:5432/ledger",
        "DB_HOST=db\nDB_PASSWORD=" + SECRETS[3] + "\nLOG_LEVEL=info\n",
        SECRETS[4],
        _PEM,
        "all good",
    ),
    (2, "ledger", '{"retries": 1}', "no notes", None, "LOG_LEVEL=debug\n", None, None, "fine"),
]
CONTENT = {
    "extra": "CREDENTIAL",
    "notes": "PAYMENT",
    "dsn": "CREDENTIAL",
    "rendered_env": "CREDENTIAL",
    "key_plain": "CREDENTIAL",
    "bundle": "CREDENTIAL",
}
DDL = (
    "CREATE TABLE integrations (id INTEGER PRIMARY KEY, service VARCHAR(64), extra TEXT, "
    "notes TEXT, dsn VARCHAR(255), rendered_env TEXT, key_plain VARCHAR(128), bundle TEXT, "
    "comment VARCHAR(64))"
)
INSERT = "INSERT INTO integrations VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"


def _harness(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("HARNESS_", "RAY_", "XDG_")) and key != "PYTHONPATH"
    }
    env.update(HOME=str(home), PYTHONPATH=str(REPO))
    return subprocess.run(
        [str(HARNESS), *args], env=env, capture_output=True, text=True, timeout=120, check=False
    )


def _check(tmp_path: Path, url: str, schema: str) -> str:
    out = tmp_path / "policy.json"
    done = _harness(tmp_path, "sql-policy", "init", "--db", url, "--out", str(out))
    assert done.returncode == 0, done.stderr[-2000:]
    printed = done.stdout + done.stderr
    for secret in SECRETS:
        assert secret not in printed
        assert secret not in out.read_text(encoding="utf-8")
    policy = SqlPolicy.load(out)
    assert policy.review is not None
    guesses = {g.column: g for g in policy.review.sensitive_guesses}
    assert {c: g.category for c, g in guesses.items()} == CONTENT
    assert guesses["notes"].reason == "content: 1 of 2 samples (payment-card)"
    assert guesses["dsn"].reason.startswith("content: 1 of 1 samples (")
    for column, category in CONTENT.items():
        assert f"  {schema}.integrations.{column}  {category} (content: " in printed
    return printed


def test_sqlite_columns_named_innocently_are_proposed_by_content(tmp_path: Path) -> None:
    path = tmp_path / "ops.db"
    with sqlite3.connect(path) as db:
        db.execute(DDL)
        db.executemany(INSERT, ROWS)
    _check(tmp_path, f"sqlite:///{path}", "main")
    # Names and types only: no content guess at all.
    out = tmp_path / "names.json"
    done = _harness(
        tmp_path, "sql-policy", "init", "--db", f"sqlite:///{path}", "--sample", "0", "--out",
        str(out),
    )  # fmt: skip
    assert done.returncode == 0
    review = SqlPolicy.load(out).review
    assert review is not None and review.sensitive_guesses == []


@pytest.fixture()
def mariadb() -> Iterator[str]:
    engine = sa.create_engine(ADMIN_URL, connect_args={"connect_timeout": 3})
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql("SELECT 1")
    except sa.exc.OperationalError:
        if os.environ.get("CI") == "true":
            raise
        pytest.skip(f"MariaDB unreachable at {ADMIN_URL}")
    name = f"content_{uuid.uuid4().hex[:8]}"
    with engine.begin() as conn:
        conn.exec_driver_sql(f"CREATE DATABASE {name}")
        conn.exec_driver_sql(f"USE {name}")
        conn.exec_driver_sql(DDL)
        conn.exec_driver_sql(INSERT.replace("?", "%s"), ROWS)
        # A view whose rows cannot be read (its function fails) cannot be sampled: that is
        # said, never taken as clean.
        conn.exec_driver_sql(
            "CREATE FUNCTION boom() RETURNS TEXT DETERMINISTIC "
            "BEGIN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no'; RETURN ''; END"
        )
        conn.exec_driver_sql("CREATE VIEW broken AS SELECT boom() AS memo")
    try:
        yield f"{ADMIN_URL.rstrip('/')}/{name}"
    finally:
        with engine.begin() as conn:
            conn.exec_driver_sql(f"DROP DATABASE {name}")
        engine.dispose()


@pytest.mark.mysql
def test_mariadb_columns_named_innocently_are_proposed_by_content(
    tmp_path: Path, mariadb: str
) -> None:
    printed = _check(tmp_path, mariadb, mariadb.rsplit("/", 1)[1])
    assert f"  not sampled {mariadb.rsplit('/', 1)[1]}.broken.memo: OperationalError" in printed
