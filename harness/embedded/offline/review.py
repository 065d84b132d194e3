"""The offline demo model as SemanticGuard: the checks a reviewer makes, deterministically.

The judge receives the query, the draft and the verified snapshot (the agent projections of
every record the draft's conclusions cite) and nothing else. For each conclusion it checks

* its citations are in the snapshot; a NEGATIVE_FINDING has a scope; a ROOT_CAUSE rests on an
  observed fact (a log or a row), not on documents alone;
* every figure it states (counts, times, tickets) occurs in the records it cites;

and for a ROOT_CAUSE (and a CONTRIBUTING_FACTOR) as well, what a reviewer asks of a cause:

* **linkage** — the observed items it cites form one linked whole: each is linked to another
  by a shared service or host, a name one states and the other carries, or a cited runbook
  whose symptom matches the one and whose cause matches the other
  (:mod:`harness.embedded.offline.linkage`). One item alone links a cause to nothing;
* **no contradiction** — no runbook in the snapshot that matches the cited symptom makes
  rolling back a change conditional on something ("only if the lag is normal") that the
  snapshot's evidence shows false, when the cause is a change;
* **names** — every name it states (``ledger-sync``, ``log.retention_days``) occurs in the
  records it cites.

A next step that says a runbook *prescribes* it must cite a runbook excerpt in the snapshot
that says to revert or roll back, under no condition the evidence shows false.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from harness.contracts.observation import (
    AgentObservation,
    EvidenceBlock,
    LogEvent,
    LogsObservation,
    LogTemplate,
    MysqlObservation,
    RagObservation,
    ResultRow,
    observation_adapter,
)
from harness.embedded.offline.candidates import (
    KIND_WORDS,
    Candidate,
    CauseKind,
    at_limit,
    row_candidate,
)
from harness.embedded.offline.conversation import Exchange
from harness.embedded.offline.entities import fold, text_entities
from harness.embedded.offline.linkage import (
    Target,
    abnormal,
    applies,
    links,
    matching_runbooks,
    target_of,
)
from harness.embedded.offline.question import is_prose
from harness.embedded.offline.runbooks import Runbook, content_words, library, sentences
from harness.embedded.offline.tables import Table, TableKind
from harness.sql.catalog import CatalogTable

__all__ = ["review"]

_NUMBERS = re.compile(r"(?<![\w.:-])\d{2,}(?![\w:-])|\b\d{1,2}:\d{2}(?::\d{2})?\b|\b[A-Z]+-\d+\b")
_NAMES = re.compile(r"(?<![\w.-])[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)+(?![\w-])")
_ROLLBACK = re.compile(r"\b(revert|roll ?back|rollback|undo|restore)\b", re.I)
_PRESCRIBES = re.compile(r"\bprescrib", re.I)
_ACTIONS = re.compile(
    r"\b(?:revert|roll ?back|rollback|undo|restore|restart|renew|rotate|replace|unseal|raise|"
    r"lower|increase|fix|free|extend|scale|rerun|re-run|replay|trigger|disable|enable|flip)\b",
    re.I,
)
_SEVERE = frozenset({"WARN", "WARNING", "ERROR", "FATAL"})
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_CAUSAL = ("ROOT_CAUSE", "CONTRIBUTING_FACTOR")


@dataclass(frozen=True, kw_only=True)
class _Evidence:
    """The snapshot, typed: observations by call, runbooks, and the items conclusions cite."""

    observations: dict[str, AgentObservation]
    runbooks: list[Runbook]

    def exchange(self, call_id: str) -> Exchange:
        observation = self.observations[call_id]
        return Exchange(
            call_id=call_id,
            tool_name=observation.tool_name,
            arguments={},
            observation=observation,
            answered=True,
        )

    @property
    def logs(self) -> list[Exchange]:
        return [
            self.exchange(c) for c, o in self.observations.items() if isinstance(o, LogsObservation)
        ]


def review(user_content: str) -> dict[str, Any]:
    """SemanticGuard's judgement: ``{"verdict": "SUPPORTED"|"UNSUPPORTED", "issues": [...]}``."""
    try:
        body = json.loads(user_content)
        draft = body["draft"]
        records = body["verified_evidence"]["records"]
        conclusions = draft["conclusions"]
    except (ValueError, KeyError, TypeError):
        return {"verdict": "UNSUPPORTED", "issues": [{"conclusion_id": "", "reason": "unreadable"}]}
    evidence = _typed(records)
    query = str(body.get("query", ""))
    issues = []
    for conclusion in conclusions:
        reason = _unsupported(conclusion, records, evidence, query)
        if reason:
            issues.append({"conclusion_id": str(conclusion.get("id", "")), "reason": reason})
    for number, step in enumerate(draft.get("next_steps") or [], start=1):
        reason = _step_issue(step, evidence)
        if reason:
            issues.append({"conclusion_id": f"next_step:{number}", "reason": reason})
    return {"verdict": "UNSUPPORTED" if issues else "SUPPORTED", "issues": issues}


