"""The lock files follow pyproject.toml: after a dependency change `make lock` must be re-run.

requirements/dev.lock pins pyproject's dependencies and its `dev` extra; requirements/main.lock
pins the runtime dependencies alone, each at the version the dev lock (what CI tests) pins.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

REPO = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)$")


def _pins(name: str) -> dict[str, Version]:
    pins: dict[str, Version] = {}
    for line in (REPO / "requirements" / name).read_text().splitlines():
        if found := PIN.match(line.strip()):
            pins[canonicalize_name(found.group(1))] = Version(found.group(2))
    return pins


def _unmet(requirements: list[str], pins: dict[str, Version]) -> list[str]:
    unmet = []
    for text in requirements:
        req = Requirement(text)
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        pin = pins.get(canonicalize_name(req.name))
        if pin is None or not req.specifier.contains(pin, prereleases=True):
            unmet.append(f"{text} (locked: {pin})")
    return unmet


def test_dev_lock_pins_every_dependency_and_dev_extra() -> None:
    wanted = PROJECT["dependencies"] + PROJECT["optional-dependencies"]["dev"]
    assert _unmet(wanted, _pins("dev.lock")) == [], "run `make lock`"


def test_main_lock_pins_the_runtime_dependencies() -> None:
    assert _unmet(PROJECT["dependencies"], _pins("main.lock")) == [], "run `make lock`"


def test_main_lock_agrees_with_dev_lock() -> None:
    main, dev = _pins("main.lock"), _pins("dev.lock")
    assert {name: v for name, v in main.items() if dev.get(name) != v} == {}


def test_live_lock_pins_the_live_extra_and_agrees_with_dev_lock() -> None:
    live, dev = _pins("live.lock"), _pins("dev.lock")
    assert _unmet(PROJECT["optional-dependencies"]["live"], live) == [], "run `make lock`"
    assert {name: v for name, v in dev.items() if live.get(name) != v} == {}
