"""How the offline demo model writes values: times, quotes and bounded texts.

Every statement of the draft is built from values of the observations; these helpers only
format them, so the same value reads the same everywhere (and is grounded where it is cited).
"""

from __future__ import annotations

from datetime import datetime, timedelta

__all__ = ["clip", "minutes", "quote", "time_text"]

MAX_ITEM_CHARS = 480
_QUOTE_CHARS = 140


def time_text(value: datetime) -> str:
    """``2026-11-02 14:05:10 UTC``."""
    return value.strftime("%Y-%m-%d %H:%M:%S UTC")


def quote(text: str, limit: int = _QUOTE_CHARS) -> str:
    """A template or value on one line, cut at ``limit`` with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def clip(text: str, limit: int = MAX_ITEM_CHARS) -> str:
    """A next step or limitation cut to what the draft may hold."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def minutes(delta: timedelta) -> str:
    """``30 min``, ``1 min 30 s``."""
    seconds = int(delta.total_seconds())
    return f"{seconds // 60} min {seconds % 60} s" if seconds % 60 else f"{seconds // 60} min"
