"""An automated attacker that tries to read a masked column one character at a time.

The attacker sees only what a model sees of a ``query_mysql`` call: the tool message content
(an observation with masked cells, or ``{tool_call_id, error_code}``). Each :class:`Strategy`
is one oracle — a way to make that content depend on one comparison against the hidden value
(a row count, a row order, an error, a NULL, an unmasked computed cell). :class:`Extractor`
drives a strategy: a binary search over :data:`ALPHABET` per character for ordering oracles, a
scan for equality oracles, and keeps the transcript of every probe and what came back.
:func:`boundary_probe` sends a probe through a real tool plane (boundary, validator, executor,
projector); :func:`unguarded_probe` through the executor alone, with nothing masked.

A defence is shown by running the same attacker against two worlds whose hidden values differ
in every position: the transcripts must be identical (nothing the attacker saw depended on the
value) and :func:`recovered_characters` — characters right in *both* worlds — must be zero.
The same strategies against an unguarded probe (no validator, no masking) must recover the
value exactly, which shows that they are real oracles and that the test can fail.

:data:`ORDER_STRATEGIES` attack differently: they never compute on the hidden column but read
the order in which the database returns rows, which follows an index on that column (LIMIT and
OFFSET walks, ties, GROUP_CONCAT, ROW_NUMBER() OVER (), a first-row column of an aggregate,
LIMIT inside derived tables, CTEs and IN subqueries, UNION ALL + LIMIT, SQLite's scalar
subquery, SUM's partial-sum overflow, RAND(seed)). :func:`run_order` drives one;
:func:`recovered_ranks` counts the ranks it got right in two worlds that order the same rows
oppositely.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, Literal

from harness.adapters.embedded import ToolPlane
from harness.adapters.readonly_sql import ReadOnlySqlBackend
from harness.contracts.envelope import ToolCallEnvelope
from harness.contracts.errors import BackendError
from harness.embedded.demo.database import DEMO_DATASOURCE
from harness.sql.plan import MysqlQueryPlan
from harness.testing.tools import RAW_CAP

__all__ = [
    "ALPHABET",
    "MYSQL_ORDER_STRATEGIES",
    "MYSQL_STRATEGIES",
    "ORDER_STRATEGIES",
    "STRATEGIES",
    "Attempt",
    "Extractor",
    "OrderAttempt",
    "OrderStrategy",
    "OrderTarget",
    "Strategy",
    "Target",
    "boundary_probe",
    "mysql_rand",
    "other_world",
    "recovered_characters",
    "recovered_ranks",
    "run_order",
    "unguarded_probe",
]

# Digits then lower-case letters: the same order under ASCII (SQLite's BINARY collation) and
# under MariaDB's case-insensitive default collation, so one binary search serves both.
ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"

Probe = Callable[[str], str]
"""SQL text → the content the model receives for that call."""


@dataclass(frozen=True, kw_only=True)
class Target:
    """The hidden value: one sensitive cell, addressed by its row's id.

    Attributes:
        table: Schema-qualified table holding the cell.
        column: The sensitive column.
        row_id: ``id`` of the row.
        known_prefix: The part of the value the attacker knows already (a format prefix).
        length: Characters to recover after the prefix.
        other_table: A schema-qualified table with a non-sensitive text column, for unions.
        other_column: That column.
    """

    table: str
    column: str
    row_id: int
    known_prefix: str
    length: int
    other_table: str
    other_column: str


@dataclass(frozen=True, kw_only=True)
class Strategy:
    """One oracle.

    ``template`` is formatted with ``t`` (table), ``col``, ``k`` (row id), ``i`` (1-based
    position), ``c`` (pivot character), ``n`` (its code), ``h`` (its hex), ``p`` (the prefix
    known so far), ``o``/``oc`` (the other table and column), ``hi`` (``p + c + '~'``, the
    largest string starting with ``p + c``). A ``compare`` strategy asks "is character ``i``
    greater than ``c``?", an ``equal`` strategy "is character ``i`` equal to ``c``?";
    ``answer(content, i, c)`` reads the yes/no from the content the model received.
    """

    name: str
    kind: Literal["compare", "equal"]
    template: str
    answer: Callable[[Mapping[str, Any], int, str], bool]


@dataclass
class Attempt:
    """What one strategy got out of one world."""

    strategy: str
    recovered: str = ""
    transcript: list[tuple[str, str]] = field(default_factory=list)

    @property
    def tried(self) -> int:
        return len(self.transcript)

    @property
    def refused(self) -> int:
        return sum(
            json.loads(content).get("error_code") == "SQL_REJECTED"
            for _, content in self.transcript
        )


class Extractor:
    """Drives strategies against one probe and one target.

    Args:
        probe: Sends one statement and returns what the model would receive.
        target: The cell to recover.
    """

    def __init__(self, probe: Probe, target: Target) -> None:
        self.probe = probe
        self.target = target

    def run(self, strategy: Strategy) -> Attempt:
        attempt = Attempt(strategy=strategy.name)
        for offset in range(self.target.length):
            position = len(self.target.known_prefix) + offset + 1
            prefix = self.target.known_prefix + attempt.recovered
            if strategy.kind == "compare":
                low, high = 0, len(ALPHABET) - 1
                while low < high:
                    middle = (low + high) // 2
                    if self._ask(strategy, attempt, position, prefix, ALPHABET[middle]):
                        low = middle + 1
                    else:
                        high = middle
                attempt.recovered += ALPHABET[low]
            else:
                found = next(
                    (c for c in ALPHABET if self._ask(strategy, attempt, position, prefix, c)),
                    "?",
                )
                attempt.recovered += found
        return attempt

    def _ask(
        self, strategy: Strategy, attempt: Attempt, position: int, prefix: str, pivot: str
    ) -> bool:
        t = self.target
        sql = strategy.template.format(
            t=t.table,
            col=t.column,
            k=t.row_id,
            i=position,
            c=pivot,
            n=ord(pivot),
            h=f"{ord(pivot):02X}",
            p=prefix,
            hi=prefix + pivot + "~",
            o=t.other_table,
            oc=t.other_column,
        )
        content = self.probe(sql)
        attempt.transcript.append((sql, content))
        return strategy.answer(json.loads(content), position, pivot)


def other_world(value: str) -> str:
    """A value of the same length that differs from ``value`` in every position."""
    return "".join(
        ALPHABET[(ALPHABET.index(c) + len(ALPHABET) // 2) % len(ALPHABET)] for c in value
    )


def recovered_characters(first: Attempt, second: Attempt, secret: str, other: str) -> int:
    """Characters the attacker got right in both worlds (``secret`` vs ``other``)."""
    return sum(
        a == x and b == y
        for a, b, x, y in zip(first.recovered, second.recovered, secret, other, strict=True)
    )


# ------------------------------------------------------------------ probes


def boundary_probe(plane: ToolPlane) -> Callable[[str], str]:
    """Each probe is one ``query_mysql`` call of a fresh run; returns the model's content."""

    def probe(sql: str) -> str:
        boundary = plane.open_run()
        envelope = ToolCallEnvelope(
            run_id=boundary.run.run_id,
            tool_call_id="call_probe",
            tool_name="query_mysql",
            arguments=json.dumps({"datasource": DEMO_DATASOURCE, "sql": sql}),
        )
        return asyncio.run(boundary.call(envelope)).model_content()

    return probe


