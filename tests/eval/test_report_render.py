"""report.html in a real browser: headless Chromium renders it to PNG, and the image is checked.

Each figure's box is read in the page itself: the test adds a probe script (allowed by adding
its hash to the page's Content-Security-Policy) that writes the boxes, the pager's state and
any sign of an executed injection into the document title, which ``--dump-dom`` prints. The
screenshot of the same document is then cropped to each box, and the crop must show ink.

Chromium comes from Debian's ``chromium`` package (``bash scripts/services.sh chromium``, run
by ``make services`` and ``.ci/run``): without it these tests skip, and under ``CI=true`` fail.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import itertools
import json
import os
import shutil
import signal
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from harness.eval.outputs import read_results, summarise
from harness.eval.report import FIGURE_IDS, render_report
from harness.eval.report._svg import HEIGHT, WIDTH
from harness.eval.report._tables import RUNS_PAGE
from harness.eval.result import CaseOutcome, CaseRunResult
from harness.testing.eval_results import INJECTION, synthetic_rows
from serve.cli import main

WINDOW = (1360, 1500)
MIN_INK = 0.03
"""Share of a figure's pixels that must differ from the white page (a blank one has 0)."""

PROBE = """
const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; };
const figs = {};
for (const f of document.querySelectorAll(".figs figure")) figs[f.id] = box(f.querySelector("svg"));
const table = document.getElementById("runs-table");
const state = () => {
  const pages = [...table.querySelectorAll(":scope > .page")];
  const shown = pages.filter((p) => !p.hidden);
  return {shown: shown.map((p) => pages.indexOf(p)), rows: shown.length ? shown[0].rows.length : 0};
};
const before = state();
const next = document.querySelector('nav[data-for="runs-table"] button[value="1"]');
if (next) next.click();
const after = state();
if (next) document.querySelector('nav[data-for="runs-table"] button[value="first"]').click();
document.title = JSON.stringify({figs, before, after, back: state(),
  pwned: document.documentElement.dataset.pwned || null, scripts: document.scripts.length});
"""


@pytest.fixture(scope="module")
def chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    reason = "headless Chromium is not installed: run `bash scripts/services.sh chromium` as root"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (fatal under CI=true)", pytrace=False)
    pytest.skip(reason)


def _with_probe(html: str) -> str:
    digest = base64.b64encode(hashlib.sha256(PROBE.encode()).digest()).decode()
    marker = "script-src 'sha256-"
    assert html.count(marker) == 1
    html = html.replace(marker, f"script-src 'sha256-{digest}' 'sha256-", 1)
    return html.replace("</body>", f"<script>{PROBE}</script></body>", 1)


# Headless Chromium now and then hangs on this VM (seen in a CI run: a screenshot that wrote
# nothing for 180 s, where it takes seconds). A hung browser says nothing about the page, so it
# is stopped with every process it started and started again, with a fresh profile, up to this
# many times; a page that really does not render fails every attempt.
_ATTEMPTS = 3
_ATTEMPT_TIMEOUT_S = 90


