"""Per-run pseudonyms on what the model sees of a tool call (issue 35, deliverable 3).

Each call goes through a run's ToolBoundary on a workspace of its own (a log file, a SQLite
table, a runbook) as ``harness project`` and the agent call it: the same host twice in a run is
the same token, two hosts are two tokens (across calls and across tools: the calls' projectors
mark, the run numbers), a new run numbers again, and no value, mark or nonce reaches the
observation, the canonical record or the trace.
"""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from harness.adapters.embedded import ToolPlane, build_tool_plane
from harness.contracts.envelope import ToolCallEnvelope
from harness.run.boundary import ToolBoundary
from harness.settings import Settings
from harness.tools import QUERY_LOGS, QUERY_MYSQL, SEARCH_KNOWLEDGE
from harness.workspace import load_workspace

DB01, DB02 = "db01.internal.example.com", "db02.internal.example.com"
IP = "10.0.3.17"
POD = "checkout-api-7d9f8b6c5-x2x9q"
LOG = (
    f"2026-03-10T08:41:07Z ERROR {POD} connect {DB01}:5432 from {IP}:41000 refused\n"
    f"2026-03-10T08:41:08Z ERROR {POD} connect {DB02}:5432 from {IP}:41002 refused\n"
    f"2026-03-10T08:41:09Z WARN {POD} retry {DB01} from {IP} ok\n"
)
RUNBOOK = f"# Database failover\n\nWhen {DB01} refuses connections, check {DB02} first.\n"
POLICY = {
    "datasources": {
        "ops": {
            "default_schema": "main",
            "schemas": {"main": {"tables": {"hosts": {"columns": ["id", "host", "note"]}}}},
        }
    }
}
# A mark written into the data: it cannot name a value (the nonce is drawn afterwards).
FORGED = "<HOST~000000.0> <IP~deadbe.1>"
TOKEN = re.compile(r"<(HOST|POD|IP)#(\d+)>")
MARK = re.compile(r"<(?:HOST|POD|IP)~")


@pytest.fixture()
def world(tmp_path: Path) -> Path:
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "app.log").write_text(LOG, encoding="utf-8")
    (tmp_path / "runbooks").mkdir()
    (tmp_path / "runbooks" / "failover.md").write_text(RUNBOOK, encoding="utf-8")
    (tmp_path / "policy.json").write_text(json.dumps(POLICY))
    with sqlite3.connect(tmp_path / "ops.db") as db:
        db.execute("CREATE TABLE hosts (id INTEGER PRIMARY KEY, host TEXT, note TEXT)")
        db.executemany(
            "INSERT INTO hosts (host, note) VALUES (?, ?)",
            [(DB02, f"replica of {DB01}"), (DB01, FORGED)],
        )
    (tmp_path / "harness.toml").write_text(
        'as_of = 2026-03-10T10:00:00Z\n\n[logs]\npaths = ["logs"]\nservice = "checkout-api"\n\n'
        '[database]\nurl = "sqlite:///ops.db"\npolicy = "policy.json"\n\n'
        '[runbooks]\npath = "runbooks"\n'
    )
    return tmp_path


@pytest.fixture()
def plane(world: Path) -> ToolPlane:
    settings = Settings(mysql_url=None, sql_policy_path=None, redis_url=None)
    return build_tool_plane(settings, workspace=load_workspace(world))


def _call(boundary: ToolBoundary, call_id: str, tool: str, **arguments: Any) -> dict[str, Any]:
    result = asyncio.run(
        boundary.call(
            ToolCallEnvelope(
                run_id=boundary.run.run_id,
                tool_call_id=call_id,
                tool_name=tool,
                arguments=json.dumps(arguments),
            )
        )
    )
    assert result.observation is not None, result
    return result.observation.model_dump(mode="json")


def _logs(boundary: ToolBoundary, call_id: str = "c_logs") -> dict[str, Any]:
    return _call(
        boundary, call_id, QUERY_LOGS, start="2026-03-10T08:00:00Z", end="2026-03-10T09:00:00Z"
    )


