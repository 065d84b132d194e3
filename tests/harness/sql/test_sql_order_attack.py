"""The order attack on the embedded demo database (SQLite), through the real tool plane.

The oracles of :data:`tests.harness.sql.extraction.ORDER_STRATEGIES` never compute on a hidden
column: they read the order in which rows come back. On the demo database the covering index
on ``customers.email`` makes that order the order of the e-mails (``SELECT id FROM
shop.customers LIMIT 3`` names the three alphabetically first customers); the worlds here add
an index on ``api_tokens.token`` as well, as a token lookup would. Two worlds rank the same six
rows of each table first, in opposite orders, with identical visible data.

* Unguarded (no validator, no mask), every strategy recovers ranks: the oracles are real.
* Through the tool plane *without* the ordering rule (:mod:`harness.sql.ordering` switched
  off), they still do: that is the leak as it stood.
* Through the tool plane, what the model receives is identical in both worlds and no rank is
  recovered: each probe is refused or answered in an order that no hidden value decides.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from harness.adapters.demo_db import sqlite_demo_engine
from harness.adapters.embedded import ToolPlane, build_tool_plane
from harness.adapters.readonly_sql import ReadOnlySqlBackend
from harness.embedded.demo.database import DEMO_DATASOURCE
from harness.settings import Settings
from tests.harness.sql.extraction import (
    ORDER_STRATEGIES,
    OrderStrategy,
    OrderTarget,
    boundary_probe,
    recovered_ranks,
    run_order,
    unguarded_probe,
)

RANKING = (17, 5, 42, 8, 23, 11)  # world A's order of the rows under attack; world B reverses it
TARGETS = {
    "customer email": OrderTarget(table="shop.customers", column="email", ids=RANKING),
    "api token": OrderTarget(table="shop.api_tokens", column="token", ids=RANKING),
}
TRUTH = {"a": list(RANKING), "b": list(reversed(RANKING))}
BACKEND = "sqlite"


def order_world(directory: Path, ranking: tuple[int, ...]) -> None:
    """The demo database, with the hidden values of ``ranking`` sorting first, in that order."""
    sqlite_demo_engine(directory).dispose()
    with sqlite3.connect(directory / "shop.sqlite") as conn:
        for rank, row_id in enumerate(ranking):
            conn.execute(
                "UPDATE customers SET email = ? WHERE id = ?",
                (f"0{rank}.order@attack.example", row_id),
            )
            conn.execute(
                "UPDATE api_tokens SET token = ? WHERE id = ?", (f"sk_live_0000{rank}q", row_id)
            )
        conn.execute("CREATE INDEX IF NOT EXISTS idx_api_tokens_token ON api_tokens (token)")


@pytest.fixture(scope="module")
def worlds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("order-attack")
    dirs = {"a": root / "a", "b": root / "b"}
    order_world(dirs["a"], RANKING)
    order_world(dirs["b"], tuple(reversed(RANKING)))
    return dirs


def _plane(directory: Path) -> ToolPlane:
    return build_tool_plane(
        Settings(mysql_url=None, sql_policy_path=None, redis_url=None), sqlite_dir=directory
    )


def _applicable(strategies: list[OrderStrategy]) -> list[OrderStrategy]:
    return [s for s in strategies if BACKEND in s.backends]


def _recovered(probes: dict[str, Callable[[str], str]], strategy: OrderStrategy) -> dict[str, int]:
    out: dict[str, int] = {}
    for name, target in TARGETS.items():
        first = run_order(probes["a"], target, strategy)
        second = run_order(probes["b"], target, strategy)
        out[name] = recovered_ranks(first, second, TRUTH["a"], TRUTH["b"])
    return out


def test_every_order_strategy_ranks_hidden_values_without_the_guards(
    worlds: dict[str, Path],
) -> None:
    probes = {
        world: unguarded_probe(ReadOnlySqlBackend({DEMO_DATASOURCE: sqlite_demo_engine(path)}))
        for world, path in worlds.items()
    }
    for strategy in _applicable(ORDER_STRATEGIES):
        recovered = _recovered(probes, strategy)
        assert recovered["customer email"] > 0, (strategy.name, recovered)


@pytest.fixture
def planes_without_ordering(
    worlds: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> Iterator[dict[str, ToolPlane]]:
    # The validator as it stood before the ordering rule: every other check still applies.
    monkeypatch.setattr("harness.sql.validator.enforce_total_order", lambda *args: None)
    yield {world: _plane(path) for world, path in worlds.items()}


def test_the_tool_plane_leaked_the_order_before_the_ordering_rule(
    planes_without_ordering: dict[str, ToolPlane], capsys: pytest.CaptureFixture[str]
) -> None:
    probes = {world: boundary_probe(plane) for world, plane in planes_without_ordering.items()}
    summary = []
    for strategy in _applicable(ORDER_STRATEGIES):
        recovered = _recovered(probes, strategy)
        summary.append(f"{strategy.name}: {recovered}")
        assert recovered["customer email"] > 0, (strategy.name, recovered)
    with capsys.disabled():
        print(
            "\nSQLite order attack, ordering rule off (ranks recovered of 6):\n  "
            + "\n  ".join(summary)
        )


def test_no_order_strategy_ranks_a_hidden_value_through_the_tool_plane(
    worlds: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    planes = {world: _plane(path) for world, path in worlds.items()}
    probes = {world: boundary_probe(plane) for world, plane in planes.items()}
    summary = []
    for strategy in ORDER_STRATEGIES:
        for name, target in TARGETS.items():
            first = run_order(probes["a"], target, strategy)
            second = run_order(probes["b"], target, strategy)
            # What the model saw did not depend on the hidden order, probe by probe...
            assert first.transcript == second.transcript, (name, strategy.name)
            # ...so no rank it concluded is right in both worlds.
            assert recovered_ranks(first, second, TRUTH["a"], TRUTH["b"]) == 0
            summary.append(f"{name} / {strategy.name}: {first.refused}/{first.tried} refused")
    with capsys.disabled():
        print("\nSQLite order attack (probes refused / tried):\n  " + "\n  ".join(summary))
