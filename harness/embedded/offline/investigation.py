"""The offline demo model's investigation plan: which tools to call next, by rules.

Round 1 (no results yet): search the runbooks with the question's symptom words and read the
named services' WARN+ logs from one hour before the named onset to "now". Round 2: from the
logs, derive the onset ``T`` (see :mod:`harness.embedded.offline.analysis`); read every service's
warnings around ``T`` when the first query was limited to the named ones (another component
may be failing first), every cause table the catalog lists (:mod:`harness.embedded.offline.tables`:
changes, expiries, capacities, states — the ones of a kind the symptom speaks of first, at
most :data:`MAX_CAUSE_TABLES`) in its window around ``T`` (:mod:`harness.embedded.offline.queries`),
the failed rows since ``T`` of the tables the question or the symptom names, and search the
runbooks for the symptom when none matches it yet; when the named services have no logs at
all, read every service's logs instead (the question may not spell a service as its logs
do). Round 3: search the runbooks for what to do about the root cause when no matching
runbook says it yet. A failed call is retried once with a simpler request; a stop, a refusal
that ends the investigation, or the round limit means answer now.

Only the observations decide the arguments — never an instruction found inside them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from harness.embedded.offline.analysis import Analysis
from harness.embedded.offline.candidates import KIND_WORDS, Candidate, CauseKind, queried_table
from harness.embedded.offline.conversation import Conversation, Exchange
from harness.embedded.offline.queries import cause_sql, impact_sql
from harness.embedded.offline.question import keywords
from harness.embedded.offline.runbooks import Section
from harness.embedded.offline.tables import Table, TableKind

__all__ = ["MAX_CAUSE_TABLES", "MAX_TOOL_TURNS", "ToolRequest", "next_calls"]

MAX_TOOL_TURNS = 4
# A run may call query_mysql six times by default: four cause tables leave room for the table
# the symptom names and one retry.
MAX_CAUSE_TABLES = 4
_MAX_SEARCHES = 3
_LOOKBACK = timedelta(hours=1)
_AROUND_AFTER = timedelta(minutes=10)
_DEFAULT_RANGE = timedelta(hours=2)
_MAX_RANGE = timedelta(hours=24)
# The words a search for what to do about a cause adds, by its kind.
_REMEDY_WORDS = {
    CauseKind.CHANGE: "revert",
    CauseKind.EXPIRY: "renew expired",
    CauseKind.CAPACITY: "full free limit",
    CauseKind.DEPENDENCY: "unavailable recover",
}
_TABLE_CAUSE = {
    TableKind.CHANGE: CauseKind.CHANGE,
    TableKind.EXPIRY: CauseKind.EXPIRY,
    TableKind.CAPACITY: CauseKind.CAPACITY,
    TableKind.STATE: CauseKind.DEPENDENCY,
}
# Codes after which a simpler request can succeed; everything else is not worth a retry.
_RETRYABLE = frozenset(
    {
        "SQL_REJECTED",
        "BACKEND_ERROR",
        "BACKEND_TIMEOUT",
        "BACKEND_LOST",
        "INVALID_ARGUMENTS",
        "PROJECTION_ERROR",
        "RAW_TOO_LARGE",
        "RECORD_TOO_LARGE",
        "REQUEST_TOO_LARGE",
        "UNREADABLE_RESULT",
    }
)
# Codes that mean the harness will not run more tools for this run: answer at once.
_ANSWER_NOW = frozenset(
    {
        "INFORMATION_SATURATED",
        "TOOL_BUDGET_EXHAUSTED",
        "BYTES_BUDGET_EXHAUSTED",
        "TOKEN_BUDGET_EXHAUSTED",
        "RUN_NOT_ACTIVE",
        "RUN_MISMATCH",
        "DEADLINE_EXCEEDED",
        "CANCELLED",
    }
)


@dataclass(frozen=True, kw_only=True)
class ToolRequest:
    """A tool call the model decided to make (its id is assigned by the engine)."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)

    def identity(self) -> str:
        return f"{self.name}:{json.dumps(self.arguments, sort_keys=True)}"


