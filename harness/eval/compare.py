"""Comparing two evaluation folders case run by case run (``harness eval compare A B``).

A case run that passed in A and does not in B is a regression; the reverse an improvement.
Other changes (release kind, tokens far apart) are listed as changes. Runs only one side
holds are listed apart and change nothing of the verdict. Regressions come first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from harness.eval.result import CaseRunResult

__all__ = ["CaseDiff", "Comparison", "DiffKind", "compare"]


class DiffKind(str, Enum):
    REGRESSION = "REGRESSION"
    IMPROVEMENT = "IMPROVEMENT"
    CHANGED = "CHANGED"
    ONLY_A = "ONLY_A"
    ONLY_B = "ONLY_B"


_ORDER = list(DiffKind)


@dataclass(frozen=True, kw_only=True)
class CaseDiff:
    kind: DiffKind
    case_id: str
    repeat: int
    before: str
    """A's side, as one line (outcome, release kind, failing checks)."""
    after: str


@dataclass(frozen=True, kw_only=True)
class Comparison:
    diffs: list[CaseDiff]
    common: int

    @property
    def regressions(self) -> list[CaseDiff]:
        return [d for d in self.diffs if d.kind is DiffKind.REGRESSION]

    @property
    def improvements(self) -> list[CaseDiff]:
        return [d for d in self.diffs if d.kind is DiffKind.IMPROVEMENT]


def compare(a: Sequence[CaseRunResult], b: Sequence[CaseRunResult]) -> Comparison:
    """Per-case differences of ``b`` against ``a``: regressions, improvements, then the rest."""
    left = {r.key: r for r in a}
    right = {r.key: r for r in b}
    diffs: list[CaseDiff] = []
    for key in sorted(left.keys() | right.keys()):
        before, after = left.get(key), right.get(key)
        if before is None or after is None:
            kind = DiffKind.ONLY_B if before is None else DiffKind.ONLY_A
        elif before.passed and not after.passed:
            kind = DiffKind.REGRESSION
        elif after.passed and not before.passed:
            kind = DiffKind.IMPROVEMENT
        elif _line(before) != _line(after):
            kind = DiffKind.CHANGED
        else:
            continue
        diffs.append(
            CaseDiff(
                kind=kind,
                case_id=key[0],
                repeat=key[1],
                before=_line(before) if before else "-",
                after=_line(after) if after else "-",
            )
        )
    diffs.sort(key=lambda d: (_ORDER.index(d.kind), d.case_id, d.repeat))
    return Comparison(diffs=diffs, common=len(left.keys() & right.keys()))


def _line(row: CaseRunResult) -> str:
    parts = [row.outcome.value, row.release_kind or (row.error.value if row.error else "-")]
    if row.failure_stage:
        parts.append(row.failure_stage)
    if row.error_code:
        parts.append(row.error_code.value)
    failed = [c.name for c in row.failed_checks()]
    if failed:
        parts.append("failed: " + ", ".join(failed))
    return " ".join(parts)
