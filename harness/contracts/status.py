"""RunStatus: the lifecycle states of a run, and which of them are final.

PENDING → RUNNING → exactly one terminal state (COMPLETED, FAILED, CANCELLED, TIMED_OUT). A
contract, because released results, snapshots and the audit all name a run's status; the
lifecycle itself is :class:`~harness.run.context.RunContext`'s.
"""

from __future__ import annotations

from enum import Enum

__all__ = ["TERMINAL_STATES", "RunStatus"]


class RunStatus(str, Enum):
    """Lifecycle of a run; the four terminal states are final."""

    PENDING = "PENDING"
    RUNNING = "RUNNING"
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"
    CANCELLED = "CANCELLED"
    TIMED_OUT = "TIMED_OUT"


TERMINAL_STATES = frozenset(
    {RunStatus.COMPLETED, RunStatus.FAILED, RunStatus.CANCELLED, RunStatus.TIMED_OUT}
)
