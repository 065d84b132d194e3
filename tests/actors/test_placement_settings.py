"""Placement settings reach the Ray options they are for (no Ray started)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from actors.deps import EmbeddedDepsFactory
from actors.factory import run_actor_options, run_desk_options, tool_tasks
from actors.tool_executor import RayToolExecutor
from harness.settings import Settings


def test_resources_are_read_as_json_and_must_be_positive(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARNESS_RUN_ACTOR_RESOURCES", '{"runs": 1}')
    monkeypatch.setenv("HARNESS_TOOL_TASK_RESOURCES", '{"tools": 0.5}')
    settings = Settings()
    assert (settings.run_actor_resources, settings.tool_task_resources) == (
        {"runs": 1.0},
        {"tools": 0.5},
    )
    with pytest.raises(ValidationError, match="must be positive"):
        Settings(tool_task_resources={"tools": 0})


def test_the_embedded_deps_submit_tool_tasks_with_the_configured_resources(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HARNESS_TOOL_TASK_RESOURCES", '{"tools": 1, "db-net": 1}')
    monkeypatch.setenv("HARNESS_AUDIT_ENABLED", "false")
    executor = EmbeddedDepsFactory(tool_execution="ray")().executor
    assert isinstance(executor, RayToolExecutor)
    assert executor.tasks is tool_tasks(resources=(("db-net", 1.0), ("tools", 1.0)))


def test_actor_options_carry_the_resources() -> None:
    runs = (("runs", 1.0),)
    assert run_actor_options("a-1", 4, runs)["resources"] == {"runs": 1.0}
    assert run_actor_options("a-1", 4)["resources"] == {}
    assert run_desk_options("desk", runs)["resources"] == {"runs": 1.0}
    assert tool_tasks(resources=runs).resources == runs
