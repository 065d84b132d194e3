"""Core unit tests never start Ray: any attempt fails loudly."""

from __future__ import annotations

import sys

import pytest


@pytest.fixture(autouse=True)
def _no_ray(monkeypatch: pytest.MonkeyPatch) -> None:
    ray = sys.modules.get("ray")
    if ray is not None:

        def _refuse(*args: object, **kwargs: object) -> None:
            raise RuntimeError("tests/harness must not start Ray")

        monkeypatch.setattr(ray, "init", _refuse)
