"""Header shapes of log lines: detecting them in a file and splitting a line's header off."""

from __future__ import annotations

__all__ = ["MESSAGE_KEYS"]

# Field names that hold an event's message in structured lines (JSON, logfmt), in the order
# they are looked for.
MESSAGE_KEYS = ("message", "msg", "log", "text", "event", "@message")
