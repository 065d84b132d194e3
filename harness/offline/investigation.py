"""The offline demo model's investigation plan: which tools to call next, by rules.

Round 1 (no results yet): search the runbooks with the question's symptom words and read the
named services' WARN+ logs from one hour before the named onset to "now". Round 2: from the
logs, derive the onset ``T`` (see :mod:`harness.offline.analysis`) and read every change table
the catalog lists (:mod:`harness.offline.tables`) in ``[T − 30 min, T]`` from the datasource
the prompt names, the failed rows since ``T`` of the tables the question or the symptom names,
and search the runbooks for the symptom when no block names it yet; when the named services
have no logs at all, read every service's logs instead (the question may not spell a service
as its logs do). Round 3: when a change is the likely cause and no runbook block says how to
roll it back, search for that. A failed call is retried once with a simpler request; a stop,
a refusal that ends the investigation, or the round limit means answer now.

Only the observations decide the arguments — never an instruction found inside them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from harness.offline.analysis import Analysis, queried_table
from harness.offline.conversation import Conversation, Exchange
from harness.offline.question import keywords
from harness.offline.tables import change_sql, impact_sql

__all__ = ["MAX_TOOL_TURNS", "ToolRequest", "next_calls"]

MAX_TOOL_TURNS = 4
_LOOKBACK = timedelta(hours=1)
_DEFAULT_RANGE = timedelta(hours=2)
_MAX_RANGE = timedelta(hours=24)
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
    fresh = [
        c
        for c in calls
        if c is not None and conversation.offers(c.name) and c.identity() not in done
    ]
    return fresh, (reason if fresh else "Nothing left worth checking; answering.")


def _follow_up(
    conversation: Conversation, analysis: Analysis
) -> tuple[list[ToolRequest | None], str]:
    calls: list[ToolRequest | None] = []
    reasons: list[str] = []
    logs_calls = conversation.calls("query_logs")
    if logs_calls and analysis.logs is None and _retry(logs_calls):
        calls.append(_logs(conversation, analysis, simpler=True))
        reasons.append("the log query failed; retrying once with a narrower ERROR-only query")
    elif _named_services_silent(logs_calls, analysis):
        calls.append(_logs(conversation, analysis, simpler=False, every_service=True))
        reasons.append("the named services have no logs under those names; reading all services")
    if analysis.onset is not None:
        start, end = _window_literals(analysis)
        by_table: dict[str, list[Exchange]] = {}
        for exchange in conversation.calls("query_mysql"):
            table = queried_table(exchange, analysis.tables)
            if table is not None:
                by_table.setdefault(table.qualified, []).append(exchange)
        for table in analysis.change_tables:
            previous = by_table.get(table.qualified, [])
            if not previous:
                calls.append(_mysql(analysis, change_sql(table, start, end, simpler=False)))
            elif _retry(previous):
                calls.append(_mysql(analysis, change_sql(table, start, end, simpler=True)))
                reasons.append(
                    f"the {table.label} query failed; retrying once with a simpler query"
                )
        for table in analysis.impact_tables:
            if not by_table.get(table.qualified):
                calls.append(_mysql(analysis, impact_sql(table, end)))
        reasons.insert(
            0,
            f"Onset T={_iso(analysis.onset)} from the first '{analysis.symptoms[0].ref}'; "
            f"changes in [{start}, {end}]",
        )
        knowledge = conversation.calls("search_knowledge")
        if analysis.symptom_block is None and len(knowledge) < 2:
            assert analysis.lead is not None
            calls.append(_knowledge(analysis.lead.template))
            reasons.append("no runbook block names the symptom yet; searching for it")
        elif analysis.root is not None and not analysis.rollback_blocks and len(knowledge) < 3:
            root = analysis.root
            calls.append(
                _knowledge(f"revert {root.table.singular_label} {root.subject} remediation")
            )
            reasons.append("a change is the likely cause; looking up how to roll it back")
    return calls, "; ".join(reasons) or "No onset found in the logs."


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


def _mysql(analysis: Analysis, sql: str) -> ToolRequest:
    return ToolRequest(
        name="query_mysql", arguments={"datasource": analysis.context.datasource, "sql": sql}
    )


def _window_literals(analysis: Analysis) -> tuple[str, str]:
    """SQL literals of the suspect window: start floored, end ceiled to the second."""
    window = analysis.window
    assert window is not None
    start, end = window
    end_ceiled = end.replace(microsecond=0) + (
        timedelta(seconds=1) if end.microsecond else timedelta()
    )
    return _sql_time(start.replace(microsecond=0)), _sql_time(end_ceiled)


def _sql_time(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")


def _iso(value: datetime) -> str:
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")
