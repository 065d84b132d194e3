"""The offline demo model's investigation plan: which tools to call next, by rules.

Round 1 (no results yet): search the runbooks with the question's symptom words and read the
named services' WARN+ logs from one hour before the named onset to "now". Round 2: from the
logs, derive the onset ``T`` (see :mod:`harness.offline.analysis`) and read config changes and
deployments in ``[T − 30 min, T]`` from the datasource the prompt names, failed orders after
``T`` when the question is about checkout or orders, and search the runbooks for the symptom
when no block names it yet. Round 3: when a change is the likely cause and no runbook block
says how to roll it back, search for that. A failed call is retried once with a simpler
request; a stop, a refusal that ends the investigation, or the round limit means answer now.

Only the observations decide the arguments — never an instruction found inside them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from harness.offline.analysis import Analysis, mysql_kind
from harness.offline.conversation import Conversation, Exchange
from harness.offline.question import keywords

__all__ = ["MAX_TOOL_TURNS", "ToolRequest", "next_calls"]

MAX_TOOL_TURNS = 4
_LOOKBACK = timedelta(hours=1)
_DEFAULT_RANGE = timedelta(hours=2)
_MAX_RANGE = timedelta(hours=24)
_ROW_LIMIT = 50
# Codes after which a simpler request can succeed; everything else is not worth a retry.
_RETRYABLE = frozenset(
    {
        "SQL_REJECTED",
        "BACKEND_ERROR",
        "BACKEND_TIMEOUT",
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
    if analysis.onset is not None:
        window = _window_literals(analysis)
        by_kind: dict[str, list[Exchange]] = {}
        for exchange in conversation.calls("query_mysql"):
            by_kind.setdefault(mysql_kind(exchange), []).append(exchange)
        for kind, builder in (("config", _config_sql), ("deploy", _deploy_sql)):
            previous = by_kind.get(kind, [])
            if not previous:
                calls.append(_mysql(analysis, builder(*window, simpler=False)))
            elif _retry(previous):
                calls.append(_mysql(analysis, builder(*window, simpler=True)))
                reasons.append(f"the {kind} query failed; retrying once with a simpler query")
        if not by_kind.get("orders") and _about_orders(conversation, analysis):
            calls.append(_mysql(analysis, _orders_sql(window[1])))
        reasons.insert(
            0,
            f"Onset T={_iso(analysis.onset)} from the first '{analysis.symptoms[0].ref}'; "
            f"changes in [{window[0]}, {window[1]}]",
        )
        knowledge = conversation.calls("search_knowledge")
        if analysis.symptom_block is None and len(knowledge) < 2:
            assert analysis.lead is not None
            calls.append(_knowledge(analysis.lead.template))
            reasons.append("no runbook block names the symptom yet; searching for it")
        elif analysis.root is not None and not analysis.rollback_blocks and len(knowledge) < 3:
            key = analysis.root.value("config_key")
            calls.append(_knowledge(f"revert config change {key} remediation"))
            reasons.append("a change is the likely cause; looking up how to roll it back")
    return calls, "; ".join(reasons) or "No onset found in the logs."


def _retry(previous: list[Exchange]) -> bool:
    """Retry once: only the first attempt may have failed, and with a retryable code."""
    return len(previous) == 1 and previous[0].error_code in _RETRYABLE


def _identity(exchange: Exchange) -> str:
    return ToolRequest(name=exchange.tool_name, arguments=exchange.arguments).identity()


def _knowledge(text: str) -> ToolRequest:
    query = keywords(text, max_words=10) or text.strip()[:200] or "incident"
    return ToolRequest(name="search_knowledge", arguments={"query": query[:500], "top_k": 3})


def _logs(conversation: Conversation, analysis: Analysis, *, simpler: bool) -> ToolRequest:
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
    if analysis.services_named:
        arguments["services"] = analysis.services_named
    return ToolRequest(name="query_logs", arguments=arguments)


def _mysql(analysis: Analysis, sql: str) -> ToolRequest:
    return ToolRequest(
        name="query_mysql", arguments={"datasource": analysis.context.datasource, "sql": sql}
    )


def _config_sql(start: str, end: str, *, simpler: bool) -> str:
    if simpler:
        return (
            "SELECT service, config_key, old_value, new_value, changed_by, changed_at, ticket "
            f"FROM ops.config_changes WHERE changed_at >= '{start}' LIMIT {_ROW_LIMIT}"
        )
    return (
        "SELECT id, service, config_key, old_value, new_value, changed_by, changed_at, ticket "
        f"FROM ops.config_changes WHERE changed_at BETWEEN '{start}' AND '{end}' "
        f"ORDER BY changed_at DESC LIMIT {_ROW_LIMIT}"
    )


def _deploy_sql(start: str, end: str, *, simpler: bool) -> str:
    if simpler:
        return (
            "SELECT service, version, deployed_by, deployed_at, status FROM ops.deployments "
            f"WHERE deployed_at >= '{start}' LIMIT {_ROW_LIMIT}"
        )
    return (
        "SELECT id, service, version, deployed_by, deployed_at, status FROM ops.deployments "
        f"WHERE deployed_at BETWEEN '{start}' AND '{end}' ORDER BY deployed_at DESC "
        f"LIMIT {_ROW_LIMIT}"
    )


def _orders_sql(since: str) -> str:
    return (
        "SELECT status, error_code, COUNT(*) AS orders FROM shop.orders "
        f"WHERE status = 'FAILED' AND created_at >= '{since}' "
        "GROUP BY status, error_code ORDER BY orders DESC LIMIT 10"
    )


def _about_orders(conversation: Conversation, analysis: Analysis) -> bool:
    text = " ".join(
        [conversation.question, *analysis.symptom_services, *analysis.services_named]
    ).lower()
    return "checkout" in text or "order" in text


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
