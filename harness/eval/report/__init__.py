"""``report.html``: one self-contained page of figures and tables over an evaluation folder.

``write_report(out_dir)`` reads ``results.jsonl`` (and the model label of ``summary.json``)
and writes ``report.html`` beside them; ``harness eval run`` calls it after every run, and
``harness eval report DIR`` rebuilds it. The page needs no network: inline CSS, inline SVG
figures drawn here, a few lines of script for the pagers. It stays small and quick with
10,000 case runs: no data is inlined as JSON, tables are pre-rendered pages of which one shows,
and every text from the data is cut to a fixed length and escaped.

Figures (fixed size, ids in ``FIGURE_IDS``): outcome distribution (with the released kinds),
pass rate by tag, total tokens per case run, latency per case run, tool usage (with refused
requests by code). Then the failing case runs with expected vs actual per failed check, then
every case run, failing ones first.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from harness.eval.outputs import SUMMARY_FILE, EvalSummary, read_results, summarise
from harness.eval.report._figures import FIGURE_IDS, figures
from harness.eval.report._page import page
from harness.eval.report._tables import failures_section, runs_section
from harness.eval.result import CaseRunResult

__all__ = ["FIGURE_IDS", "REPORT_FILE", "render_report", "write_report"]

REPORT_FILE = "report.html"


def render_report(
    rows: Sequence[CaseRunResult], summary: EvalSummary, *, source: str = "results.jsonl"
) -> str:
    """The report document for ``rows`` (in output order) and their ``summary``."""
    return page(
        summary,
        figures(rows, summary),
        source=source,
        sections=[failures_section(rows), runs_section(rows)],
    )


def write_report(out_dir: Path) -> Path:
    """Render ``out_dir/report.html`` from ``out_dir/results.jsonl``; return its path.

    Raises:
        OSError: ``results.jsonl`` cannot be read.
        ValueError: a row of it is not a valid result row.
    """
    rows = read_results(out_dir)
    summary = summarise(rows, _model_label(out_dir, rows))
    path = out_dir / REPORT_FILE
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(render_report(rows, summary, source=str(out_dir)), encoding="utf-8")
    tmp.replace(path)
    return path


def _model_label(out_dir: Path, rows: Sequence[CaseRunResult]) -> str:
    """The label ``summary.json`` gives the model, else the rows' models."""
    try:
        label = json.loads((out_dir / SUMMARY_FILE).read_text(encoding="utf-8"))["model"]
    except (OSError, ValueError, KeyError, TypeError):
        label = None
    if isinstance(label, str) and label:
        return label
    return ", ".join(sorted({r.model for r in rows})) or "-"
