"""Which of the demo's next steps survive, with which label, and which need an operator's entry.

The demo's approved runbooks suggest six steps. Four are released on the default allowlist: a
revert of the change (CHANGE), a restart with the known-good value (CHANGE), a check of the
pool stats (DIAGNOSTIC) and the note on the revert's audit row (CHANGE). Two ask for the
operator's own tools, which no default knows: ``configctl revert`` and a POST to the
service's refresh endpoint with ``curl``; with the operator's entries (here
``HARNESS_RELEASE_COMMANDS``'s equivalent) they are released as changes too.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from harness.adapters.embedded import build_run_deps, build_tool_plane
from harness.contracts.ingress import RunRequest
from harness.contracts.results import DiagnosisReport
from harness.diagnosis import DiagnosisRun
from harness.embedded.demo import INCIDENT_QUESTION, WINDOW_END
from harness.settings import Settings
from harness.stepcheck import CommandEntry

pytestmark = pytest.mark.slow  # two in-process demo runs

OPERATOR_ENTRIES = [
    CommandEntry(
        name="configctl-revert",
        program="configctl",
        subcommands=[["revert"]],
        effect="CHANGE",
        examples=["configctl revert --service checkout-api --change CHG-4821"],
    ),
    CommandEntry(
        name="checkout-busrefresh",
        program="curl",
        effect="CHANGE",
        arguments=r"-X POST http://checkout-api:8080/actuator/busrefresh",
        examples=["curl -X POST http://checkout-api:8080/actuator/busrefresh"],
    ),
]


def _steps(settings: Settings, tmp_path: Path) -> list[tuple[str, str, str]]:
    plane = build_tool_plane(settings, sqlite_dir=tmp_path)
    deps = build_run_deps(settings, plane=plane)
    request = RunRequest(question=INCIDENT_QUESTION, as_of=WINDOW_END, deadline_s=300)
    report = asyncio.run(DiagnosisRun(request, deps).execute())
    assert isinstance(report, DiagnosisReport), report
    return [(s.action, s.rule, s.text[:40]) for s in report.next_steps]


@pytest.fixture(scope="module")
def default_steps(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, str, str]]:
    return _steps(Settings(audit_enabled=False), tmp_path_factory.mktemp("demo-db"))


def test_the_default_allowlist_releases_four_labelled_steps(
    default_steps: list[tuple[str, str, str]],
) -> None:
    assert [(a, r) for a, r, _ in default_steps] == [
        ("CHANGE", "CHANGE"), ("DIAGNOSTIC", "CHECK"), ("CHANGE", "CHANGE"), ("CHANGE", "CHANGE")
    ]  # fmt: skip
    assert not [t for *_, t in default_steps if "configctl" in t or "curl" in t]


def test_the_operators_entries_release_the_steps_that_use_their_tools(
    tmp_path: Path,
) -> None:
    settings = Settings(audit_enabled=False, release_commands=OPERATOR_ENTRIES)
    steps = _steps(settings, tmp_path)
    rules = [r for _, r, _ in steps]
    assert len(steps) == 6
    assert "configctl-revert" in rules and "checkout-busrefresh" in rules
    assert {a for a, _, _ in steps} == {"CHANGE", "DIAGNOSTIC"}