def _typed(records: dict[str, Any]) -> _Evidence:
    observations: dict[str, AgentObservation] = {}
    for call_id, record in records.items():
        try:
            observations[str(call_id)] = observation_adapter().validate_python(record)
        except ValidationError:
            continue
    blocks = [
        (call_id, block)
        for call_id, observation in observations.items()
        if isinstance(observation, RagObservation)
        for block in observation.evidence
    ]
    return _Evidence(observations=observations, runbooks=library(blocks))


def _unsupported(
    conclusion: dict[str, Any], records: dict[str, Any], evidence: _Evidence, query: str
) -> str | None:
    cited: list[dict[str, Any]] = []
    refs: list[tuple[str, str]] = []
    for citation in conclusion.get("citations") or []:
        call_id = citation.get("tool_call_id") if isinstance(citation, dict) else None
        record = records.get(str(call_id)) if call_id else None
        if isinstance(record, dict):
            cited.append(record)
            refs.append((str(call_id), str(citation.get("item_ref", ""))))
    kind = conclusion.get("kind")
    if kind == "NEGATIVE_FINDING":
        return None if conclusion.get("scope") else "negative finding without a scope"
    if not cited:
        return "no verified evidence cited"
    if kind == "ROOT_CAUSE" and not any(r.get("kind") in ("logs", "mysql") for r in cited):
        return "root cause rests on documents only"
    statement = str(conclusion.get("statement", ""))
    text = json.dumps(cited, ensure_ascii=False).lower()
    missing = [t for t in _NUMBERS.findall(statement) if t.lower() not in text]
    if missing:
        return f"figures not in the evidence: {', '.join(missing[:3])}"
    if kind not in _CAUSAL:
        return None
    # A name the operator used, or hyphenated prose ("roll-back"), claims nothing of the world.
    asked = fold(query)
    unnamed = [
        n
        for n in dict.fromkeys(_NAMES.findall(fold(statement)))
        if n not in text and n not in asked and not is_prose(n)
    ]
    if unnamed:
        return f"names not in the evidence: {', '.join(unnamed[:3])}"
    items = [_item(evidence, call_id, ref) for call_id, ref in refs]
    observed = [i for i in items if i is not None]
    if len(observed) < 2:
        return "the cause is linked to no symptom by the evidence it cites"
    if not _connected(observed, evidence.runbooks):
        return "the cited evidence does not link the cause to the symptom"
    return _contradicted(observed, evidence)


# ---------------------------------------------------------------- items and linkage


@dataclass(frozen=True, kw_only=True)
class _Item:
    """A cited log template, event or row as something that can be linked."""

    candidate: Candidate
    target: Target
    severe: bool


def _item(evidence: _Evidence, call_id: str, ref: str) -> _Item | None:
    observation = evidence.observations.get(call_id)
    if isinstance(observation, LogsObservation):
        template = next((t for t in observation.templates if t.ref == ref), None)
        event = next((e for e in observation.events if e.ref == ref), None)
        if event is not None:
            template = next((t for t in observation.templates if t.ref == event.template_ref), None)
        if template is None:
            return None
        return _log_item(evidence.exchange(call_id), ref, template, event, observation.events)
    if isinstance(observation, MysqlObservation):
        row = next((r for r in observation.rows if r.ref == ref), None)
        if row is None:
            return None
        return _row_item(evidence.exchange(call_id), observation, row)
    return None


def _log_item(
    exchange: Exchange,
    ref: str,
    template: LogTemplate,
    event: LogEvent | None,
    events: Sequence[LogEvent],
) -> _Item:
    # A template speaks with all its sampled messages; an event with its own.
    if event is None:
        messages = [e.message for e in events if e.template_ref == template.ref]
    else:
        messages = [event.message]
    text = "\n".join([template.template, *messages])
    words = content_words(text)
    services = frozenset(fold(s) for s in template.services)
    kind = next(
        (k for k in (CauseKind.EXPIRY, CauseKind.CAPACITY) if words & KIND_WORDS[k]),
        CauseKind.DEPENDENCY,
    )
    candidate = Candidate(
        kind=kind,
        at=template.first_seen,
        exchange=exchange,
        ref=ref,
        services=services,
        entities=frozenset(text_entities(text) - services),
        words=words,
        template=template,
    )
    target = Target(items=((exchange, ref),), services=services, text=fold(text), words=words)
    return _Item(candidate=candidate, target=target, severe=template.level.upper() in _SEVERE)


