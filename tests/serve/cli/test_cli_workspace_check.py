"""``harness workspace check`` and ``harness logs parse`` on a folder of mixed real-world formats:
every file is read and named with its format, nothing is dropped, an unreadable file is said."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from serve.cli import main

FILES = {
    "edge-gateway/access.log": (
        '203.0.113.9 - - [10/Mar/2026:09:41:07 +0100] "GET /v1/pay HTTP/1.1" 502 157 "-" "curl/8"\n'
        '203.0.113.9 - - [10/Mar/2026:09:41:08 +0100] "GET /health HTTP/1.1" 200 2 "-" "kube"\n'
    ),
    "edge-gateway/error.log": (
        "2026/03/10 08:41:07 [error] 42#42: *7 upstream timed out (110) while connecting\n"
    ),
    "billing/app.log": (
        'time=2026-03-10T08:41:07Z level=error msg="ledger write failed" err=timeout\n'
        'time=2026-03-10T08:41:09Z level=info msg="retrying"\n'
    ),
    "syslog": "Mar 10 08:41:07 node-3 kernel: Out of memory: Killed process 4242 (java)\n",
    "events.json": (
        '{"kind": "Event", "type": "Warning", "reason": "BackOff", "message": "Back-off '
        'restarting failed container", "involvedObject": {"kind": "Pod", "name": '
        '"payment-api-7b8d5f9c6-k3m7r"}, "lastTimestamp": "2026-03-10T08:41:07Z"}\n'
    ),
    "db/postgresql.log": (
        "2026-03-10 08:41:07.120 UTC [4242] billing@ledger ERROR:  could not extend file: No "
        "space left on device\n"
        "2026-03-10 08:41:07.120 UTC [4242] billing@ledger STATEMENT:  INSERT INTO ledger ...\n"
    ),
    "worker/server.log": (
        "2026-03-10 09:41:07,120 - payments.worker - ERROR - capture failed\n"
        "Traceback (most recent call last):\n"
        '  File "worker.py", line 42, in capture\n'
        "ValueError: amount must be positive\n"
    ),
    "notes.txt": "free text that no format claims\n",
}


@pytest.fixture()
def world(tmp_path: Path) -> Path:
    logs = tmp_path / "logs"
    for name, text in FILES.items():
        (logs / name).parent.mkdir(parents=True, exist_ok=True)
        (logs / name).write_text(text, encoding="utf-8")
    # A Windows host's file: cp1252, not UTF-8.
    (logs / "legacy.log").write_bytes(
        "2026-03-10T08:41:07Z WARN caf\xe9 d\xe9j\xe0 vu\n".encode("cp1252")
    )
    (tmp_path / "harness.toml").write_text(
        '[logs]\npaths = ["logs"]\ntimezone = "Europe/Berlin"\n', encoding="utf-8"
    )
    return tmp_path


def check(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    """The exit code and each file's row, keyed by its path under ``logs/``."""
    code = main(["workspace", "check", *argv, "--json"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    return code, {row["file"].split("/logs/", 1)[1]: row for row in rows}


def test_every_file_of_a_mixed_folder_is_read_and_named(
    world: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, rows = check(["--workspace", str(world)], capsys)
    assert code == 0
    summary = {
        name: (r["format"], r["encoding"], r["events"], r["unparsed"], r["services"])
        for name, r in rows.items()
    }
    assert summary == {
        "billing/app.log": ("logfmt", "utf-8", 2, 0, ["billing"]),
        "db/postgresql.log": ("postgresql", "utf-8", 1, 0, ["postgresql"]),
        "edge-gateway/access.log": ("access-log", "utf-8", 2, 0, ["edge-gateway"]),
        "edge-gateway/error.log": ("nginx-error", "utf-8", 1, 0, ["edge-gateway"]),
        "events.json": ("kubernetes-event", "utf-8", 1, 0, ["payment-api"]),
        "legacy.log": ("iso", "cp1252", 1, 0, ["legacy"]),
        "notes.txt": ("none", "utf-8", 0, 1, ["notes"]),
        "syslog": ("syslog", "utf-8", 1, 0, ["kernel"]),
        "worker/server.log": ("python-logging", "utf-8", 1, 0, ["worker"]),
    }
    # Zones: from the line, or the workspace's timezone for lines that carry none.
    assert rows["edge-gateway/access.log"]["zones"] == {"line": 2}
    assert rows["edge-gateway/error.log"]["zones"] == {"workspace": 1}
    assert rows["edge-gateway/error.log"]["first"] == "2026-03-10T07:41:07.000+00:00"


def test_a_binary_file_is_named_and_the_check_fails(
    world: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (world / "logs" / "core.log").write_bytes(bytes(range(256)) * 4)
    code, rows = check(["--workspace", str(world)], capsys)
    assert code == 1
    assert (rows["core.log"]["error"], rows["core.log"]["events"]) == ("binary", 0)


def test_the_text_check_says_each_files_format_and_the_totals(
    world: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["workspace", "check", "--workspace", str(world)]) == 0
    out = capsys.readouterr().out.splitlines()
    (postgres,) = [line for line in out if "postgresql.log" in line]
    assert "postgresql (detected), utf-8, 1 events, 0 unparsed lines" in postgres
    assert out[-1] == "9 files, 10 events, 1 unparsed lines, 0 unreadable"


def test_logs_parse_prints_one_redacted_object_per_event(
    world: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = world / "logs" / "db" / "postgresql.log"
    assert main(["logs", "parse", str(path), "--json"]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert events == [
        {
            "line": 1,
            "lines": 2,
            "time": "2026-03-10T08:41:07.120000+00:00",
            "level": "ERROR",
            "service": None,
            "message": events[0]["message"],
            "format": "postgresql",
        }
    ]
    assert events[0]["message"].startswith("could not extend file: No space left on device\n")


def test_logs_parse_redacts_messages_and_refuses_an_unknown_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "app.log"
    path.write_text("2026-03-10T09:41:07Z ERROR login failed password=hunter2secret\n")
    assert main(["logs", "parse", str(path), "--log-format", "iso", "--json"]) == 0
    (event,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert "hunter2secret" not in event["message"] and event["format"] == "iso"
    assert main(["logs", "parse", str(path), "--log-format", "csv"]) == 2
    assert "unknown log format" in capsys.readouterr().err
