"""The ``query_mysql`` projector: what the model may see of a SQL result.

The validator decides whether a statement may run; this projector decides what the model sees
of its result, and the two never merge. From the executor's raw ``sql/v1`` result it builds a
bounded :class:`MysqlObservation`:

* every column whose ``PlanColumn.sensitive`` is true (any lineage source is a sensitive column,
  through expressions, aliases and subqueries) is shown as ``"***"`` whatever its value;
* other strings are redacted for secret-looking text, then cut to ``max_cell_chars`` with ``…``;
  hosts, pods and IPs in them are marked for the run to number (``<HOST#n>``);
  numbers, booleans and nulls keep their JSON types;
* at most ``max_rows`` rows, then rows dropped from the end until the serialised observation
  fits ``max_observation_bytes``; ``truncated`` says when anything was cut.

Harness-only facts: ``returned_count`` (rows the query returned) and one evidence identity per
distinct row *as the model sees it* — a short hash of its masked, redacted cells (hosts still
the class, so a row's identity is the same in every run). The
information-gain control counts these identities, and it steers the run (STOP_REQUIRED,
INFORMATION_SATURATED): had they hashed hidden values, "is this guess new evidence?" would
confirm a guessed secret.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from harness.contracts.errors import ProjectionError
from harness.contracts.invocation import EvidenceStatus
from harness.contracts.observation import (
    ColumnInfo,
    MysqlObservation,
    MysqlScope,
    Projection,
    ProjectionFacts,
    ResultRow,
)
from harness.projectors._marks import marked_values
from harness.redaction import PseudonymMarks, without_partial_mark
from harness.redaction import redact as default_redact
from harness.sql.plan import MysqlQueryPlan

__all__ = ["MASK", "RAW_FORMAT", "MysqlProjector", "MysqlProjectorLimits"]

MASK = "***"
RAW_FORMAT = "sql/v1"
ELLIPSIS = "…"
_BYTES_MARKER = "$base64"

Scalar = str | int | float | bool | None


@dataclass(frozen=True, kw_only=True)
class MysqlProjectorLimits:
    """Bounds of one ``query_mysql`` observation.

    Attributes:
        max_rows: Rows shown at most.
        max_cell_chars: Characters per string cell, the ellipsis included.
        max_observation_bytes: UTF-8 bytes of the serialised observation at most.
    """

    max_rows: int = 50
    max_cell_chars: int = 200
    max_observation_bytes: int = 8192

    def __post_init__(self) -> None:
        if self.max_rows < 0:
            raise ValueError("max_rows must not be negative")
        if self.max_cell_chars < 1:
            raise ValueError("max_cell_chars must be at least 1")
        if self.max_observation_bytes < 1:
            raise ValueError("max_observation_bytes must be at least 1")


@dataclass(frozen=True, kw_only=True)
class _Raw:
    columns: list[str]
    rows: list[list[Any]]
    row_count: int


class MysqlProjector:
    """``Projector`` for ``query_mysql``: raw ``sql/v1`` result → bounded observation.

    Args:
        limits: Row, cell and byte bounds.
        redact: Text → redacted text for string cells (:func:`harness.redaction.redact`
            when omitted).
    """

    def __init__(
        self,
        limits: MysqlProjectorLimits | None = None,
        *,
        redact: Callable[[str], str] | None = None,
    ) -> None:
        self.limits = limits or MysqlProjectorLimits()
        self._redact = redact or default_redact

    def project(self, tool_call_id: str, request: Any, raw: Any) -> Projection:
        """Build the observation and facts for one plan's raw result.

        Raises:
            ProjectionError: ``request`` is not a plan, the raw result is malformed, or its
                column count differs from the plan's; or not even an empty observation fits.
        """
        if not isinstance(request, MysqlQueryPlan):
            raise ProjectionError(message="not a MysqlQueryPlan", context={"reason": "not_a_plan"})
        plan = request
        parsed = _parse(raw, plan)
        names = _unique_names([c.name for c in plan.columns])
        masked = [c.sensitive for c in plan.columns]

        # Every returned row as the model would see it (masked, redacted, cut); the shown ones
        # become items, all of them become evidence identities.
        # Shown rows carry pseudonym marks; identities hash the class (``<HOST>``).
        max_rows = self.limits.max_rows
        truncated = parsed.row_count > min(len(parsed.rows), max_rows)
        marks = PseudonymMarks()
        seen_rows: list[list[Scalar]] = []
        shown_rows: list[list[Scalar]] = []
        for index, values in enumerate(parsed.rows):
            cells: list[Scalar] = []
            shown: list[Scalar] = []
            for value, mask in zip(values, masked, strict=True):
                cell, shown_cell, cut = self._cell(value, mask, marks if index < max_rows else None)
                cells.append(cell)
                shown.append(shown_cell)
                truncated = truncated or (cut and index < max_rows)
            seen_rows.append(cells)
            if index < max_rows:
                shown_rows.append(shown)
        rows = [
            ResultRow(ref=f"row:{index}", values=dict(zip(names, cells, strict=True)))
            for index, cells in enumerate(shown_rows)
        ]

        def observe(kept: Sequence[ResultRow], cut: bool) -> MysqlObservation:
            return MysqlObservation(
                tool_call_id=tool_call_id,
                evidence_status=(
                    EvidenceStatus.EVIDENCE_FOUND
                    if parsed.row_count
                    else EvidenceStatus.NO_EVIDENCE
                ),
                scope=MysqlScope(
                    datasource=plan.datasource,
                    tables=list(plan.tables),
                    sql=plan.redacted_sql,
                    limit=plan.limit,
                ),
                columns=[ColumnInfo(name=n, masked=m) for n, m in zip(names, masked, strict=True)],
                rows=list(kept),
                truncated=cut,
            )

        observation = observe(rows, truncated)
        if _size(observation) > self.limits.max_observation_bytes:
            # "truncated": true is one byte shorter than false, so the fit alone could keep every
            # row and merely flip the flag; an honest flag needs at least one row dropped.
            kept = max(0, min(self._fit(rows, observe(rows[:0], True)), len(rows) - 1))
            observation = observe(rows[:kept], True)
            # The arithmetic mirrors pydantic's compact JSON; the loop only guards that claim.
            while _size(observation) > self.limits.max_observation_bytes and observation.rows:
                observation = observe(observation.rows[:-1], True)
            if _size(observation) > self.limits.max_observation_bytes:
                raise ProjectionError(
                    message="an empty observation exceeds the byte limit",
                    context={
                        "reason": "scope_too_large",
                        "max_observation_bytes": self.limits.max_observation_bytes,
                    },
                )

        facts = ProjectionFacts(
            returned_count=parsed.row_count,
            evidence_identities=frozenset(_identity(names, cells) for cells in seen_rows),
        )
        return Projection(
            observation=observation,
            facts=facts,
            marks=marked_values(marks),
        )

    def _cell(
        self, value: Any, masked: bool, marks: PseudonymMarks | None
    ) -> tuple[Scalar, Scalar, bool]:
        """The cell as its identity hashes it, as it is shown (marked, when ``marks``), and
        whether the shown cell was cut."""
        if masked:
            return MASK, MASK, False
        if value is None or isinstance(value, bool | int | float):
            return value, value, False
        original = f"base64:{value[_BYTES_MARKER]}" if isinstance(value, dict) else value
        text = self._redact(original)
        cell, cut = self._cut(text)
        if marks is None:
            return cell, cell, cut
        shown, cut = self._cut(marks.mark(original, text))
        return cell, shown, cut

    def _cut(self, text: str) -> tuple[str, bool]:
        limit = self.limits.max_cell_chars
        if len(text) > limit:
            return without_partial_mark(text[: limit - 1]) + ELLIPSIS, True
        return text, False

    def _fit(self, rows: Sequence[ResultRow], empty: MysqlObservation) -> int:
        """How many leading rows fit the byte budget next to the empty observation."""
        budget = self.limits.max_observation_bytes - _size(empty)
        kept = 0
        for row in rows:
            # Each row costs its own JSON plus a separating comma after the first.
            cost = len(row.model_dump_json().encode("utf-8")) + (1 if kept else 0)
            if cost > budget:
                break
            budget -= cost
            kept += 1
        return kept


def _parse(raw: Any, plan: MysqlQueryPlan) -> _Raw:
    def bad(reason: str, **context: Any) -> ProjectionError:
        return ProjectionError(
            message="malformed sql result", context={"reason": reason, **context}
        )

    if not isinstance(raw, dict) or raw.get("format") != RAW_FORMAT:
        raise bad("format")
    if raw.get("datasource") != plan.datasource:
        raise bad("datasource")
    columns, rows, row_count = raw.get("columns"), raw.get("rows"), raw.get("row_count")
    if not isinstance(columns, list) or not all(isinstance(c, str) for c in columns):
        raise bad("columns")
    if len(columns) != len(plan.columns):
        raise bad("column_count", expected=len(plan.columns), actual=len(columns))
    if not isinstance(rows, list):
        raise bad("rows")
    if not isinstance(row_count, int) or isinstance(row_count, bool) or row_count < len(rows):
        raise bad("row_count")
    for index, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != len(columns):
            raise bad("row_shape", row=index)
        if not all(_is_cell(v) for v in row):
            raise bad("cell_type", row=index)
    return _Raw(columns=columns, rows=rows, row_count=row_count)


def _is_cell(value: Any) -> bool:
    if value is None or isinstance(value, bool | int | str):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    return (
        isinstance(value, dict)
        and set(value) == {_BYTES_MARKER}
        and isinstance(value[_BYTES_MARKER], str)
    )


def _unique_names(names: Sequence[str]) -> list[str]:
    # Observation rows are name → value maps, so `SELECT a.id, b.id` needs distinct keys.
    seen: set[str] = set()
    out: list[str] = []
    for name in names:
        candidate, n = name, 2
        while candidate in seen:
            candidate, n = f"{name}_{n}", n + 1
        seen.add(candidate)
        out.append(candidate)
    return out


def _identity(names: Sequence[str], row: Sequence[Any]) -> str:
    canonical = json.dumps(
        dict(zip(names, row, strict=True)),
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return "row:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def _size(observation: MysqlObservation) -> int:
    return len(observation.model_dump_json().encode("utf-8"))
