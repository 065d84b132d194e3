"""Composition root of an evaluation case's world: case world → tool plane.

A ``demo`` world is the embedded deployment's bundled incident. A ``files`` world becomes a
:class:`~harness.workspace.Workspace` (so the same resolution checks apply), its SQL script
built into a SQLite file once per script content under ``cache_dir`` and opened read-only by
the workspace machinery. A ``replay`` world puts :class:`~harness.eval.replay.ReplayBackend`
behind every recorded tool. ``down`` tools (:func:`with_down`) keep their spec — the model is still
offered them — but their backend answers BACKEND_ERROR.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from harness.adapters.embedded import ToolPlane, build_tool_plane, tool_plane_of
from harness.contracts.errors import HarnessError, WorkspaceError
from harness.eval.case import DemoWorld, FilesWorld, LoadedCase, ReplayWorld
from harness.eval.replay import DownBackend, Recording, ReplayBackend
from harness.ports import ToolBackend
from harness.settings import Settings
from harness.sql.policy import SqlPolicy
from harness.workspace import resolve_workspace

__all__ = ["build_case_plane", "with_down", "world_key"]


def world_key(loaded: LoadedCase) -> tuple[str, ...]:
    """Cases with equal keys share one tool plane (its loaded data and its store) in a process."""
    return (loaded.case.world.model_dump_json(), str(loaded.base_dir))


def build_case_plane(loaded: LoadedCase, settings: Settings, cache_dir: Path) -> ToolPlane:
    """The tool plane of ``loaded``'s world.

    Raises:
        WorkspaceError: The world cannot be built (WORKSPACE_INVALID); the message says what
            to fix.
    """
    world = loaded.case.world
    try:
        if isinstance(world, DemoWorld):
            plane = build_tool_plane(settings)
        elif isinstance(world, FilesWorld):
            plane = _files_plane(loaded, world, settings, cache_dir)
        else:
            plane = _replay_plane(loaded, world, settings)
    except WorkspaceError:
        raise
    except HarnessError as error:
        raise WorkspaceError(message=error.message, context=dict(error.context)) from None
    except (OSError, ValueError) as exc:
        raise WorkspaceError(message=f"world of {loaded.case_id}: {type(exc).__name__}") from None
    return plane


def with_down(plane: ToolPlane, down: Iterable[str]) -> ToolPlane:
    """``plane`` with the backends of ``down`` answering BACKEND_ERROR (tools still offered)."""
    down = [tool for tool in down if tool in plane.backends]
    if not down:
        return plane
    backends = dict(plane.backends)
    backends.update({tool: DownBackend(tool) for tool in down})
    return replace(plane, backends=backends)


def _files_plane(
    loaded: LoadedCase, world: FilesWorld, settings: Settings, cache_dir: Path
) -> ToolPlane:
    data: dict[str, Any] = {}
    if world.logs is not None:
        data["logs"] = world.logs.model_dump(exclude_none=True, mode="json")
    if world.database is not None:
        database = _sqlite_of(loaded.path(world.database.script), cache_dir)
        data["database"] = {
            "url": f"sqlite:///{database}",
            "policy": world.database.policy,
            **({"datasource": world.database.datasource} if world.database.datasource else {}),
        }
    if world.runbooks is not None:
        data["runbooks"] = {"path": world.runbooks}
    workspace = resolve_workspace(data, base=loaded.base_dir)
    return build_tool_plane(settings, workspace=workspace)


def _sqlite_of(script: Path, cache_dir: Path) -> Path:
    """A SQLite file holding ``script``, built once per script content (atomically)."""
    text = script.read_text(encoding="utf-8")
    digest = hashlib.sha256(text.encode()).hexdigest()[:24]
    target = cache_dir / f"world-{digest}.db"
    if target.is_file():
        return target
    cache_dir.mkdir(parents=True, exist_ok=True)
    tmp = cache_dir / f".world-{digest}-{os.getpid()}.db"
    tmp.unlink(missing_ok=True)
    with sqlite3.connect(tmp) as db:
        db.executescript(text)
    db.close()
    tmp.replace(target)
    return target


def _replay_plane(loaded: LoadedCase, world: ReplayWorld, settings: Settings) -> ToolPlane:
    recording = Recording.load(loaded.path(world.recording))
    policy = (
        SqlPolicy.model_validate(recording.sql_policy)
        if recording.sql_policy is not None
        else SqlPolicy(datasources={})
    )
    backends: dict[str, ToolBackend] = {
        tool: ReplayBackend(tool, recording) for tool in recording.tools
    }
    return tool_plane_of(
        settings, policy=policy, backends=backends, datasource=recording.datasource
    )
