"""The reasoning audit: the provider's reasoning, sealed, expiring, readable by the owner only.

Provider reasoning (``reasoning_content``) never enters the trace, a released result or a log
line. It is kept per model call in ``agent_reasoning_audit``: encrypted by a
:class:`ReasoningCipher` (the key id is stored with each row, so a rotated-out key that is
still loaded decrypts its rows), with ``expires_at`` from the retention setting. A call whose
provider returned none gets a row saying unavailable — never invented text.

:func:`read_reasoning` is the single entry that reads it: the caller must be the run's owner,
hold REASONING_READ, and name the run's session and id. Every other case — wrong owner, wrong
session, unknown run, missing permission — is refused with the same stable code, NOT_FOUND, so
a refusal never tells whether the run exists. Every attempt is itself recorded.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from harness.audit.records import AuditStore, ReasoningAccess, ReasoningAudit
from harness.contracts.errors import RunNotFound
from harness.contracts.models import Component
from harness.contracts.principal import Permission, Principal
from harness.ports import Clock

__all__ = [
    "ReasoningCipher",
    "ReasoningEntry",
    "ReasoningNote",
    "read_reasoning",
    "seal_reasoning",
]


log = logging.getLogger(__name__)


class ReasoningCipher(Protocol):
    """Authenticated encryption of reasoning text, with key ids for rotation."""

    def encrypt(self, plaintext: bytes) -> tuple[str, bytes]:
        """``(key_id, ciphertext)`` under the current key."""
        ...

    def decrypt(self, key_id: str, ciphertext: bytes) -> bytes:
        """The plaintext; raises ValueError when the key is unknown or the text was altered."""
        ...


@dataclass(frozen=True, kw_only=True)
class ReasoningNote:
    """One model call's reasoning as the caller captured it (``text`` None: unavailable)."""

    component: Component
    component_round: int
    attempt: int
    text: str | None


@dataclass(frozen=True, kw_only=True)
class ReasoningEntry:
    """One decrypted row, as the owner reads it."""

    component: Component
    component_round: int
    attempt: int
    available: bool
    """The provider returned reasoning for this call (a row was sealed)."""
    text: str | None
    """The plaintext; None when unavailable, or when its key is no longer loaded."""
    created_at: datetime
    unreadable: bool = False
    """Sealed under a key that is not loaded (rotated out and dropped) or altered at rest."""


def seal_reasoning(
    notes: Sequence[ReasoningNote],
    *,
    run_id: str,
    session_id: str,
    owner: str,
    cipher: ReasoningCipher,
    now: datetime,
    retention: timedelta,
) -> list[ReasoningAudit]:
    """The encrypted rows of one run's reasoning notes."""
    rows = []
    for note in notes:
        key_id: str | None = None
        ciphertext: bytes | None = None
        if note.text:
            key_id, ciphertext = cipher.encrypt(note.text.encode("utf-8"))
        rows.append(
            ReasoningAudit(
                run_id=run_id,
                session_id=session_id,
                owner=owner,
                component=note.component,
                component_round=note.component_round,
                attempt=note.attempt,
                available=ciphertext is not None,
                key_id=key_id,
                ciphertext=ciphertext,
                created_at=now,
                expires_at=now + retention,
            )
        )
    return rows


async def read_reasoning(
    store: AuditStore,
    cipher: ReasoningCipher,
    *,
    principal: Principal,
    session_id: str,
    run_id: str,
    clock: Clock,
) -> list[ReasoningEntry]:
    """The owner's view of one run's reasoning.

    Raises:
        RunNotFound: NOT_FOUND for every refusal (the cause is only in the access audit).
    """
    reason = await _refusal(store, principal, session_id, run_id)
    await store.record_access(
        ReasoningAccess(
            run_id=run_id[:64],
            session_id=session_id[:64],
            principal=principal.id[:128],
            at=clock.now(),
            allowed=reason is None,
            reason=reason or "ALLOWED",
        )
    )
    if reason is not None:
        raise RunNotFound(message="reasoning not available", context={"reason": reason})
    entries = []
    for row in await store.reasoning(run_id):
        text = None
        unreadable = False
        if row.available and row.key_id and row.ciphertext is not None:
            try:
                text = cipher.decrypt(row.key_id, row.ciphertext).decode("utf-8")
            except ValueError:
                unreadable = True
                log.warning("reasoning row unreadable run_id=%s key_id=%s", run_id, row.key_id)
        entries.append(
            ReasoningEntry(
                component=row.component,
                component_round=row.component_round,
                attempt=row.attempt,
                available=row.available,
                text=text,
                created_at=row.created_at,
                unreadable=unreadable,
            )
        )
    return entries


async def _refusal(
    store: AuditStore, principal: Principal, session_id: str, run_id: str
) -> str | None:
    if not principal.may(Permission.REASONING_READ):
        return "PERMISSION"
    run = await store.run(run_id)
    if run is None:
        return "UNKNOWN_RUN"
    if run.session_id != session_id:
        return "SESSION"
    if run.owner != principal.id:
        return "OWNER"
    return None
