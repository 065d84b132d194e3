"""Benchmark the format layer on real logs with ground truth, and the miner on raw files.

Run ``python benchmarks/bench_log_formats.py``. Two tables, then one JSON object with the same
figures:

* per module of ``$HARNESS_CORPORA_DIR/logformats`` (Filebeat module test logs, Apache-2.0;
  see that folder's README for how times compare): the expected events, how many the reader
  found (an output event starting on the expected event's first line), how many of their
  times and levels are right — beside the same figures for the loader before the format layer
  (``harness.backends.log_formats`` at commit 0255236, measured once: it is not kept in the
  tree; its levels are the ones its store held, INFO where the line gave none);
* per loghub-2k system of ``$HARNESS_CORPORA_DIR/loghub``: grouping accuracy when the miner
  mines the message column (each system's header format, as bench_log_mining) and when it
  mines the raw file with the header detected by the catalog, as ``harness logs mine`` does.

Times are compared as the README says: a time read with the line's own offset is converted
into the line's zone; any other is compared as wall clock; a year-less time by month, day and
time of day; all to the second. Levels are scored on events whose expected level falls in one
of the README's buckets (a FATAL bucket accepts ERROR).
"""

from __future__ import annotations

import json
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from harness.logformats import LogEvent, ReadOptions, ZoneSource, detect, read_events  # noqa: E402
from harness.logmining import detect_format, mine_lines  # noqa: E402
from tests.corpora import (  # noqa: E402
    LOGHUB_FORMATS,
    CorpusMissing,
    grouping_accuracy,
    load_loghub,
    require,
)

_BUCKETS = {
    **dict.fromkeys(("trace", "debug"), "DEBUG"),
    **dict.fromkeys(("info", "informational", "notice", "note", "system", "information"), "INFO"),
    **dict.fromkeys(("warn", "warning"), "WARN"),
    **dict.fromkeys(("err", "error"), "ERROR"),
    **dict.fromkeys(
        ("crit", "critical", "alert", "emerg", "emergency", "fatal", "panic", "severe"), "FATAL"
    ),
}
_LETTERS = {"D": "DEBUG", "I": "INFO", "W": "WARN", "E": "ERROR", "F": "FATAL"}
# The loader before the format layer (commit 0255236) on the same files, per module:
# [events, found, times right, events with a scored level, levels right].
BEFORE: dict[str, list[int]] = {
    "apache": [10, 0, 0, 4, 0],
    "elasticsearch": [1, 0, 0, 1, 0],
    "haproxy": [1, 1, 1, 0, 0],
    "icinga": [3, 3, 3, 3, 2],
    "iis": [4, 4, 4, 0, 0],
    "mysql": [14, 14, 14, 14, 9],
    "nginx": [11, 0, 0, 4, 0],
    "santa": [9, 9, 9, 9, 9],
    "system": [7, 6, 6, 0, 0],
}


def bucket(level: str | None) -> str | None:
    """The README's bucket of an expected level (None: not scored)."""
    if level is None:
        return None
    if len(level) == 1:
        return _LETTERS.get(level.upper())
    return _BUCKETS.get(level.lower())


def time_right(event: LogEvent, expected: dict[str, Any]) -> bool:
    """Whether the event's time is the expected one, compared as the README says."""
    if event.time is None:
        return False
    local = datetime.fromisoformat(expected["local_time"])
    stamp = datetime.fromisoformat(expected["timestamp"].replace("Z", "+00:00"))
    if event.zone is ZoneSource.LINE:
        offset = local - stamp.replace(tzinfo=None)
        got = event.time.astimezone(timezone(offset)).replace(tzinfo=None)
    else:
        got = event.time.replace(tzinfo=None)
    shape = "%Y-%m-%dT%H:%M:%S" if expected["line_has_year"] else "%m-%dT%H:%M:%S"
    return got.strftime(shape) == local.strftime(shape)


def level_right(event: LogEvent, expected_bucket: str) -> bool:
    """Whether the event's level is in the expected bucket (FATAL accepts ERROR)."""
    return event.level == expected_bucket or (expected_bucket == "FATAL" and event.level == "ERROR")


