"""Benchmark the log template miner: grouping accuracy on loghub-2k and on systems nobody
tuned for, and mining throughput.

Run ``python benchmarks/bench_log_mining.py``. Prints a table of the five loghub-2k sets
(dataset | lines | our GA | Drain GA | drain3 GA | lines/s), a table of the synthetic fixture
systems of ``tests/fixtures/logmining`` (system | lines | events | GA before | GA | lines/s;
their headers detected as ``harness logs mine`` does; "before" is the miner before its rework (commit c2620f5),
recorded at commit c2620f5, for the eight systems of ``generate_more.py`` the miner at
commit 8d234ea, for the four of ``generate_shapes.py`` the miner at commit a3fd5f3 and for the
nine of ``generate_headers.py`` the header detection at 3a49ded, before they were written),
the throughput of mining 100k synthetic lines on one core, and as its last line one JSON
object with the same figures. The corpus is read from
``$HARNESS_CORPORA_DIR/loghub`` (default ``../shared/data/loghub``); without it the run says so
and exits with status 1.
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

# The corpus setting and the loghub helpers live in tests/corpora.py (benchmark and test
# helpers stay out of the installed package); make the repository root importable for them
# when this file is run as a script.
REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from harness.logmining import (  # noqa: E402
    TemplateMiner,
    detect_format,
    mine_lines,
    parse_log_format,
)
from harness.logmining.config import DEFAULT_MASKS  # noqa: E402
from tests.corpora import (  # noqa: E402
    DRAIN_PUBLISHED_GA,
    LOGHUB_FORMATS,
    LOGHUB_GA_FLOORS,
    CorpusMissing,
    grouping_accuracy,
    load_loghub,
    require,
)
from tests.fixtures.logmining.generate import SYSTEMS, VALIDATION  # noqa: E402
from tests.fixtures.logmining.generate import load as load_fixture  # noqa: E402
from tests.fixtures.logmining.generate_headers import (  # noqa: E402
    HEADERS_TUNING,
    HEADERS_VALIDATION,
)
from tests.fixtures.logmining.generate_more import MORE_TUNING, MORE_VALIDATION  # noqa: E402
from tests.fixtures.logmining.generate_shapes import (  # noqa: E402
    SHAPES_LATE,
    SHAPES_TUNING,
    SHAPES_VALIDATION,
)

FORMATS = LOGHUB_FORMATS
DRAIN_GA = DRAIN_PUBLISHED_GA
FIXTURES = REPO / "tests" / "fixtures" / "logmining"
# GA of the miner before the miner's rework (commit c2620f5) on the same systems, recorded once: the
# old miner is not kept in the tree (tests/fixtures/logmining/README.md).
BEFORE_GA: dict[str, float] = {
    "storage": 0.5153,
    "proxy": 0.0853,
    "mobile": 0.5842,
    "scheduler": 0.8275,
    "kernel": 0.9650,
    "webapp": 0.3967,
    "windows": 0.6340,
    "health": 0.6440,
    "cloud": 0.9090,
    "people": 0.0940,
    "mailer": 0.6375,
    "database": 0.6663,
    "iot": 0.4950,
    "ci": 0.4213,
    "sso": 0.7050,
    # The systems of generate_more.py, written later: GA of the miner at commit 8d234ea.
    "broker": 1.0,
    "dns": 0.6575,
    "kubelet": 0.7538,
    "balancer": 0.9738,
    "imap": 1.0,
    "runner": 1.0,
    "osd": 0.845,
    "cron": 0.4675,
    # The systems of generate_shapes.py, written later still: the miner at commit a3fd5f3.
    "netdev": 0.805,
    "jobs": 0.2975,
    "pbx": 0.705,
    "backup": 0.7312,
    # Written after the miner was changed for the four above, measured once (both at a3fd5f3).
    "mesh": 0.86,
    "warehouse": 0.9075,
    # The systems of generate_headers.py: the header detection before their shapes (3a49ded).
    "ras": 0.0112,
    "stream": 0.4412,
    "wearable": 0.8075,
    "desktop": 0.8625,
    "controller": 0.75,
    "edge": 1.0,
    "compute": 1.0,
    "cluster": 0.7575,
    "fabric": 0.5675,
}
# Which table rows each set of systems fills (see the fixtures' README.md).
SETS: dict[str, list[str]] = {
    "tuning": list(SYSTEMS),
    "validation": list(VALIDATION),
    "tuning-2": list(MORE_TUNING),
    "valid-2": list(MORE_VALIDATION),
    "tuning-3": list(SHAPES_TUNING),
    "valid-3": list(SHAPES_VALIDATION),
    "late-3": list(SHAPES_LATE),
    "tuning-4": list(HEADERS_TUNING),
    "valid-4": list(HEADERS_VALIDATION),
}


def load(data: Path, name: str) -> tuple[list[str], list[str]]:
    """Raw lines and ground-truth EventIds of one loghub-2k set."""
    return load_loghub(data, name)


def drain3_ids(contents: Sequence[str]) -> list[str]:
    """Reference: stock drain3 (in-memory config, our masks, defaults), mined then matched."""
    from drain3 import TemplateMiner as Drain3Miner
    from drain3.masking import MaskingInstruction
    from drain3.template_miner_config import TemplateMinerConfig

    config = TemplateMinerConfig()
    config.masking_instructions = [MaskingInstruction(p, "*") for p in DEFAULT_MASKS]
    miner = Drain3Miner(config=config)
    for content in contents:
        miner.add_log_message(content)
    ids = []
    for content in contents:
        cluster = miner.match(content, full_search_strategy="fallback")
        ids.append(cluster.get_template() if cluster is not None else content)
    return ids


def contents_of(lines: Sequence[str], fmt: str) -> list[str]:
    """Message contents of raw lines (lines that do not match the format are kept whole)."""
    pattern = parse_log_format(fmt)
    out = []
    for line in lines:
        found = pattern.match(line.strip())
        out.append(found.group("Content") if found else line)
    return out


def best_rate(count: int, run: Callable[[], object], repeats: int = 3) -> float:
    """Lines per CPU-second of the fastest of ``repeats`` runs.

    CPU time of this single-threaded process is what "one core" means, and unlike wall time
    it does not move when other work shares the machine.
    """
    best = float("inf")
    for _ in range(repeats):
        started = time.process_time()
        run()
        best = min(best, time.process_time() - started)
    return count / best


def synthetic_lines(count: int, seed: int = 7) -> list[str]:
    """Incident-like message contents: repeated events whose numbers, ids and hosts vary."""
    rng = random.Random(seed)
    shapes = [
        lambda: (
            f"GET /api/v1/orders/{rng.randint(1, 10**6)} returned 200 in {rng.randint(1, 900)}ms"
        ),
        lambda: (
            f"POST /api/v1/checkout failed status=500 latency_ms={rng.randint(100, 9000)} "
            f"trace_id={rng.getrandbits(64):016x}"
        ),
        lambda: (
            f"Connection to 10.0.{rng.randint(0, 255)}.{rng.randint(1, 254)}:{rng.randint(1024, 65535)} "
            f"timed out after {rng.randint(1, 30)}s"
        ),
        lambda: (
            f"HikariPool-1 - Connection is not available, request timed out after "
            f"{rng.randint(1000, 60000)}ms (total={rng.randint(1, 50)}, active={rng.randint(1, 50)})"
        ),
        lambda: (
            f"user {rng.choice(['alice', 'bob', 'carol', 'dave'])} logged in from "
            f"192.168.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
        ),
        lambda: (
            f"Processed batch {rng.randint(1, 10**5)} with {rng.randint(0, 500)} records "
            f"in {rng.random() * 10:.3f} s"
        ),
        lambda: (
            f"cache miss for key session:{rng.getrandbits(128):032x} on node cache-{rng.randint(1, 9)}"
        ),
        lambda: (
            f"Retrying payment {rng.randint(1, 10**7)} attempt {rng.randint(1, 5)}/5 "
            f"after error code={rng.randint(400, 599)}"
        ),
        lambda: "Health check passed",
        lambda: f"GC pause {rng.randint(1, 400)}ms, heap {rng.randint(100, 4000)}MB/{4096}MB",
    ]
    return [rng.choice(shapes)() for _ in range(count)]


def main() -> None:
    try:
        data = require("loghub")
    except CorpusMissing as missing:
        print(f"bench_log_mining: needs the loghub-2k corpus: {missing}", file=sys.stderr)
        raise SystemExit(1) from None
    rows = []
    for name, fmt in FORMATS.items():
        lines, truth = load(data, name)
        predicted = [str(m["template_id"]) for m in mine_lines(lines, fmt)]
        rate = best_rate(len(lines), lambda lines=lines, fmt=fmt: list(mine_lines(lines, fmt)))
        rows.append(
            {
                "dataset": name,
                "lines": len(lines),
                "ga": round(grouping_accuracy(predicted, truth), 4),
                "drain_ga": DRAIN_GA[name],
                "drain3_ga": round(
                    grouping_accuracy(drain3_ids(contents_of(lines, fmt)), truth), 4
                ),
                "lines_per_s": round(rate),
            }
        )
    systems = []
    for name in [name for names in SETS.values() for name in names]:
        lines, truth = load_fixture(name, FIXTURES)
        fmt = detect_format(lines)
        predicted = [str(m["template_id"]) for m in mine_lines(lines, fmt)]
        rate = best_rate(len(lines), lambda lines=lines, fmt=fmt: list(mine_lines(lines, fmt)))
        systems.append(
            {
                "system": name,
                "set": next(group for group, names in SETS.items() if name in names),
                "header": fmt.name,
                "lines": len(lines),
                "events": len(set(truth)),
                "ga_before": BEFORE_GA[name],
                "ga": round(grouping_accuracy(predicted, truth), 4),
                "lines_per_s": round(rate),
            }
        )
    synthetic = synthetic_lines(100_000)
    synthetic_rate = round(best_rate(len(synthetic), lambda: TemplateMiner().mine_batch(synthetic)))
    drain3_rate = round(best_rate(len(synthetic), lambda: drain3_ids(synthetic), repeats=1))
    miner = TemplateMiner()
    miner.mine_batch(synthetic)
    templates = len(miner.templates())

    header = (
        f"{'dataset':<10} | {'lines':>6} | {'our GA':>7} | {'Drain GA':>8} | "
        f"{'drain3 GA':>9} | {'lines/s':>8}"
    )
    print(header)
    print("-" * len(header))
    for r in rows:
        print(
            f"{r['dataset']:<10} | {r['lines']:>6} | {r['ga']:>7.4f} | {r['drain_ga']:>8.4f} | "
            f"{r['drain3_ga']:>9.4f} | {r['lines_per_s']:>8}"
        )
    mean_ga = round(sum(r["ga"] for r in rows) / len(rows), 4)
    mean_drain = round(sum(r["drain_ga"] for r in rows) / len(rows), 4)
    mean_drain3 = round(sum(r["drain3_ga"] for r in rows) / len(rows), 4)
    print("-" * len(header))
    print(f"{'mean':<10} | {'':>6} | {mean_ga:>7.4f} | {mean_drain:>8.4f} | {mean_drain3:>9.4f} |")
    print("Drain GA: published (logparser); drain3 GA: stock drain3 0.9 with the same masks.")
    below = [r["dataset"] for r in rows if float(r["ga"]) < LOGHUB_GA_FLOORS[str(r["dataset"])]]
    print(
        "Floors (our GA before the miner's rework): "
        + ", ".join(f"{name} {ga}" for name, ga in LOGHUB_GA_FLOORS.items())
        + (f"; BELOW: {', '.join(str(b) for b in below)}" if below else "; all held.")
    )
    print()
    fixture_header = (
        f"{'system':<10} | {'set':<10} | {'header':<8} | {'lines':>6} | {'events':>6} | "
        f"{'GA before':>9} | {'GA':>7} | {'lines/s':>8}"
    )
    print(fixture_header)
    print("-" * len(fixture_header))
    summary = {}
    for group in SETS:
        members = [r for r in systems if r["set"] == group]
        for r in members:
            print(
                f"{r['system']:<10} | {r['set']:<10} | {r['header']:<8} | {r['lines']:>6} | "
                f"{r['events']:>6} | {r['ga_before']:>9.4f} | {r['ga']:>7.4f} | "
                f"{r['lines_per_s']:>8}"
            )
        before = round(sum(float(r["ga_before"]) for r in members) / len(members), 4)
        after = round(sum(float(r["ga"]) for r in members) / len(members), 4)
        lowest = min(float(r["ga"]) for r in members)
        summary[group] = {"mean_ga_before": before, "mean_ga": after, "min_ga": lowest}
        print(
            f"{'mean':<10} | {group:<10} | {'':<8} | {'':>6} | {'':>6} | {before:>9.4f} | "
            f"{after:>7.4f} | (lowest {lowest:.4f})"
        )
        print("-" * len(fixture_header))
    print(
        "Fixture systems: tests/fixtures/logmining (tuning: the ten the miner was tuned on; "
        "validation: written after, not tuned on; GA before at c2620f5). tuning-2 and valid-2: "
        "generate_more.py, written for the rework's second pass (GA before at 8d234ea); "
        "valid-2 is not tuned on. tuning-3 and valid-3: generate_shapes.py, written for the "
        "third pass (GA before at a3fd5f3); valid-3 is not tuned on; late-3 was written after "
        "the miner changed for them and measured once. tuning-4 and valid-4: "
        "generate_headers.py, earlier systems' events behind header shapes the detection "
        "lacked (GA before at 3a49ded, lines mined whole); valid-4 is not tuned on."
    )
    print(
        f"synthetic: {len(synthetic)} lines, {templates} templates, {synthetic_rate} lines/s "
        f"on one core (drain3, same masks, add + match: {drain3_rate} lines/s)"
    )
    print(
        json.dumps(
            {
                "datasets": rows,
                "mean_ga": mean_ga,
                "mean_drain_ga": mean_drain,
                "mean_drain3_ga": mean_drain3,
                "fixture_systems": systems,
                "fixture_summary": summary,
                "synthetic_lines": len(synthetic),
                "synthetic_templates": templates,
                "synthetic_lines_per_s": synthetic_rate,
                "drain3_synthetic_lines_per_s": drain3_rate,
            }
        )
    )


if __name__ == "__main__":
    main()
