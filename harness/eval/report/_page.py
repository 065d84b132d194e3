"""The report page: header figures, the figure grid, the tables, inline CSS and the pager.

The page is one file that needs nothing else: the style and the few lines of script are inline,
the figures are inline SVG, and its Content-Security-Policy lets the page load nothing at all
and run no script but its own (allowed by hash), so even an unescaped text could not execute.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence
from html import escape

from harness.eval.outputs import EvalSummary
from harness.eval.report._figures import Figure
from harness.eval.report._svg import HEIGHT, WIDTH, fmt

__all__ = ["SCRIPT", "page"]

# Column widths of the runs table (percent), in the order of its columns.
_RUN_WIDTHS = "".join(
    f"table.runs th:nth-child({i}){{width:{w}%}}"
    for i, w in enumerate((19, 3, 6, 10, 8, 5, 4, 6, 18, 11, 10), start=1)
)

_STYLE = f"""
*{{box-sizing:border-box}}
body{{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:16px;color:#212121;
background:#fff}}
h1{{font-size:22px;margin:0 0 4px}} h2{{font-size:18px;margin:24px 0 8px}}
h3{{font-size:14px;font-weight:600;margin:0 0 6px;overflow-wrap:anywhere}}
code{{font:12px ui-monospace,SFMono-Regular,Menlo,monospace}}
.meta{{color:#546e7a;margin:2px 0}}
.stats{{display:flex;flex-wrap:wrap;gap:8px;margin:12px 0;padding:0;list-style:none}}
.stats li{{border:1px solid #cfd8dc;border-radius:6px;padding:6px 10px;min-width:110px}}
.stats b{{display:block;font-size:18px}}
.figs{{display:grid;grid-template-columns:repeat(3,{WIDTH + 20}px);gap:12px}}
figure{{margin:0;border:1px solid #cfd8dc;border-radius:6px;padding:6px 9px;
height:{HEIGHT + 80}px;overflow:hidden}}
figcaption{{font-weight:600;margin-bottom:4px}}
figure svg{{display:block}} figure .meta{{font-size:12px;overflow-wrap:anywhere}}
svg text{{fill:#263238}} svg .title{{font-weight:600}} svg .note{{fill:#78909c}}
svg .frame{{fill:none;stroke:#eceff1}} svg line.marker{{stroke:#263238;stroke-dasharray:3 3}}
svg text.marker{{font-size:10px}}
.badge{{border-radius:4px;padding:0 6px;color:#fff;font-size:12px}}
.badge.f{{background:#c62828}} .badge.e{{background:#ef6c00}} .badge.p{{background:#2e7d32}}
article{{border-left:4px solid #c62828;padding:6px 10px;margin:0 0 10px;background:#fafafa}}
article.e{{border-left-color:#ef6c00}}
article .question{{margin:2px 0 4px;font-style:italic;overflow-wrap:anywhere}}
article .released{{margin:2px 0;overflow-wrap:anywhere}} article ul.roots{{margin:2px 0 6px}}
table{{border-collapse:collapse;width:100%;table-layout:fixed}}
th,td{{border-bottom:1px solid #eceff1;padding:3px 6px;text-align:left;vertical-align:top;
overflow-wrap:break-word}}
th{{background:#eceff1;font-weight:600}}
table.diff td.exp{{background:#e8f5e9}} table.diff td.act{{background:#ffebee}}
table.diff th:first-child{{width:22%}}
table.runs{{font-size:12px}} table.runs td:first-child{{overflow-wrap:anywhere}}
{_RUN_WIDTHS}
table.runs tr.f td:nth-child(3){{color:#c62828}}
table.runs tr.e td:nth-child(3){{color:#ef6c00}} table.runs tr.p td:nth-child(3){{color:#2e7d32}}
.pager{{margin:6px 0;display:flex;gap:6px;align-items:center}}
.pager input{{width:5em}}
"""

SCRIPT = """
for (const nav of document.querySelectorAll("nav.pager")) {
  const pages = document.getElementById(nav.dataset.for).querySelectorAll(":scope > .page");
  const input = nav.querySelector("input");
  let current = 0;
  const show = (n) => {
    current = Math.max(0, Math.min(pages.length - 1, Number.isFinite(n) ? n : 0));
    pages.forEach((p, i) => { p.hidden = i !== current; });
    input.value = current + 1;
  };
  nav.addEventListener("click", (event) => {
    const button = event.target.closest("button");
    if (!button) return;
    const to = button.value;
    show(to === "first" ? 0 : to === "last" ? pages.length - 1 : current + Number(to));
  });
  input.addEventListener("change", () => show(Number(input.value) - 1));
}
"""
"""The page's only script: the pagers of the paged tables."""


def _csp() -> str:
    digest = base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()
    return (
        "default-src 'none'; style-src 'unsafe-inline'; "
        f"script-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"
    )


def _stats(summary: EvalSummary) -> str:
    items = [
        ("case runs", f"{summary.runs:,}", f"{summary.cases:,} cases"),
        ("pass rate", f"{summary.pass_rate:.1%}", f"{summary.passed:,} passed"),
        ("failed", f"{summary.failed:,}", "expectation not met"),
        ("errors", f"{summary.errors:,}", "no verdict"),
    ]
    if summary.repeat > 1:
        items.append(
            (f"pass@{summary.repeat}", f"{summary.pass_at_k:.1%}", f"all {summary.pass_all_k:.1%}")
        )
    items += [
        ("tokens", fmt(summary.total_tokens), f"in {fmt(summary.input_tokens)}"),
        (
            "latency p50",
            f"{fmt(summary.latency_p50_ms)} ms",
            f"p90 {fmt(summary.latency_p90_ms)} ms",
        ),
    ]
    if summary.cost_usd:
        items.append(("cost", f"${summary.cost_usd:.4f}", "at the runner's prices"))
    return (
        '<ul class="stats">'
        + "".join(
            f'<li>{escape(name)}<b>{escape(value)}</b><span class="meta">{escape(sub)}</span></li>'
            for name, value, sub in items
        )
        + "</ul>"
    )


def _figure(figure: Figure) -> str:
    note = f'<div class="meta">{escape(figure.note)}</div>' if figure.note else ""
    return (
        f'<figure id="{figure.id}"><figcaption>{escape(figure.caption)}</figcaption>'
        f"{figure.svg}{note}</figure>"
    )


def page(
    summary: EvalSummary, figures: Sequence[Figure], *, source: str, sections: Sequence[str]
) -> str:
    """The whole document; ``sections`` are already-escaped HTML (the tables)."""
    title = f"Evaluation report: {summary.model}"
    return "".join(
        [
            "<!DOCTYPE html>\n",
            '<html lang="en"><head><meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{_csp()}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{escape(title)}</title><style>{_STYLE}</style></head><body>",
            f"<h1>{escape(title)}</h1>",
            f'<p class="meta">from {escape(source)}</p>',
            _stats(summary),
            '<div class="figs">',
            *(_figure(f) for f in figures),
            "</div>",
            *sections,
            f"<script>{SCRIPT}</script></body></html>\n",
        ]
    )