def _chromium(
    binary: str, page: Path, profile: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    for attempt in range(1, _ATTEMPTS + 1):
        try:
            return _chromium_once(
                binary, page, profile.with_name(f"{profile.name}-{attempt}"), *args
            )
        except subprocess.TimeoutExpired:
            if attempt == _ATTEMPTS:
                raise
    raise AssertionError("unreachable")


def _chromium_once(
    binary: str, page: Path, profile: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    command = [
        binary,
        "--headless",
        "--no-sandbox",  # the tests may run as root, where Chromium's sandbox refuses to start
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--hide-scrollbars",
        "--run-all-compositor-stages-before-draw",  # the screenshot waits for a whole frame
        "--force-device-scale-factor=1",
        f"--user-data-dir={profile}",
        f"--window-size={WINDOW[0]},{WINDOW[1]}",
        "--virtual-time-budget=5000",
        *args,
        page.as_uri(),
    ]
    # A session of its own, so that a hung browser is stopped with all its helper processes.
    with subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as process:
        try:
            stdout, stderr = process.communicate(timeout=_ATTEMPT_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


class _Title(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title = ""
        self._in = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._in = tag == "title"

    def handle_endtag(self, tag: str) -> None:
        self._in = False

    def handle_data(self, data: str) -> None:
        if self._in:
            self.title += data


def _render(chromium: str, html: str, tmp: Path) -> tuple[dict[str, Any], Image.Image]:
    """The probe's findings and the screenshot of ``html`` (with the probe)."""
    page = tmp / "report.html"
    page.write_text(_with_probe(html), encoding="utf-8")
    dumped = _chromium(chromium, page, tmp / "profile-dom", "--dump-dom")
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    parser = _Title()
    parser.feed(dumped.stdout)
    probe: dict[str, Any] = json.loads(parser.title)
    png = tmp / "report.png"
    shot = _chromium(chromium, page, tmp / "profile-png", f"--screenshot={png}")
    assert shot.returncode == 0 and png.exists(), shot.stderr[-2000:]
    with Image.open(png) as image:
        return probe, image.convert("RGB")


def _ink(image: Image.Image, box: list[float]) -> float:
    """Share of the pixels in ``box`` (CSS px = image px at scale 1) that are not white."""
    left, top, width, height = (round(v) for v in box)
    crop = image.crop((left, top, left + width, top + height))
    colours = crop.getcolors(maxcolors=width * height) or []
    white = sum(n for n, rgb in colours if rgb == (255, 255, 255))
    return 1 - white / (width * height)


def _html(rows: list[CaseRunResult]) -> str:
    return render_report(rows, summarise(rows, "offline"))


@pytest.fixture(scope="module")
def rendered(
    chromium: str, tmp_path_factory: pytest.TempPathFactory
) -> tuple[dict[str, Any], Image.Image]:
    """10,000 synthetic case runs, rendered once for the tests that only look."""
    return _render(chromium, _html(synthetic_rows(10_000)), tmp_path_factory.mktemp("report"))


def test_every_figure_is_drawn_where_the_page_puts_it(
    rendered: tuple[dict[str, Any], Image.Image],
) -> None:
    probe, image = rendered
    assert list(probe["figs"]) == list(FIGURE_IDS)
    assert image.size == WINDOW
    for figure_id, box in probe["figs"].items():
        left, top, width, height = box
        assert (width, height) == (WIDTH, HEIGHT), figure_id
        assert left >= 0 and left + width <= WINDOW[0], figure_id
        assert top >= 0 and top + height <= WINDOW[1], figure_id
        assert _ink(image, box) > MIN_INK, figure_id
    # Each figure sits in its own cell of the grid: no two boxes overlap.
    for a, b in itertools.combinations(probe["figs"].values(), 2):
        apart_x = a[0] + a[2] <= b[0] or b[0] + b[2] <= a[0]
        apart_y = a[1] + a[3] <= b[1] or b[1] + b[3] <= a[1]
        assert apart_x or apart_y, (a, b)


def test_the_pager_shows_one_page_of_runs_at_a_time(
    rendered: tuple[dict[str, Any], Image.Image],
) -> None:
    probe, _ = rendered
    assert probe["before"] == {"shown": [0], "rows": RUNS_PAGE}
    assert probe["after"] == {"shown": [1], "rows": RUNS_PAGE}
    assert probe["back"] == {"shown": [0], "rows": RUNS_PAGE}


def test_a_blank_figure_is_caught(chromium: str, tmp_path: Path) -> None:
    """The ink check can fail: the tool-usage figure with its drawing removed reads as blank."""
    html = _html(synthetic_rows(300))
    start = html.index('<figure id="fig-tools">')
    svg_start = html.index("<svg", start)
    svg_body = html.index(">", svg_start) + 1
    blank = html[:svg_body] + html[html.index("</svg>", svg_body) :]
    probe, image = _render(chromium, blank, tmp_path)
    inks = {figure_id: _ink(image, box) for figure_id, box in probe["figs"].items()}
    assert inks["fig-tools"] < 0.001
    assert all(ink > MIN_INK for figure_id, ink in inks.items() if figure_id != "fig-tools")


def test_an_injection_in_the_data_neither_runs_nor_breaks_the_layout(
    chromium: str, tmp_path: Path
) -> None:
    rows = synthetic_rows(1_000, text=INJECTION)
    probe, image = _render(chromium, _html(rows), tmp_path)
    assert probe["pwned"] is None
    assert probe["scripts"] == 2  # the page's pager and the probe, nothing else
    assert probe["before"] == {"shown": [0], "rows": RUNS_PAGE}
    for figure_id, box in probe["figs"].items():
        assert box[2:] == [WIDTH, HEIGHT], figure_id
        assert _ink(image, box) > MIN_INK, figure_id


def test_harness_eval_run_writes_a_report_that_renders(
    ray_cluster: None, chromium: str, tmp_path: Path
) -> None:
    """Real case runs through the CLI: report.html is written, and draws every figure."""
    incident = {
        "question": "Why does checkout-api return HTTP 500 since 14:05?",
        "as_of": "2026-11-02T15:00:00Z",
        "tags": ["demo", "root-cause"],
    }
    cases = [
        {"id": "incident", **incident, "expect": {"release": "DiagnosisReport",
         "facts": [["CHG-4821"]], "tools_called": ["query_logs", "query_mysql"]}},
        # The same run held to a fact it does not state and a token ceiling it exceeds.
        {"id": "incident-strict", **incident, "expect": {"release": "DiagnosisReport",
         "facts": [["HikariPool-7 exhausted at 14:03"]], "max_tokens": 10}},
        {"id": "chat", "question": "Hello! What can you do?", "tags": ["chat"],
         "expect": {"release": "Answer"}},
        {"id": "chat-wrong", "question": "Hello! What can you do?", "tags": ["chat"],
         "expect": {"release": "DiagnosisReport"}},
    ]  # fmt: skip
    root = tmp_path / "cases"
    root.mkdir()
    (root / "set.cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
    out = tmp_path / "out"

    code = main(["eval", "run", str(root), "--out", str(out), "--quiet", "--workers", "1"])

    assert code == 1  # two cases fail their expectations
    html = (out / "report.html").read_text(encoding="utf-8")
    rows = read_results(out)
    assert {r.case_id: r.outcome for r in rows} == {
        "set/incident": CaseOutcome.PASSED,
        "set/incident-strict": CaseOutcome.FAILED,
        "set/chat": CaseOutcome.PASSED,
        "set/chat-wrong": CaseOutcome.FAILED,
    }
    failures = html[html.index('<section id="failures">') : html.index('<section id="runs">')]
    assert "HikariPool-7 exhausted at 14:03" in failures and "max_tokens" in failures
    assert '<td class="exp">DiagnosisReport</td><td class="act">Answer</td>' in failures
    probe, image = _render(chromium, html, tmp_path)
    for figure_id, box in probe["figs"].items():
        assert box[2:] == [WIDTH, HEIGHT], figure_id
        assert _ink(image, box) > MIN_INK, figure_id
