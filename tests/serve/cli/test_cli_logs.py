"""``harness logs mine``: JSONL per input line, from a file or stdin, through argparse."""

from __future__ import annotations

import argparse
import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.logmining import mine_lines, template_id_of
from serve.cli.logs import register

APACHE_FORMAT = r"\[<Time>\] \[<Level>\] <Content>"


@pytest.fixture(scope="module")
def apache(corpus: Callable[..., Path]) -> Path:
    """loghub's Apache_2k.log (the test skips when the corpus is absent)."""
    return corpus("loghub", "Apache", "Apache_2k.log")


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, list[dict], str]:
    parser = argparse.ArgumentParser(prog="harness")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code = args.handler(args)
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err


def test_mine_file_with_format_prints_one_record_per_line(
    capsys: pytest.CaptureFixture[str], apache: Path
) -> None:
    code, records, err = _run(["logs", "mine", str(apache), "--format", APACHE_FORMAT], capsys)
    lines = apache.read_text(encoding="utf-8").splitlines()
    assert (code, err) == (0, "")
    assert records == list(mine_lines(lines, APACHE_FORMAT))
    assert [r["line"] for r in records] == list(range(1, len(lines) + 1))
    # Apache's two thousand lines fall into six events (loghub ground truth).
    assert len({r["template_id"] for r in records}) == 6
    assert records[2] == {
        "line": 3,
        "template_id": template_id_of("jk2_init() Found child <*> in scoreboard slot <*>"),
        "template": "jk2_init() Found child <*> in scoreboard slot <*>",
    }


def test_mine_reads_stdin_when_file_is_dash(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("disk 91% full on sda1\ndisk 97% full on sdb2\n"))
    code, records, _ = _run(["logs", "mine", "-"], capsys)
    template = "disk <*>% full on <*>"
    expected_id = template_id_of(template)
    assert code == 0
    assert records == [
        {"line": 1, "template_id": expected_id, "template": template},
        {"line": 2, "template_id": expected_id, "template": template},
    ]


def test_mine_unreadable_file_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, records, err = _run(["logs", "mine", str(tmp_path / "missing.log")], capsys)
    assert (code, records) == (2, [])
    assert err.startswith("harness logs mine: cannot read ")


def test_mine_invalid_format_exits_2(capsys: pytest.CaptureFixture[str], apache: Path) -> None:
    code, records, err = _run(
        ["logs", "mine", str(apache), "--format", "<A> <A> <Content>"], capsys
    )
    assert (code, records) == (2, [])
    assert err.startswith("harness logs mine: invalid --format")
