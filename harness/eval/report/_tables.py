"""The report's tables: the failing case runs with their expectation diffs, then every case run.

A failing case run shows its question, what it released (kind, summary, root causes) and,
per failed check, what was expected and what was found instead.

Both are cut into pages rendered here, on the server: the page shows one at a time (the others
carry ``hidden``, so the browser parses but never lays them out), which keeps a report of
10,000 case runs quick to open. Every text from the data is cut to a fixed length and escaped,
so a row has a bounded size and no case id or check text can open or close an element.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from html import escape

from harness.eval.report._svg import clip
from harness.eval.result import CaseOutcome, CaseRunResult

__all__ = [
    "FAILURES_PAGE",
    "MAX_FAILURES",
    "RUNS_PAGE",
    "failing_first",
    "failures_section",
    "runs_section",
]

RUNS_PAGE = 100
"""Case runs per page of the table of every case run."""
FAILURES_PAGE = 20
"""Failing case runs per page of the diffs."""
MAX_FAILURES = 1000
"""Failing case runs shown with their diffs; the rest are still rows of the runs table."""
MAX_FAILURES_BYTES = 4_000_000
"""And at most this much HTML of diffs (a thousand runs of long texts would be far more)."""
_MAX_CHECKS = 12  # failed checks shown per case run
_ID_CHARS = 100
_CELL_CHARS = 60
_DIFF_CHARS = 300
_TEXT_CHARS = 400

_RANK = {CaseOutcome.FAILED: 0, CaseOutcome.ERROR: 1, CaseOutcome.PASSED: 2}
_CLASS = {CaseOutcome.FAILED: "f", CaseOutcome.ERROR: "e", CaseOutcome.PASSED: "p"}


def _e(text: str, limit: int = _CELL_CHARS) -> str:
    return escape(clip(text, limit), quote=True)


def failing_first(rows: Sequence[CaseRunResult]) -> list[CaseRunResult]:
    """FAILED, then ERROR, then PASSED case runs, each in output order."""
    return sorted(rows, key=lambda r: _RANK[r.outcome])


def _pages(items: Sequence[str], size: int) -> Iterator[tuple[int, str]]:
    for start in range(0, len(items), size):
        yield start // size, "".join(items[start : start + size])


def _pager(target: str, pages: int) -> str:
    if pages <= 1:
        return ""
    return (
        f'<nav class="pager" data-for="{target}"><button value="first">«</button>'
        '<button value="-1">‹ prev</button>'
        f'<span>page <input type="number" min="1" max="{pages}" value="1"> of {pages}</span>'
        '<button value="1">next ›</button><button value="last">»</button></nav>'
    )


def _hidden(index: int) -> str:
    return "" if index == 0 else " hidden"


def _run_title(row: CaseRunResult) -> str:
    bits = [f"<code>{_e(row.case_id, _ID_CHARS)}</code> #{row.repeat}"]
    bits.append(f'<span class="badge {_CLASS[row.outcome]}">{row.outcome.value}</span>')
    if row.release_kind:
        bits.append(f"released {escape(row.release_kind)}")
    if row.failure_stage:
        bits.append(f"stage {escape(row.failure_stage)}")
    if row.error_code:
        bits.append(f"code {escape(row.error_code.value)}")
    if row.error:
        bits.append(f"no verdict: {escape(row.error.value)}")
    return " · ".join(bits)


def _released(row: CaseRunResult) -> list[str]:
    """The question and what the run released: its kind and summary, its root causes."""
    lines = []
    if row.question:
        lines.append(f'<p class="question">Q: {_e(row.question, _TEXT_CHARS)}</p>')
    if row.release_kind:
        summary = f": {_e(row.summary, _TEXT_CHARS)}" if row.summary else ""
        lines.append(f'<p class="released">released {escape(row.release_kind)}{summary}</p>')
    if row.root_causes:
        items = "".join(f"<li>{_e(r, _TEXT_CHARS)}</li>" for r in row.root_causes)
        lines.append(f'<p class="meta">root causes released:</p><ul class="roots">{items}</ul>')
    elif row.release_kind == "DiagnosisReport":
        lines.append('<p class="meta">no root cause released</p>')
    return lines


def _failure(row: CaseRunResult) -> str:
    failed = row.failed_checks()
    lines = [f'<article class="{_CLASS[row.outcome]}"><h3>{_run_title(row)}</h3>']
    lines += _released(row)
    extra = [
        ("evidence issues", row.evidence_issues),
        ("semantic verdicts", row.semantic_verdicts),
        ("validation issues", row.validation_issues),
    ]
    for name, values in extra:
        if values:
            lines.append(f'<p class="meta">{name}: {_e(", ".join(values), _DIFF_CHARS)}</p>')
    if failed:
        lines.append(
            '<table class="diff"><thead><tr><th>check</th><th>expected</th><th>actual</th>'
            "</tr></thead><tbody>"
        )
        for check in failed[:_MAX_CHECKS]:
            lines.append(
                f"<tr><td><code>{_e(check.name)}</code></td>"
                f'<td class="exp">{_e(check.expected, _DIFF_CHARS)}</td>'
                f'<td class="act">{_e(check.actual, _DIFF_CHARS)}</td></tr>'
            )
        lines.append("</tbody></table>")
        if len(failed) > _MAX_CHECKS:
            lines.append(
                f'<p class="meta">{len(failed) - _MAX_CHECKS} more failed checks '
                "in results.jsonl</p>"
            )
    elif row.outcome is CaseOutcome.FAILED:
        lines.append('<p class="meta">no failed check recorded</p>')
    lines.append("</article>")
    return "".join(lines)


def failures_section(rows: Sequence[CaseRunResult]) -> str:
    """The failing case runs first (FAILED, then ERROR) with expected vs actual per check."""
    failing = [r for r in failing_first(rows) if r.outcome is not CaseOutcome.PASSED]
    head = f'<section id="failures"><h2>Failing case runs ({len(failing):,})</h2>'
    if not failing:
        return head + '<p class="meta">every case run passed</p></section>'
    shown: list[str] = []
    size = 0
    for row in failing[:MAX_FAILURES]:
        html = _failure(row)
        size += len(html)
        if size > MAX_FAILURES_BYTES:
            break
        shown.append(html)
    pages = list(_pages(shown, FAILURES_PAGE))
    parts = [head, _pager("failures-pages", len(pages)), '<div id="failures-pages" class="paged">']
    parts.extend(f'<div class="page"{_hidden(i)}>{html}</div>' for i, html in pages)
    parts.append("</div>")
    if len(failing) > len(shown):
        parts.append(
            f'<p class="meta">the first {len(shown):,} shown; {len(failing) - len(shown):,} '
            "more failing case runs are rows of the table below and of results.jsonl</p>"
        )
    parts.append("</section>")
    return "".join(parts)


_RUN_COLUMNS = (
    "case",
    "#",
    "outcome",
    "released",
    "intent",
    "tokens",
    "calls",
    "latency ms",
    "tools",
    "failed checks",
    "tags",
)


def _run_row(row: CaseRunResult) -> str:
    tools = " ".join(f"{t}×{n}" for t, n in row.tool_calls.items())
    return (
        f'<tr class="{_CLASS[row.outcome]}"><td>{_e(row.case_id, _ID_CHARS)}<td>{row.repeat}'
        f"<td>{row.outcome.value}<td>{escape(row.release_kind or '')}"
        f"<td>{row.intent.value if row.intent else ''}"
        f"<td>{row.tokens.total_tokens}<td>{row.tokens.model_calls}<td>{row.latency_ms:.0f}"
        f"<td>{_e(tools)}<td>{_e(' '.join(c.name for c in row.failed_checks()))}"
        f"<td>{_e(' '.join(row.tags))}</tr>"
    )


def runs_section(rows: Sequence[CaseRunResult]) -> str:
    """Every case run, failing ones first, in pages of ``RUNS_PAGE`` rows."""
    ordered = failing_first(rows)
    pages = list(_pages([_run_row(r) for r in ordered], RUNS_PAGE))
    head = "".join(f"<th>{name}</th>" for name in _RUN_COLUMNS)
    parts = [
        f'<section id="runs"><h2>All case runs ({len(rows):,})</h2>',
        _pager("runs-table", len(pages)),
        f'<table id="runs-table" class="runs paged"><thead><tr>{head}</tr></thead>',
    ]
    parts.extend(f'<tbody class="page"{_hidden(i)}>{html}</tbody>' for i, html in pages)
    parts.append("</table></section>")
    return "".join(parts)
