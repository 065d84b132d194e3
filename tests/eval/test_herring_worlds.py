"""The three red-herring worlds: their files are what their generator writes, their logs are
read by the format layer in formats no other world uses, and every case of theirs passes."""

from __future__ import annotations

import asyncio
import importlib.util
from collections import Counter
from types import ModuleType

import pytest

from actors.eval_executor import CaseExecutor
from harness.eval.case import load_cases
from harness.eval.result import CaseRunResult
from harness.logformats import ReadOptions, detect, read_events
from tests.paths import REPO

CASES = REPO / "tests" / "eval_cases"
WORLDS = CASES / "worlds"
HERRING_WORLDS = ("payouts", "thumbnails", "search")


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("herrings", WORLDS / "generate_herrings.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_worlds_are_what_their_generator_writes() -> None:
    files = generator().files()
    assert {name.split("/")[0] for name in files} == set(HERRING_WORLDS)
    for name, text in files.items():
        assert (WORLDS / name).read_text(encoding="utf-8") == text, name


def test_every_log_line_is_read_and_no_other_world_uses_these_formats() -> None:
    shapes: dict[str, str] = {}
    for path in sorted(p for w in HERRING_WORLDS for p in (WORLDS / w / "logs").iterdir()):
        lines = path.read_text(encoding="utf-8").splitlines()
        fmt = detect(lines).format
        assert fmt is not None, path
        records = list(read_events(lines, fmt, ReadOptions()))
        assert all(r.format == fmt.name for r in records), path  # nothing left unread
        assert all(r.service and r.level and r.time for r in records), path
        shapes[path.name] = lines[0][:4]
    # RFC 5424 and BSD syslog with a priority; ECS JSON (nested service.name, log.level) and
    # pino JSON (numeric level, epoch milliseconds).
    assert shapes == {
        "payouts.log": "<14>",
        "media.log": "<14>",
        "search-indexer.ndjson": '{"@t',
        "vault.log": '{"le',
    }
    others = [
        p for p in (REPO / "tests").rglob("*")
        if p.is_file() and p.suffix in {".log", ".jsonl", ".ndjson"}
        and "logs" in p.parts and not any(w in p.parts for w in HERRING_WORLDS)
    ]  # fmt: skip
    assert not [
        p for p in others if p.read_text(errors="replace").startswith(("<1", '{"@t', '{"le'))
    ]


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> dict[str, CaseRunResult]:
    loaded = [c for c in load_cases(CASES) if c.case_id.split("/")[0] in HERRING_WORLDS]
    executor = CaseExecutor(cache_dir=tmp_path_factory.mktemp("worlds"))

    async def run_all() -> dict[str, CaseRunResult]:
        return {c.case_id: await executor.run(c, 0) for c in loaded}

    return asyncio.run(run_all())


def test_every_case_of_the_herring_worlds_passes(rows: dict[str, CaseRunResult]) -> None:
    failing = {
        case_id: [c.name for c in row.failed_checks()]
        for case_id, row in rows.items()
        if not row.passed
    }
    assert failing == {}
    assert len(rows) == 8
    counts = Counter(case_id.split("/")[0] for case_id in rows)
    assert counts == {"payouts": 3, "thumbnails": 2, "search": 3}


def test_their_root_causes_are_the_true_causes_never_the_herrings(
    rows: dict[str, CaseRunResult],
) -> None:
    roots = {k: row.root_causes for k, row in rows.items()}
    expected = {
        "payouts": ("payouts-client.ledger.example", "5.2.1"),
        "thumbnails": ("thumb-cleanup", "CHG-5120"),
        "search": ("auto-unseal failed", "batch-size-v2"),
    }
    for case_id, found in roots.items():
        cause, herring = expected[case_id.split("/")[0]]
        if case_id.endswith("service-without-data"):
            assert found == [], case_id
        else:
            assert len(found) == 1 and cause in found[0] and herring not in found[0], case_id
