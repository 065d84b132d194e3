"""Reads that consult more than the run desk, kept out of the routes: a run's trace — live from
its host, else from the durable audit — and a run's reasoning, opened from the audit.

Each answers for one principal and refuses anyone else exactly as a run that does not exist
(NOT_FOUND). The audit database's own failures leave as UNAVAILABLE, never with their text.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from typing import TypeVar

from harness.audit.reasoning import ReasoningCipher, read_reasoning
from harness.audit.records import AuditStore
from harness.contracts.errors import ErrorCode, HarnessError, RunNotFound, Unavailable
from harness.contracts.principal import Principal
from harness.ports import Clock
from harness.runhost import RunHost
from serve.models import ReasoningItem, ReasoningResponse, TraceResponse

__all__ = ["find_reasoning", "find_trace"]

log = logging.getLogger(__name__)

_T = TypeVar("_T")


async def find_trace(
    runs: RunHost, audit: AuditStore | None, *, run_id: str, owner: str
) -> TraceResponse:
    """The owner's run's timeline: live from the run's host while the host remembers it, else
    the durable audit's record of it.

    The host answers first. When it no longer has the timeline (None: the actor that ran the
    run forgot it) or no longer knows the run at all (NOT_FOUND: the desk forgot it, or it is
    a run of an earlier deployment), the audit is asked, and there too the run is its owner's
    only.

    Raises:
        RunNotFound: NOT_FOUND when neither has a run of ``owner`` by that id.
        Unavailable: UNAVAILABLE when the audit is needed and the deployment keeps none, or
            its database cannot be read.
    """
    try:
        events = await runs.trace(run_id, owner)
    except HarnessError as err:
        if err.error_code is not ErrorCode.NOT_FOUND:
            raise
        events = None
    if events is not None:
        return TraceResponse(run_id=run_id, source="live", events=events)
    kept = _required(audit)
    run = await _audited(kept.run(run_id))
    if run is None or run.owner != owner:
        raise RunNotFound(message="no such run in the audit")
    timeline = await _audited(kept.timeline(run_id))
    return TraceResponse(run_id=run_id, source="audit", events=timeline)


async def find_reasoning(
    audit: AuditStore | None,
    cipher: ReasoningCipher | None,
    clock: Clock,
    *,
    principal: Principal,
    session_id: str,
    run_id: str,
) -> ReasoningResponse:
    """The provider's reasoning of a run, for its owner with REASONING_READ only (see
    :func:`harness.audit.reasoning.read_reasoning`: every refusal is the same NOT_FOUND, and every
    attempt is audited).

    Raises:
        RunNotFound: NOT_FOUND for every refusal.
        Unavailable: UNAVAILABLE without an audit or a cipher, or when the audit is down.
    """
    kept = _required(audit)
    if cipher is None:
        raise Unavailable(message="no reasoning cipher")
    entries = await _audited(
        read_reasoning(
            kept,
            cipher,
            principal=principal,
            session_id=session_id,
            run_id=run_id,
            clock=clock,
        )
    )
    return ReasoningResponse(
        run_id=run_id, session_id=session_id, entries=[ReasoningItem.of(e) for e in entries]
    )


def _required(audit: AuditStore | None) -> AuditStore:
    if audit is None:
        raise Unavailable(message="no audit configured")
    return audit


async def _audited(call: Awaitable[_T]) -> _T:
    """An audit read; the database's own failures leave as UNAVAILABLE (never their text)."""
    try:
        return await call
    except HarnessError:
        raise
    except Exception as exc:
        log.warning("audit read failed error=%s", type(exc).__name__)
        raise Unavailable(message="audit unavailable") from None
