"""Intent: which path a run takes, as the router decided."""

from __future__ import annotations

from enum import Enum

__all__ = ["Intent"]


class Intent(str, Enum):
    """The router's verdict on a question."""

    DIAGNOSIS = "DIAGNOSIS"
    """Why is a system misbehaving: investigate with tools, release a checked report."""
    KNOWLEDGE_QA = "KNOWLEDGE_QA"
    """How-to or what-is questions answered from the runbooks."""
    SYSTEM_CHAT = "SYSTEM_CHAT"
    """Greetings and questions about the assistant itself; no tools."""
    OUT_OF_SCOPE = "OUT_OF_SCOPE"
    """Anything else; answered with a fixed pointer, no model answer."""
