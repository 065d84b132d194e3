"""``harness logs mine``: JSONL per input line, from a file or stdin, through argparse; the
header is split off by ``--format`` or by the shape detected from the file."""

from __future__ import annotations

import argparse
import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.logmining import mine_lines, template_id_of
from harness.redaction import Redactor
from serve.cli.logs import register
from tests.corpora import grouping_accuracy
from tests.paths import FIXTURES

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
    # The command shows templates as tool output is shown: redacted (client IPs as <IP>).
    assert records == list(mine_lines(lines, APACHE_FORMAT, redact=Redactor().redact))
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


# ----------------------------------------------------------------------------- header detection

LOG4J_LINES = [
    "2026-03-10 09:41:07,120 INFO  [DataXceiver-3] com.example.store.ChunkServer: "
    "Receiving chunk ck_1 from alpha.prod.example.org:50010",
    "2026-03-10 09:41:07,480 INFO  [DataXceiver-9] com.example.store.Replicator: "
    "Receiving chunk ck_2 from bravo.prod.example.org:50011",
    "2026-03-10 09:41:08,002 WARN  [main] com.example.store.Ring: Heartbeat from node7 missed",
]


def test_mine_without_format_splits_the_detected_header_off(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "store.log"
    path.write_text("\n".join(LOG4J_LINES) + "\n", encoding="utf-8")
    code, records, err = _run(["logs", "mine", str(path)], capsys)
    receiving = "Receiving chunk <*> from <*>:<*>"
    heartbeat = "Heartbeat from node7 missed"
    assert (code, err) == (0, "")
    assert records == [
        {"line": 1, "template_id": template_id_of(receiving), "template": receiving},
        {"line": 2, "template_id": template_id_of(receiving), "template": receiving},
        {"line": 3, "template_id": template_id_of(heartbeat), "template": heartbeat},
    ]


def test_an_explicit_format_wins_over_detection(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "store.log"
    path.write_text("\n".join(LOG4J_LINES) + "\n", encoding="utf-8")
    fmt = "<Date> <Time> <Level> <Content>"
    code, records, _ = _run(["logs", "mine", str(path), "--format", fmt], capsys)
    assert code == 0
    assert records == list(mine_lines(LOG4J_LINES, fmt))
    # The thread and the logger are part of <Content> now, so they are mined with the rest.
    assert records[2]["template"].startswith("[main] com.example.store.Ring: Heartbeat")


def test_mine_detects_json_lines_from_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [
        json.dumps({"ts": f"2026-03-10T09:41:0{n}Z", "level": "info", "msg": f"job {n} done"})
        for n in range(3)
    ]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(lines) + "\n"))
    code, records, _ = _run(["logs", "mine", "-"], capsys)
    assert (code, {r["template"] for r in records}) == (0, {"job <*> done"})


@pytest.mark.parametrize("name", ["storage", "health", "cloud", "people"])
def test_mine_groups_a_fixture_system_by_its_events(
    capsys: pytest.CaptureFixture[str], name: str
) -> None:
    path = FIXTURES / "logmining" / f"{name}.log"
    code, records, err = _run(["logs", "mine", str(path)], capsys)
    events = (FIXTURES / "logmining" / f"{name}.events").read_text(encoding="utf-8").split()
    assert (code, err) == (0, "")
    assert grouping_accuracy([str(r["template_id"]) for r in records], events) >= 0.95