def _messages(observation: dict[str, Any]) -> list[str]:
    return [e["message"] for e in sorted(observation["events"], key=lambda e: e["ts"])]


def _sql(boundary: ToolBoundary) -> dict[str, Any]:
    return _call(
        boundary, "c_sql", QUERY_MYSQL, datasource="ops", sql="SELECT host, note FROM hosts"
    )


def test_the_same_host_is_one_token_two_hosts_two_tokens(plane: ToolPlane) -> None:
    boundary = plane.open_run()
    messages = _messages(_logs(boundary))
    assert messages == [
        "<POD#1> connect <HOST#1>:5432 from <IP#1> refused",  # a port is where, not which
        "<POD#1> connect <HOST#2>:5432 from <IP#1> refused",
        "<POD#1> retry <HOST#1> from <IP#1> ok",
    ]
    # Another tool in the same run: the database and the runbook name the same two hosts.
    rows = [row["values"] for row in _sql(boundary)["rows"]]
    assert rows[0] == {"host": "<HOST#2>", "note": "replica of <HOST#1>"}
    assert rows[1]["host"] == "<HOST#1>"
    excerpts = " ".join(
        block["excerpt"]
        for block in _call(boundary, "c_kb", SEARCH_KNOWLEDGE, query="database failover")[
            "evidence"
        ]
    )
    assert "When <HOST#1> refuses connections, check <HOST#2> first." in excerpts


def test_a_new_run_numbers_again(plane: ToolPlane) -> None:
    first = plane.open_run()
    _sql(first)  # db02 is this run's first host
    assert _messages(_logs(first))[0] == "<POD#1> connect <HOST#2>:5432 from <IP#1> refused"
    second = plane.open_run()
    assert _messages(_logs(second))[0] == "<POD#1> connect <HOST#1>:5432 from <IP#1> refused"


def test_no_value_mark_or_nonce_reaches_the_model_the_record_or_the_trace(
    plane: ToolPlane,
) -> None:
    boundary = plane.open_run()
    shown = json.dumps([_logs(boundary), _sql(boundary)])
    for value in (DB01, DB02, IP, POD, "db01", "10-0-3-17"):
        assert value not in shown
    assert not MARK.search(shown)
    # The forged marks became their bare class, not a token of a real value.
    assert "<HOST> <IP>" in shown
    stored = asyncio.run(boundary.store.get(boundary.run.run_id, "c_sql"))
    assert stored is not None
    assert not MARK.search(json.dumps(stored.agent_result))
    numbers = {(kind, int(n)) for kind, n in TOKEN.findall(shown)}
    assert numbers == {("HOST", 1), ("HOST", 2), ("IP", 1), ("POD", 1)}


def test_a_host_the_model_guesses_gets_no_token(plane: ToolPlane) -> None:
    # Numbering the model's own arguments would confirm a guess: the guessed name would come
    # back as the token the data's host has. A query that names one is refused before it
    # runs (it would be decided on text that hides it); a service filter stays the class.
    boundary = plane.open_run()
    _logs(boundary)
    refused = asyncio.run(
        boundary.call(
            ToolCallEnvelope(
                run_id=boundary.run.run_id,
                tool_call_id="c_guess_query",
                tool_name=QUERY_LOGS,
                arguments=json.dumps(
                    {"start": "2026-03-10T08:00:00Z", "end": "2026-03-10T09:00:00Z", "query": DB01}
                ),
            )
        )
    )
    assert refused.observation is None and refused.outcome == "REJECTED"
    guessed = _call(
        boundary,
        "c_guess_service",
        QUERY_LOGS,
        start="2026-03-10T08:00:00Z",
        end="2026-03-10T09:00:00Z",
        services=[DB02],
    )
    assert guessed["scope"]["services"] == ["<HOST>"]
