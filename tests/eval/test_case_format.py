"""Case format: folders and JSONL rows parse strictly, ids are stable, bad input has a code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.contracts.errors import ErrorCode
from harness.eval.case import (
    Case,
    CaseError,
    DemoWorld,
    FilesWorld,
    ReplayWorld,
    load_cases,
)
from tests.paths import REPO

CASES = REPO / "tests" / "eval_cases"


def _folder(root: Path, name: str, body: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "case.toml").write_text(body)
    return folder


BODY = 'question = "Why 500?"\n[expect]\nrelease = "DiagnosisReport"\n'


def test_folder_and_rows_get_stable_ids_from_their_paths(tmp_path: Path) -> None:
    _folder(tmp_path, "b/one", BODY)
    _folder(tmp_path, "a", BODY)
    rows = [
        {"id": "named", "question": "q", "expect": {"release": "Answer"}},
        {"question": "q2", "expect": {"release": ["Answer", "SafeFallback"]}},
    ]
    (tmp_path / "set.cases.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    # World data in JSON lines is not a case file.
    (tmp_path / "b" / "one" / "app.jsonl").write_text('{"ts": "x"}\n')
    (tmp_path / "logs.jsonl").write_text('{"ts": "x"}\n')

    first = load_cases(tmp_path)
    again = load_cases(tmp_path)

    assert [c.case_id for c in first] == ["a", "b/one", "set/line-2", "set/named"]
    assert [c.case_id for c in again] == [c.case_id for c in first]
    assert [c.order for c in first] == [0, 1, 2, 3]
    assert first[2].case.expect.release == ["Answer", "SafeFallback"]
    assert first[0].base_dir == (tmp_path / "a").resolve()
    assert first[2].base_dir == tmp_path.resolve()


def test_unknown_fields_and_bad_values_are_refused_with_a_stable_code(tmp_path: Path) -> None:
    _folder(tmp_path, "typo", BODY.replace("release", "relase"))
    with pytest.raises(CaseError) as caught:
        load_cases(tmp_path)
    assert caught.value.error_code is ErrorCode.INVALID_ARGUMENTS
    assert "expect.relase" in caught.value.message

    for bad in (
        {"question": "q", "expect": {"release": "Report"}},
        {"question": "q", "expect": {"release": "Answer"}, "schema_version": 2},
        {"question": "q", "expect": {"release": "Answer"}, "model": "gpt-4"},
        {"question": "q", "expect": {"release": "Answer"}, "down": ["query_redis"]},
        {"question": "q", "expect": {"release": "Answer"}, "world": {"kind": "cloud"}},
    ):
        with pytest.raises(ValueError):
            Case.model_validate(bad)


def test_duplicate_ids_are_refused(tmp_path: Path) -> None:
    row = json.dumps({"id": "same", "question": "q", "expect": {"release": "Answer"}})
    (tmp_path / "x.cases.jsonl").write_text(f"{row}\n{row}\n")
    with pytest.raises(CaseError, match="duplicate case id x/same"):
        load_cases(tmp_path)


def test_a_broken_row_names_its_line(tmp_path: Path) -> None:
    (tmp_path / "x.cases.jsonl").write_text('{"question": "q"\n')
    with pytest.raises(CaseError, match=r"x\.cases\.jsonl:1 is not JSON"):
        load_cases(tmp_path)


def test_the_shipped_cases_parse_and_cover_the_issue() -> None:
    cases = load_cases(CASES)
    assert 30 <= len(cases) <= 50
    worlds = {type(c.case.world) for c in cases}
    assert worlds == {DemoWorld, FilesWorld, ReplayWorld}
    tags = {t for c in cases for t in c.case.tags}
    assert {
        "root-cause", "no-evidence", "misleading-runbook", "secrets-in-logs", "injection",
        "backend-down", "budget", "out-of-scope", "knowledge", "misbehaving", "replay",
        "herring", "vague", "no-data",
    } <= tags  # fmt: skip
    scripted = {c.case.model for c in cases if c.case.model}
    from harness.testing.misbehaving import MISBEHAVIOURS

    assert scripted == {f"misbehaving:{name}" for name in MISBEHAVIOURS}
