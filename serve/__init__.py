"""Entry points: the operator CLI (``serve.cli``) and the HTTP API on Ray Serve.

This is the outermost layer: it may import the Ray layer (``actors``), the adapters and the
core, and nothing imports it. It holds no domain logic — it parses input, calls harness or
actors objects, and renders their results.

``build_app(deps)`` builds the FastAPI app (:mod:`serve.app`); :mod:`serve.deployment` wraps it
in a Serve deployment and starts it (``harness serve``). Names are imported lazily, so that the
CLI does not pay for importing FastAPI and Ray Serve.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["ApiDeps", "ApiLimits", "ServeConfig", "build_app"]

_HOMES = {
    "ApiDeps": "serve.deps",
    "ApiLimits": "serve.deps",
    "ServeConfig": "serve.deployment",
    "build_app": "serve.app",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'serve' has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
