"""RunContext: identity, deadline and lifecycle of one diagnosis run.

States: PENDING → RUNNING → exactly one terminal state (COMPLETED, FAILED, CANCELLED,
TIMED_OUT). :meth:`RunContext.try_finish` succeeds once; every later attempt is dropped and
counted, so the first terminal outcome is the one that stays. :meth:`RunContext.ensure_active`
is the one liveness check: the boundary and the model caller both ask it before doing work.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from harness.contracts.errors import ErrorCode, RunInactive
from harness.contracts.status import TERMINAL_STATES, RunStatus

__all__ = ["RunContext"]


@dataclass(kw_only=True)
class RunContext:
    """One run's identity and lifecycle; mutated only on the owning actor's loop."""

    run_id: str
    session_id: str
    owner: str
    analysis_id: str
    created_at: datetime
    deadline: datetime
    status: RunStatus = RunStatus.PENDING
    terminal_code: ErrorCode | None = None
    dropped_finishes: int = 0
    dropped_late: int = 0
    used_tool_call_ids: set[str] = field(default_factory=set)

    @classmethod
    def open(
        cls,
        *,
        run_id: str,
        now: datetime,
        timeout_s: float,
        session_id: str = "",
        owner: str = "",
        analysis_id: str = "",
    ) -> RunContext:
        """A PENDING run whose deadline is ``timeout_s`` after ``now``."""
        return cls(
            run_id=run_id,
            session_id=session_id or run_id,
            owner=owner or "anonymous",
            analysis_id=analysis_id or run_id,
            created_at=now,
            deadline=now + timedelta(seconds=timeout_s),
        )

    def start(self) -> None:
        """PENDING → RUNNING.

        Raises:
            ValueError: The run is not PENDING.
        """
        if self.status is not RunStatus.PENDING:
            raise ValueError(f"cannot start a run in state {self.status.value}")
        self.status = RunStatus.RUNNING

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL_STATES

    def inactive_code(self, now: datetime) -> ErrorCode | None:
        """Why the run accepts no more work at ``now``; None while it does.

        CANCELLED for a cancelled run, DEADLINE_EXCEEDED once the deadline passed (or the run
        timed out), RUN_NOT_ACTIVE for any other state than RUNNING.
        """
        if self.status is RunStatus.RUNNING:
            return ErrorCode.DEADLINE_EXCEEDED if now >= self.deadline else None
        if self.status is RunStatus.CANCELLED:
            return ErrorCode.CANCELLED
        if self.status is RunStatus.TIMED_OUT:
            return ErrorCode.DEADLINE_EXCEEDED
        return ErrorCode.RUN_NOT_ACTIVE

    def ensure_active(self, now: datetime) -> None:
        """Raise unless the run is RUNNING and before its deadline.

        Raises:
            RunInactive: CANCELLED, DEADLINE_EXCEEDED or RUN_NOT_ACTIVE (see
                :meth:`inactive_code`).
        """
        code = self.inactive_code(now)
        if code is not None:
            raise RunInactive(code, "run is not active", {"status": self.status.value})

    def drop_late(self) -> None:
        """Count a model reply or tool result that arrived after the run ended."""
        self.dropped_late += 1

    def try_finish(self, status: RunStatus, code: ErrorCode | None = None) -> bool:
        """Move to a terminal state once; later attempts are dropped and counted."""
        if status not in TERMINAL_STATES:
            raise ValueError(f"{status.value} is not terminal")
        if self.terminal:
            self.dropped_finishes += 1
            return False
        self.status = status
        self.terminal_code = code
        return True
