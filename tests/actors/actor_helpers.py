"""Helpers shared by the actors tests."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

__all__ = ["eventually", "file_appears"]


async def eventually(
    probe: Callable[[], Awaitable[Any]],
    *,
    timeout_s: float = 10.0,
    interval_s: float = 0.02,
) -> Any:
    """Poll ``probe`` until it returns something truthy; fail after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = await probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not reached within {timeout_s} s")
        await asyncio.sleep(interval_s)


async def file_appears(path: Path, *, timeout_s: float = 10.0) -> bool:
    """Wait until ``path`` exists (markers written by probe backends in worker processes)."""

    async def exists() -> bool:
        return path.exists()

    return bool(await eventually(exists, timeout_s=timeout_s))