def unguarded_probe(backend: ReadOnlySqlBackend) -> Callable[[str], str]:
    """The same executor with no validator and no projector: the attack's control."""

    def probe(sql: str) -> str:
        plan = MysqlQueryPlan(
            datasource=DEMO_DATASOURCE,
            sql=sql,
            normalized_sql=sql,
            redacted_sql=sql,
            tables=[],
            columns=[],
            limit=100,
        )
        try:
            raw = backend.fetch(plan, max_raw_bytes=RAW_CAP)
        except BackendError as error:
            return json.dumps({"error_code": error.error_code.value})
        rows = [{"values": dict(zip(raw["columns"], row, strict=True))} for row in raw["rows"]]
        return json.dumps({"rows": rows})

    return probe


# ------------------------------------------------------------------ reading the content

Answer = Callable[[Mapping[str, Any], int, str], bool]


def _rows(content: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [row["values"] for row in content.get("rows") or []]


def _first(content: Mapping[str, Any], name: str) -> Any:
    rows = _rows(content)
    return rows[0].get(name) if rows else None


def _has_rows(content: Mapping[str, Any], position: int, pivot: str) -> bool:
    return bool(_rows(content))


def _first_equals(name: str, expected: object) -> Answer:
    def answer(content: Mapping[str, Any], position: int, pivot: str) -> bool:
        return bool(_first(content, name) == expected)

    return answer


def _first_is_set(name: str) -> Answer:
    def answer(content: Mapping[str, Any], position: int, pivot: str) -> bool:
        return _first(content, name) is not None

    return answer


def _failed(content: Mapping[str, Any], position: int, pivot: str) -> bool:
    return content.get("error_code") == "BACKEND_ERROR"


def _pivot_first(content: Mapping[str, Any], position: int, pivot: str) -> bool:
    rows = _rows(content)
    return bool(rows) and rows[0].get("id") == 0


def _shown_cell(content: Mapping[str, Any], position: int, pivot: str) -> bool:
    # Reads the cell as shown: the mask, or the value itself where nothing masks it.
    value = _first(content, "v")
    return isinstance(value, str) and len(value) >= position and value[position - 1] > pivot


_OVERFLOW = "ABS(-9223372036854775807 - 1)"  # an error on MariaDB (1690) and SQLite alike
_PIVOT_UNION = (
    "(SELECT id, {col} AS v FROM {t} WHERE id = {k} UNION ALL SELECT 0 AS id, '{hi}' AS v) AS u"
)

STRATEGIES: list[Strategy] = [
    Strategy(
        name="CASE WHEN SUBSTRING > c (computed cell)",
        kind="compare",
        template="SELECT id, CASE WHEN SUBSTRING({col}, {i}, 1) > '{c}' THEN 1 ELSE 0 END AS b "
        "FROM {t} WHERE id = {k}",
        answer=_first_equals("b", 1),
    ),
    Strategy(
        name="IF/HEX overflow (error oracle)",
        kind="compare",
        template=f"SELECT id, IF(HEX(SUBSTRING({{col}}, {{i}}, 1)) > '{{h}}', {_OVERFLOW}, 0) "
        "AS b FROM {t} WHERE id = {k}",
        answer=_failed,
    ),
    Strategy(
        name="division by zero (NULL oracle)",
        kind="compare",
        template="SELECT id, 1 / (HEX(SUBSTRING({col}, {i}, 1)) > '{h}') AS b "
        "FROM {t} WHERE id = {k}",
        answer=_first_is_set("b"),
    ),
    Strategy(
        name="HEX comparison in WHERE (row oracle)",
        kind="compare",
        template="SELECT id FROM {t} WHERE id = {k} AND HEX(SUBSTRING({col}, {i}, 1)) > '{h}'",
        answer=_has_rows,
    ),
    Strategy(
        name="COUNT(*) with a sensitive predicate",
        kind="compare",
        template="SELECT COUNT(*) AS n FROM {t} WHERE id = {k} AND {col} > '{hi}'",
        answer=_first_equals("n", 1),
    ),
    Strategy(
        name="WHERE LIKE prefix (scan)",
        kind="equal",
        template="SELECT id FROM {t} WHERE id = {k} AND {col} LIKE '{p}{c}%'",
        answer=_has_rows,
    ),
    Strategy(
        name="ORDER BY the column against a pivot row",
        kind="compare",
        template=f"SELECT u.id FROM {_PIVOT_UNION} ORDER BY u.v",
        answer=_pivot_first,
    ),
    Strategy(
        name="ORDER BY position against a pivot row",
        kind="compare",
        template=f"SELECT u.id, u.v FROM {_PIVOT_UNION} ORDER BY 2",
        answer=_pivot_first,
    ),
    Strategy(
        name="window ROW_NUMBER over the column",
        kind="compare",
        template=f"SELECT u.id, ROW_NUMBER() OVER (ORDER BY u.v) AS r FROM {_PIVOT_UNION} "
        "ORDER BY u.id",
        answer=_first_equals("r", 1),  # the pivot (id 0) ranks first: the value is greater
    ),
    Strategy(
        name="GROUP BY / HAVING",
        kind="compare",
        template="SELECT id, COUNT(*) AS n FROM {t} WHERE id = {k} GROUP BY id "
        "HAVING MAX(SUBSTRING({col}, {i}, 1)) > '{c}'",
        answer=_has_rows,
    ),
    Strategy(
        name="JOIN ON",
        kind="compare",
        template="SELECT a.id FROM {t} AS a JOIN {t} AS b ON b.id = a.id "
        "AND SUBSTRING(a.{col}, {i}, 1) > '{c}' WHERE a.id = {k}",
        answer=_has_rows,
    ),
    Strategy(
        name="JOIN USING a guessed prefix (scan)",
        kind="equal",
        template="SELECT a.id FROM (SELECT id, SUBSTRING({col}, 1, {i}) AS pre FROM {t} "
        "WHERE id = {k}) AS a JOIN (SELECT '{p}{c}' AS pre) AS g USING (pre)",
        answer=_has_rows,
    ),
    Strategy(
        name="CTE comparison filtered outside",
        kind="compare",
        template="WITH s AS (SELECT id, SUBSTRING({col}, {i}, 1) AS ch FROM {t}) "
        "SELECT s.id FROM s WHERE s.id = {k} AND s.ch > '{c}'",
        answer=_has_rows,
    ),
    Strategy(
        name="EXISTS subquery",
        kind="compare",
        template="SELECT o.id FROM {o} AS o WHERE o.id = (SELECT MIN(id) FROM {o}) AND EXISTS "
        "(SELECT 1 FROM {t} AS x WHERE x.id = {k} AND x.{col} > '{hi}')",
        answer=_has_rows,
    ),
    Strategy(
        name="scalar subquery with an overflow",
        kind="compare",
        template=f"SELECT (SELECT IF(SUBSTRING(x.{{col}}, {{i}}, 1) > '{{c}}', {_OVERFLOW}, 0) "
        "FROM {t} AS x WHERE x.id = {k}) AS b",
        answer=_failed,
    ),
    Strategy(
        name="UNION ALL with a plain column, filtered outside",
        kind="compare",
        template="SELECT u.v FROM (SELECT {oc} AS v FROM {o} WHERE id = 0 UNION ALL "
        "SELECT {col} FROM {t} WHERE id = {k}) AS u WHERE u.v > '{hi}'",
        answer=_has_rows,
    ),
    Strategy(
        name="UNION dedupe against a guessed prefix (scan)",
        kind="equal",
        template="SELECT COUNT(*) AS n FROM (SELECT SUBSTRING({col}, 1, {i}) AS v FROM {t} "
        "WHERE id = {k} UNION SELECT '{p}{c}') AS u",
        answer=_first_equals("n", 1),
    ),
    Strategy(
        name="bare read of the masked cell",
        kind="compare",
        template="SELECT id, {col} AS v FROM {t} WHERE id = {k}",
        answer=_shown_cell,
    ),
]
"""Oracles that work on both SQLite and MySQL/MariaDB."""

MYSQL_STRATEGIES: list[Strategy] = [
    Strategy(
        name="IF/ASCII overflow (error oracle)",
        kind="compare",
        template=f"SELECT id, IF(ASCII(SUBSTRING({{col}}, {{i}}, 1)) > {{n}}, {_OVERFLOW}, 0) "
        "AS b FROM {t} WHERE id = {k}",
        answer=_failed,
    ),
    Strategy(
        name="EXP overflow on ORD (error oracle)",
        kind="compare",
        template="SELECT id, EXP(IF(ORD(SUBSTRING({col}, {i}, 1)) > {n}, 1000, 1)) AS b "
        "FROM {t} WHERE id = {k}",
        answer=_failed,
    ),
]
"""Oracles over MySQL-only functions (SQLite has no ASCII, ORD, or an erroring EXP)."""


# ------------------------------------------------------------------ order oracles
#
# The oracles above compare a hidden value with a pivot the attacker chose. The ones below
# never name the hidden column in a computation: they read the order in which the database
# returns rows. When the access path is an index on a sensitive column (customers.email in
# the demo; any index on a token), that order *is* the order of the hidden values, so every
# construct whose result depends on it ranks hidden values against each other.
#
# An :class:`OrderTarget` is a set of rows whose hidden values sort before every other row of
# the table; the attacker tries to recover their order. The two worlds rank the same rows in
# opposite orders (same visible data), so a fixed guess is never right in both, and
# :func:`recovered_ranks` counts the ranks an attacker got right in both worlds.


@dataclass(frozen=True, kw_only=True)
class OrderTarget:
    """Rows whose hidden values the attacker ranks without computing on them.

    Attributes:
        table: Schema-qualified table.
        column: The sensitive (indexed) column; at most projected bare.
        ids: ``id`` of the rows whose hidden values sort first in the table, in any order.
    """

    table: str
    column: str
    ids: tuple[int, ...]


@dataclass(frozen=True, kw_only=True)
class OrderStrategy:
    """One order oracle.

    ``probes(target)`` lists the statements to send; ``infer(contents, target)`` turns what came
    back into the attacker's guess of the target ids in hidden-value order (a prefix may be
    enough; None marks a rank it could not read). ``backends`` names where the oracle works when nothing stops it.
    """

    name: str
    probes: Callable[[OrderTarget], list[str]]
    infer: Callable[[list[Mapping[str, Any]], OrderTarget], list[int | None]]
    backends: frozenset[str] = frozenset({"sqlite", "mariadb"})


@dataclass
class OrderAttempt:
    """What one order strategy got out of one world."""

    strategy: str
    inferred: list[int | None] = field(default_factory=list)
    transcript: list[tuple[str, str]] = field(default_factory=list)

    @property
    def tried(self) -> int:
        return len(self.transcript)

    @property
    def refused(self) -> int:
        return sum(
            json.loads(content).get("error_code") == "SQL_REJECTED"
            for _, content in self.transcript
        )


def run_order(probe: Probe, target: OrderTarget, strategy: OrderStrategy) -> OrderAttempt:
    """Send every probe of ``strategy`` and infer the order from what came back."""
    attempt = OrderAttempt(strategy=strategy.name)
    contents: list[Mapping[str, Any]] = []
    for sql in strategy.probes(target):
        content = probe(sql)
        attempt.transcript.append((sql, content))
        contents.append(json.loads(content))
    try:
        attempt.inferred = strategy.infer(contents, target)
    except (KeyError, TypeError, ValueError, IndexError):
        attempt.inferred = []  # nothing readable came back
    return attempt


def recovered_ranks(
    first: OrderAttempt, second: OrderAttempt, truth_a: list[int], truth_b: list[int]
) -> int:
    """Ranks the attacker placed right in both worlds (their true orders differ at every rank)."""
    return sum(
        a == x and b == y
        for a, b, x, y in zip(first.inferred, second.inferred, truth_a, truth_b, strict=False)
    )


def _targets_in(rows: list[Any], target: OrderTarget) -> list[int]:
    wanted = set(target.ids)
    out: list[int] = []
    for value in rows:
        if value in wanted and value not in out:
            out.append(value)
    return out


def _ids_of(content: Mapping[str, Any], name: str = "id") -> list[Any]:
    return [row.get(name) for row in _rows(content)]


def _first_rows(contents: list[Mapping[str, Any]], target: OrderTarget) -> list[int]:
    return _targets_in(_ids_of(contents[0]), target)


def _walk(name: str) -> Callable[[list[Mapping[str, Any]], OrderTarget], list[int]]:
    # One probe per rank: the value of column ``name`` in the probe's first row.
    def infer(contents: list[Mapping[str, Any]], target: OrderTarget) -> list[int]:
        return _targets_in([_first(content, name) for content in contents], target)

    return infer


def _growing_sets(contents: list[Mapping[str, Any]], target: OrderTarget) -> list[int]:
    # Probe k returns the set of the first k rows (shown sorted): the new member is rank k.
    seen: list[int] = []
    for content in contents:
        for value in _ids_of(content):
            if value not in seen:
                seen.append(value)
    return _targets_in(seen, target)


def _running_sums(contents: list[Mapping[str, Any]], target: OrderTarget) -> list[int]:
    # Probe k returns SUM(id) over the first k rows: successive differences are the ids.
    sums = [0, *(int(_first(content, "s")) for content in contents)]
    return _targets_in([b - a for a, b in pairwise(sums)], target)


def _by_column(name: str) -> Callable[[list[Mapping[str, Any]], OrderTarget], list[int]]:
    # The probe numbers rows in scan order (column ``name``): sort the targets by it.
    def infer(contents: list[Mapping[str, Any]], target: OrderTarget) -> list[int]:
        rows = [r for r in _rows(contents[0]) if r.get("id") in target.ids]
        return [r["id"] for r in sorted(rows, key=lambda r: r[name])]

    return infer


def _group_concat(contents: list[Mapping[str, Any]], target: OrderTarget) -> list[int]:
    # The projector may cut the cell (it ends with an ellipsis then): read the whole numbers.
    pieces = str(_first(contents[0], "g")).split(",")
    return _targets_in([int(v) for v in pieces if v.isdigit()], target)


def mysql_rand(seed: int, count: int) -> list[float]:
    """MySQL/MariaDB ``RAND(seed)``: the documented generator, value by value."""
    modulus = 0x3FFFFFFF
    mask = 0xFFFFFFFF  # the server truncates both products to 32 bits first
    first = ((seed * 0x10001 + 55555555) & mask) % modulus
    second = ((seed * 0x10000001) & mask) % modulus
    values: list[float] = []
    for _ in range(count):
        first = (first * 3 + second) % modulus
        second = (first + second + 33) % modulus
        values.append(first / modulus)
    return values


def _rand_positions(contents: list[Mapping[str, Any]], target: OrderTarget) -> list[int | None]:
    # MariaDB evaluates RAND(931) while it reads rows when the sort needs it, so the k-th row read
    # got the k-th value of the sequence. Only some rows are shown (sorted by that value); each
    # one shown gives its own rank.
    position = {value: k for k, value in enumerate(mysql_rand(931, 2000))}
    ranks: list[int | None] = [None] * len(target.ids)
    for row in _rows(contents[0]):
        rank = position.get(row.get("r"))
        if row.get("id") in target.ids and rank is not None and rank < len(ranks):
            ranks[rank] = row["id"]
    return ranks


def _overflow_order(contents: list[Mapping[str, Any]], target: OrderTarget) -> list[int]:
    # Probe (a, b) fails with "integer overflow" when a is read before b (see the template).
    before = {pair: _failed(c, 0, "") for pair, c in zip(_pairs(target), contents, strict=True)}
    return sorted(target.ids, key=lambda a: -sum(before[(a, b)] for b in target.ids if b != a))


def _pairs(target: OrderTarget) -> list[tuple[int, int]]:
    return [(a, b) for a in target.ids for b in target.ids if a != b]


_BIG = 9223372036854775807

ORDER_STRATEGIES: list[OrderStrategy] = [
    OrderStrategy(
        name="LIMIT without ORDER BY",
        probes=lambda t: [f"SELECT id, {t.column} AS v FROM {t.table} LIMIT {len(t.ids)}"],
        infer=_first_rows,
    ),
    OrderStrategy(
        name="LIMIT 1 OFFSET walk",
        probes=lambda t: [
            f"SELECT id, {t.column} AS v FROM {t.table} LIMIT 1 OFFSET {k}"
            for k in range(len(t.ids))
        ],
        infer=_walk("id"),
    ),
    OrderStrategy(
        name="ties of a constant ORDER BY",
        probes=lambda t: [
            f"SELECT id, {t.column} AS v FROM {t.table} ORDER BY id > 0 LIMIT {len(t.ids)}"
        ],
        infer=_first_rows,
        backends=frozenset({"sqlite"}),  # MariaDB's filesort does not keep the scan order
    ),
    OrderStrategy(
        name="GROUP_CONCAT without ORDER BY",
        probes=lambda t: [f"SELECT GROUP_CONCAT(id) AS g FROM {t.table}"],
        infer=_group_concat,
    ),
    OrderStrategy(
        name="ROW_NUMBER() OVER ()",
        probes=lambda t: [
            f"SELECT id, {t.column} AS v, ROW_NUMBER() OVER () AS r FROM {t.table} ORDER BY id"
        ],
        infer=_by_column("r"),
        backends=frozenset({"sqlite"}),  # MariaDB numbers OVER () rows in primary-key order
    ),
    OrderStrategy(
        name="running COUNT over a named window's ROWS frame",
        probes=lambda t: [
            f"SELECT id, {t.column} AS v, COUNT(*) OVER w AS r FROM {t.table} "
            "WINDOW w AS (ROWS UNBOUNDED PRECEDING) ORDER BY id"
        ],
        infer=_by_column("r"),
        backends=frozenset({"sqlite"}),  # as ROW_NUMBER() OVER (): MariaDB counts in key order
    ),
    OrderStrategy(
        name="first-row column of an implicit aggregate",
        probes=lambda t: [f"SELECT id, COUNT(*) AS n FROM {t.table}"],
        infer=_first_rows,
    ),
    OrderStrategy(
        name="SUM over a derived table with LIMIT (running sums)",
        probes=lambda t: [
            f"SELECT SUM(d.id) AS s FROM (SELECT id, {t.column} AS v FROM {t.table} LIMIT {k}) AS d"
            for k in range(1, len(t.ids) + 1)
        ],
        infer=_running_sums,
    ),
    OrderStrategy(
        name="MAX over a derived LIMIT 1 OFFSET walk",
        probes=lambda t: [
            f"SELECT MAX(d.id) AS m FROM (SELECT id, {t.column} AS v FROM {t.table} "
            f"LIMIT 1 OFFSET {k}) AS d"
            for k in range(len(t.ids))
        ],
        infer=_walk("m"),
    ),
    OrderStrategy(
        name="CTE with LIMIT (growing sets)",
        probes=lambda t: [
            f"WITH s AS (SELECT id, {t.column} AS v FROM {t.table} LIMIT {k}) SELECT s.id FROM s"
            for k in range(1, len(t.ids) + 1)
        ],
        infer=_growing_sets,
    ),
    OrderStrategy(
        name="IN subquery over a LIMIT (growing sets)",
        probes=lambda t: [
            f"SELECT o.id FROM {t.table} AS o WHERE o.id IN (SELECT x.id FROM "
            f"(SELECT id, {t.column} AS v FROM {t.table} LIMIT {k}) AS x) ORDER BY o.id"
            for k in range(1, len(t.ids) + 1)
        ],
        infer=_growing_sets,
    ),
    OrderStrategy(
        name="UNION ALL + LIMIT",
        probes=lambda t: [
            f"SELECT id, {t.column} AS v FROM {t.table} UNION ALL "
            f"SELECT id, {t.column} FROM {t.table} LIMIT {len(t.ids)}"
        ],
        infer=_first_rows,
    ),
    OrderStrategy(
        name="scalar subquery's first row",
        probes=lambda t: [f"SELECT (SELECT x.id FROM {t.table} AS x) AS id"],
        infer=_first_rows,
        backends=frozenset({"sqlite"}),  # MariaDB refuses a scalar subquery of many rows
    ),
    OrderStrategy(
        name="SUM partial-sum overflow (pairwise)",
        probes=lambda t: [
            f"SELECT SUM(CASE WHEN id = {a} THEN {_BIG} WHEN id = {b} THEN -{_BIG} ELSE 1 END) "
            f"AS s FROM {t.table}"
            for a, b in _pairs(t)
        ],
        infer=_overflow_order,
        backends=frozenset({"sqlite"}),  # MariaDB sums integers as DECIMAL: no overflow
    ),
    OrderStrategy(
        name="EXISTS stops at its first match (an error on an earlier row)",
        probes=lambda t: [
            f"SELECT EXISTS (SELECT 1 FROM {t.table} AS x WHERE CASE WHEN x.id = {a} "
            f"THEN ABS(x.id - x.id - {_BIG} - 1) WHEN x.id = {b} THEN 1 ELSE 0 END = 1) AS e"
            for a, b in _pairs(t)
        ],
        infer=_overflow_order,
        backends=frozenset({"sqlite"}),  # seen on SQLite; MariaDB's plan not verified here
    ),
]
"""Order oracles; ``backends`` says where each reads the scan order when unguarded."""

MYSQL_ORDER_STRATEGIES: list[OrderStrategy] = [
    OrderStrategy(
        name="ORDER BY RAND(seed)",
        probes=lambda t: [f"SELECT id, {t.column} AS v, RAND(931) AS r FROM {t.table} ORDER BY r"],
        infer=_rand_positions,
        backends=frozenset({"mariadb"}),
    ),
]
"""Order oracles over MySQL-only functions (SQLite has no seeded RAND)."""
