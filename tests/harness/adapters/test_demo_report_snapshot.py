"""The demo run releases the same DiagnosisReport, ids aside, as the snapshot says.

Performance work on the run plane (store, projectors, model adapter, offline model) must not
change what a run releases. The snapshot is the released JSON of one in-process run of the demo
question on the embedded defaults, with the ids a run mints (run, tool calls, analysis)
replaced by their order of first appearance. A deliberate behaviour change regenerates it
with ``UPDATE_SNAPSHOTS=1``; the diff then shows up in review.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from pathlib import Path

import pytest

from harness.adapters.embedded import build_run_deps, build_tool_plane
from harness.contracts.ingress import RunRequest
from harness.contracts.results import DiagnosisReport
from harness.diagnosis import DiagnosisRun
from harness.embedded.demo import INCIDENT_QUESTION, WINDOW_END
from harness.settings import Settings

SNAPSHOT = Path(__file__).parent / "snapshots" / "demo_report.json"
_MINTED = re.compile(r"\b(?:call_[0-9a-f]{24}|an-[0-9a-f]{20})\b")


def normalised(report: DiagnosisReport) -> str:
    """The released JSON with minted ids numbered in order of first appearance.

    Limitations are listed by tool call id, so their order follows the ids: they are
    compared as a sorted list (after the ids in them are numbered).
    """
    data = report.model_dump(mode="json")
    limitations = data.pop("limitations")
    seen: dict[str, str] = {report.run_id: "<run>"}

    def number(match: re.Match[str]) -> str:
        kind = "call" if match.group(0).startswith("call_") else "analysis"
        return seen.setdefault(match.group(0), f"<{kind}-{len(seen)}>")

    text = _MINTED.sub(number, json.dumps(data, indent=1)).replace(report.run_id, "<run>")
    data = json.loads(text)
    data["limitations"] = sorted(_MINTED.sub(number, line) for line in limitations)
    return json.dumps(data, indent=1) + "\n"


@pytest.fixture(scope="module")
def released(tmp_path_factory: pytest.TempPathFactory) -> str:
    settings = Settings(audit_enabled=False)
    plane = build_tool_plane(settings, sqlite_dir=tmp_path_factory.mktemp("demo-db"))
    deps = build_run_deps(settings, plane=plane)
    request = RunRequest(question=INCIDENT_QUESTION, as_of=WINDOW_END, deadline_s=300)
    report = asyncio.run(DiagnosisRun(request, deps).execute())
    assert isinstance(report, DiagnosisReport), report
    return normalised(report)


def test_the_demo_run_releases_the_snapshotted_report(released: str) -> None:
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        SNAPSHOT.write_text(released, encoding="utf-8")
    assert released == SNAPSHOT.read_text(encoding="utf-8")


def test_a_second_run_on_the_same_deps_releases_the_same_report(released: str) -> None:
    # Warm caches (mined batches, parsed tool results, schemas) must not change the answer.
    settings = Settings(audit_enabled=False)
    deps = build_run_deps(settings, plane=build_tool_plane(settings))
    request = RunRequest(question=INCIDENT_QUESTION, as_of=WINDOW_END, deadline_s=300)
    reports = [asyncio.run(DiagnosisRun(request, deps).execute()) for _ in range(2)]
    assert [normalised(r) for r in reports] == [released, released]  # type: ignore[arg-type]
