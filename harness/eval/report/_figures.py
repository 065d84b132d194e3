"""The report's five figures, each an inline SVG drawn from the result rows and the summary.

Figures have stable ids (``FIGURE_IDS``): the page places them in a fixed grid, and the
rendering test finds each one's box by its id.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from harness.eval.outputs import EvalSummary, percentile
from harness.eval.report._svg import Bar, bar_groups, fmt, histogram
from harness.eval.result import CaseOutcome, CaseRunResult

__all__ = ["FIGURE_IDS", "OUTCOME_COLOURS", "Figure", "figures"]

OUTCOME_COLOURS = {
    CaseOutcome.PASSED.value: "#2e7d32",
    CaseOutcome.FAILED.value: "#c62828",
    CaseOutcome.ERROR.value: "#ef6c00",
}
_KIND_COLOUR = "#5e35b1"
_REFUSED_COLOUR = "#8d6e63"
_NO_RELEASE = {"-": "nothing released"}  # how summary.json counts runs without a release
_MAX_TAGS = 10
_MAX_TOOLS = 8
_MAX_CODES = 3

FIGURE_IDS = ("fig-outcomes", "fig-tags", "fig-tokens", "fig-latency", "fig-tools")


@dataclass(frozen=True, kw_only=True)
class Figure:
    """One figure: its id, caption, the SVG and a note on what it leaves out (or empty)."""

    id: str
    caption: str
    svg: str
    note: str = ""


def figures(rows: Sequence[CaseRunResult], summary: EvalSummary) -> list[Figure]:
    """The five figures, in ``FIGURE_IDS`` order."""
    return [
        _outcomes(summary),
        _tags(summary),
        _tokens(rows, summary),
        _latency(rows, summary),
        _tools(rows, summary),
    ]


def _share(part: int, whole: int) -> str:
    return f"{part:,} ({part / whole:.0%})" if whole else "0"


def _outcomes(summary: EvalSummary) -> Figure:
    outcomes = [
        Bar(label=o, value=n, text=_share(n, summary.runs), colour=OUTCOME_COLOURS[o])
        for o in OUTCOME_COLOURS
        if (n := summary.outcomes.get(o, 0))
    ]
    kinds = [
        Bar(label=_NO_RELEASE.get(k, k), value=n, text=_share(n, summary.runs), colour=_KIND_COLOUR)
        for k, n in sorted(summary.release_kinds.items(), key=lambda kv: (-kv[1], kv[0]))
    ]
    svg = bar_groups(
        "Outcome distribution",
        [("Outcome", outcomes), ("Released", kinds)],
        scale_max=summary.runs,
        empty="no case runs",
    )
    return Figure(id="fig-outcomes", caption="Outcome distribution", svg=svg)


def _tags(summary: EvalSummary) -> Figure:
    ranked = sorted(summary.by_tag.items(), key=lambda kv: (-kv[1].runs, kv[0]))
    bars = [
        Bar(
            label=tag,
            value=t.pass_rate,
            text=f"{t.pass_rate:.0%} of {t.runs:,}",
            colour=_rate_colour(t.pass_rate),
        )
        for tag, t in ranked[:_MAX_TAGS]
    ]
    svg = bar_groups("Pass rate by tag", [("", bars)], scale_max=1.0, empty="no tags")
    left = len(ranked) - _MAX_TAGS
    note = f"the {_MAX_TAGS} tags with most runs; {left:,} more" if left > 0 else ""
    return Figure(id="fig-tags", caption="Pass rate by tag", svg=svg, note=note)


def _rate_colour(rate: float) -> str:
    if rate >= 1.0:
        return OUTCOME_COLOURS["PASSED"]
    return OUTCOME_COLOURS["ERROR"] if rate >= 0.9 else OUTCOME_COLOURS["FAILED"]


def _tokens(rows: Sequence[CaseRunResult], summary: EvalSummary) -> Figure:
    values = [float(r.tokens.total_tokens) for r in rows if r.tokens.model_calls]
    svg = histogram(
        "Token distribution",
        values,
        unit="total tokens per case run",
        markers=_quantiles(values),
        empty="no model calls",
    )
    notes = [f"in {fmt(summary.input_tokens)}", f"out {fmt(summary.output_tokens)}"]
    if summary.cost_usd:
        notes.append(f"${summary.cost_usd:.4f}")
    if len(values) < len(rows):
        notes.append(f"{len(rows) - len(values):,} runs without model calls")
    note = " · ".join(notes)
    return Figure(id="fig-tokens", caption="Token distribution", svg=svg, note=note)


def _latency(rows: Sequence[CaseRunResult], summary: EvalSummary) -> Figure:
    values = [r.latency_ms for r in rows]
    svg = histogram(
        "Latency distribution",
        values,
        unit="ms per case run",
        markers=[("p50", summary.latency_p50_ms), ("p90", summary.latency_p90_ms)]
        if values
        else [],
    )
    return Figure(id="fig-latency", caption="Latency distribution", svg=svg)


def _tools(rows: Sequence[CaseRunResult], summary: EvalSummary) -> Figure:
    ranked = sorted(summary.tool_calls.items(), key=lambda kv: (-kv[1], kv[0]))
    runs_with: Counter[str] = Counter()
    refused: Counter[str] = Counter()
    for row in rows:
        runs_with.update(t for t, n in row.tool_calls.items() if n)
        refused.update(row.tool_rejections)
    calls = [
        Bar(label=tool, value=n, text=f"{n:,} · {runs_with[tool]:,} runs")
        for tool, n in ranked[:_MAX_TOOLS]
    ]
    codes = [
        Bar(label=code, value=n, text=f"{n:,}", colour=_REFUSED_COLOUR)
        for code, n in sorted(refused.items(), key=lambda kv: (-kv[1], kv[0]))[:_MAX_CODES]
    ]
    svg = bar_groups(
        "Tool usage",
        [("Executed calls", calls), ("Refused requests", codes)],
        empty="no tool calls",
    )
    left = len(ranked) - _MAX_TOOLS
    note = f"{left:,} more tools in results.csv" if left > 0 else ""
    return Figure(id="fig-tools", caption="Tool usage", svg=svg, note=note)


def _quantiles(values: Sequence[float]) -> list[tuple[str, float]]:
    if not values:
        return []
    return [("p50", percentile(values, 0.5)), ("p90", percentile(values, 0.9))]
