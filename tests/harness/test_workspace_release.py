"""``[release]`` in harness.toml: the operator's hosts and commands, their examples judged."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.adapters.embedded import content_policy
from harness.contracts.errors import WorkspaceError
from harness.settings import Settings
from harness.workspace import resolve_workspace

STEP = "Revert in config-service: configctl revert --service checkout-api --change CHG-4821."


def _workspace(tmp_path: Path, release: dict[str, object]) -> object:
    (tmp_path / "runbooks").mkdir(exist_ok=True)
    (tmp_path / "runbooks" / "a.md").write_text("# A\n\nCheck the pool.\n")
    data = {"runbooks": {"path": "runbooks"}, "release": release}
    return resolve_workspace(data, base=tmp_path)


def test_the_operators_entries_extend_the_allowlist_and_hosts(tmp_path: Path) -> None:
    workspace = _workspace(
        tmp_path,
        {
            "allowed_hosts": ["corp.example"],
            "commands": [
                {
                    "name": "configctl-revert",
                    "program": "configctl",
                    "subcommands": [["revert"]],
                    "effect": "CHANGE",
                    "examples": ["configctl revert --service checkout-api --change CHG-4821"],
                }
            ],
        },
    )
    policy = content_policy(Settings(), workspace)  # type: ignore[arg-type]
    verdict = policy.allowlist.classify_step(STEP)
    assert (verdict.outcome, verdict.reason) == ("CHANGE", "configctl-revert")
    assert policy.defang("see wiki.corp.example and evil.example.net") == (
        "see wiki.corp.example and evil[.]example[.]net"
    )
    assert content_policy(Settings()).allowlist.classify_step(STEP).outcome == "WITHHELD"


@pytest.mark.parametrize(
    "entry",
    [
        # Its example is not what it names: a typo allows nothing.
        {"name": "x", "program": "configctl", "subcommands": [["revert"]], "effect": "CHANGE",
         "examples": ["configctl revret --service a"]},
        # An argument hazard is never waved through by an entry.
        {"name": "y", "program": "configctl", "effect": "DIAGNOSTIC",
         "examples": ["configctl get --insecure"]},
        # Without examples an entry cannot be checked.
        {"name": "z", "program": "configctl", "effect": "CHANGE", "examples": []},
    ],
)  # fmt: skip
def test_an_entry_whose_examples_it_would_not_release_is_refused(
    tmp_path: Path, entry: dict[str, object]
) -> None:
    with pytest.raises(WorkspaceError):
        _workspace(tmp_path, {"commands": [entry]})
