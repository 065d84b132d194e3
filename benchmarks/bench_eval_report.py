"""Evaluation report benchmark: report.html for 100 to 10,000 case runs, written and opened.

Prints a readable table and, as its last line, one JSON object with the same figures.

For each size, synthetic result rows (``harness.testing.eval_results.synthetic_rows``: 78 %
passed, 17 % failed with expectation diffs, 5 % errors) are rendered by
:func:`harness.eval.report.render_report`; the figures are the HTML size, the CPU time of the
rendering (``time.process_time``, which a loaded machine disturbs less than wall time), and
the wall time headless Chromium takes to load the page and take a screenshot of it, less the
same for an empty page (the browser's own start). The last column opens the same page with
every table page shown (no paging), which is what the paging saves. Each time is the median
of ``--repeats``. Goal: 10,000 case runs render in under 2 s of CPU, make under 3 MB of HTML,
and open in under 2 s more than an empty page. Usage:
``python benchmarks/bench_eval_report.py [--sizes 100,1000,10000] [--repeats 3]``
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from harness.eval.outputs import summarise
from harness.eval.report import render_report
from harness.testing.eval_results import synthetic_rows

GOAL_RENDER_CPU_S = 2.0
GOAL_BYTES = 3_000_000
GOAL_OPEN_S = 2.0
WINDOW = "1360,1500"


def _open_s(chromium: str, page: Path, work: Path, repeats: int) -> float:
    """Median wall seconds for Chromium to load ``page`` and write a screenshot of it."""
    times = []
    for i in range(repeats):
        started = time.perf_counter()
        subprocess.run(
            [
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--hide-scrollbars",
                "--run-all-compositor-stages-before-draw",
                "--force-device-scale-factor=1",
                f"--user-data-dir={work / f'profile-{page.stem}-{i}'}",
                f"--window-size={WINDOW}",
                f"--screenshot={work / f'{page.stem}.png'}",
                page.as_uri(),
            ],
            capture_output=True,
            check=True,
            timeout=300,
        )
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _unpaged(html: str) -> str:
    return html.replace('<tbody class="page" hidden>', '<tbody class="page">').replace(
        '<div class="page" hidden>', '<div class="page">'
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    sizes = [int(s) for s in args.sizes.split(",")]
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-eval-report-") as tmp:
        work = Path(tmp)
        empty = work / "empty.html"
        empty.write_text("<!DOCTYPE html><title>empty</title>", encoding="utf-8")
        base_s = _open_s(chromium, empty, work, args.repeats) if chromium else None
        for size in sizes:
            rows = synthetic_rows(size)
            summary = summarise(rows, "offline")
            cpu = []
            for _ in range(args.repeats):
                started = time.process_time()
                html = render_report(rows, summary)
                cpu.append(time.process_time() - started)
            figures: dict[str, float | int | None] = {
                "case_runs": size,
                "html_bytes": len(html.encode()),
                "render_cpu_s": round(statistics.median(cpu), 3),
                "open_s": None,
                "open_unpaged_s": None,
            }
            if chromium and base_s is not None:
                paged, unpaged = work / f"paged-{size}.html", work / f"unpaged-{size}.html"
                paged.write_text(html, encoding="utf-8")
                unpaged.write_text(_unpaged(html), encoding="utf-8")
                figures["open_s"] = round(_open_s(chromium, paged, work, args.repeats) - base_s, 3)
                figures["open_unpaged_s"] = round(
                    _open_s(chromium, unpaged, work, args.repeats) - base_s, 3
                )
            results.append(figures)

    print(f"{'case runs':>10} {'HTML bytes':>12} {'render CPU s':>13} {'open s':>8} "
          f"{'open unpaged s':>15}")  # fmt: skip
    for r in results:
        print(
            f"{r['case_runs']:>10,} {r['html_bytes']:>12,} {r['render_cpu_s']:>13.3f} "
            f"{'-' if r['open_s'] is None else format(r['open_s'], '.3f'):>8} "
            f"{'-' if r['open_unpaged_s'] is None else format(r['open_unpaged_s'], '.3f'):>15}"
        )
    largest = results[-1]
    goals = {
        "render_cpu_s": GOAL_RENDER_CPU_S,
        "html_bytes": GOAL_BYTES,
        "open_s": GOAL_OPEN_S,
    }
    met = all(largest[k] is not None and float(largest[k] or 0) < goal for k, goal in goals.items())
    print(
        f"goals at {largest['case_runs']:,} case runs: render < {GOAL_RENDER_CPU_S} s CPU, "
        f"HTML < {GOAL_BYTES:,} bytes, open < {GOAL_OPEN_S} s over an empty page "
        f"(empty page {base_s if base_s is None else round(base_s, 3)} s): "
        f"{'met' if met else 'NOT met' if chromium else 'open not measured (no chromium)'}"
    )
    print(
        json.dumps(
            {
                "bench": "eval_report",
                "empty_page_open_s": None if base_s is None else round(base_s, 3),
                "results": results,
                "goals": goals,
                "goals_met": met,
            }
        )
    )


if __name__ == "__main__":
    main()