def next_calls(conversation: Conversation, analysis: Analysis) -> tuple[list[ToolRequest], str]:
    """The next round of tool calls and why; no calls means: write the answer now."""
    if conversation.stop_required:
        return [], "The harness required a stop; answering with what was gathered."
    if conversation.tool_turns >= MAX_TOOL_TURNS:
        return [], f"{MAX_TOOL_TURNS} tool rounds used; answering."
    codes = sorted({e.error_code for e in conversation.exchanges if e.error_code} & _ANSWER_NOW)
    if codes:
        return [], f"The harness refused further tools ({', '.join(codes)}); answering."
    calls: list[ToolRequest | None]
    if not conversation.exchanges:
        calls = [_knowledge(conversation.question), _logs(conversation, analysis, simpler=False)]
        reason = "Round 1: runbooks for the question's symptom words; WARN+ logs around the onset."
    else:
        calls, reason = _follow_up(conversation, analysis)
    done = {_identity(e) for e in conversation.exchanges}
    fresh: list[ToolRequest] = []
    for call in calls:
        if call is not None and conversation.offers(call.name) and call.identity() not in done:
            done.add(call.identity())
            fresh.append(call)
    return fresh, (reason if fresh else "Nothing left worth checking; answering.")


def _follow_up(
    conversation: Conversation, analysis: Analysis
) -> tuple[list[ToolRequest | None], str]:
    calls: list[ToolRequest | None] = []
    reasons: list[str] = []
    logs_calls = conversation.calls("query_logs")
    if logs_calls and not analysis.logs and _retry(logs_calls):
        calls.append(_logs(conversation, analysis, simpler=True))
        reasons.append("the log query failed; retrying once with a narrower ERROR-only query")
    elif _named_services_silent(logs_calls, analysis):
        calls.append(_logs(conversation, analysis, simpler=False, every_service=True))
        reasons.append("the named services have no logs under those names; reading all services")
    if analysis.onset is None or analysis.named_silent:
        return calls, "; ".join(reasons) or "No onset found in the logs."
    onset = analysis.onset
    if analysis.services_named and len(logs_calls) == 1:
        calls.append(_around(onset))
        reasons.append("reading every service's warnings around the onset")
    by_table: dict[str, list[Exchange]] = {}
    for exchange in conversation.calls("query_mysql"):
        table = queried_table(exchange, analysis.tables)
        if table is not None:
            by_table.setdefault(table.qualified, []).append(exchange)
    for table in _cause_tables(analysis):
        previous = by_table.get(table.qualified, [])
        if not previous:
            calls.append(_mysql(analysis, cause_sql(table, onset, simpler=False)))
        elif _retry(previous):
            calls.append(_mysql(analysis, cause_sql(table, onset, simpler=True)))
            reasons.append(f"the {table.label} query failed; retrying once with a simpler query")
    for table in analysis.impact_tables:
        if not by_table.get(table.qualified):
            calls.append(_mysql(analysis, impact_sql(table, onset)))
    lead = analysis.lead
    assert lead is not None
    reasons.insert(
        0, f"Onset T={_iso(onset)} from the first '{lead.template.ref}'; causes around T"
    )
    searches = len(conversation.calls("search_knowledge"))
    if not analysis.symptom_runbooks and searches < 2:
        calls.append(_knowledge(lead.template.template))
        reasons.append("no runbook matches the symptom yet; searching for it")
    elif analysis.root is not None and searches < _MAX_SEARCHES and not _remedy_seen(analysis):
        calls.append(_knowledge(_remedy_query(analysis.root.candidate)))
        reasons.append("a cause is linked; looking up what to do about it")
    return calls, "; ".join(reasons)


