"""The extraction attack on the embedded demo database (SQLite), through the real tool plane.

Every strategy of :mod:`tests.harness.sql.extraction` runs through ``ToolBoundary`` →
``SqlValidator`` → ``ReadOnlySqlBackend`` → ``MysqlProjector`` (``build_tool_plane``), in two
worlds that differ only in the hidden value, and must recover zero characters: what the model
receives is identical in both worlds. The same strategies without the validator and the mask
recover the value exactly, so each is a working oracle and the test can fail.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.adapters.demo_db import sqlite_demo_engine
from harness.adapters.embedded import ToolPlane, build_tool_plane
from harness.adapters.readonly_sql import ReadOnlySqlBackend
from harness.embedded.demo.database import DEMO_DATASOURCE
from harness.settings import Settings
from tests.harness.sql.extraction import (
    STRATEGIES,
    Attempt,
    Extractor,
    Strategy,
    Target,
    boundary_probe,
    other_world,
    recovered_characters,
    unguarded_probe,
)

TOKEN_SECRET = "k3q9z"  # what follows "sk_live_" in world A
HASH_SECRET = "m2x"  # what follows "$2b$12$" in world A


def _world(directory: Path, token_tail: str, hash_tail: str) -> dict[str, int]:
    """Install the demo database in ``directory`` and plant the hidden values; the row ids."""
    sqlite_demo_engine(directory).dispose()
    with sqlite3.connect(directory / "shop.sqlite") as conn:
        token_id, token = conn.execute(
            "SELECT id, token FROM api_tokens ORDER BY id LIMIT 1"
        ).fetchone()
        customer_id, password_hash = conn.execute(
            "SELECT id, password_hash FROM customers ORDER BY id LIMIT 1"
        ).fetchone()
        assert token.startswith("sk_live_") and password_hash.startswith("$2b$12$")
        conn.execute(
            "UPDATE api_tokens SET token = ? WHERE id = ?",
            ("sk_live_" + token_tail + token[8 + len(token_tail) :], token_id),
        )
        conn.execute(
            "UPDATE customers SET password_hash = ? WHERE id = ?",
            ("$2b$12$" + hash_tail + password_hash[7 + len(hash_tail) :], customer_id),
        )
    return {"token": token_id, "password_hash": customer_id}


@dataclass(frozen=True)
class Worlds:
    """Two demo databases that differ only in the hidden values; the rows that hold them."""

    ids: dict[str, int]
    dirs: dict[str, Path]


@pytest.fixture(scope="module")
def worlds(tmp_path_factory: pytest.TempPathFactory) -> Worlds:
    root = tmp_path_factory.mktemp("extraction")
    ids = _world(root / "a", TOKEN_SECRET, HASH_SECRET)
    assert _world(root / "b", other_world(TOKEN_SECRET), other_world(HASH_SECRET)) == ids
    return Worlds(ids=ids, dirs={"a": root / "a", "b": root / "b"})


def _targets(ids: dict[str, int]) -> dict[str, tuple[Target, str]]:
    return {
        "api token": (
            Target(
                table="shop.api_tokens",
                column="token",
                row_id=ids["token"],
                known_prefix="sk_live_",
                length=len(TOKEN_SECRET),
                other_table="shop.customers",
                other_column="name",
            ),
            TOKEN_SECRET,
        ),
        "password hash": (
            Target(
                table="shop.customers",
                column="password_hash",
                row_id=ids["password_hash"],
                known_prefix="$2b$12$",
                length=len(HASH_SECRET),
                other_table="shop.api_tokens",
                other_column="scope",
            ),
            HASH_SECRET,
        ),
    }


def _plane(directory: Path) -> ToolPlane:
    # Explicit settings: the embedded default whatever HARNESS_* the environment holds.
    settings = Settings(mysql_url=None, sql_policy_path=None, redis_url=None)
    return build_tool_plane(settings, sqlite_dir=directory)


def test_every_strategy_recovers_the_secret_without_the_guards(worlds: Worlds) -> None:
    # The control: the oracles are real. Without validator and mask each reads the value.
    backend = ReadOnlySqlBackend({DEMO_DATASOURCE: sqlite_demo_engine(worlds.dirs["a"])})
    for name, (target, secret) in _targets(worlds.ids).items():
        attacker = Extractor(unguarded_probe(backend), target)
        recovered = {strategy.name: attacker.run(strategy).recovered for strategy in STRATEGIES}
        assert recovered == dict.fromkeys(recovered, secret), name


def run_both_worlds(
    planes: dict[str, ToolPlane], target: Target, strategy: Strategy
) -> tuple[Attempt, Attempt]:
    first = Extractor(boundary_probe(planes["a"]), target).run(strategy)
    second = Extractor(boundary_probe(planes["b"]), target).run(strategy)
    return first, second


def test_no_strategy_recovers_a_character_through_the_tool_plane(
    worlds: Worlds, capsys: pytest.CaptureFixture[str]
) -> None:
    planes = {world: _plane(directory) for world, directory in worlds.dirs.items()}
    summary: list[str] = []
    for name, (target, secret) in _targets(worlds.ids).items():
        for strategy in STRATEGIES:
            first, second = run_both_worlds(planes, target, strategy)
            # What the model saw did not depend on the hidden value, probe by probe...
            assert first.transcript == second.transcript, (name, strategy.name)
            # ...so nothing it concluded is right in both worlds.
            assert recovered_characters(first, second, secret, other_world(secret)) == 0
            summary.append(f"{name} / {strategy.name}: {first.refused}/{first.tried} refused")
            if strategy.name.startswith("bare read"):
                # Accepted, and every shown cell is the mask.
                assert first.refused == 0
                assert all('"v":"***"' in content for _, content in first.transcript)
            else:
                assert first.refused == first.tried, (name, strategy.name)
    with capsys.disabled():
        print("\nSQLite extraction attack (probes refused / tried):\n  " + "\n  ".join(summary))
