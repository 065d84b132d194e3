"""The offline demo model's final answer: a DiagnosisDraft written from the analysis.

Every statement is built from values in the observations (template text, counts, first seen,
row values) and cites the exact tool_call_id and item ref it came from. The draft states

* the root cause, when evidence links one (:mod:`harness.embedded.offline.linkage`), with the link in
  words and the items that make it: the candidate, the symptom item that names it, the
  runbook excerpts that match symptom and cause — and the condition it acted through;
* the symptom's templates;
* every candidate cause considered and why it was kept as an observation or rejected: linked
  less specifically than the root cause, contradicted by a runbook's own condition, or not
  linked at all — each with the items that show it;
* the failed rows of the tables the symptom names, and what came back empty;
* next steps quoted from the runbook whose symptom matched (or that links the root cause),
  never an action a runbook makes conditional on something the evidence shows false.

When the evidence does not establish a cause, the draft says so instead of inventing one.
"""

from __future__ import annotations

import json
from typing import Any

from harness.contracts.observation import (
    SCOPE_REF,
    LogsObservation,
    MysqlObservation,
    RagObservation,
)
from harness.embedded.offline.analysis import Analysis
from harness.embedded.offline.candidates import Candidate, describe, queried_table
from harness.embedded.offline.conversation import Conversation, Exchange
from harness.embedded.offline.entities import fold, names
from harness.embedded.offline.linkage import Assessment, Link, LinkKind, Verdict
from harness.embedded.offline.runbooks import Runbook, Section
from harness.embedded.offline.steps import next_steps
from harness.embedded.offline.wording import clip, quote, time_text

__all__ = ["NO_EVIDENCE_REF", "write_draft"]

# A NO_EVIDENCE result has no items; a NEGATIVE_FINDING names the call and its scope through
# this ref (the EvidenceGuard must accept it for NO_EVIDENCE records — see the report).
NO_EVIDENCE_REF = SCOPE_REF

_MAX_CONCLUSIONS = 12
# The engine counts four characters a token; a little room keeps the reply whole.
_CHARS_PER_TOKEN = 4
_MARGIN_CHARS = 200
_MAX_ITEMS = 10
_MAX_UNLINKED = 4

Citation = dict[str, str]


def write_draft(conversation: Conversation, analysis: Analysis) -> dict[str, Any]:
    """The DiagnosisDraft JSON object for this conversation."""
    ranked: list[tuple[int, dict[str, Any]]] = []
    root = analysis.root
    if root is not None and analysis.lead is not None:
        ranked.append((0, _root_cause(analysis, root)))
    for assessment in analysis.assessments:
        if assessment.verdict is Verdict.MECHANISM:
            ranked.append((1, _mechanism(analysis, assessment)))
    ranked += [(2, c) for c in _symptom_findings(analysis)]
    ranked += [(3, c) for c in _considered(analysis)]
    ranked += [(4, c) for c in _impact_findings(conversation, analysis)]
    ranked += [(5, c) for c in _negative_findings(conversation, analysis)]
    ranked += [(6, c) for c in _unlinked(analysis)]
    conclusions = [c for _, c in sorted(ranked, key=lambda rc: rc[0])][:_MAX_CONCLUSIONS]
    draft = {
        "analysis_id": analysis.context.analysis_id,
        "summary": _summary(analysis),
        "conclusions": conclusions,
        "next_steps": next_steps(analysis)[:_MAX_ITEMS],
        "limitations": [clip(x) for x in dict.fromkeys(_gaps(conversation, analysis))][:_MAX_ITEMS],
        "evaluations": {
            e.call_id: "GAIN" if e.gained else "NO_GAIN"
            for e in conversation.exchanges
            if e.answered and e.call_id
        },
    }
    return _within(draft, conversation.max_tokens)


