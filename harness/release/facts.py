"""Observed facts: harness-written text rendered from verified, typed projections.

A SafeFallback never carries the draft; what it says about the incident comes from here, built
item by item from the observations EvidenceGuard verified (already redacted and bounded).
"""

from __future__ import annotations

from datetime import datetime

from pydantic_core import to_jsonable_python

from harness.guards.evidence import VerifiedSnapshot
from harness.observation import AgentObservation, LogsObservation, MysqlObservation
from harness.results import ObservedFact

__all__ = ["observed_facts"]

_TEXT_CHARS = 500
_LOG_TEMPLATES = 5
_ROWS = 5
_DOCUMENTS = 3
_EXCERPT_CHARS = 200


def observed_facts(snapshot: VerifiedSnapshot, *, limit: int = 20) -> list[ObservedFact]:
    """Up to ``limit`` facts, in snapshot order (by tool_call_id)."""
    facts: list[ObservedFact] = []
    for tool_call_id, observation in snapshot.records.items():
        for ref, text in _items(observation):
            facts.append(
                ObservedFact(tool_call_id=tool_call_id, item_ref=ref, text=text[:_TEXT_CHARS])
            )
            if len(facts) >= limit:
                return facts
    return facts


def _items(observation: AgentObservation) -> list[tuple[str, str]]:
    if isinstance(observation, LogsObservation):
        return [
            (
                t.ref,
                f"{t.template} — {t.count} events, {_iso(t.first_seen)} to {_iso(t.last_seen)}, "
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


def _iso(value: datetime) -> str:
    # The same text the JSON projection carries ("2026-11-02T14:05:00Z").
    return str(to_jsonable_python(value))