def _row_item(exchange: Exchange, observation: MysqlObservation, row: ResultRow) -> _Item:
    schema, _, name = (
        observation.scope.tables[0] if observation.scope.tables else "db.rows"
    ).partition(".")
    table = Table(
        entry=CatalogTable(
            datasource=observation.scope.datasource,
            schema=schema,
            table=name or schema,
            columns=tuple(c.name for c in observation.columns) or tuple(row.values),
            sensitive=frozenset(c.name for c in observation.columns if c.masked),
        )
    )
    candidate = row_candidate(exchange, table, row, _EPOCH)
    return _Item(candidate=candidate, target=target_of(candidate), severe=False)


def _linked(a: _Item, b: _Item, runbooks: Sequence[Runbook]) -> bool:
    return bool(links(a.candidate, b.target, runbooks) or links(b.candidate, a.target, runbooks))


def _connected(items: Sequence[_Item], runbooks: Sequence[Runbook]) -> bool:
    """Whether the items form one whole under the link relation."""
    reached = {0}
    frontier = [0]
    while frontier:
        current = frontier.pop()
        for index, other in enumerate(items):
            if index not in reached and _linked(items[current], other, runbooks):
                reached.add(index)
                frontier.append(index)
    return len(reached) == len(items)


def _contradicted(items: Sequence[_Item], evidence: _Evidence) -> str | None:
    changes = [
        i
        for i in items
        if i.candidate.table is not None and i.candidate.table.kind is TableKind.CHANGE
    ]
    symptoms = [i for i in items if i.severe]
    if not changes or not symptoms:
        return None
    words = frozenset().union(*(s.target.words for s in symptoms))
    capacities = [
        c
        for call_id, o in evidence.observations.items()
        if isinstance(o, MysqlObservation)
        for row in o.rows
        if (c := _row_item(evidence.exchange(call_id), o, row).candidate).kind is CauseKind.CAPACITY
        and _at_limit(c)
    ]
    for runbook in matching_runbooks(evidence.runbooks, words):
        for condition in runbook.conditions():
            if not _ROLLBACK.search(condition.action) or not any(
                applies(condition, c.candidate) for c in changes
            ):
                continue
            shown = abnormal(condition.head, evidence.logs, capacities)
            if shown is not None:
                return (
                    f"the runbook '{runbook.title}' makes rolling back conditional on the "
                    f"{condition.subject} being normal, and the evidence shows it is not"
                )
    return None


def _at_limit(candidate: Candidate) -> bool:
    table = candidate.table
    return table is not None and candidate.row is not None and at_limit(table, candidate.row)


# ---------------------------------------------------------------- next steps


def _step_issue(step: dict[str, Any], evidence: _Evidence) -> str | None:
    """A step that says a runbook prescribes it must cite an excerpt that says its action,
    under no condition the evidence shows false."""
    text = str(step.get("text", "")) if isinstance(step, dict) else ""
    if not _PRESCRIBES.search(text):
        return None
    blocks: list[EvidenceBlock] = []
    for citation in step.get("citations") or []:
        observation = evidence.observations.get(str(citation.get("tool_call_id")))
        if isinstance(observation, RagObservation):
            blocks += [b for b in observation.evidence if b.ref == citation.get("item_ref")]
    if not blocks:
        return None  # the excerpt is not in the snapshot: nothing to compare the claim with
    action = _action(text)
    refused = {
        c.sentence
        for runbook in evidence.runbooks
        for c in runbook.conditions()
        if not c.prohibits and abnormal(c.head, evidence.logs, []) is not None
    }
    for block in blocks:
        for sentence in sentences(block.excerpt):
            if action is not None and _action(sentence) == action and sentence not in refused:
                return None
    return "the step says a runbook prescribes what its cited excerpt does not say"


def _action(text: str) -> str | None:
    """The first action a text names, rollbacks as one ("revert" and "roll back" alike)."""
    found = _ACTIONS.search(text)
    if found is None:
        return None
    word = " ".join(found.group(0).lower().split())
    return "rollback" if _ROLLBACK.fullmatch(word) else word