def _within(draft: dict[str, Any], max_tokens: int | None) -> dict[str, Any]:
    """The draft cut to what the call may return: a model that writes past its output limit
    is cut off mid-text, so the least important parts go first — limitations, then the last
    conclusions (the lowest ranked), then the last steps."""

    def size() -> int:
        numbered = [{**c, "id": f"c{i}"} for i, c in enumerate(draft["conclusions"], 1)]
        return len(json.dumps({**draft, "conclusions": numbered}))

    limit = (max_tokens * _CHARS_PER_TOKEN - _MARGIN_CHARS) if max_tokens else None
    while limit is not None and size() > limit:
        if draft["limitations"]:
            draft["limitations"] = draft["limitations"][:-1]
        elif len(draft["conclusions"]) > 1:
            draft["conclusions"] = draft["conclusions"][:-1]
        elif draft["next_steps"]:
            draft["next_steps"] = draft["next_steps"][:-1]
        else:
            break
    draft["conclusions"] = [{**c, "id": f"c{i}"} for i, c in enumerate(draft["conclusions"], 1)]
    return draft


# ---------------------------------------------------------------- the root cause


def _root_cause(analysis: Analysis, root: Assessment) -> dict[str, Any]:
    lead = analysis.lead
    assert lead is not None
    candidate = root.candidate
    citations = [_cite_item(candidate.exchange, candidate.ref)]
    mechanism = next((a for a in analysis.assessments if a.verdict is Verdict.MECHANISM), None)
    if mechanism is not None:
        inner = mechanism.candidate
        upstream = max(root.upstream, key=lambda k: k.strength)
        citations.append(_cite_item(inner.exchange, inner.ref))
        citations += _link_citations(analysis, upstream, target=inner)
        shown = _shown_links(mechanism.links)
        for link in shown:
            citations += _link_citations(analysis, link, target=None)
        statement = (
            f"{describe(candidate)}. It led to: {describe(inner)} — "
            f"{_phrase(upstream, of='this condition')}; "
            + "; ".join(_phrase(k, of="the symptom") for k in shown)
        )
    else:
        shown = _shown_links(root.links)
        for link in shown:
            citations += _link_citations(analysis, link, target=None)
        statement = f"{describe(candidate)}; " + "; ".join(
            _phrase(k, of="the symptom") for k in shown
        )
    citations.append(_cite_item(lead.exchange, lead.template.ref))
    statement += (
        f". The first '{quote(lead.template.template)}' ({lead.template.level}) came at "
        f"{time_text(lead.template.first_seen)}."
    )
    confidence = 0.9 if shown[0].kind is not LinkKind.SHARED else 0.7
    return _conclusion("ROOT_CAUSE", statement, confidence, citations)


def _shown_links(links: tuple[Link, ...]) -> list[Link]:
    """The links a statement states: one of each specific kind, strongest first; a shared
    service only when nothing more specific links it."""
    ordered = sorted(links, key=lambda k: k.strength, reverse=True)
    specific = [k for k in ordered if k.kind is not LinkKind.SHARED]
    first = {k.kind: k for k in reversed(specific)}
    return sorted(first.values(), key=lambda k: k.strength, reverse=True) or ordered[:1]


def _mechanism(analysis: Analysis, mechanism: Assessment) -> dict[str, Any]:
    shown = _shown_links(mechanism.links)
    candidate = mechanism.candidate
    citations = [_cite_item(candidate.exchange, candidate.ref)]
    for link in shown:
        citations += _link_citations(analysis, link, target=None)
    role = (
        "It is how the root cause reached the symptom."
        if analysis.root is not None
        else "It is how the symptom happens; what brought it about is not established by the "
        "evidence."
    )
    return _conclusion(
        "CONTRIBUTING_FACTOR",
        f"{describe(candidate)}; "
        + "; ".join(_phrase(k, of="the symptom") for k in shown)
        + f". {role}",
        0.8,
        citations,
    )


def _phrase(link: Link, *, of: str) -> str:
    if link.kind is LinkKind.NAMED:
        return f"{of} names {link.via}"
    if link.kind is LinkKind.RUNBOOK:
        return f"the runbook '{link.via}' describes {of} and states this cause"
    if link.kind is LinkKind.EXPIRED:
        return f"{of} reports an expiry ('{link.via}')"
    return f"it is on {link.via}, where {of} shows"


