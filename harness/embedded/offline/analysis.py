"""What the offline demo model concludes from the observations it has received.

Everything here is derived from the tool results of the conversation and from the tables the
query_mysql definition lists — nothing is known in advance about any incident:

* the *symptom*: the most severe, most frequent log templates that first appear at or after
  the onset the question names (or, without one, that are new within the queried range), of
  the services the question names when it names any;
* the onset ``T``: the earliest first_seen among those templates;
* the *candidates* (:mod:`harness.embedded.offline.candidates`): rows of change, expiry, capacity and
  state tables around ``T``, and earlier warnings in the logs;
* their *assessment* (:mod:`harness.embedded.offline.linkage`): which one evidence links to the
  symptom — the root cause — and why each other one was kept or rejected;
* the runbooks (:mod:`harness.embedded.offline.runbooks`) whose symptom matches the events.

A question that names a service whose logs hold nothing gets no root cause: what other
services show is reported, never blamed for it.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from harness.contracts.models import CallSignal
from harness.contracts.observation import (
    EvidenceBlock,
    LogEvent,
    LogsObservation,
    LogTemplate,
    RagObservation,
)
from harness.embedded.offline.candidates import Candidate, log_candidates, row_candidates
from harness.embedded.offline.conversation import Conversation, Exchange
from harness.embedded.offline.entities import fold, names
from harness.embedded.offline.linkage import (
    Assessment,
    Target,
    Verdict,
    assess,
    matching_runbooks,
    symptom_target,
)
from harness.embedded.offline.question import onset_time, service_names
from harness.embedded.offline.runbooks import Runbook, Section, library
from harness.embedded.offline.tables import Table, impact_tables, tables_for, words_of

__all__ = [
    "AgentContext",
    "Analysis",
    "Symptom",
    "agent_context",
    "analyse",
    "same_service",
]

# A template seen this long before the named onset is still part of it (clocks and wording
# of operators are approximate).
_ONSET_TOLERANCE = timedelta(minutes=5)
# Without a named onset, a template is "new" when it first appears this long after range start.
_NEW_AFTER_START = timedelta(minutes=10)
_MAX_SYMPTOMS = 3
# A symptom template must have at least this share of the most frequent candidate's count.
_MIN_SHARE = 0.2
_SEVERITY = {"TRACE": 0, "DEBUG": 1, "INFO": 2, "WARN": 3, "WARNING": 3, "ERROR": 4, "FATAL": 5}
_ALNUM = re.compile(r"[^a-z0-9]+")
# Two spellings of one service share a stem at least this long ("payments" and "payment-svc").
_MIN_STEM = 5


@dataclass(frozen=True, kw_only=True)
class AgentContext:
    """What the diagnosis agent's system prompt tells the model."""

    analysis_id: str
    now: datetime
    datasource: str


def agent_context(signal: CallSignal, fallback_now: datetime) -> AgentContext:
    """The run's analysis_id, "now" and datasource, as the call's signal names them."""
    return AgentContext(
        analysis_id=signal.analysis_id or "offline-analysis",
        now=signal.as_of or fallback_now,
        datasource=signal.datasource or "default",
    )


@dataclass(frozen=True, kw_only=True)
class Symptom:
    """A symptom template with the call that returned it and its sampled messages."""

    exchange: Exchange
    template: LogTemplate
    events: tuple[LogEvent, ...] = ()

    @property
    def messages(self) -> tuple[str, ...]:
        return tuple(e.message for e in self.events)


@dataclass(frozen=True, kw_only=True)
class Analysis:
    """The model's current understanding, rebuilt from the conversation on every turn."""

    context: AgentContext
    onset_named: datetime | None
    services_named: list[str]
    tables: list[Table] = field(default_factory=list)
    logs: list[Exchange] = field(default_factory=list)
    symptoms: list[Symptom] = field(default_factory=list)
    named_silent: bool = False
    """The question names services and none of the symptoms is theirs."""
    onset: datetime | None = None
    target: Target | None = None
    """The symptom as a linkage target."""
    candidates: list[Candidate] = field(default_factory=list)
    assessments: list[Assessment] = field(default_factory=list)
    runbooks: list[Runbook] = field(default_factory=list)
    symptom_runbooks: list[Runbook] = field(default_factory=list)
    words: frozenset[str] = frozenset()

    @property
    def lead(self) -> Symptom | None:
        """The most frequent symptom template: the message that names the failure best."""
        return max(self.symptoms, key=lambda s: s.template.count) if self.symptoms else None

    @property
    def symptom_services(self) -> list[str]:
        return sorted({s for x in self.symptoms for s in x.template.services})

    @property
    def root(self) -> Assessment | None:
        first = self.assessments[0] if self.assessments else None
        return first if first is not None and first.verdict is Verdict.ROOT else None

    @property
    def impact_tables(self) -> list[Table]:
        """Tables the question or the symptom names, where failed rows would show."""
        return impact_tables(self.tables, self.words)

    @property
    def symptom_block(self) -> tuple[str, EvidenceBlock] | None:
        """The excerpt of the best matching runbook that describes the symptom."""
        for runbook in self.symptom_runbooks:
            return runbook.block_of(Section.SYMPTOM) or runbook.blocks[0]
        return None


