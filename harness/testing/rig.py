"""Build RunDeps from fakes: an in-memory store, fake tools and a given model."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from pydantic import BaseModel

from harness.agent.caller import ComponentSettings
from harness.clock import SystemClock
from harness.contracts.envelope import ToolPolicy
from harness.contracts.models import Component, ModelClient
from harness.diagnosis import RunDeps
from harness.ports import CanonicalStore, Clock, Projector, ToolBackend
from harness.run.budget import Budgets
from harness.run.retry import RetryPolicy
from harness.testing.memory_store import InMemoryCanonicalStore
from harness.testing.tools import DocsProjector, RecordingBackend
from harness.tools import InlineToolExecutor, ToolRegistry, default_specs

__all__ = ["fake_deps"]


def fake_deps(
    model: ModelClient | Mapping[Component, ModelClient],
    *,
    backends: Mapping[str, ToolBackend] | None = None,
    projectors: Mapping[str, Projector] | None = None,
    budgets: Budgets | None = None,
    policy: ToolPolicy | None = None,
    clock: Clock | None = None,
    deadline_s: float = 30.0,
    retry: RetryPolicy | None = None,
    store: CanonicalStore | None = None,
    mysql_planner: Callable[[BaseModel], BaseModel] | None = None,
) -> RunDeps:
    """RunDeps over the three tool names, each served by a fake backend and projector."""
    clock = clock or SystemClock()
    specs = default_specs(mysql_planner=mysql_planner)
    names = [s.name for s in specs]
    backend = RecordingBackend()
    projector = DocsProjector()
    models = model if isinstance(model, Mapping) else dict.fromkeys(Component, model)
    return RunDeps(
        models=models,
        registry=ToolRegistry.of(specs),
        store=store or InMemoryCanonicalStore(clock, ttl_s=3600),
        executor=InlineToolExecutor(
            backends or {n: backend for n in names},
            projectors or {n: projector for n in names},
            project_in_thread=False,
            clock=clock,
        ),
        clock=clock,
        policy=policy or ToolPolicy(authorized_tools=frozenset(names), execute_timeout_s=2.0),
        budgets=budgets or Budgets(),
        retry=retry or RetryPolicy(),
        component_settings={
            c: ComponentSettings(max_tokens=1024, timeout_s=10.0) for c in Component
        },
        default_deadline_s=deadline_s,
    )
