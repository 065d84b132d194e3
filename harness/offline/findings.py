"""The offline demo model's final answer: a DiagnosisDraft written from the analysis.

Every statement is built from values in the observations (template text, counts, first seen,
row values) and cites the exact tool_call_id and item ref it came from. When the evidence does
not establish a cause, the draft says so instead of inventing one.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from harness.observation import SCOPE_REF, LogsObservation, MysqlObservation, RagObservation
from harness.offline.analysis import SUSPECT_WINDOW, Analysis, mysql_kind
from harness.offline.conversation import Conversation, Exchange

__all__ = ["NO_EVIDENCE_REF", "write_draft"]

# A NO_EVIDENCE result has no items; a NEGATIVE_FINDING names the call and its scope through
# this ref (the EvidenceGuard must accept it for NO_EVIDENCE records — see the report).
NO_EVIDENCE_REF = SCOPE_REF

_MAX_CONCLUSIONS = 12
_MAX_ITEMS = 10
_MAX_ITEM_CHARS = 480
_QUOTE_CHARS = 140
_ACTION = re.compile(
    r"\b(revert|roll ?back|rollback|restart|trigger|confirm|page|declare|pin)\b", re.I
)


def write_draft(conversation: Conversation, analysis: Analysis) -> dict[str, Any]:
    """The DiagnosisDraft JSON object for this conversation."""
    conclusions: list[dict[str, Any]] = []
    limitations: list[str] = []

    root = analysis.root
    top = analysis.lead
    logs = analysis.logs
    if root is not None and top is not None and logs is not None:
        citations = [_cite(root.exchange, root.row.ref), _cite(logs, top.ref)]
        named = [(e, b) for e, b in analysis.rollback_blocks if _mentions_key(b.excerpt, root)] or (
            [analysis.symptom_block] if analysis.symptom_block else []
        )
        citations += [_cite(e, b.ref) for e, b in named[:1]]
        conclusions.append(
            _conclusion(
                "ROOT_CAUSE",
                f"Config change {root.value('ticket') or root.row.ref} on {root.service}: "
                f"{root.value('config_key')} changed from {root.value('old_value')} to "
                f"{root.value('new_value')} by {root.value('changed_by')} at "
                f"{_time(root.at)}, shortly before the first '{_quote(top.template)}' "
                f"({top.level}) at {_time(top.first_seen)}.",
                0.9 if named else 0.8,
                citations,
            )
        )

    for template in analysis.symptoms:
        assert logs is not None
        citations = [_cite(logs, template.ref)]
        if template is top and analysis.symptom_block is not None:
            exchange, block = analysis.symptom_block
            citations.append(_cite(exchange, block.ref))
            runbook = f"; the runbook '{block.title}' describes this symptom"
        else:
            runbook = ""
        conclusions.append(
            _conclusion(
                "OBSERVATION",
                f"{template.count} {template.level} events '{_quote(template.template)}' from "
                f"{', '.join(template.services) or 'the queried services'}, first seen "
                f"{_time(template.first_seen)}, last seen {_time(template.last_seen)}{runbook}.",
                0.9,
                citations,
            )
        )

    conclusions += _database_findings(conversation, analysis, limitations)
    conclusions += _negative_findings(conversation)
    limitations += _gaps(conversation, analysis)

    return {
        "analysis_id": analysis.context.analysis_id,
        "summary": _summary(analysis),
        "conclusions": [
            {**c, "id": f"c{i}"} for i, c in enumerate(conclusions[:_MAX_CONCLUSIONS], 1)
        ],
        "next_steps": _next_steps(analysis)[:_MAX_ITEMS],
        "limitations": [_clip(x) for x in dict.fromkeys(limitations)][:_MAX_ITEMS],
        "evaluations": {
            e.call_id: "GAIN" if e.gained else "NO_GAIN"
            for e in conversation.exchanges
            if e.answered and e.call_id
        },
    }


def _database_findings(
    conversation: Conversation, analysis: Analysis, limitations: list[str]
) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    root = analysis.root
    for change in analysis.changes:
        if change is root:
            continue
        found.append(
            _conclusion(
                "OBSERVATION",
                f"Also changed in the window: {change.value('config_key')} on {change.service} "
                f"({change.value('old_value')} -> {change.value('new_value')}) at "
                f"{_time(change.at)}, {change.value('ticket')}; not linked to the symptom.",
                0.6,
                [_cite(change.exchange, change.row.ref)],
            )
        )
    for deploy in analysis.deployments:
        found.append(
            _conclusion(
                "CONTRIBUTING_FACTOR",
                f"Deployment of {deploy.service} {deploy.value('version')} "
                f"({deploy.value('status')}) at {_time(deploy.at)} lies in the "
                f"{_minutes(SUSPECT_WINDOW)} before the onset and is not ruled out.",
                0.4,
                [_cite(deploy.exchange, deploy.row.ref)],
            )
        )
    for exchange in conversation.calls("query_mysql"):
        if mysql_kind(exchange) != "orders" or not exchange.evidence_found:
            continue
        assert isinstance(exchange.observation, MysqlObservation)
        rows = exchange.observation.rows[:5]
        parts = [
            f"{r.values.get('orders')} {r.values.get('status')} with "
            f"error_code {r.values.get('error_code')}"
            for r in rows
        ]
        found.append(
            _conclusion(
                "OBSERVATION",
                f"Orders since the onset: {'; '.join(parts)}.",
                0.85,
                [_cite(exchange, r.ref) for r in rows],
            )
        )
    if analysis.onset is not None and root is None:
        start, end = analysis.window or (analysis.onset, analysis.onset)
        services = ", ".join(analysis.symptom_services or analysis.services_named) or "any service"
        limitations.append(
            f"No configuration change of {services} was found between {_time(start)} and "
            f"{_time(end)}; the root cause is not established."
        )
    return found


def _negative_findings(conversation: Conversation) -> list[dict[str, Any]]:
    found = []
    for exchange in conversation.exchanges:
        if not exchange.no_evidence or exchange.scope is None:
            continue
        found.append(
            _conclusion(
                "NEGATIVE_FINDING",
                f"{_describe(exchange)} returned nothing within its scope.",
                0.8,
                [_cite(exchange, NO_EVIDENCE_REF)],
                scope=exchange.scope,
            )
        )
    return found


def _describe(exchange: Exchange) -> str:
    observation = exchange.observation
    if isinstance(observation, MysqlObservation):
        what = {"config": "config changes", "deploy": "deployments", "orders": "orders"}
        return f"The query for {what.get(mysql_kind(exchange), 'rows')} ({', '.join(observation.scope.tables)})"
    if isinstance(observation, LogsObservation):
        scope = observation.scope
        return (
            f"The log query {', '.join(scope.services) or 'all services'} "
            f"{_time(scope.start)}–{_time(scope.end)} (level {scope.level or 'any'})"
        )
    if isinstance(observation, RagObservation):
        return f"The runbook search '{observation.scope.query}'"
    return f"The {exchange.tool_name} call"


def _gaps(conversation: Conversation, analysis: Analysis) -> list[str]:
    gaps = []
    for exchange in conversation.exchanges:
        if exchange.error_code:
            gaps.append(
                f"{exchange.tool_name} call {exchange.call_id} ended with "
                f"{exchange.error_code}; its evidence is missing."
            )
        elif exchange.observation is not None and exchange.observation.truncated:
            gaps.append(
                f"The {exchange.tool_name} result {exchange.call_id} was truncated; counts and "
                "rows may be incomplete."
            )
    if conversation.stop_required:
        gaps.append("The harness stopped the investigation before every check was made.")
    if analysis.logs is None:
        gaps.append("No log data was available, so no onset could be derived.")
    elif not analysis.symptoms:
        gaps.append("The logs held no WARN or ERROR templates to diagnose from.")
    return gaps


def _next_steps(analysis: Analysis) -> list[dict[str, Any]]:
    """Steps taken from the runbooks the agent read, each citing the block it comes from."""
    steps: dict[str, list[dict[str, str]]] = {}
    root = analysis.root
    blocks = list(analysis.rollback_blocks)
    if analysis.symptom_block is not None:
        blocks.append(analysis.symptom_block)
    if root is not None and analysis.rollback_blocks:
        exchange, block = analysis.rollback_blocks[0]
        text = (
            f"Revert {root.value('ticket') or 'the change'}: set {root.value('config_key')} on "
            f"{root.service} back to {root.value('old_value')} (now {root.value('new_value')}), "
            f"as '{block.title}' prescribes."
        )
        steps[_clip(text)] = [_cite(exchange, block.ref), _cite(root.exchange, root.row.ref)]
    for exchange, block in blocks:
        for sentence in _sentences(block.excerpt):
            if _ACTION.search(sentence):
                steps.setdefault(
                    _clip(f"{sentence} (runbook: {block.title})"), [_cite(exchange, block.ref)]
                )
    return [{"text": text, "citations": citations} for text, citations in steps.items()]


def _summary(analysis: Analysis) -> str:
    top = analysis.lead
    if top is None:
        return _clip(
            "No WARN or ERROR log templates were found for the question's services and time "
            "range; nothing could be diagnosed from the observations."
        )
    services = ", ".join(top.services) or "the queried services"
    symptom = (
        f"{services}: {top.count} × '{_quote(top.template, 90)}' since {_time(top.first_seen)}"
    )
    root = analysis.root
    if root is None:
        return _clip(
            f"{symptom}. No configuration change of the affected services lies in the "
            f"{_minutes(SUSPECT_WINDOW)} before; the root cause is not established."
        )
    return _clip(
        f"{symptom}. Likely cause: {root.value('ticket') or 'a config change'} set "
        f"{root.value('config_key')} on {root.service} from {root.value('old_value')} to "
        f"{root.value('new_value')} at {_time(root.at)}."
    )


def _conclusion(
    kind: str,
    statement: str,
    confidence: float,
    citations: list[dict[str, str]],
    *,
    scope: dict[str, Any] | None = None,
) -> dict[str, Any]:
    unique = list({(c["tool_call_id"], c["item_ref"]): c for c in citations}.values())
    return {
        "kind": kind,
        "statement": statement[:1000],
        "confidence": confidence,
        "citations": unique[:12],
        "scope": scope,
    }


def _cite(exchange: Exchange, ref: str) -> dict[str, str]:
    return {"tool_call_id": exchange.call_id, "item_ref": ref}


def _mentions_key(text: str, change: Any) -> bool:
    key = change.value("config_key").lower()
    return bool(key) and (key in text.lower() or key.rsplit(".", 1)[-1] in text.lower())


def _sentences(text: str) -> list[str]:
    # Excerpts arrive flattened: split on sentence ends, bullets and numbered steps, and drop
    # heading fragments ("## Roll back").
    cleaned = re.sub(r"[*`]+", "", text)
    parts = re.split(r"(?<=[.!?])\s+|\s+[-•]\s+|\s+\d+\.\s+|\n+", cleaned)
    flat = [" ".join(p.split()).lstrip("-• ") for p in parts]
    return [p for p in flat if 20 <= len(p) <= 300 and not p.startswith("#")]


def _quote(text: str, limit: int = _QUOTE_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _clip(text: str) -> str:
    return text if len(text) <= _MAX_ITEM_CHARS else text[: _MAX_ITEM_CHARS - 1] + "…"


def _time(value: datetime) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S UTC")


def _minutes(delta: Any) -> str:
    seconds = int(delta.total_seconds())
    return f"{seconds // 60} min {seconds % 60} s" if seconds % 60 else f"{seconds // 60} min"
