"""The Ray layer: RunActor, the run pool, the run desk, tool and projector tasks, metrics.

Thin by design: it builds harness objects and delegates to them. Ray options are applied in
:mod:`actors.factory` only. Names are imported lazily so that ``import actors`` does not pay
for importing Ray.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "EmbeddedDepsFactory",
    "RayToolExecutor",
    "RunActor",
    "RunPool",
    "ToolSet",
]

_HOMES = {
    "EmbeddedDepsFactory": "actors.deps",
    "RayToolExecutor": "actors.tool_executor",
    "RunActor": "actors.run_actor",
    "RunPool": "actors.pool",
    "ToolSet": "actors.tasks",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'actors' has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
