"""What the offline demo model concludes from the observations it has received.

Everything here is derived from the tool results of the conversation — nothing is known in
advance about the demo incident:

* the *symptom*: the most severe, most frequent log templates that first appear at or after
  the onset the question names (or, without one, that are new within the queried range);
* the onset ``T``: the earliest first_seen among those templates;
* the *suspects*: config-change rows in ``[T − 30 min, T]`` (the service that shows the symptom
  first, then the change closest to ``T``), and deployments in the same window;
* the runbook evidence block that names the symptom, and any block that prescribes a rollback.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta

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

__all__ = [
    "SUSPECT_WINDOW",
    "AgentContext",
    "Analysis",
    "ChangeRow",
    "agent_context",
    "analyse",
    "mysql_kind",
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
_AS_OF = re.compile(r"Current time:\s*(\d{4}-\d{2}-\d{2}T[0-9:.]+(?:Z|[+-]\d{2}:?\d{2})?)")
_DATASOURCE = re.compile(r"Datasource for query_mysql:\s*([A-Za-z0-9_.-]*[A-Za-z0-9_-])")
_ANALYSIS_ID = re.compile(r'"analysis_id":\s*"([^"]+)"')


@dataclass(frozen=True, kw_only=True)
class AgentContext:
    """What the diagnosis agent's system prompt tells the model."""

    analysis_id: str
    now: datetime
    datasource: str


def agent_context(system: str, fallback_now: datetime) -> AgentContext:
    """Read analysis_id, current time and datasource from the agent's system prompt."""
    analysis = _ANALYSIS_ID.search(system)
    as_of = _AS_OF.search(system)
    datasource = _DATASOURCE.search(system)
    now = parse_timestamp(as_of.group(1)) if as_of else None
    return AgentContext(
        analysis_id=analysis.group(1) if analysis else "offline-analysis",
        now=now or fallback_now,
        datasource=datasource.group(1) if datasource else "default",
    )


def mysql_kind(exchange: Exchange) -> str:
    """Which question a query_mysql call asked: config, deploy, orders or other."""
    sql = str(exchange.arguments.get("sql", "")).lower()
    if "config_changes" in sql:
        return "config"
    if "deployments" in sql:
        return "deploy"
    if "orders" in sql:
        return "orders"
    return "other"


@dataclass(frozen=True, kw_only=True)
class ChangeRow:
    """A config-change or deployment row, with the call that returned it."""

    exchange: Exchange
    row: ResultRow
    at: datetime
    service: str

    def value(self, column: str) -> str:
        value = self.row.values.get(column)
        return "" if value is None else str(value)


@dataclass(frozen=True, kw_only=True)
class Analysis:
    """The model's current understanding, rebuilt from the conversation on every turn."""

    context: AgentContext
    onset_named: datetime | None
    services_named: list[str]
    logs: Exchange | None = None
    symptoms: list[LogTemplate] = field(default_factory=list)
    onset: datetime | None = None
    changes: list[ChangeRow] = field(default_factory=list)
    deployments: list[ChangeRow] = field(default_factory=list)
    root: ChangeRow | None = None
    symptom_block: tuple[Exchange, EvidenceBlock] | None = None
    rollback_blocks: list[tuple[Exchange, EvidenceBlock]] = field(default_factory=list)

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


def analyse(conversation: Conversation, context: AgentContext) -> Analysis:
    """Derive symptom, onset, suspects and runbook evidence from the observations so far."""
    onset_named = onset_time(conversation.question, context.now)
    services_named = service_names(conversation.question)
    logs = _latest_logs(conversation)
    symptoms: list[LogTemplate] = []
    if logs is not None and isinstance(logs.observation, LogsObservation):
        symptoms = _symptoms(logs.observation, onset_named)
    onset = min((t.first_seen for t in symptoms), default=None)

    changes = _rows(conversation, "config", "changed_at", onset)
    deployments = _rows(conversation, "deploy", "deployed_at", onset)
    blocks = [
        (e, b)
        for e in conversation.calls("search_knowledge")
        if isinstance(e.observation, RagObservation)
        for b in e.observation.evidence
    ]
    symptom_block = _symptom_block(blocks, symptoms)
    services = sorted({s for t in symptoms for s in t.services}) or services_named
    root = _root(changes, services, blocks)
    rollback = [
        (e, b)
        for e, b in blocks
        if _ROLLBACK.search(b.excerpt) and (root is None or _mentions(b, root))
    ] or [(e, b) for e, b in blocks if _ROLLBACK.search(b.excerpt)]
    return Analysis(
        context=context,
        onset_named=onset_named,
        services_named=services_named,
        logs=logs,
        symptoms=symptoms,
        onset=onset,
        changes=changes,
        deployments=deployments,
        root=root,
        symptom_block=symptom_block,
        rollback_blocks=rollback,
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


def _rows(
    conversation: Conversation, kind: str, column: str, onset: datetime | None
) -> list[ChangeRow]:
    """Rows of ``kind`` calls that lie in the suspect window before ``onset``."""
    if onset is None:
        return []
    found: dict[str, ChangeRow] = {}
    for exchange in conversation.calls("query_mysql"):
        if mysql_kind(exchange) != kind or not isinstance(exchange.observation, MysqlObservation):
            continue
        for row in exchange.observation.rows:
            at = parse_timestamp(row.values.get(column))
            if at is None or not onset - SUSPECT_WINDOW <= at <= onset:
                continue
            service = str(row.values.get("service") or "")
            identity = f"{service}|{at.isoformat()}|{row.values.get('config_key', '')}"
            found.setdefault(
                identity, ChangeRow(exchange=exchange, row=row, at=at, service=service)
            )
    return sorted(found.values(), key=lambda c: (c.at, c.row.ref), reverse=True)


def _root(
    changes: list[ChangeRow],
    services: list[str],
    blocks: list[tuple[Exchange, EvidenceBlock]],
) -> ChangeRow | None:
    """The change that most plausibly caused the symptom, or None when none qualifies."""
    candidates = [c for c in changes if not services or c.service in services]
    if not candidates:
        return None

    def rank(change: ChangeRow) -> tuple[bool, datetime]:
        named_by_runbook = any(_mentions(block, change) for _, block in blocks)
        return named_by_runbook, change.at

    return max(candidates, key=rank)


def _mentions(block: EvidenceBlock, change: ChangeRow) -> bool:
    key = change.value("config_key").lower()
    if not key:
        return False
    text = f"{block.title}\n{block.excerpt}".lower()
    return key in text or key.rsplit(".", 1)[-1] in text


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


def _words(text: str) -> set[str]:
    return {
        w.lower() for w in keywords(text, max_words=200).split() if len(w) >= 3 and not w.isdigit()
    }
