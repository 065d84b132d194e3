"""``harness diagnose``: parses, runs on a RunActor pool, prints the released result."""

from __future__ import annotations

import argparse
import json

import pytest

from actors.testing import FakeDepsFactory
from serve.cli import diagnose

pytestmark = pytest.mark.usefixtures("ray_cluster")


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="harness")
    diagnose.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["diagnose", *argv])
    args.deps_factory = FakeDepsFactory()  # the embedded default needs the offline model
    return args


def test_json_prints_only_the_released_result(capsys: pytest.CaptureFixture[str]) -> None:
    args = _parse("hello @answer=hi", "--json")
    assert args.as_of is None and diagnose._as_of(args, None) == diagnose.DEFAULT_AS_OF
    assert args.handler(args) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1
    body = json.loads(out[0])
    assert body == {
        "schema_version": 3,
        "run_id": body["run_id"],
        "kind": "Answer",
        "intent": "SYSTEM_CHAT",
        "text": "hi",
        "citations": [],
    }
    assert body["run_id"].startswith("run-")


def test_a_run_past_its_deadline_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    args = _parse("slow @route_s=10", "--json", "--deadline-s", "0.3")
    assert args.handler(args) == 1
    body = json.loads(capsys.readouterr().out)
    assert (body["kind"], sorted(body)) == ("TimedOut", ["kind", "run_id", "schema_version"])


def test_progress_view_renders_a_report(capsys: pytest.CaptureFixture[str]) -> None:
    args = _parse("why @intent=DIAGNOSIS", "--as-of", "2026-11-02T15:00:00")
    assert args.as_of == diagnose.DEFAULT_AS_OF  # naive times are UTC
    assert args.handler(args) == 0
    out = capsys.readouterr().out
    assert "DiagnosisReport" in out and "OBSERVATION" in out


def test_embedded_default_diagnoses_the_demo_incident(capsys: pytest.CaptureFixture[str]) -> None:
    """End to end through a RunActor: offline model, Ray tool tasks, all quality gates."""
    from harness.embedded.demo import INCIDENT_QUESTION

    args = _parse(INCIDENT_QUESTION, "--json")
    args.deps_factory = None  # the embedded default: offline model, bundled incident
    code = args.handler(args)
    out = capsys.readouterr().out.strip().splitlines()
    body = json.loads(out[-1])
    assert len(out) == 1 and body["run_id"].startswith("run-")
    assert (body["kind"], code) == ("DiagnosisReport", 0)
    (root,) = [c for c in body["conclusions"] if c["kind"] == "ROOT_CAUSE"]
    assert "CHG-4821" in root["statement"] and "maximum-pool-size" in root["statement"]
    refs = {c["item_ref"].split(":")[0] for c in root["citations"]}
    assert {"row", "tpl"} <= refs  # a database row and a log template back it
