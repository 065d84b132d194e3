"""Deps factories: what a RunActor builds its runs from, once per actor process.

The factory object is pickled to the actor and called there, so everything it builds —
the canonical store (fakeredis in the embedded default), SDK clients, the tool registry, the
audit sink — is born in the process that uses it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Literal

from actors.tasks import ToolSetFactory, WorkspaceToolSet, embedded_tool_set
from harness.audit.records import AuditSink
from harness.diagnosis import RunDeps
from harness.settings import Settings
from harness.workspace import Workspace

__all__ = ["EmbeddedDepsFactory", "audit_sink"]


@dataclass(frozen=True)
class EmbeddedDepsFactory:
    """The embedded deployment: tool plane from settings and the configured model clients.

    Args:
        tool_execution: ``"ray"`` runs backends and projectors as Ray tasks; ``"inline"`` runs
            them in the actor's threads (dense or latency-critical setups). ``None`` takes
            ``HARNESS_TOOL_EXECUTION`` (default ``"ray"``).
        workspace: The user's own world (logs, database, runbooks) instead of the bundled
            demo; the tool tasks build the same workspace in their own processes.

    The durable audit (unless ``HARNESS_AUDIT_ENABLED=false``): under Ray, a sink that hands
    each record to this node's writer actor (:func:`actors.factory.node_audit_writer`);
    without Ray, an in-process batching writer.
    """

    tool_execution: Literal["ray", "inline"] | None = None
    workspace: Workspace | None = None

    def __call__(self) -> RunDeps:
        from harness.adapters.embedded import build_run_deps, build_tool_plane
        from harness.store.local import LocalCanonicalStore

        settings = Settings()
        plane = build_tool_plane(settings, workspace=self.workspace)
        executor = None
        if (self.tool_execution or settings.tool_execution) == "ray":
            from actors.factory import tool_tasks
            from actors.tool_executor import RayToolExecutor

            tool_set: ToolSetFactory = (
                embedded_tool_set if self.workspace is None else WorkspaceToolSet(self.workspace)
            )
            resources = tuple(sorted(settings.tool_task_resources.items()))
            executor = RayToolExecutor(
                tool_set,
                tasks=tool_tasks(resources=resources),
                slots=settings.tool_slots,
                # The in-process store keeps a log raw as the store's own events: such raws
                # come back by reference to the plane's log store (loaded here for the
                # catalog), which the executor then keeps: memory (the store, ~30 MB for the
                # demo's) for CPU (~13 ms per demo run of compressing in the tool task).
                holds=(
                    tuple(plane.backends.values())
                    if isinstance(plane.store, LocalCanonicalStore)
                    else None
                ),
            )
        audit = audit_sink(settings) if settings.audit_enabled else None
        return build_run_deps(
            settings, plane=plane, executor=executor, audit=audit, workspace=self.workspace
        )


def audit_sink(settings: Settings) -> AuditSink:
    """The audit sink of this process: the node's writer actor under Ray, else in-process."""
    import ray

    if not ray.is_initialized():
        from harness.adapters.embedded import build_audit_writer

        return build_audit_writer(settings)
    from actors.audit_writer import RayAuditSink, SqlAuditStoreFactory
    from actors.factory import node_audit_writer
    from actors.metrics import AuditMetrics

    store = SqlAuditStoreFactory(settings.audit_database_url(), settings.audit_timeout_s)
    connect = functools.partial(node_audit_writer, store, settings.audit_writer_policy())
    return RayAuditSink(connect, on_failure=AuditMetrics().sink_failed)
