"""Transition rules of a canonical invocation, shared by every CanonicalStore.

A record is created PROJECTING and moves once, to READY or to ERROR.
The stores differ only in how they make the check-and-write atomic; what the next record looks
like, how big it may be and which paths are legal is decided here, in pure code, so the
in-memory store and the Redis store cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from harness.contracts.errors import ErrorCode, StoreError
from harness.contracts.invocation import CanonicalInvocation, EvidenceStatus, InvocationStatus
from harness.contracts.raw import RawResponse

__all__ = ["TransitionMethods", "require_projecting", "to_error", "to_ready"]


def require_projecting(record: CanonicalInvocation, *, op: str) -> None:
    """Refuse any path that does not start at PROJECTING.

    Raises:
        StoreError: ILLEGAL_TRANSITION when ``record`` is not PROJECTING.
    """
    if record.invocation_status is not InvocationStatus.PROJECTING:
        raise StoreError(
            ErrorCode.ILLEGAL_TRANSITION,
            "record is not PROJECTING",
            {"op": op, "status": record.invocation_status.value},
        )


def _rebuild(current: CanonicalInvocation, op: str, **changes: Any) -> CanonicalInvocation:
    require_projecting(current, op=op)
    try:
        # model_validate (not model_copy) so the legal-pair validator runs on the new record.
        return CanonicalInvocation.model_validate({**current.model_dump(), **changes})
    except ValidationError:
        raise StoreError(
            ErrorCode.ILLEGAL_TRANSITION,
            "target record is not a legal state",
            {"op": op, "target": changes.get("invocation_status")},
        ) from None


def to_ready(
    current: CanonicalInvocation,
    *,
    raw: RawResponse,
    agent_result: dict[str, Any],
    evidence_status: EvidenceStatus,
    completed_at: datetime,
) -> CanonicalInvocation:
    """Build the READY successor of a PROJECTING record.

    Raises:
        StoreError: ILLEGAL_TRANSITION when ``current`` is not PROJECTING or the result would be
            an illegal pair (e.g. READY/ERROR).
    """
    return _rebuild(
        current,
        "mark_ready",
        invocation_status=InvocationStatus.READY,
        evidence_status=evidence_status,
        raw=raw,
        agent_result=agent_result,
        completed_at=completed_at,
    )


def to_error(
    current: CanonicalInvocation,
    *,
    error_code: ErrorCode,
    completed_at: datetime,
    raw: RawResponse | None = None,
) -> CanonicalInvocation:
    """Build the ERROR successor of a PROJECTING record.

    ``raw=None`` keeps what the record already holds (normally nothing): the caller
    omits raw when it is the reason for the error (RAW_TOO_LARGE, RECORD_TOO_LARGE).

    Raises:
        StoreError: ILLEGAL_TRANSITION when ``current`` is not PROJECTING.
    """
    return _rebuild(
        current,
        "mark_error",
        invocation_status=InvocationStatus.ERROR,
        evidence_status=EvidenceStatus.ERROR,
        error_code=error_code,
        raw=current.raw if raw is None else raw,
        completed_at=completed_at,
    )


class TransitionMethods:
    """``mark_ready``/``mark_error`` of the CanonicalStore port, shared by every store.

    A store supplies ``_transition(run_id, tool_call_id, op, build)``: read the current record
    atomically, apply ``build`` to get its successor, write it keeping the remaining TTL, and
    return the successor. What the successor looks like is decided here and in ``to_ready`` /
    ``to_error``, so stores differ only in how they make the read-check-write atomic.
    """

    async def _transition(
        self,
        run_id: str,
        tool_call_id: str,
        op: str,
        build: Callable[[CanonicalInvocation], CanonicalInvocation],
    ) -> CanonicalInvocation:
        raise NotImplementedError

    async def mark_ready(
        self,
        run_id: str,
        tool_call_id: str,
        *,
        raw: RawResponse,
        agent_result: dict[str, Any],
        evidence_status: EvidenceStatus,
        completed_at: datetime,
    ) -> CanonicalInvocation:
        """PROJECTING → READY, keeping the remaining TTL.

        Raises:
            StoreError: RECORD_EXPIRED (never recreated), ILLEGAL_TRANSITION,
                RECORD_TOO_LARGE (record unchanged), STORE_ERROR.
        """
        return await self._transition(
            run_id,
            tool_call_id,
            "mark_ready",
            lambda current: to_ready(
                current,
                raw=raw,
                agent_result=agent_result,
                evidence_status=evidence_status,
                completed_at=completed_at,
            ),
        )

    async def mark_error(
        self,
        run_id: str,
        tool_call_id: str,
        *,
        error_code: ErrorCode,
        completed_at: datetime,
        raw: RawResponse | None = None,
    ) -> CanonicalInvocation:
        """PROJECTING → ERROR, keeping the remaining TTL.

        Raises:
            StoreError: RECORD_EXPIRED (never recreated), ILLEGAL_TRANSITION,
                RECORD_TOO_LARGE (record unchanged), STORE_ERROR.
        """
        return await self._transition(
            run_id,
            tool_call_id,
            "mark_error",
            lambda current: to_error(
                current, error_code=error_code, completed_at=completed_at, raw=raw
            ),
        )
