"""Every command that shows tool data redacts it as tool output is: ``logs mine``, ``logs
parse``, ``workspace check`` and ``project`` on a workspace whose log holds a DSN password, a
SASL password and an AWS key id, as a new user runs them (the installed ``harness`` in a
subprocess, fresh HOME, none of the suite's settings)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HARNESS = Path(sys.executable).parent / "harness"
REPO = Path(__file__).resolve().parents[3]

SECRETS = ("S3cr3tPassw0rd", "KafkaPw99zz", "AKIAIOSFODNN7EXAMPLE", "hunter2", "alice@example")
LOG = (
    "2026-03-10T08:41:07Z ERROR checkout-api-7d9f8b6c5-x2x9q connect failed "
    "dsn=postgres://app:S3cr3tPassw0rd@db01.internal.example.com:5432/shop\n"
    "2026-03-10T08:41:08Z ERROR checkout-api-7d9f8b6c5-x2x9q kafka sasl.jaas.config="
    "org.apache.kafka.common.security.plain.PlainLoginModule required "
    'username="svc" password="KafkaPw99zz";\n'
    "2026-03-10T08:41:09Z WARN checkout-api-7d9f8b6c5-x2x9q aws key AKIAIOSFODNN7EXAMPLE "
    "rejected\n"
)
# Service fields that hold a secret and an e-mail: keys are made after redaction.
JSON_LOG = (
    '{"ts": "2026-03-10T08:41:10Z", "level": "error", "service": "checkout-api password=hunter2",'
    ' "msg": "payment declined"}\n'
    '{"ts": "2026-03-10T08:41:11Z", "level": "error", "service": "alice@example.com",'
    ' "msg": "payment declined"}\n'
    '{"ts": "2026-03-10T08:41:12Z", "level": "error", "service": "checkout-api-7d9f8b6c5-x2x9q",'
    ' "msg": "payment declined"}\n'
)


@pytest.fixture()
def world(tmp_path: Path) -> Path:
    logs = tmp_path / "world" / "logs"
    logs.mkdir(parents=True)
    (logs / "checkout.log").write_text(LOG, encoding="utf-8")
    (logs / "payments.jsonl").write_text(JSON_LOG, encoding="utf-8")
    (tmp_path / "world" / "harness.toml").write_text('[logs]\npaths = ["logs"]\n')
    return tmp_path / "world"


def _harness(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("HARNESS_", "RAY_", "XDG_")) and key != "PYTHONPATH"
    }
    env.update(HOME=str(home), PYTHONPATH=str(REPO))
    return subprocess.run(
        [str(HARNESS), *args], env=env, capture_output=True, text=True, timeout=120, check=False
    )


def _assert_clean(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 0, done.stderr[-2000:]
    for secret in SECRETS:
        assert secret not in done.stdout
        assert secret not in done.stderr


def test_logs_mine_prints_no_planted_secret(tmp_path: Path, world: Path) -> None:
    done = _harness(tmp_path, "logs", "mine", str(world / "logs" / "checkout.log"))
    _assert_clean(done)
    templates = [json.loads(line)["template"] for line in done.stdout.splitlines()]
    assert "connect failed dsn=postgres://<SECRET>@" in templates[0]
    assert 'password="<SECRET>"' in templates[1]
    assert templates[2].endswith(" aws key <SECRET> rejected")


def test_logs_parse_and_workspace_check_key_services_after_redaction(
    tmp_path: Path, world: Path
) -> None:
    parsed = _harness(tmp_path, "logs", "parse", str(world / "logs" / "payments.jsonl"), "--json")
    _assert_clean(parsed)
    services = [json.loads(line)["service"] for line in parsed.stdout.splitlines()]
    assert services == ["checkout-api", "redacted-email", "checkout-api"]
    checked = _harness(tmp_path, "workspace", "check", "--workspace", str(world), "--json")
    _assert_clean(checked)
    rows = {Path(row["file"]).name: row for row in map(json.loads, checked.stdout.splitlines())}
    assert rows["payments.jsonl"]["services"] == ["checkout-api", "redacted-email"]


def test_project_logs_shows_no_planted_secret(tmp_path: Path, world: Path) -> None:
    done = _harness(
        tmp_path,
        "project",
        "logs",
        "--workspace",
        str(world),
        "--start",
        "2026-03-10T08:00:00Z",
        "--end",
        "2026-03-10T09:00:00Z",
        "--json",
    )
    _assert_clean(done)
    shown = json.loads(done.stdout)
    messages = [event["message"] for event in shown["model"]["events"]]
    assert "<POD#1> aws key <SECRET> rejected" in messages
    assert {event["service"] for event in shown["model"]["events"]} >= {"checkout-api"}


def test_logs_parse_numbers_hosts_and_ips_per_invocation(tmp_path: Path) -> None:
    log = tmp_path / "hosts.log"
    log.write_text(
        "2026-03-10T08:41:07Z ERROR connect db01.internal.example.com from 10.0.3.17 refused\n"
        "2026-03-10T08:41:08Z ERROR connect db02.internal.example.com from 10.0.3.17 refused\n"
        "2026-03-10T08:41:09Z ERROR connect db01.internal.example.com from 10.0.3.18 refused\n",
        encoding="utf-8",
    )
    runs = []
    for _ in range(2):
        done = _harness(tmp_path, "logs", "parse", str(log), "--json")
        assert done.returncode == 0, done.stderr
        assert "db01" not in done.stdout and "10.0.3" not in done.stdout
        runs.append([json.loads(line)["message"] for line in done.stdout.splitlines()])
    assert runs[0] == [
        "connect <HOST#1> from <IP#1> refused",
        "connect <HOST#2> from <IP#1> refused",
        "connect <HOST#1> from <IP#2> refused",
    ]
    assert runs[1] == runs[0]  # each invocation is a run of its own, numbered from 1
