"""Precision of redaction: what it hides that it should not, on look-alikes and on the worlds.

Two sets of text, each redacted line by line with :func:`harness.redaction.redact`:

- the gitleaks rows of the shared secrets corpus (``secrets/gitleaks/*.jsonl`` under
  ``HARNESS_CORPORA_DIR``, default ``../shared/data``): ``fp`` rows are look-alikes, and
  *precision* is the share of them redaction leaves unchanged; ``tp`` rows hold a secret, and
  *recall* is the share it changes;
- the bundled worlds (the demo's ``logs.jsonl.gz``, the billing fixture, the eval worlds'
  logs): every distinct message; how many lines redaction changes at all (hosts, pods and IPs
  go by design) and how many it writes a ``<SECRET>`` into: those worlds plant few secrets,
  so most such lines are an identifier the diagnosis needed, hidden.

``--before PATH`` measures another checkout too (``git worktree add /tmp/main main``, or the
main checkout), in a subprocess with that checkout first on ``sys.path``, and lists every line
whose redaction differs between the two. Prints a table, then one JSON line.

Usage: ``python benchmarks/bench_redaction_precision.py [--before /work/main] [--show 40]``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def _corpora() -> Path:
    return Path(os.environ.get("HARNESS_CORPORA_DIR", REPO.parent / "shared" / "data"))


def _rows() -> dict[str, list[str]]:
    """The texts by set: ``gitleaks-fp``, ``gitleaks-tp``, ``worlds``."""
    sets: dict[str, list[str]] = {"gitleaks-fp": [], "gitleaks-tp": [], "worlds": []}
    for path in sorted((_corpora() / "secrets" / "gitleaks").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            sets[f"gitleaks-{row['kind']}"].append(row["text"])
    demo = REPO / "harness" / "embedded" / "demo" / "data" / "logs.jsonl.gz"
    with gzip.open(demo, "rt", encoding="utf-8") as handle:
        messages = {json.loads(line)["message"] for line in handle}
    sets["worlds"].extend(sorted(messages))
    worlds = [
        REPO / "tests" / "fixtures" / "billing_world",
        *(REPO / "tests/eval_cases/worlds").glob("*"),
    ]
    for world in worlds:
        for path in sorted((world / "logs").rglob("*")) if (world / "logs").is_dir() else ():
            if path.is_file():
                text = path.read_text(encoding="utf-8", errors="replace")
                sets["worlds"].extend(dict.fromkeys(text.splitlines()))
    return sets


def _redacted(sets: dict[str, list[str]]) -> dict[str, list[str]]:
    from harness.redaction import redact

    return {name: [redact(text) for text in texts] for name, texts in sets.items()}


def _figures(sets: dict[str, list[str]], out: dict[str, list[str]]) -> dict[str, Any]:
    def changed(name: str) -> int:
        return sum(a != b for a, b in zip(sets[name], out[name], strict=True))

    fp, tp, worlds = (len(sets[n]) for n in ("gitleaks-fp", "gitleaks-tp", "worlds"))
    return {
        "lookalike_rows": fp,
        "lookalike_precision": round(1 - changed("gitleaks-fp") / fp, 4) if fp else None,
        "secret_rows": tp,
        "secret_recall": round(changed("gitleaks-tp") / tp, 4) if tp else None,
        "world_lines": worlds,
        "world_lines_changed": changed("worlds"),
        "world_lines_secret": sum(
            "<SECRET>" in b and "<SECRET>" not in a
            for a, b in zip(sets["worlds"], out["worlds"], strict=True)
        ),
    }


def _before(path: Path) -> dict[str, list[str]]:
    """The other checkout's redaction of the same texts (this file run there as a child)."""
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); "
        "from harness.redaction import redact; "
        "sets = json.load(sys.stdin); "
        "json.dump({n: [redact(t) for t in ts] for n, ts in sets.items()}, sys.stdout)"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, "-c", code, str(path)],
        input=json.dumps(_rows()),
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=path,
    )
    result: dict[str, list[str]] = json.loads(done.stdout)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, help="another checkout to compare with")
    parser.add_argument("--show", type=int, default=40, help="changed lines listed per set")
    args = parser.parse_args()
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    sets = _rows()
    after = _redacted(sets)
    figures = {"after": _figures(sets, after)}
    if args.before is not None:
        before = _before(args.before)
        figures["before"] = _figures(sets, before)
        for name, texts in sets.items():
            diffs = [
                (text, old, new)
                for text, old, new in zip(texts, before[name], after[name], strict=True)
                if old != new
            ]
            figures.setdefault("changed", {})[name] = len(diffs)
            for text, old, new in diffs[: args.show]:
                print(
                    f"[{name}] {text[:160]!r}\n    before {old[:160]!r}\n    after  {new[:160]!r}"
                )
    print(
        f"{'':10} {'look-alike precision':>21} {'secret recall':>14} "
        f"{'world lines changed':>20} {'world lines <SECRET>':>21}"
    )
    for when in ("before", "after"):
        if when in figures:
            f = figures[when]
            print(
                f"{when:10} {f['lookalike_precision']:>21} {f['secret_recall']:>14} "
                f"{f['world_lines_changed']:>12} / {f['world_lines']} {f['world_lines_secret']:>21}"
            )
    print(json.dumps({"benchmark": "redaction_precision", **figures}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