def analyse(conversation: Conversation, context: AgentContext) -> Analysis:
    """Derive symptom, onset, candidates and their assessment from the observations so far."""
    onset_named = onset_time(conversation.question, context.now)
    services_named = service_names(conversation.question)
    tables = tables_for(conversation.tool_descriptions, context.datasource)
    logs = [
        e for e in conversation.calls("query_logs") if isinstance(e.observation, LogsObservation)
    ]
    found = [s for exchange in logs for s in _symptoms(exchange, onset_named)]
    known = _known(logs, services_named)
    named = [s for s in found if _of_named(s, known)]
    # The question names a service no log line comes from or speaks of: nothing of it to
    # diagnose, and what other services show is not its cause.
    named_silent = bool(services_named and logs and not known and not _spoken(logs, services_named))
    symptoms = _top(named if named else _consumers(found))
    onset = min((s.template.first_seen for s in symptoms), default=None)
    texts = [t for s in symptoms for t in (s.template.template, *s.messages)]
    runbooks = library(
        [
            (e.call_id, b)
            for e in conversation.calls("search_knowledge")
            if isinstance(e.observation, RagObservation)
            for b in e.observation.evidence
        ]
    )
    analysis = Analysis(
        context=context,
        onset_named=onset_named,
        services_named=services_named,
        tables=tables,
        logs=logs,
        symptoms=symptoms,
        named_silent=named_silent,
        onset=onset,
        runbooks=runbooks,
        words=words_of([conversation.question, *texts]),
    )
    if onset is None:
        return analysis
    target = symptom_target(
        [(s.exchange, s.template.ref) for s in symptoms],
        [svc for s in symptoms for svc in s.template.services],
        texts,
    )
    candidates = row_candidates(conversation.calls("query_mysql"), tables, onset)
    candidates += log_candidates(logs, [s.template for s in symptoms], onset)
    assessments = [] if named_silent else assess(candidates, target, runbooks, logs)
    return dataclasses.replace(
        analysis,
        target=target,
        candidates=candidates,
        assessments=assessments,
        symptom_runbooks=matching_runbooks(runbooks, target.words),
    )


def same_service(a: str, b: str) -> bool:
    """Whether two spellings name one service (``payment-service``, ``payment_service``)."""
    x, y = _ALNUM.sub("", a.lower()), _ALNUM.sub("", b.lower())
    if x == y:
        return True
    short, long = sorted((x, y), key=len)
    return len(short) >= _MIN_STEM and long.startswith(short)


def _of_named(symptom: Symptom, named: list[str]) -> bool:
    return any(same_service(s, n) for s in symptom.template.services for n in named)


def _known(logs: list[Exchange], named: list[str]) -> list[str]:
    """The named services some log line comes from."""
    services = {
        svc
        for exchange in logs
        if isinstance(exchange.observation, LogsObservation)
        for template in exchange.observation.templates
        for svc in template.services
    }
    return [n for n in named if any(same_service(n, s) for s in services)]


def _spoken(logs: list[Exchange], named: list[str]) -> bool:
    """Whether a log line speaks of one of the names (a bucket, a host: not a service)."""
    for exchange in logs:
        observation = exchange.observation
        if not isinstance(observation, LogsObservation):
            continue
        texts = [t.template for t in observation.templates] + [
            e.message for e in observation.events
        ]
        folded = fold("\n".join(texts))
        if any(names(folded, fold(n)) for n in named):
            return True
    return False


def _consumers(found: list[Symptom]) -> list[Symptom]:
    """The symptoms without those of a service another symptom names: that service is a
    dependency failing first (the indexer's error names vault; vault's own errors are its
    cause, not another symptom)."""
    named: set[str] = set()
    for symptom in found:
        text = fold("\n".join([symptom.template.template, *symptom.messages]))
        own = set(symptom.template.services)
        named.update(
            s for other in found for s in other.template.services
            if s not in own and names(text, fold(s))
        )  # fmt: skip
    rest = [s for s in found if not set(s.template.services) & named]
    return rest or found


def _symptoms(exchange: Exchange, onset_named: datetime | None) -> list[Symptom]:
    observation = exchange.observation
    assert isinstance(observation, LogsObservation)
    templates = [t for t in observation.templates if _SEVERITY.get(t.level.upper(), 0) >= 3]
    if onset_named is not None:
        fresh = [t for t in templates if t.first_seen >= onset_named - _ONSET_TOLERANCE]
    else:
        start = observation.actual_start or observation.scope.start
        fresh = [t for t in templates if t.first_seen >= start + _NEW_AFTER_START]
    return [
        Symptom(
            exchange=exchange,
            template=t,
            events=tuple(e for e in observation.events if e.template_ref == t.ref),
        )
        for t in (fresh or templates)
    ]


def _top(found: list[Symptom]) -> list[Symptom]:
    """The most severe, most frequent templates (one per ref, the fullest view of each)."""
    by_ref: dict[str, Symptom] = {}
    for symptom in found:
        held = by_ref.get(symptom.template.ref)
        if held is None or symptom.template.count > held.template.count:
            by_ref[symptom.template.ref] = symptom
    if not by_ref:
        return []
    top = max(s.template.count for s in by_ref.values())
    ranked = sorted(
        (s for s in by_ref.values() if s.template.count >= top * _MIN_SHARE),
        key=lambda s: (
            -_SEVERITY.get(s.template.level.upper(), 0),
            -s.template.count,
            s.template.first_seen,
            s.template.ref,
        ),
    )
    return ranked[:_MAX_SYMPTOMS]
