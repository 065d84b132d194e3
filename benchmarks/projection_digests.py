"""Digests of what the logs projector and the template miner produce, for before/after checks.

A speed change must leave every output as it was. Run this on two commits and compare::

    git worktree add /tmp/before <commit>   # or: git archive <commit> | tar -x -C /tmp/before
    (cd /tmp/before && PYTHONPATH=. python benchmarks/projection_digests.py) > before.json
    PYTHONPATH=. python benchmarks/projection_digests.py > after.json
    diff before.json after.json

Each line is one output's SHA-256 (16 hex digits): the cold observation (JSON), facts and every
event's template of a projection of four generated results (the bench_tool_plane 100k-line
demo result among them), the miner's templates for those messages, for synthetic lines, for the
loghub-2k sets (``$HARNESS_CORPORA_DIR/loghub``; skipped when absent) and for every fixture
system of ``tests/fixtures/logmining`` (with and without the projector's redacting guard).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

# bench_* and tests/ helpers are imported from the checkout this file belongs to.
REPO = Path(__file__).resolve().parents[1]
for path in (REPO, REPO / "benchmarks"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from bench_log_mining import synthetic_lines  # noqa: E402
from bench_logs_projector import synthetic_events  # noqa: E402

from harness.embedded.demo.generate_logs import generate_events  # noqa: E402
from harness.logmining import TemplateMiner, mine_lines  # noqa: E402
from harness.projectors._logs_cache import shared_cache  # noqa: E402
from harness.projectors._logs_raw import parse_raw  # noqa: E402
from harness.projectors._logs_select import RANKS  # noqa: E402
from harness.projectors.logs import LogsProjector  # noqa: E402
from harness.redaction import Pseudonyms, Redactor  # noqa: E402
from harness.tools.arguments import QueryLogsRequest  # noqa: E402
from tests.corpora import LOGHUB_FORMATS, CorpusMissing, load_loghub, require  # noqa: E402
from tests.fixtures.logmining.generate import SYSTEMS, VALIDATION  # noqa: E402
from tests.fixtures.logmining.generate import load as load_fixture  # noqa: E402
from tests.fixtures.logmining.generate_more import MORE_TUNING, MORE_VALIDATION  # noqa: E402


def _digest(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _projection_digests(name: str, events: list[dict[str, Any]]) -> dict[str, str]:
    raw = {"format": "embedded-jsonl/v1", "events": events, "matched": len(events)}
    request = QueryLogsRequest(start="2026-11-02T13:00:00Z", end="2026-11-02T15:00:00Z")
    shared_cache().clear()
    projection = LogsProjector().project("digest", request, raw)
    facts = projection.facts
    mined = LogsProjector()._mine(parse_raw(raw))
    groups = [(g.template_id, g.template, g.count, g.rank) for g in mined.groups]
    labels = [mined.groups[code // RANKS].template_id for code in mined.codes]
    firsts = [e["message"].partition("\n")[0] for e in events]
    return {
        # Marks as their bare class: the view before per-run pseudonyms, comparable across
        # versions; then as a new run numbers them.
        f"observation:{name}": _digest(
            # No projection's values: every mark resolves to its bare class.
            Pseudonyms().resolve(projection.observation.model_dump_json(), "", ())
        ),
        f"observation-numbered:{name}": _digest(
            projection.resolved(Pseudonyms()).model_dump_json()
        ),
        f"facts:{name}": _digest([facts.returned_count, sorted(facts.evidence_identities)]),
        f"labels:{name}": _digest([groups, labels]),
        f"miner:{name}": _digest([m.template for m in TemplateMiner().mine_batch(firsts)]),
    }


def main() -> None:
    out: dict[str, str] = {}
    results = {
        "demo100k": list(generate_events(100_000)),
        "demo20k-seed3": list(generate_events(20_000, seed=3)),
        "demo60k": list(generate_events()),
        "synthetic100k": synthetic_events(100_000),
    }
    for name, events in results.items():
        out.update(_projection_digests(name, events))
    lines = synthetic_lines(50_000)
    out["miner:synthetic-lines"] = _digest([m.template for m in TemplateMiner().mine_batch(lines)])
    try:
        loghub = require("loghub")
    except CorpusMissing:
        print("projection_digests: loghub corpus absent, its sets skipped", file=sys.stderr)
    else:
        for name, fmt in LOGHUB_FORMATS.items():
            mined = [
                (m["template_id"], m["template"])
                for m in mine_lines(load_loghub(loghub, name)[0], fmt)
            ]
            out[f"loghub:{name}"] = _digest(mined)
    for system in [*SYSTEMS, *VALIDATION, *MORE_TUNING, *MORE_VALIDATION]:
        contents = load_fixture(system)[0]
        miner = TemplateMiner()
        batch = [t.template for t in miner.mine_batch(contents)]
        matched = [miner.match(c).template for c in contents[:200]]
        out[f"fixture:{system}"] = _digest(
            [batch, [t.template for t in miner.templates()], matched]
        )
        guarded = TemplateMiner(guard=Redactor().redact).mine_batch(contents)
        out[f"fixture-guarded:{system}"] = _digest([t.template for t in guarded])
    for key in sorted(out):
        print(f"{key} {out[key]}")


if __name__ == "__main__":
    main()