def score_file(path: Path) -> tuple[str, list[int]]:
    """The format detected for one file and its [events, found, times, levels scored, right]."""
    lines = path.read_text(encoding="utf-8").splitlines()
    detection = detect(lines)
    # Year-less times are compared without their year; any reference date does.
    options = ReadOptions(reference=datetime(2026, 12, 31))
    starts = {
        e.line: e for e in read_events(lines, detection.format, options) if e.format != "unparsed"
    }
    expected = [
        json.loads(x)
        for x in path.with_name(path.name + ".expected.jsonl").read_text().splitlines()
    ]
    counts = [0, 0, 0, 0, 0]
    for row in expected:
        counts[0] += 1
        want = bucket(row["level"])
        counts[3] += want is not None
        event = starts.get(row["line"])
        if event is None:
            continue
        counts[1] += 1
        counts[2] += time_right(event, row)
        counts[4] += want is not None and level_right(event, want)
    return detection.name, counts


def logformats_table(root: Path) -> list[dict[str, Any]]:
    """One row per module: counts before and after, and the formats detected."""
    modules: dict[str, dict[str, Any]] = {}
    for path in sorted(root.rglob("*.log")):
        module = path.relative_to(root).parts[0]
        name, counts = score_file(path)
        row = modules.setdefault(module, {"module": module, "formats": [], "after": [0] * 5})
        row["formats"].append(name)
        row["after"] = [a + b for a, b in zip(row["after"], counts, strict=True)]
    for row in modules.values():
        row["before"] = BEFORE.get(row["module"], [0] * 5)
    return list(modules.values())


def loghub_table(root: Path) -> list[dict[str, Any]]:
    """GA per loghub-2k system: the message column, and the raw file with detected headers."""
    rows = []
    for name, fmt in LOGHUB_FORMATS.items():
        lines, truth = load_loghub(root, name)
        column = [str(m["template_id"]) for m in mine_lines(lines, fmt)]
        detected = detect_format(lines)
        raw = [str(m["template_id"]) for m in mine_lines(lines, detected)]
        rows.append(
            {
                "system": name,
                "header": detected.name,
                "ga_column": round(grouping_accuracy(column, truth), 4),
                "ga_raw": round(grouping_accuracy(raw, truth), 4),
            }
        )
    return rows


def _share(right: int, total: int) -> str:
    return f"{right}/{total}" if total else "-"


def _cells(before: list[int], after: list[int]) -> str:
    return (
        " | ".join(
            f"{f'{b} -> {a}':>11}" for b, a in ((before[1], after[1]), (before[2], after[2]))
        )
        + f" | {f'{_share(before[4], before[3])} -> {_share(after[4], after[3])}':>14}"
    )


def main() -> None:
    try:
        formats_root = require("logformats")
        loghub_root = require("loghub")
    except CorpusMissing as missing:
        print(f"bench_log_formats: needs the corpora: {missing}", file=sys.stderr)
        raise SystemExit(1) from None
    modules = logformats_table(formats_root)
    header = (
        f"{'module':<14} | {'format':<24} | {'events':>6} | {'found':>11} | {'times right':>11} | "
        f"{'levels right':>14}"
    )
    print(header)
    print("-" * len(header))
    total_before, total_after = [0] * 5, [0] * 5
    for row in modules:
        b, a = row["before"], row["after"]
        total_before = [x + y for x, y in zip(total_before, b, strict=True)]
        total_after = [x + y for x, y in zip(total_after, a, strict=True)]
        formats = ",".join(sorted(set(row["formats"])))
        print(f"{row['module']:<14} | {formats:<24} | {a[0]:>6} | {_cells(b, a)}")
    print("-" * len(header))
    b, a = total_before, total_after
    print(f"{'total':<14} | {'':<24} | {a[0]:>6} | {_cells(b, a)}")
    print("found, times and levels: before (the loader at 0255236) -> after (the format layer)")
    print()
    hub = loghub_table(loghub_root)
    hub_header = f"{'system':<10} | {'header':<16} | {'GA column':>9} | {'GA raw':>7} | {'diff':>7}"
    print(hub_header)
    print("-" * len(hub_header))
    for row in hub:
        diff = row["ga_raw"] - row["ga_column"]
        print(
            f"{row['system']:<10} | {row['header']:<16} | {row['ga_column']:>9.4f} | "
            f"{row['ga_raw']:>7.4f} | {diff:>+7.4f}"
        )
    print(json.dumps({"logformats": modules, "total_before": b, "total_after": a, "loghub": hub}))


if __name__ == "__main__":
    main()
