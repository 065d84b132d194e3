"""False positives of the release checks on text that is benign by construction.

Three sources, none of them written by an attacker: the bundled runbooks (the demo's and the
billing world's), every step of which ``harness runbooks check`` would judge; the bundled
worlds' log messages and database text (the demo's 60 000 log events and ``shop.sql``, the
billing world's logs and ``billing.sql``), which a SafeFallback may quote and a conclusion may
repeat; and the look-alike (``fp``) rows of the shared secrets corpus.

Counted per source:

- runbook steps: their outcomes, and the steps withheld *for a hazard* (a prose hazard, an
  argument hazard, a pipe into an interpreter or onto the network, a blocklist class): each
  of those is a false positive, since the runbooks are benign. Steps withheld because the
  allowlist does not know them (unknown program, no known action) are listed apart: that is
  the policy (unknown is never safe), not a misreading;
- log, database and look-alike text: the items a fallback would withhold rather than quote
  (an injection or a dangerous command found), and the items a conclusion repeating them would
  be refused for (a directive), each a false positive.

Prints a table and, last, one JSON line. Usage: ``python benchmarks/bench_release_false_positives.py``.
"""

from __future__ import annotations

import gzip
import json
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from harness.backends.knowledge_embedded import runbook_texts  # noqa: E402
from harness.stepcheck import Allowlist  # noqa: E402
from harness.textcheck import dangerous_command, injection  # noqa: E402
from serve.cli.runbooks import runbook_steps  # noqa: E402
from tests.corpora import corpora_dir  # noqa: E402

DEMO = REPO / "harness" / "embedded" / "demo" / "data"
BILLING = REPO / "tests" / "fixtures" / "billing_world"
# Withheld for what the step does, not for being unknown: on benign runbooks, a misreading.
UNKNOWN = frozenset(
    {"NO_KNOWN_ACTION", "UNKNOWN_PROGRAM", "NOT_ALLOWLISTED", "UNPARSEABLE", "INTERACTIVE_CLIENT",
     "COMPOUND_COMMAND", "READS_INPUT", "NESTED_COMMAND", "SQL_NOT_READ_ONLY"}
)  # fmt: skip


def _runbook_steps() -> list[tuple[str, str]]:
    steps = []
    for folder in (DEMO / "runbooks", BILLING / "runbooks"):
        for path, text in runbook_texts(folder):
            steps += [
                (f"{folder.parent.name}/{path}:{line}", step) for line, step in runbook_steps(text)
            ]
    return steps


def _log_and_db_texts() -> dict[str, list[str]]:
    with gzip.open(DEMO / "logs.jsonl.gz", "rt", encoding="utf-8") as lines:
        demo_logs = [json.loads(line)["message"] for line in lines]
    billing_logs = []
    for path in sorted((BILLING / "logs").rglob("*")):
        if path.is_file():
            opener = gzip.open if path.suffix == ".gz" else open
            with opener(path, "rt", encoding="utf-8") as handle:  # type: ignore[operator]
                billing_logs += [line.rstrip("\n") for line in handle if line.strip()]
    db = [
        line.strip()
        for sql in (DEMO / "shop.sql", BILLING / "billing.sql")
        for line in sql.read_text(encoding="utf-8").splitlines()
        if line.strip().startswith("(") or "INSERT" in line
    ]
    return {"demo logs": demo_logs, "billing logs": billing_logs, "database rows": db}


def _lookalikes() -> list[str]:
    path = corpora_dir() / "secrets" / "gitleaks" / "gitleaks_rule_samples_dev.jsonl"
    if not path.exists():
        return []
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [row["text"] for row in rows if row.get("kind") == "fp"]


def main() -> int:
    allowlist = Allowlist()
    started = time.perf_counter()
    steps = _runbook_steps()
    outcomes: Counter[str] = Counter()
    hazards: Counter[str] = Counter()
    hazard_examples: list[str] = []
    for where, step in steps:
        verdict = allowlist.classify_step(step)
        outcomes[verdict.outcome] += 1
        if verdict.outcome == "WITHHELD" and verdict.reason not in UNKNOWN:
            hazards[verdict.reason] += 1
            hazard_examples.append(f"{where} {verdict.reason}: {step[:90]}")
    sources = {**_log_and_db_texts(), "secrets look-alikes": _lookalikes()}
    table = [("runbook steps", len(steps), sum(hazards.values()), dict(hazards))]
    for name, texts in sources.items():
        withheld: Counter[str] = Counter()
        for text in texts:
            found = injection(text) or dangerous_command(text)
            if found is not None:
                withheld[f"fact:{found}"] += 1
            directive = allowlist.directive(text)
            if directive is not None:
                withheld[f"directive:{directive}"] += 1
        table.append((name, len(texts), sum(withheld.values()), dict(withheld)))
    elapsed = time.perf_counter() - started
    print(f"{'source':<22} {'items':>7} {'flagged':>8} {'rate':>8}  classes")
    for name, items, flagged, classes in table:
        rate = flagged / items if items else 0.0
        print(f"{name:<22} {items:>7} {flagged:>8} {rate:>8.2%}  {classes}")
    print(f"runbook step outcomes: {dict(outcomes)}")
    for example in hazard_examples:
        print(f"  hazard on a benign step: {example}")
    print(
        json.dumps(
            {
                "bench": "release_false_positives",
                "seconds": round(elapsed, 2),
                "runbook_step_outcomes": dict(outcomes),
                "sources": {
                    name: {"items": items, "flagged": flagged, "classes": classes}
                    for name, items, flagged, classes in table
                },
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
