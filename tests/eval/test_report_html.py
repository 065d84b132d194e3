"""report.html as a document: self-contained, escaped, failing runs first, bounded in size.

The rendering in a real browser (the figures drawn, the pager working) is in
``test_report_render.py``.
"""

from __future__ import annotations

import base64
import hashlib
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from harness.eval.outputs import summarise, write_outputs
from harness.eval.report import FIGURE_IDS, REPORT_FILE, render_report, write_report
from harness.eval.report._svg import Bar, bar_groups, histogram
from harness.eval.report._tables import FAILURES_PAGE, MAX_FAILURES, RUNS_PAGE
from harness.eval.result import CaseOutcome, CaseRunError, CaseRunResult, ExpectationCheck
from harness.testing.eval_results import INJECTION, synthetic_rows
from serve.cli import main

REALISTIC_10K_MAX_BYTES = 3_000_000
"""The stated bound for 10,000 realistic case runs (about 2.4 MB as written)."""
WORST_10K_MAX_BYTES = 20_000_000
"""Any 10,000 case runs, even with every text at its longest and every character escaped."""


class _Doc(HTMLParser):
    """Start tags with their attributes, the text of each element id, in document order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts.append(data)
        else:
            self.text.append(data)

    def count(self, tag: str, **attrs: str | None) -> int:
        return sum(
            1 for t, a in self.tags if t == tag and all(a.get(k) == v for k, v in attrs.items())
        )


def _parse(html: str) -> _Doc:
    doc = _Doc()
    doc.feed(html)
    doc.close()
    return doc


def _report(rows: list[CaseRunResult]) -> str:
    return render_report(rows, summarise(rows, "offline"))


def _failing(case_id: str, outcome: CaseOutcome = CaseOutcome.FAILED) -> CaseRunResult:
    row = synthetic_rows(1)[0]
    checks = [
        ExpectationCheck(
            name="release", passed=True, expected="DiagnosisReport", actual="held-check"
        ),
        ExpectationCheck(
            name="fact:2", passed=False, expected="states maximum-pool-size", actual="not stated"
        ),
    ]
    return row.model_copy(
        update={
            "case_id": case_id,
            "outcome": outcome,
            "passed": False,
            "checks": checks if outcome is CaseOutcome.FAILED else [],
            "error": None if outcome is CaseOutcome.FAILED else CaseRunError.CASE_TIMEOUT,
            "release_kind": "DiagnosisReport" if outcome is CaseOutcome.FAILED else None,
        }
    )


def test_the_page_loads_nothing_and_runs_only_its_own_script() -> None:
    html = _report(synthetic_rows(60))
    doc = _parse(html)
    urls = [v for _, a in doc.tags for k, v in a.items() if k in {"src", "href"}]
    assert urls == []
    assert doc.count("link") == 0 and doc.count("iframe") == 0 and doc.count("img") == 0
    assert not re.search(r"https?://", html)
    assert len(doc.scripts) == 1
    digest = base64.b64encode(hashlib.sha256(doc.scripts[0].encode()).digest()).decode()
    csp = [a["content"] for t, a in doc.tags if a.get("http-equiv") == "Content-Security-Policy"]
    assert csp == [
        "default-src 'none'; style-src 'unsafe-inline'; "
        f"script-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"
    ]


def test_every_figure_is_an_inline_svg_with_drawn_marks() -> None:
    html = _report(synthetic_rows(200))
    for figure_id in FIGURE_IDS:
        start = html.index(f'<figure id="{figure_id}">')
        body = html[start : html.index("</figure>", start)]
        marks = _parse(body)
        assert marks.count("svg") == 1
        assert marks.count("rect") >= 2, figure_id
        assert marks.count("text") >= 3, figure_id


def test_empty_results_still_draw_every_figure() -> None:
    html = _report([])
    doc = _parse(html)
    assert [a["id"] for t, a in doc.tags if t == "figure"] == list(FIGURE_IDS)
    assert "every case run passed" in "".join(doc.text)


def test_a_histogram_bins_every_value_and_a_bar_chart_scales_each_group() -> None:
    svg = histogram("h", [0.0] * 6 + [5.0] * 3 + [10.0] * 3, unit="ms", bins=4)
    heights = [float(h) for h in re.findall(r'<rect [^>]*height="([0-9.]+)"', svg)]
    assert len(heights) == 3  # bins [0, 2.5) [2.5, 5) [5, 7.5) [7.5, 10]: the second is empty
    assert heights[0] == pytest.approx(2 * heights[1]) and heights[1] == heights[2]
    bars = bar_groups(
        "b",
        [("a", [Bar(label="x", value=10, text="10"), Bar(label="y", value=5, text="5")]),
         ("b", [Bar(label="z", value=1, text="1")])],
    )  # fmt: skip
    widths = [float(w) for w in re.findall(r'<rect [^>]*width="([0-9.]+)"', bars)]
    assert widths[0] == pytest.approx(2 * widths[1]) and widths[2] == widths[0]


def test_failing_runs_come_first_with_expected_and_actual_per_failed_check() -> None:
    passed = synthetic_rows(40)
    passed = [r for r in passed if r.outcome is CaseOutcome.PASSED][:5]
    rows = [passed[0], _failing("b-error", CaseOutcome.ERROR), passed[1], _failing("a-failed")]
    html = _report(rows + passed[2:])
    failures = html[html.index('<section id="failures">') : html.index('<section id="runs">')]
    assert failures.index("a-failed") < failures.index("b-error")
    diff = _parse(failures)
    text = "".join(diff.text)
    assert "fact:2states maximum-pool-sizenot stated" in text
    assert "held-check" not in text  # a check that held is no diff
    assert "no verdict: CASE_TIMEOUT" in text
    runs = html[html.index('<section id="runs">') :]
    order = [m.group(1) for m in re.finditer(r'<tr class="([fep])">', runs)]
    assert order == ["f", "e", "p", "p", "p", "p", "p"]


def test_data_cannot_open_or_close_an_element() -> None:
    rows = synthetic_rows(250, text=INJECTION)
    html = _report(rows)
    doc = _parse(html)
    assert len(doc.scripts) == 1
    assert doc.count("img") == 0 and doc.count("textarea") == 0
    assert not [k for _, a in doc.tags for k in a if k.startswith("on")]
    # The structure is what the rows make: one row per case run, pages of RUNS_PAGE rows.
    assert doc.count("tr", **{"class": "f"}) + doc.count("tr", **{"class": "e"}) + doc.count(
        "tr", **{"class": "p"}
    ) == len(rows)
    assert doc.count("tbody", **{"class": "page"}) == 3
    # And the texts are shown as they are, not dropped.
    shown = "".join(doc.text)
    assert INJECTION[:60] in shown


def test_ten_thousand_runs_make_a_bounded_paged_page() -> None:
    rows = synthetic_rows(10_000)
    html = _report(rows)
    size = len(html.encode())
    assert size < REALISTIC_10K_MAX_BYTES, size
    doc = _parse(html)
    pages = [a for t, a in doc.tags if t == "tbody" and a.get("class") == "page"]
    assert len(pages) == 10_000 // RUNS_PAGE
    assert ["hidden" in a for a in pages] == [False] + [True] * (len(pages) - 1)
    failing = sum(1 for r in rows if not r.passed)
    assert failing > MAX_FAILURES
    assert html.count("<article ") == MAX_FAILURES
    assert doc.count("div", **{"class": "page"}) == MAX_FAILURES // FAILURES_PAGE
    assert f"{failing - MAX_FAILURES:,} more failing case runs" in html


def test_the_longest_texts_keep_the_page_bounded() -> None:
    long_text = "<&" * 250  # 500 characters, the longest a check text may be, all escaped
    rows = [
        r.model_copy(
            update={
                "case_id": "<" * 2000,
                "tags": ["&" * 200] * 20,
                "tool_calls": {f"tool_{'<' * 50}_{i}": 1 for i in range(40)},
                "checks": [
                    ExpectationCheck(name=f"fact:{i}<", passed=False, expected=long_text,
                                     actual=long_text)
                    for i in range(30)
                ],
            }
        )
        for r in synthetic_rows(10_000)
    ]  # fmt: skip
    size = len(_report(rows).encode())
    assert size < WORST_10K_MAX_BYTES, size


def test_write_report_and_the_cli_rebuild_the_same_file(tmp_path: Path) -> None:
    rows = synthetic_rows(120)
    write_outputs(tmp_path, rows, "offline")
    path = write_report(tmp_path)
    assert path == tmp_path / REPORT_FILE
    first = path.read_text(encoding="utf-8")
    assert first == render_report(rows, summarise(rows, "offline"), source=str(tmp_path))
    path.unlink()
    assert main(["eval", "report", str(tmp_path)]) == 0
    assert path.read_text(encoding="utf-8") == first


def test_harness_eval_run_finds_the_report_through_its_hook(tmp_path: Path) -> None:
    """``harness eval run`` renders the report through the module its hook names."""
    from serve.cli.eval import REPORT_MODULE, _write_report

    assert REPORT_MODULE == "harness.eval.report"
    rows = synthetic_rows(30)
    write_outputs(tmp_path, rows, "offline")
    assert _write_report(tmp_path) == tmp_path / REPORT_FILE
    assert (tmp_path / REPORT_FILE).read_text(encoding="utf-8") == render_report(
        rows, summarise(rows, "offline"), source=str(tmp_path)
    )


def test_the_cli_refuses_a_folder_without_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", "report", str(tmp_path)]) == 2
    assert "FileNotFoundError" in capsys.readouterr().err
    assert not (tmp_path / REPORT_FILE).exists()


def test_a_failing_case_shows_its_question_what_it_released_and_the_missing_fact(
    tmp_path: Path,
) -> None:
    """A real case run whose expectation blames the red herring: the page says what was asked,
    which root cause was released instead, and which fact is missing."""
    import asyncio
    import json as jsonlib

    from actors.eval_executor import CaseExecutor
    from harness.eval.case import load_cases
    from tests.paths import REPO

    world = REPO / "tests" / "eval_cases" / "worlds" / "payouts"
    question = "Why does ledger-sync fail to send payouts since 06:00?"
    case = {
        "id": "blames-the-release",
        "question": question,
        "as_of": "2026-06-12T07:10:00Z",
        "world": {
            "kind": "files",
            "logs": {"paths": [str(world / "logs")]},
            "database": {"script": str(world / "payouts.sql"),
                         "policy": str(world / "sql-policy.json")},
            "runbooks": str(world / "runbooks"),
        },
        "expect": {"release": "DiagnosisReport",
                   "conclusions": [{"kind": "ROOT_CAUSE", "facts": [["5.2.1"]]}]},
    }  # fmt: skip
    cases = tmp_path / "cases"
    cases.mkdir()
    (cases / "wrong.cases.jsonl").write_text(jsonlib.dumps(case) + "\n")
    (loaded,) = load_cases(cases)
    row = asyncio.run(CaseExecutor(cache_dir=tmp_path / "cache").run(loaded, 0))
    assert not row.passed
    write_outputs(tmp_path / "out", [row], "offline-demo-model")
    html = write_report(tmp_path / "out").read_text(encoding="utf-8")
    failures = html[html.index('<section id="failures">') : html.index('<section id="runs">')]
    text = " ".join("".join(_parse(failures).text).split())
    assert f"Q: {question}" in text
    assert "released DiagnosisReport: Root cause: Certificate common_name " in text
    assert "root causes released:Certificate common_name payouts-client.ledger.example" in text
    assert (
        "ROOT_CAUSE:fact:1ROOT_CAUSE states: 5.2.1not stated; ROOT_CAUSE c1: 'Certificate "
        "common_name payouts-client.ledger.example"
    ) in text


def test_no_label_is_cut_or_drawn_outside_its_figure() -> None:
    from harness.eval.report._svg import WIDTH, text_width

    long = "TOOL_BUDGET_EXHAUSTED_BY_A_VERY_LONG_TAG"
    svg = bar_groups("b", [("", [Bar(label=long, value=1, text="1,234 · 1,000 runs")])])
    assert long in svg and "…" not in svg
    assert 'textLength="142.0" lengthAdjust="spacingAndGlyphs"' in svg  # drawn narrower, whole
    values = [float(v) for v in range(100)] + [10_000.0]
    svg = histogram("h", values, unit="ms", markers=[("p50", 50.0), ("p90", 10_000.0)])
    labels = re.findall(
        r'<text x="([0-9.]+)" y="([0-9.]+)" text-anchor="(\w+)" class="marker"[^>]*>([^<]+)<', svg
    )
    assert [label for *_, label in labels] == ["p50 50", "p90 10,000"]
    for x, y, anchor, label in labels:
        width = text_width(label, 10.0)
        start = float(x) - (width if anchor == "end" else 0.0)
        assert start >= 0 and start + width <= WIDTH and float(y) >= 10, label