def _cause_tables(analysis: Analysis) -> list[Table]:
    """The cause tables to read: of a kind the symptom speaks of first, then changes."""

    def rank(table: Table) -> tuple[bool, bool, str]:
        assert table.kind is not None
        spoken = bool(KIND_WORDS[_TABLE_CAUSE[table.kind]] & analysis.words)
        named = any(c.rsplit("_", 1)[-1] in analysis.words for c in table.entity_columns)
        return (not (spoken or named), table.kind is not TableKind.CHANGE, table.qualified)

    readable = [t for t in analysis.tables if t.kind is not None]
    return sorted(sorted(readable, key=rank)[:MAX_CAUSE_TABLES], key=lambda t: t.qualified)


def _remedy_seen(analysis: Analysis) -> bool:
    """Whether a runbook that matches the symptom, or links the root, says what to do."""
    root = analysis.root
    linked = [k.runbook for k in root.links if k.runbook is not None] if root else []
    return any(rb.parts(Section.REMEDY) for rb in [*linked, *analysis.symptom_runbooks[:1]])


def _remedy_query(candidate: Candidate) -> str:
    table = candidate.table
    if table is not None:
        subject = candidate.value(table.subject_column) or " ".join(
            candidate.value(c) for c in table.entity_columns[:2]
        )
        text = f"{_REMEDY_WORDS[candidate.kind]} {table.singular_label} {subject} remediation"
    else:
        assert candidate.template is not None
        text = f"{_REMEDY_WORDS[candidate.kind]} remediation {candidate.template.template}"
    return keywords(text, max_words=10) or text[:200]


def _named_services_silent(logs_calls: list[Exchange], analysis: Analysis) -> bool:
    """The one log query so far named services and found nothing for them in its range."""
    if len(logs_calls) != 1 or not analysis.services_named:
        return False
    only = logs_calls[0]
    return only.no_evidence and bool(only.arguments.get("services"))


def _retry(previous: list[Exchange]) -> bool:
    """Retry once: only the first attempt may have failed, and with a retryable code."""
    return len(previous) == 1 and previous[0].error_code in _RETRYABLE


def _identity(exchange: Exchange) -> str:
    return ToolRequest(name=exchange.tool_name, arguments=exchange.arguments).identity()


def _knowledge(text: str) -> ToolRequest:
    query = keywords(text, max_words=10) or text.strip()[:200] or "incident"
    return ToolRequest(name="search_knowledge", arguments={"query": query[:500], "top_k": 3})


def _logs(
    conversation: Conversation,
    analysis: Analysis,
    *,
    simpler: bool,
    every_service: bool = False,
) -> ToolRequest:
    now = analysis.context.now
    onset = analysis.onset_named
    if simpler:
        start = onset - timedelta(minutes=15) if onset else now - _LOOKBACK
    else:
        start = onset - _LOOKBACK if onset else now - _DEFAULT_RANGE
    start = max(start, now - _MAX_RANGE)
    arguments: dict[str, Any] = {
        "start": _iso(start),
        "end": _iso(now),
        "level": "ERROR" if simpler else "WARN",
    }
    if analysis.services_named and not every_service:
        arguments["services"] = analysis.services_named
    return ToolRequest(name="query_logs", arguments=arguments)


def _around(onset: datetime) -> ToolRequest:
    """Every service's warnings from an hour before the onset to just after it."""
    start = onset.replace(microsecond=0) - _LOOKBACK
    return ToolRequest(
        name="query_logs",
        arguments={
            "start": _iso(start),
            "end": _iso(start + _LOOKBACK + _AROUND_AFTER),
            "level": "WARN",
        },
    )


def _mysql(analysis: Analysis, sql: str | None) -> ToolRequest | None:
    if sql is None:
        return None
    return ToolRequest(
        name="query_mysql", arguments={"datasource": analysis.context.datasource, "sql": sql}
    )


def _iso(value: datetime) -> str:
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")
