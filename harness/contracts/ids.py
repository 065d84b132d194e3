"""Identifiers: the one tool_call_id rule and how run ids are made.

A tool_call_id comes from the model framework, so it is untrusted text. It must match
``^[A-Za-z0-9_-]{1,64}$`` everywhere it is used as a key (the boundary, EvidenceGuard, the
canonical store's key) and it is single-use within a run.
"""

from __future__ import annotations

import re
import uuid

__all__ = ["TOOL_CALL_ID_PATTERN", "is_tool_call_id", "loggable_id", "new_run_id"]

TOOL_CALL_ID_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def is_tool_call_id(text: str) -> bool:
    """Whether ``text`` is a well-formed tool_call_id."""
    return TOOL_CALL_ID_PATTERN.fullmatch(text) is not None


def loggable_id(tool_call_id: str) -> str:
    """An id fit for a log line even when the model sent garbage."""
    return tool_call_id if is_tool_call_id(tool_call_id) else "<invalid>"


def new_run_id() -> str:
    """A fresh run id, ``run-<20 hex>``."""
    return f"run-{uuid.uuid4().hex[:20]}"
