"""`harness project` and `harness demo` on the embedded default, through the real CLI entry."""

from __future__ import annotations

import json

import pytest

from serve.cli import main


def _json_lines(capsys: pytest.CaptureFixture[str]) -> list[dict]:
    return [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]


def test_project_logs_shows_both_views(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["project", "logs", "--service", "checkout-api", "--level", "ERROR", "--json"])
    (out,) = _json_lines(capsys)
    assert code == 0
    assert out["model"]["kind"] == "logs" and out["model"]["evidence_status"] == "EVIDENCE_FOUND"
    assert "returned_count" not in out["model"] and out["control"]["returned_count"] > 100
    assert out["control"]["scope_identity"] and out["control"]["remaining_tool_calls"] == 11
    templates = out["model"]["templates"]
    assert any(
        "status=500" in t["template"] and t["first_seen"].startswith("2026-11-02T14:05")
        for t in templates
    )


def test_project_mysql_masks_sensitive_columns(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "project",
            "mysql",
            "SELECT id, name, email, password_hash FROM shop.customers ORDER BY id LIMIT 3",
            "--json",
        ]
    )
    (out,) = _json_lines(capsys)
    assert code == 0
    rows = out["model"]["rows"]
    assert [r["ref"] for r in rows] == ["row:0", "row:1", "row:2"]
    assert {r["values"]["email"] for r in rows} == {"***"} and {
        r["values"]["password_hash"] for r in rows
    } == {"***"}
    assert all(isinstance(r["values"]["id"], int) for r in rows)


def test_project_mysql_rejection_exits_3(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["project", "mysql", "DELETE FROM shop.orders", "--json"])
    (out,) = _json_lines(capsys)
    assert code == 3
    assert out["model"] == {
        "tool_call_id": out["control"]["tool_call_id"],
        "error_code": "SQL_REJECTED",
    }


def test_project_rag_keeps_relevance(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["project", "rag", "connection is not available request timed out", "--json"]) == 0
    (out,) = _json_lines(capsys)
    assert out["model"]["evidence"][0]["doc_id"] == "rb-hikari-pool-exhaustion"
    assert out["model"]["relevance_level"] == "HIGH"


def test_demo_walks_the_incident(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--json"]) == 0
    calls = _json_lines(capsys)
    outcomes = [(c["model"].get("evidence_status"), c["model"].get("error_code")) for c in calls]
    assert outcomes == [
        ("EVIDENCE_FOUND", None),
        ("EVIDENCE_FOUND", None),
        ("EVIDENCE_FOUND", None),
        ("EVIDENCE_FOUND", None),
        (None, "SQL_REJECTED"),
        (None, "DUPLICATE_SCOPE"),
    ]
    config_rows = calls[2]["model"]["rows"]
    assert any(r["values"]["ticket"] == "CHG-4821" for r in config_rows)