def _link_citations(analysis: Analysis, link: Link, *, target: Candidate | None) -> list[Citation]:
    """The items that make ``link``: what names the entity, or the runbook's excerpts."""
    if link.kind is LinkKind.RUNBOOK and link.runbook is not None:
        found = [
            link.runbook.block_of(Section.SYMPTOM),
            link.runbook.block_of(Section.CAUSE),
        ]
        return [{"tool_call_id": c, "item_ref": b.ref} for c, b in (f for f in found if f)] or [
            {"tool_call_id": link.runbook.blocks[0][0], "item_ref": link.runbook.blocks[0][1].ref}
        ]
    if target is not None or link.kind is not LinkKind.NAMED:
        return []
    for symptom in analysis.symptoms:
        if names(fold(symptom.template.template), link.via):
            return [_cite_item(symptom.exchange, symptom.template.ref)]
        for event in symptom.events:
            if names(fold(event.message), link.via):
                return [_cite_item(symptom.exchange, event.ref)]
    return []


# ---------------------------------------------------------------- the other candidates


def _considered(analysis: Analysis) -> list[dict[str, Any]]:
    found = []
    for assessment in analysis.assessments:
        candidate = assessment.candidate
        citations = [_cite_item(candidate.exchange, candidate.ref)]
        if assessment.verdict is Verdict.WEAKER:
            rival = assessment.rival
            link = assessment.best
            assert rival is not None and link is not None
            citations.append(_cite_item(rival.exchange, rival.ref))
            why = _why_not(analysis, assessment)
            statement = (
                f"Candidate considered: {describe(candidate)}. Kept as an observation, not the "
                f"cause: {_phrase(link, of='the symptom')}, but {why}."
            )
            found.append(_conclusion("OBSERVATION", statement, 0.6, citations))
        elif assessment.verdict is Verdict.CONTRADICTED:
            contradiction = assessment.contradiction
            assert contradiction is not None
            block = _block_with(contradiction.runbook, contradiction.condition.sentence)
            if block is not None:
                citations.append({"tool_call_id": block[0], "item_ref": block[1]})
            citations.append(_cite_item(contradiction.shown.exchange, contradiction.shown.ref))
            statement = (
                f"Candidate considered: {describe(candidate)}. Rejected: the runbook "
                f"'{contradiction.runbook.title}' says \"{quote(contradiction.condition.sentence)}\""
                f", and the evidence shows otherwise for the {contradiction.condition.subject}: "
                f"'{quote(contradiction.shown.text, 100)}'."
            )
            found.append(_conclusion("OBSERVATION", statement, 0.7, citations))
    return found


def _why_not(analysis: Analysis, weaker: Assessment) -> str:
    """Why a linked candidate is not the root cause, against what was preferred to it."""
    root = analysis.root
    mechanism = next((a for a in analysis.assessments if a.verdict is Verdict.MECHANISM), None)
    ahead = root or mechanism
    if ahead is None:
        return "another candidate is linked better"
    name = "the root cause" if root is not None else "the contributing factor"
    strength = max([ahead.strength, *(k.strength for k in ahead.upstream)])
    if weaker.strength < strength:
        return f"{name} is linked more specifically"
    if root is not None and root.upstream:
        return "the root cause began first and led to the contributing factor"
    when = (
        "is nearer to the symptom" if ahead.candidate.at >= weaker.candidate.at else "began first"
    )
    return f"{name} is linked as strongly and {when}"


def _unlinked(analysis: Analysis) -> list[dict[str, Any]]:
    unlinked = [a.candidate for a in analysis.assessments if a.verdict is Verdict.UNLINKED]
    if not unlinked:
        return []
    shown = sorted(unlinked, key=lambda c: c.at, reverse=True)[:_MAX_UNLINKED]
    more = len(unlinked) - len(shown)
    statement = (
        "Candidates considered and rejected, as no shared service or host, name or runbook "
        f"links them to the symptom: {'; '.join(describe(c) for c in shown)}"
        + (f"; and {more} more." if more else ".")
    )
    return [
        _conclusion("OBSERVATION", statement, 0.6, [_cite_item(c.exchange, c.ref) for c in shown])
    ]


