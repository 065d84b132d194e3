"""Deps factories: what a RunActor builds its runs from, once per actor process.

The factory object is pickled to the actor and called there, so everything it builds —
the canonical store (fakeredis in the embedded default), SDK clients, the tool registry —
is born in the process that uses it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from actors.tasks import embedded_tool_set
from harness.diagnosis import RunDeps

__all__ = ["EmbeddedDepsFactory"]


@dataclass(frozen=True)
class EmbeddedDepsFactory:
    """The embedded deployment: tool plane from settings and the configured model clients.

    Args:
        tool_execution: ``"ray"`` runs backends and projectors as Ray tasks; ``"inline"`` runs
            them in the actor's threads (dense or latency-critical setups). ``None`` takes
            ``HARNESS_TOOL_EXECUTION`` (default ``"ray"``).
    """

    tool_execution: Literal["ray", "inline"] | None = None

    def __call__(self) -> RunDeps:
        from harness.adapters.embedded import build_run_deps, build_tool_plane
        from harness.settings import Settings

        settings = Settings()
        plane = build_tool_plane(settings)
        executor = None
        if (self.tool_execution or settings.tool_execution) == "ray":
            from actors.tool_executor import RayToolExecutor

            executor = RayToolExecutor(embedded_tool_set)
        return build_run_deps(settings, plane=plane, executor=executor)
