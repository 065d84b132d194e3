"""The extraction attack on a real MariaDB, through the real tool plane.

The same attacker as on SQLite (:mod:`tests.harness.sql.extraction`), plus the oracles that
need MySQL functions (ASCII, ORD, an overflowing EXP), against ``ToolBoundary`` →
``SqlValidator`` → ``ReadOnlySqlBackend`` (EXPLAIN bound included) → ``MysqlProjector`` on
MariaDB. The hidden values live in a private copy of the demo's ``customers`` and
``api_tokens`` (the shared ``shop`` schema is never written), set to one value and then to
another that differs in every position; what the model receives must not change, and no
character may be recovered. Without the validator and the mask every strategy recovers the
value, so each is a working oracle on MariaDB too.

The order oracles (:data:`tests.harness.sql.extraction.ORDER_STRATEGIES` that work on MariaDB,
and ORDER BY RAND(seed)) run on another private copy that also indexes ``api_tokens.token``:
two worlds rank the same six rows first in opposite orders. Unguarded, and through the tool
plane with the ordering rule switched off, they rank the e-mails; through the tool plane
nothing the model receives differs between the worlds.

Needs MariaDB on 127.0.0.1:3306 (root, empty password). Under ``CI=true`` an unreachable
server fails the tests; elsewhere they are skipped.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from harness.adapters.demo_db import DEFAULT_MARIADB_URL, install_mariadb, mariadb_engine
from harness.adapters.embedded import ToolPlane, build_tool_plane
from harness.adapters.readonly_sql import ReadOnlySqlBackend
from harness.embedded.demo.database import DEMO_DATASOURCE, demo_policy_text
from harness.settings import Settings
from tests.harness.sql.extraction import (
    MYSQL_ORDER_STRATEGIES,
    MYSQL_STRATEGIES,
    ORDER_STRATEGIES,
    STRATEGIES,
    Attempt,
    Extractor,
    OrderAttempt,
    OrderTarget,
    Target,
    boundary_probe,
    other_world,
    recovered_characters,
    recovered_ranks,
    run_order,
    unguarded_probe,
)

pytestmark = pytest.mark.mysql

URL = os.environ.get("HARNESS_TEST_MYSQL_URL", DEFAULT_MARIADB_URL)
SCHEMA = f"harness_attack_{os.getpid()}"
TOKEN_SECRET = "v8c2n"  # after "sk_live_"
HASH_SECRET = "p4h"  # after "$2b$12$"
ALL_STRATEGIES = [*STRATEGIES, *MYSQL_STRATEGIES]


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
def private_copy(admin: sa.Engine) -> Iterator[dict[str, int]]:
    """A private schema with copies of the demo tables; the ids of the rows under attack."""
    with admin.begin() as conn:
        conn.exec_driver_sql(f"DROP DATABASE IF EXISTS `{SCHEMA}`")
        conn.exec_driver_sql(f"CREATE DATABASE `{SCHEMA}`")
        for table in ("customers", "api_tokens"):
            conn.exec_driver_sql(f"CREATE TABLE `{SCHEMA}`.{table} LIKE shop.{table}")
            conn.exec_driver_sql(f"INSERT INTO `{SCHEMA}`.{table} SELECT * FROM shop.{table}")
        ids = {
            "token": conn.exec_driver_sql(
                f"SELECT MIN(id) FROM `{SCHEMA}`.api_tokens"
            ).scalar_one(),
            "password_hash": conn.exec_driver_sql(
                f"SELECT MIN(id) FROM `{SCHEMA}`.customers"
            ).scalar_one(),
        }
    try:
        yield ids
    finally:
        with admin.begin() as conn:
            conn.exec_driver_sql(f"DROP DATABASE IF EXISTS `{SCHEMA}`")


def _set_world(admin: sa.Engine, ids: dict[str, int], token_tail: str, hash_tail: str) -> None:
    with admin.begin() as conn:
        conn.execute(
            sa.text(
                f"UPDATE `{SCHEMA}`.api_tokens SET token = "
                "CONCAT('sk_live_', :tail, SUBSTRING(token, 9 + CHAR_LENGTH(:tail))) WHERE id = :id"
            ),
            {"tail": token_tail, "id": ids["token"]},
        )
        conn.execute(
            sa.text(
                f"UPDATE `{SCHEMA}`.customers SET password_hash = "
                "CONCAT('$2b$12$', :tail, SUBSTRING(password_hash, 8 + CHAR_LENGTH(:tail))) "
                "WHERE id = :id"
            ),
            {"tail": hash_tail, "id": ids["password_hash"]},
        )


def _targets(ids: dict[str, int]) -> dict[str, tuple[Target, str]]:
    return {
        "api token": (
            Target(
                table=f"{SCHEMA}.api_tokens",
                column="token",
                row_id=ids["token"],
                known_prefix="sk_live_",
                length=len(TOKEN_SECRET),
                other_table=f"{SCHEMA}.customers",
                other_column="name",
            ),
            TOKEN_SECRET,
        ),
        "password hash": (
            Target(
                table=f"{SCHEMA}.customers",
                column="password_hash",
                row_id=ids["password_hash"],
                known_prefix="$2b$12$",
                length=len(HASH_SECRET),
                other_table=f"{SCHEMA}.api_tokens",
                other_column="scope",
            ),
            HASH_SECRET,
        ),
    }


@pytest.fixture(scope="module")
def plane(private_copy: dict[str, int], tmp_path_factory: pytest.TempPathFactory) -> ToolPlane:
    """The tool plane on MariaDB, under the demo policy moved onto the private schema."""
    demo = json.loads(demo_policy_text())
    source = demo["datasources"][DEMO_DATASOURCE]
    shop = source["schemas"]["shop"]["tables"]
    source["default_schema"] = SCHEMA
    source["schemas"] = {
        SCHEMA: {"tables": {name: shop[name] for name in ("customers", "api_tokens")}}
    }
    path: Path = tmp_path_factory.mktemp("attack-policy") / "policy.json"
    path.write_text(json.dumps(demo), encoding="utf-8")
    return build_tool_plane(Settings(mysql_url=URL, sql_policy_path=path, redis_url=None))


def test_every_strategy_recovers_the_secret_on_mariadb_without_the_guards(
    admin: sa.Engine, private_copy: dict[str, int]
) -> None:
    _set_world(admin, private_copy, TOKEN_SECRET, HASH_SECRET)
    backend = ReadOnlySqlBackend({DEMO_DATASOURCE: URL})
    try:
        for name, (target, secret) in _targets(private_copy).items():
            attacker = Extractor(unguarded_probe(backend), target)
            recovered = {s.name: attacker.run(s).recovered for s in ALL_STRATEGIES}
            assert recovered == dict.fromkeys(recovered, secret), name
    finally:
        for engine in backend._engines.values():
            engine.dispose()


def test_no_strategy_recovers_a_character_on_mariadb(
    admin: sa.Engine,
    private_copy: dict[str, int],
    plane: ToolPlane,
    capsys: pytest.CaptureFixture[str],
) -> None:
    worlds = {
        "a": (TOKEN_SECRET, HASH_SECRET),
        "b": (other_world(TOKEN_SECRET), other_world(HASH_SECRET)),
    }
    attempts: dict[str, dict[tuple[str, str], Attempt]] = {}
    for world, (token_tail, hash_tail) in worlds.items():
        _set_world(admin, private_copy, token_tail, hash_tail)
        attempts[world] = {
            (name, strategy.name): Extractor(boundary_probe(plane), target).run(strategy)
            for name, (target, _) in _targets(private_copy).items()
            for strategy in ALL_STRATEGIES
        }
    summary: list[str] = []
    for (name, strategy), first in attempts["a"].items():
        second = attempts["b"][(name, strategy)]
        secret = dict(zip(("api token", "password hash"), worlds["a"], strict=True))[name]
        assert first.transcript == second.transcript, (name, strategy)
        assert recovered_characters(first, second, secret, other_world(secret)) == 0
        if strategy.startswith("bare read"):
            assert first.refused == 0
            assert all('"v":"***"' in content for _, content in first.transcript)
        else:
            assert first.refused == first.tried, (name, strategy)
        summary.append(f"{name} / {strategy}: {first.refused}/{first.tried} refused")
    with capsys.disabled():
        print("\nMariaDB extraction attack (probes refused / tried):\n  " + "\n  ".join(summary))


# ------------------------------------------------------------------ order oracles on MariaDB

ORDER_SCHEMA = f"harness_order_{os.getpid()}"
RANKING = (17, 5, 42, 8, 23, 11)  # world A's order of the rows under attack; world B reverses it
ORDER_TARGETS = {
    "customer email": OrderTarget(table=f"{ORDER_SCHEMA}.customers", column="email", ids=RANKING),
    "api token": OrderTarget(table=f"{ORDER_SCHEMA}.api_tokens", column="token", ids=RANKING),
}
ORDER_TRUTH = {"a": list(RANKING), "b": list(reversed(RANKING))}
ALL_ORDER_STRATEGIES = [
    s for s in [*ORDER_STRATEGIES, *MYSQL_ORDER_STRATEGIES] if "mariadb" in s.backends
]


@pytest.fixture(scope="module")
def order_copy(admin: sa.Engine) -> Iterator[None]:
    """A private copy of customers and api_tokens, with an index on the token as well."""
    with admin.begin() as conn:
        conn.exec_driver_sql(f"DROP DATABASE IF EXISTS `{ORDER_SCHEMA}`")
        conn.exec_driver_sql(f"CREATE DATABASE `{ORDER_SCHEMA}`")
        for table in ("customers", "api_tokens"):
            conn.exec_driver_sql(f"CREATE TABLE `{ORDER_SCHEMA}`.{table} LIKE shop.{table}")
            conn.exec_driver_sql(f"INSERT INTO `{ORDER_SCHEMA}`.{table} SELECT * FROM shop.{table}")
        conn.exec_driver_sql(
            f"CREATE INDEX idx_api_tokens_token ON `{ORDER_SCHEMA}`.api_tokens (token)"
        )
    try:
        yield
    finally:
        with admin.begin() as conn:
            conn.exec_driver_sql(f"DROP DATABASE IF EXISTS `{ORDER_SCHEMA}`")


def _order_world(admin: sa.Engine, ranking: tuple[int, ...]) -> None:
    """The hidden values of ``ranking`` sort first, in that order (visible data unchanged)."""
    with admin.begin() as conn:
        for row_id in ranking:  # free the unique e-mails first
            conn.execute(
                sa.text(f"UPDATE `{ORDER_SCHEMA}`.customers SET email = :v WHERE id = :id"),
                {"v": f"tmp{row_id}@attack.example", "id": row_id},
            )
        for rank, row_id in enumerate(ranking):
            conn.execute(
                sa.text(f"UPDATE `{ORDER_SCHEMA}`.customers SET email = :v WHERE id = :id"),
                {"v": f"0{rank}.order@attack.example", "id": row_id},
            )
            conn.execute(
                sa.text(f"UPDATE `{ORDER_SCHEMA}`.api_tokens SET token = :v WHERE id = :id"),
                {"v": f"sk_live_0000{rank}q", "id": row_id},
            )


def _order_plane(tmp_path_factory: pytest.TempPathFactory) -> ToolPlane:
    demo = json.loads(demo_policy_text())
    source = demo["datasources"][DEMO_DATASOURCE]
    shop = source["schemas"]["shop"]["tables"]
    source["default_schema"] = ORDER_SCHEMA
    source["schemas"] = {
        ORDER_SCHEMA: {"tables": {name: shop[name] for name in ("customers", "api_tokens")}}
    }
    path: Path = tmp_path_factory.mktemp("order-policy") / "policy.json"
    path.write_text(json.dumps(demo), encoding="utf-8")
    return build_tool_plane(Settings(mysql_url=URL, sql_policy_path=path, redis_url=None))


def _order_attempts(
    admin: sa.Engine, probe: Callable[[str], str]
) -> dict[str, dict[tuple[str, str], OrderAttempt]]:
    attempts: dict[str, dict[tuple[str, str], OrderAttempt]] = {}
    for world, ranking in (("a", RANKING), ("b", tuple(reversed(RANKING)))):
        _order_world(admin, ranking)
        attempts[world] = {
            (name, strategy.name): run_order(probe, target, strategy)
            for name, target in ORDER_TARGETS.items()
            for strategy in ALL_ORDER_STRATEGIES
        }
    return attempts


def _ranks(attempts: dict[str, dict[tuple[str, str], OrderAttempt]]) -> dict[tuple[str, str], int]:
    return {
        key: recovered_ranks(first, attempts["b"][key], ORDER_TRUTH["a"], ORDER_TRUTH["b"])
        for key, first in attempts["a"].items()
    }


def test_every_order_strategy_ranks_hidden_values_on_mariadb_without_the_guards(
    admin: sa.Engine, order_copy: None
) -> None:
    backend = ReadOnlySqlBackend({DEMO_DATASOURCE: URL})
    try:
        ranks = _ranks(_order_attempts(admin, unguarded_probe(backend)))
    finally:
        for engine in backend._engines.values():
            engine.dispose()
    for strategy in ALL_ORDER_STRATEGIES:
        assert ranks[("customer email", strategy.name)] > 0, (strategy.name, ranks)


def test_the_tool_plane_leaked_the_order_on_mariadb_before_the_ordering_rule(
    admin: sa.Engine,
    order_copy: None,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The validator as it stood before the ordering rule: every other check still applies.
    monkeypatch.setattr("harness.sql.validator.enforce_total_order", lambda *args: None)
    ranks = _ranks(_order_attempts(admin, boundary_probe(_order_plane(tmp_path_factory))))
    for strategy in ALL_ORDER_STRATEGIES:
        assert ranks[("customer email", strategy.name)] > 0, (strategy.name, ranks)
    with capsys.disabled():
        print(
            "\nMariaDB order attack, ordering rule off (ranks recovered of 6):\n  "
            + "\n  ".join(f"{name} / {strategy}: {n}" for (name, strategy), n in ranks.items())
        )


def test_no_order_strategy_ranks_a_hidden_value_on_mariadb(
    admin: sa.Engine,
    order_copy: None,
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
) -> None:
    attempts = _order_attempts(admin, boundary_probe(_order_plane(tmp_path_factory)))
    summary: list[str] = []
    for key, first in attempts["a"].items():
        second = attempts["b"][key]
        assert first.transcript == second.transcript, key
        assert recovered_ranks(first, second, ORDER_TRUTH["a"], ORDER_TRUTH["b"]) == 0, key
        summary.append(f"{key[0]} / {key[1]}: {first.refused}/{first.tried} refused")
    with capsys.disabled():
        print("\nMariaDB order attack (probes refused / tried):\n  " + "\n  ".join(summary))
