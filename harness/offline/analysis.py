"""What the offline demo model concludes from the observations it has received.

Everything here is derived from the tool results of the conversation and from the tables the
query_mysql definition lists — nothing is known in advance about any incident:

* the *symptom*: the most severe, most frequent log templates that first appear at or after
  the onset the question names (or, without one, that are new within the queried range);
* the onset ``T``: the earliest first_seen among those templates;
* the *changes*: rows of change tables (:mod:`harness.offline.tables`) in ``[T − 30 min, T]``;
  a change is a *suspect* when it touched a service that shows the symptom or when the symptom
  names what it changed (an identifier of the row, such as a config key or a column, appears
  in the symptom's templates); the root cause is the suspect named by the symptom, then by a
  runbook, then the one closest to ``T``;
* the runbook evidence block that names the symptom, and any block that prescribes a rollback.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from harness.models import CallSignal
from harness.observation import (
    EvidenceBlock,
    LogsObservation,
    LogTemplate,
    MysqlObservation,
    RagObservation,
    RelevanceLevel,
    ResultRow,
)
from harness.offline.conversation import Conversation, Exchange
from harness.offline.question import keywords, onset_time, parse_timestamp, service_names
from harness.offline.tables import (
    Table,
    change_tables,
    identifier_tokens,
    impact_tables,
    table_of,
    tables_for,
    words_of,
)

__all__ = [
    "SUSPECT_WINDOW",
    "AgentContext",
    "Analysis",
    "ChangeRow",
    "agent_context",
    "analyse",
    "queried_table",
]

# Changes further back than this before the first symptom are not suspects.
SUSPECT_WINDOW = timedelta(minutes=30)
# A template seen this long before the named onset is still part of it (clocks and wording
# of operators are approximate).
_ONSET_TOLERANCE = timedelta(minutes=5)
# Without a named onset, a template is "new" when it first appears this long after range start.
_NEW_AFTER_START = timedelta(minutes=10)
_MAX_SYMPTOMS = 3
# A symptom template must have at least this share of the most frequent candidate's count.
_MIN_SHARE = 0.2
_SEVERITY = {"TRACE": 0, "DEBUG": 1, "INFO": 2, "WARN": 3, "WARNING": 3, "ERROR": 4, "FATAL": 5}
_ROLLBACK = re.compile(r"\b(revert|roll ?back|rollback|restore)\b", re.I)


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


def queried_table(exchange: Exchange, tables: list[Table]) -> Table | None:
    """The catalog table a query_mysql call read: its result's scope, else its SQL."""
    observation = exchange.observation
    if isinstance(observation, MysqlObservation) and observation.scope.tables:
        named = observation.scope.tables[0].lower()
        found = next((t for t in tables if t.qualified == named), None)
        if found is not None:
            return found
    return table_of(str(exchange.arguments.get("sql", "")), tables)


@dataclass(frozen=True, kw_only=True)
class ChangeRow:
    """A row of a change table, with the call that returned it and the table's column roles."""

    exchange: Exchange
    row: ResultRow
    at: datetime
    table: Table

    def value(self, column: str | None) -> str:
        value = self.row.values.get(column) if column else None
        return "" if value is None else str(value)

    @property
    def service(self) -> str:
        return self.value(self.table.service_column)

    @property
    def ident(self) -> str:
        """What people call this change: its ticket, change id or version (may be empty)."""
        return self.value(self.table.ident_column)

    @property
    def subject(self) -> str:
        """What changed, in its own words: the key, else the description, else any value."""
        for column in (self.table.subject_column, self.table.text_column):
            if self.value(column):
                return self.value(column)
        return next((self.value(c) for c in self.table.descriptive_columns() if self.value(c)), "")

    def tokens(self) -> list[str]:
        """Identifiers the row names (config keys, columns, scripts), lower case."""
        found: list[str] = []
        for column in self.table.descriptive_columns():
            found += [t.lower() for t in identifier_tokens(self.row.values.get(column))]
        return list(dict.fromkeys(found))

    def named_in(self, text: str) -> bool:
        """Whether ``text`` names one of the row's identifiers (or its last dotted part)."""
        lowered = text.lower()
        return any(t in lowered or t.rsplit(".", 1)[-1] in lowered for t in self.tokens())


@dataclass(frozen=True, kw_only=True)
class Analysis:
    """The model's current understanding, rebuilt from the conversation on every turn."""

    context: AgentContext
    onset_named: datetime | None
    services_named: list[str]
    tables: list[Table] = field(default_factory=list)
    logs: Exchange | None = None
    symptoms: list[LogTemplate] = field(default_factory=list)
    onset: datetime | None = None
    changes: list[ChangeRow] = field(default_factory=list)
    suspects: list[ChangeRow] = field(default_factory=list)
    root: ChangeRow | None = None
    symptom_block: tuple[Exchange, EvidenceBlock] | None = None
    rollback_blocks: list[tuple[Exchange, EvidenceBlock]] = field(default_factory=list)
    words: frozenset[str] = frozenset()

    @property
    def window(self) -> tuple[datetime, datetime] | None:
        if self.onset is None:
            return None
        return self.onset - SUSPECT_WINDOW, self.onset

    @property
    def lead(self) -> LogTemplate | None:
        """The most frequent symptom template: the message that names the failure best."""
        return max(self.symptoms, key=lambda t: t.count) if self.symptoms else None

    @property
    def symptom_services(self) -> list[str]:
        return sorted({s for t in self.symptoms for s in t.services})

    @property
    def change_tables(self) -> list[Table]:
        return change_tables(self.tables)

    @property
    def impact_tables(self) -> list[Table]:
        """Tables the question or the symptom names, where failed rows would show."""
        return impact_tables(self.tables, self.words)