def _block_with(runbook: Runbook, sentence: str) -> tuple[str, str] | None:
    wanted = " ".join(sentence.split())[:40]
    for call_id, block in runbook.blocks:
        if wanted in " ".join(block.excerpt.replace("*", "").replace("`", "").split()):
            return call_id, block.ref
    return None


# ---------------------------------------------------------------- symptoms and tables


def _symptom_findings(analysis: Analysis) -> list[dict[str, Any]]:
    found = []
    lead = analysis.lead
    for symptom in analysis.symptoms:
        template = symptom.template
        citations = [_cite_item(symptom.exchange, template.ref)]
        runbook = ""
        if symptom is lead and analysis.symptom_block is not None:
            call_id, block = analysis.symptom_block
            citations.append({"tool_call_id": call_id, "item_ref": block.ref})
            runbook = f"; the runbook '{block.title}' describes this symptom"
        found.append(
            _conclusion(
                "OBSERVATION",
                f"{template.count} {template.level} events '{quote(template.template)}' from "
                f"{', '.join(template.services) or 'the queried services'}, first seen "
                f"{time_text(template.first_seen)}, last seen "
                f"{time_text(template.last_seen)}{runbook}.",
                0.9,
                citations,
            )
        )
    return found


def _impact_findings(conversation: Conversation, analysis: Analysis) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
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
                [_cite_item(exchange, r.ref) for r in rows],
            )
        )
    return found


def _negative_findings(conversation: Conversation, analysis: Analysis) -> list[dict[str, Any]]:
    found = []
    for exchange in conversation.exchanges:
        if not exchange.no_evidence or exchange.scope is None:
            continue
        found.append(
            _conclusion(
                "NEGATIVE_FINDING",
                f"{_describe_call(exchange, analysis)} returned nothing within its scope.",
                0.8,
                [_cite_item(exchange, NO_EVIDENCE_REF)],
                scope=exchange.scope,
            )
        )
    return found


def _describe_call(exchange: Exchange, analysis: Analysis) -> str:
    observation = exchange.observation
    if isinstance(observation, MysqlObservation):
        table = queried_table(exchange, analysis.tables)
        label = table.label if table is not None else "rows"
        return f"The query for {label} ({', '.join(observation.scope.tables)})"
    if isinstance(observation, LogsObservation):
        scope = observation.scope
        return (
            f"The log query {', '.join(scope.services) or 'all services'} "
            f"{time_text(scope.start)}–{time_text(scope.end)} (level {scope.level or 'any'})"
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
    if not analysis.logs:
        gaps.append("No log data was available, so no onset could be derived.")
    elif analysis.named_silent:
        gaps.append(
            f"No WARN or ERROR log lines of {', '.join(analysis.services_named)} were found; "
            "what other services show is reported, and no root cause is established."
        )
    elif not analysis.symptoms:
        gaps.append("The logs held no WARN or ERROR templates to diagnose from.")
    elif analysis.root is None:
        gaps.append(
            "No candidate cause is linked to the symptom by a shared service or host, a name "
            "the symptom states, or a matching runbook; the root cause is not established."
        )
    return gaps


# ---------------------------------------------------------------- summary and helpers


def _summary(analysis: Analysis) -> str:
    lead = analysis.lead
    if lead is None:
        return clip(
            "No WARN or ERROR log templates were found for the question's services and time "
            "range; nothing could be diagnosed from the observations."
        )
    template = lead.template
    services = ", ".join(template.services) or "the queried services"
    symptom = (
        f"{services}: {template.count} × '{quote(template.template, 90)}' since "
        f"{time_text(template.first_seen)}"
    )
    root = analysis.root
    if root is None:
        return clip(
            f"{symptom}. No candidate cause is linked to it; the root cause is not established."
        )
    return clip(f"{symptom}. Likely cause: {describe(root.candidate)}.")


def _conclusion(
    kind: str,
    statement: str,
    confidence: float,
    citations: list[Citation],
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


def _cite_item(exchange: Exchange, ref: str) -> Citation:
    return {"tool_call_id": exchange.call_id, "item_ref": ref}
