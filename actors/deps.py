"""Deps factories: what a RunActor builds its runs from, once per actor process.

The factory object is pickled to the actor and called there, so everything it builds —
the canonical store (fakeredis in the embedded default), SDK clients, the tool registry —
is born in the process that uses it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from actors.tasks import ToolSetFactory, WorkspaceToolSet, embedded_tool_set
from harness.diagnosis import RunDeps
from harness.workspace import Workspace

__all__ = ["EmbeddedDepsFactory"]


@dataclass(frozen=True)
class EmbeddedDepsFactory:
    """The embedded deployment: tool plane from settings and the configured model clients.

    Args:
        tool_execution: ``"ray"`` runs backends and projectors as Ray tasks; ``"inline"`` runs
            them in the actor's threads (dense or latency-critical setups). ``None`` takes
            ``HARNESS_TOOL_EXECUTION`` (default ``"ray"``).
        workspace: The user's own world (logs, database, runbooks) instead of the bundled
            demo; the tool tasks build the same workspace in their own processes.
    """

    tool_execution: Literal["ray", "inline"] | None = None
    workspace: Workspace | None = None

    def __call__(self) -> RunDeps:
        from harness.adapters.embedded import build_run_deps, build_tool_plane
        from harness.settings import Settings

        settings = Settings()
        plane = build_tool_plane(settings, workspace=self.workspace)
        executor = None
        if (self.tool_execution or settings.tool_execution) == "ray":
            from actors.tool_executor import RayToolExecutor

            tool_set: ToolSetFactory = (
                embedded_tool_set if self.workspace is None else WorkspaceToolSet(self.workspace)
            )
            executor = RayToolExecutor(tool_set)
        return build_run_deps(settings, plane=plane, executor=executor)
