"""Observed facts: verified tool data a SafeFallback quotes, with the source of each quote.

A SafeFallback never carries the draft; what it says about the incident comes from here, built
item by item from the observations EvidenceGuard verified (already redacted and bounded). Each
fact is quoted data: its links and host names are defanged, and an item that a check refuses
(it reads like an instruction, holds a dangerous command, or tells its reader to switch
security off, silence alerts, move credentials or dismiss the incident: the fallback may be
the very refusal of a draft that repeated it) is withheld rather than quoted (the caller learns which,
to list it as a validation issue, by class only).
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.contracts.observation import (
    AgentObservation,
    LogsObservation,
    MysqlObservation,
    iso_text,
)
from harness.contracts.results import ObservedFact
from harness.guards.evidence import VerifiedSnapshot
from harness.release.links import ContentPolicy
from harness.textcheck import dangerous_command, injection

__all__ = ["QuotedFacts", "observed_facts"]

_QUOTE_CHARS = 500
_LOG_TEMPLATES = 5
_ROWS = 5
_DOCUMENTS = 3
_EXCERPT_CHARS = 200


@dataclass(frozen=True, kw_only=True)
class QuotedFacts:
    """The facts to quote, and the items withheld because they read like instructions."""

    facts: tuple[ObservedFact, ...]
    withheld: tuple[tuple[str, str, str], ...]
    """(tool_call_id, item_ref, class) of each withheld item (an injection or command class)."""


def observed_facts(
    snapshot: VerifiedSnapshot, content: ContentPolicy, *, limit: int = 20
) -> QuotedFacts:
    """Up to ``limit`` facts, in snapshot order (by tool_call_id)."""
    facts: list[ObservedFact] = []
    withheld: list[tuple[str, str, str]] = []
    for tool_call_id, observation in snapshot.records.items():
        for ref, text in _items(observation):
            found = injection(text) or dangerous_command(text) or content.allowlist.directive(text)
            if found is not None:
                withheld.append((tool_call_id, ref, found))
                continue
            if len(facts) < limit:
                quote = content.defang(text)[:_QUOTE_CHARS]
                facts.append(ObservedFact(tool_call_id=tool_call_id, item_ref=ref, quote=quote))
    return QuotedFacts(facts=tuple(facts), withheld=tuple(withheld))


def _items(observation: AgentObservation) -> list[tuple[str, str]]:
    if isinstance(observation, LogsObservation):
        return [
            (
                t.ref,
                f"{t.template} — {t.count} events, {iso_text(t.first_seen)} to {iso_text(t.last_seen)}, "
                f"{', '.join(t.services)}",
            )
            for t in observation.templates[:_LOG_TEMPLATES]
        ]
    if isinstance(observation, MysqlObservation):
        return [
            (r.ref, ", ".join(f"{k}={v}" for k, v in r.values.items()))
            for r in observation.rows[:_ROWS]
        ]
    return [
        (b.ref, f"{b.title}: {b.excerpt[:_EXCERPT_CHARS]}")
        for b in observation.evidence[:_DOCUMENTS]
    ]