def analyse(conversation: Conversation, context: AgentContext) -> Analysis:
    """Derive symptom, onset, suspects and runbook evidence from the observations so far."""
    onset_named = onset_time(conversation.question, context.now)
    services_named = service_names(conversation.question)
    tables = tables_for(conversation.tool_descriptions, context.datasource)
    logs = _latest_logs(conversation)
    symptoms: list[LogTemplate] = []
    if logs is not None and isinstance(logs.observation, LogsObservation):
        symptoms = _symptoms(logs.observation, onset_named)
    onset = min((t.first_seen for t in symptoms), default=None)
    symptom_text = "\n".join(t.template for t in symptoms)

    changes = _changes(conversation, tables, onset)
    blocks = [
        (e, b)
        for e in conversation.calls("search_knowledge")
        if isinstance(e.observation, RagObservation)
        for b in e.observation.evidence
    ]
    symptom_block = _symptom_block(blocks, symptoms)
    services = sorted({s for t in symptoms for s in t.services}) or services_named
    suspects = [c for c in changes if c.service in services or c.named_in(symptom_text)]
    if not services:
        suspects = list(changes)
    root = _root(suspects, symptom_text, blocks)
    rollback = [
        (e, b)
        for e, b in blocks
        if _ROLLBACK.search(b.excerpt) and (root is None or _mentions(b, root))
    ] or [(e, b) for e, b in blocks if _ROLLBACK.search(b.excerpt)]
    return Analysis(
        context=context,
        onset_named=onset_named,
        services_named=services_named,
        tables=tables,
        logs=logs,
        symptoms=symptoms,
        onset=onset,
        changes=changes,
        suspects=suspects,
        root=root,
        symptom_block=symptom_block,
        rollback_blocks=rollback,
        words=words_of([conversation.question, symptom_text]),
    )


def _latest_logs(conversation: Conversation) -> Exchange | None:
    with_data = [e for e in conversation.calls("query_logs") if e.observation is not None]
    return with_data[-1] if with_data else None


def _symptoms(observation: LogsObservation, onset_named: datetime | None) -> list[LogTemplate]:
    templates = [t for t in observation.templates if _SEVERITY.get(t.level.upper(), 0) >= 3]
    if onset_named is not None:
        candidates = [t for t in templates if t.first_seen >= onset_named - _ONSET_TOLERANCE]
    else:
        start = observation.actual_start or observation.scope.start
        candidates = [t for t in templates if t.first_seen >= start + _NEW_AFTER_START]
    candidates = candidates or templates
    if not candidates:
        return []
    top = max(t.count for t in candidates)
    ranked = sorted(
        (t for t in candidates if t.count >= top * _MIN_SHARE),
        key=lambda t: (-_SEVERITY.get(t.level.upper(), 0), -t.count, t.first_seen, t.ref),
    )
    return ranked[:_MAX_SYMPTOMS]


def _changes(
    conversation: Conversation, tables: list[Table], onset: datetime | None
) -> list[ChangeRow]:
    """Rows of change-table calls that lie in the suspect window before ``onset``."""
    if onset is None:
        return []
    found: dict[str, ChangeRow] = {}
    for exchange in conversation.calls("query_mysql"):
        table = queried_table(exchange, tables)
        if table is None or not table.is_change_table:
            continue
        if not isinstance(exchange.observation, MysqlObservation):
            continue
        for row in exchange.observation.rows:
            at = parse_timestamp(row.values.get(table.time_column or ""))
            if at is None or not onset - SUSPECT_WINDOW <= at <= onset:
                continue
            change = ChangeRow(exchange=exchange, row=row, at=at, table=table)
            # A retried, simpler query returns the same change without its id: one suspect.
            identity = "|".join(
                [table.qualified, change.service, at.isoformat(), change.subject, change.ident]
            )
            found.setdefault(identity, change)
    return sorted(found.values(), key=lambda c: (c.at, c.row.ref), reverse=True)


def _root(
    suspects: list[ChangeRow],
    symptom_text: str,
    blocks: list[tuple[Exchange, EvidenceBlock]],
) -> ChangeRow | None:
    """The change that most plausibly caused the symptom, or None when none qualifies."""
    if not suspects:
        return None

    def rank(change: ChangeRow) -> tuple[bool, bool, datetime]:
        named_by_runbook = any(_mentions(block, change) for _, block in blocks)
        return change.named_in(symptom_text), named_by_runbook, change.at

    return max(suspects, key=rank)


def _mentions(block: EvidenceBlock, change: ChangeRow) -> bool:
    return change.named_in(f"{block.title}\n{block.excerpt}")


def _symptom_block(
    blocks: list[tuple[Exchange, EvidenceBlock]], symptoms: list[LogTemplate]
) -> tuple[Exchange, EvidenceBlock] | None:
    """The knowledge block that shares the most words with the top symptom template."""
    if not symptoms or not blocks:
        return None
    words = set().union(*(_words(t.template) for t in symptoms))
    rank = {RelevanceLevel.HIGH: 2, RelevanceLevel.MEDIUM: 1, RelevanceLevel.REFERENCE: 0}
    best = max(
        blocks,
        key=lambda eb: (
            len(words & _words(f"{eb[1].title} {eb[1].excerpt}")),
            rank[eb[1].relevance_level],
        ),
    )
    return best if len(words & _words(f"{best[1].title} {best[1].excerpt}")) >= 2 else None


@functools.lru_cache(maxsize=4096)
def _words(text: str) -> frozenset[str]:
    # Kept per text: every turn rebuilds the analysis from the whole conversation, so the same
    # templates and runbook excerpts are split again and again (within a run and across runs).
    return frozenset(
        w.lower() for w in keywords(text, max_words=200).split() if len(w) >= 3 and not w.isdigit()
    )
