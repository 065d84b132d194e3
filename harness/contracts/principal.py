"""Principals and permissions: who asks, and what they may do.

The HTTP layer maps an API key to a principal; the CLI acts as a local principal. A run
belongs to the principal that created it (``RunRequest.owner``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

__all__ = ["LOCAL_OPERATOR", "Permission", "Principal"]


class Permission(str, Enum):
    """What a principal may do."""

    DIAGNOSE = "DIAGNOSE"
    READ = "READ"
    CANCEL = "CANCEL"
    REASONING_READ = "REASONING_READ"
    ADMIN = "ADMIN"


@dataclass(frozen=True, kw_only=True)
class Principal:
    """An authenticated caller."""

    id: str
    permissions: frozenset[Permission]

    def may(self, permission: Permission) -> bool:
        return permission in self.permissions or Permission.ADMIN in self.permissions


LOCAL_OPERATOR = Principal(id="anonymous", permissions=frozenset(Permission))
"""The operator at the local CLI: owns the runs it starts (RunRequest's default owner)."""
