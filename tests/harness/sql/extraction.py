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
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from harness.adapters.embedded import ToolPlane
from harness.adapters.readonly_sql import ReadOnlySqlBackend
from harness.demo.database import DEMO_DATASOURCE
from harness.envelope import ToolCallEnvelope
from harness.errors import BackendError
from harness.sql.plan import MysqlQueryPlan

__all__ = [
    "ALPHABET",
    "MYSQL_STRATEGIES",
    "STRATEGIES",
    "Attempt",
    "Extractor",
    "Strategy",
    "Target",
    "boundary_probe",
    "other_world",
    "recovered_characters",
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
            raw = backend.fetch(plan)
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
