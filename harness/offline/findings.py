"""The offline demo model's final answer: a DiagnosisDraft written from the analysis.

Every statement is built from values in the observations (template text, counts, first seen,
row values) and cites the exact tool_call_id and item ref it came from; a change row is
described from its table's column roles (:mod:`harness.offline.tables`), whatever the table.
When the evidence does not establish a cause, the draft says so instead of inventing one.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from harness.observation import SCOPE_REF, LogsObservation, MysqlObservation, RagObservation
from harness.offline.analysis import SUSPECT_WINDOW, Analysis, ChangeRow, queried_table
from harness.offline.conversation import Conversation, Exchange

__all__ = ["NO_EVIDENCE_REF", "write_draft"]

# A NO_EVIDENCE result has no items; a NEGATIVE_FINDING names the call and its scope through
# this ref (the EvidenceGuard must accept it for NO_EVIDENCE records — see the report).
NO_EVIDENCE_REF = SCOPE_REF

_MAX_CONCLUSIONS = 12
_MAX_ITEMS = 10
_MAX_ITEM_CHARS = 480
_QUOTE_CHARS = 140
_PAIR_AFFIXES = re.compile(r"^(?:old|previous|from)_|_before$")
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
        named = [(e, b) for e, b in analysis.rollback_blocks if root.named_in(b.excerpt)] or (
            [analysis.symptom_block] if analysis.symptom_block else []
        )
        citations += [_cite(e, b.ref) for e, b in named[:1]]
        conclusions.append(
            _conclusion(
                "ROOT_CAUSE",
                f"{_change(root)}, shortly before the first '{_quote(top.template)}' "
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
    conclusions += _negative_findings(conversation, analysis)
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
    suspects = {id(c) for c in analysis.suspects}
    for change in analysis.changes:
        if change is root:
            continue
        if id(change) in suspects:
            found.append(
                _conclusion(
                    "CONTRIBUTING_FACTOR",
                    f"{_change(change)} lies in the {_minutes(SUSPECT_WINDOW)} before the onset "
                    "and is not ruled out.",
                    0.4,
                    [_cite(change.exchange, change.row.ref)],
                )
            )
        else:
            found.append(
                _conclusion(
                    "OBSERVATION",
                    f"Also changed in the window: {_change(change)}; not linked to the symptom.",
                    0.6,
                    [_cite(change.exchange, change.row.ref)],
                )
            )
    impact = {t.qualified: t for t in analysis.impact_tables}
    for exchange in conversation.calls("query_mysql"):
        table = queried_table(exchange, analysis.tables)
        if table is None or table.qualified not in impact or not exchange.evidence_found:
            continue
        assert isinstance(exchange.observation, MysqlObservation)
        rows = [r for r in exchange.observation.rows[:5] if table.name in r.values]
        if not rows:
            continue
        error = table.error_column
        parts = [
            f"{r.values.get(table.name)} {r.values.get(table.status_column or '')}"
            + (f" with {error} {r.values.get(error)}" if error else "")
            for r in rows
        ]
        found.append(
            _conclusion(
                "OBSERVATION",
                f"{table.label.capitalize()} since the onset: {'; '.join(parts)}.",
                0.85,
                [_cite(exchange, r.ref) for r in rows],
            )
        )
    if analysis.onset is not None and root is None:
        start, end = analysis.window or (analysis.onset, analysis.onset)
        services = ", ".join(analysis.symptom_services or analysis.services_named) or "any service"
        tables = ", ".join(t.qualified for t in analysis.change_tables)
        limitations.append(
            f"No recorded change of {services} ({tables}) was found between {_time(start)} and "
            f"{_time(end)}; the root cause is not established."
            if tables
            else f"No table of recorded changes is readable, so no change of {services} between "
            f"{_time(start)} and {_time(end)} could be checked; the root cause is not established."
        )
    return found


def _change(change: ChangeRow) -> str:
    """A change row in words, from its table's column roles and its values only.

    ``Config change CHG-4821 on checkout-api: pool-size changed from 40 to 4 by deploy-bot at
    2026-11-02 14:04:12 UTC``; a row without before/after values says what it did instead.
    """
    table = change.table
    text = f"{table.singular_label.capitalize()} {change.ident or change.row.ref}"
    status = change.value(table.status_column)
    if status:
        text += f" ({status})"
    if change.service:
        text += f" on {change.service}"
    what = _what(change)
    if what:
        text += f": {what}"
    actor = change.value(table.actor_column)
    if actor:
        text += f" by {actor}"
    return f"{text} at {_time(change.at)}"


def _what(change: ChangeRow) -> str:
    table = change.table
    pair = table.value_pair
    if pair is not None:
        subject = change.value(table.subject_column) or _PAIR_AFFIXES.sub("", pair[0])
        return f"{subject} changed from {change.value(pair[0])} to {change.value(pair[1])}"
    text = change.value(table.text_column)
    if text:
        return text
    return ", ".join(
        f"{c} {change.value(c)}" for c in table.descriptive_columns() if change.value(c)
    )


def _negative_findings(conversation: Conversation, analysis: Analysis) -> list[dict[str, Any]]:
    found = []
    for exchange in conversation.exchanges:
        if not exchange.no_evidence or exchange.scope is None:
            continue
        found.append(
            _conclusion(
                "NEGATIVE_FINDING",
                f"{_describe(exchange, analysis)} returned nothing within its scope.",
                0.8,
                [_cite(exchange, NO_EVIDENCE_REF)],
                scope=exchange.scope,
            )
        )
    return found


def _table_label(exchange: Exchange, analysis: Analysis) -> str:
    table = queried_table(exchange, analysis.tables)
    return table.label if table is not None else "rows"


def _describe(exchange: Exchange, analysis: Analysis) -> str:
    observation = exchange.observation
    if isinstance(observation, MysqlObservation):
        tables = ", ".join(observation.scope.tables)
        return f"The query for {_table_label(exchange, analysis)} ({tables})"
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
        steps[_clip(_revert(root, block.title))] = [
            _cite(exchange, block.ref),
            _cite(root.exchange, root.row.ref),
        ]
    for exchange, block in blocks:
        for sentence in _sentences(block.excerpt):
            if _ACTION.search(sentence):
                steps.setdefault(
                    _clip(f"{sentence} (runbook: {block.title})"), [_cite(exchange, block.ref)]
                )
    return [{"text": text, "citations": citations} for text, citations in steps.items()]


def _revert(root: ChangeRow, title: str) -> str:
    on = f" on {root.service}" if root.service else ""
    pair = root.table.value_pair
    if pair is not None:
        subject = root.value(root.table.subject_column) or _PAIR_AFFIXES.sub("", pair[0])
        return (
            f"Revert {root.ident or 'the change'}: set {subject}{on} back to "
            f"{root.value(pair[0])} (now {root.value(pair[1])}), as '{title}' prescribes."
        )
    name = root.ident or root.subject
    return f"Revert the {root.table.singular_label} {name}{on}, as '{title}' prescribes."


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
            f"{symptom}. No recorded change of the affected services lies in the "
            f"{_minutes(SUSPECT_WINDOW)} before; the root cause is not established."
        )
    return _clip(f"{symptom}. Likely cause: {_change(root)}.")


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
