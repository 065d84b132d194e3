"""Candidate causes: what the observations hold that could have caused a symptom.

A candidate is one of four kinds, each found by structure, never by name:

* **CHANGE** — a row of a change table whose time lies in the change window before the onset
  (a deployment, a config change, a flag event, a migration);
* **EXPIRY** — a row of an expiry table whose expiry lies at or before the onset;
* **CAPACITY** — the samples of one thing (per entity values) of a capacity table that reached
  their limit: the usage at least :data:`AT_LIMIT` of the limit, or a percentage at least
  ``AT_LIMIT × 100``;
* **DEPENDENCY** — the failing states of one thing of a state table.

A log template of WARN or worse that is not a symptom itself and began before it is a
candidate too (another component failing, an earlier warning of the same one): of the kind
its words speak of (:data:`KIND_WORDS` — an expiry, a capacity, an unavailable dependency);
one that speaks of none (another failed request) is only ever the cause of a condition, never
of the symptom itself (see :mod:`harness.embedded.offline.linkage`).

A candidate carries what links it: the services and hosts it belongs to, the specific names
of its entity columns and identifiers (:mod:`harness.embedded.offline.entities`), and its own words
(for runbook causes). :func:`describe` puts it in words from its values only.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import Enum

from harness.contracts.observation import LogsObservation, LogTemplate, MysqlObservation, ResultRow
from harness.embedded.offline.conversation import Exchange
from harness.embedded.offline.entities import distinctive, fold, text_entities
from harness.embedded.offline.queries import CHANGE_WINDOW, EXPIRY_WINDOW
from harness.embedded.offline.question import parse_timestamp
from harness.embedded.offline.runbooks import content_words
from harness.embedded.offline.tables import Table, TableKind, table_of
from harness.embedded.offline.wording import quote, time_text

__all__ = [
    "AT_LIMIT",
    "KIND_WORDS",
    "Candidate",
    "CauseKind",
    "at_limit",
    "describe",
    "log_candidates",
    "queried_table",
    "row_candidate",
    "row_candidates",
]


class CauseKind(str, Enum):
    """The kinds of candidate cause."""

    CHANGE = "CHANGE"
    EXPIRY = "EXPIRY"
    CAPACITY = "CAPACITY"
    DEPENDENCY = "DEPENDENCY"


AT_LIMIT = 0.95
# A dependency's state or an expiry just after the onset still describes it (clocks differ).
_TOLERANCE = timedelta(minutes=1)
_FAILING_STATES = frozenset(
    """
    down failed failing failure error errored critical crit unhealthy unavailable unreachable
    degraded sealed timeout timedout expired full exhausted stopped dead offline refused
    """.split()  # noqa: SIM905
)
_SEVERE = frozenset({"WARN", "WARNING", "ERROR", "FATAL"})
_LOG_KINDS = (CauseKind.EXPIRY, CauseKind.CAPACITY, CauseKind.DEPENDENCY)
_HOST_COLUMNS = ("host", "hostname", "node", "instance", "server", "machine", "pod")
KIND_WORDS: dict[CauseKind, frozenset[str]] = {
    CauseKind.CHANGE: frozenset(
        """
        change changed changes deploy deployed deployment release released version rollout
        config configuration migration migrated flag flags toggle enabled setting upgrade
        """.split()  # noqa: SIM905
    ),
    CauseKind.EXPIRY: frozenset(
        """
        expired expiry expires expire expiration certificate certificates cert x509 valid
        validity renew renewal notafter
        """.split()  # noqa: SIM905
    ),
    CauseKind.CAPACITY: frozenset(
        """
        space full quota capacity limit exhausted exceeded usage disk disks volume lag backlog
        pool memory oom filled filling saturated
        """.split()  # noqa: SIM905
    ),
    CauseKind.DEPENDENCY: frozenset(
        """
        refused unreachable unavailable down sealed dependency upstream resolve dns outage
        nxdomain
        """.split()  # noqa: SIM905
    ),
}
"""The words a symptom, a log line or a runbook uses for each kind of cause."""


@dataclass(frozen=True, kw_only=True)
class Candidate:
    """A possible cause, with the call and item it comes from and what can link it.

    Attributes:
        kind: What kind of cause.
        at: When it happened (a change), expired, reached its limit, began failing.
        exchange: The call whose result holds it.
        ref: The item that shows it (a row, or a template).
        services: Services and hosts it belongs to (folded).
        entities: The specific names it carries (folded), for "the symptom names it".
        words: Its own words, for a runbook's cause.
        table: The table of a row candidate.
        row: The row (for CAPACITY and DEPENDENCY rows: the first at-limit or failing one).
        template: The template of a log candidate.
        spoken: False for a log template whose words speak of no kind of cause.
    """

    kind: CauseKind
    at: datetime
    exchange: Exchange
    ref: str
    services: frozenset[str]
    entities: frozenset[str]
    words: frozenset[str]
    table: Table | None = None
    row: ResultRow | None = None
    template: LogTemplate | None = None
    spoken: bool = True
    """False for a log template whose words speak of no kind of cause."""

    def value(self, column: str | None) -> str:
        value = self.row.values.get(column) if self.row is not None and column else None
        return "" if value is None else str(value)

    @property
    def key(self) -> tuple[str, str]:
        return (self.exchange.call_id, self.ref)

    @property
    def text(self) -> str:
        """Everything the candidate's item says, folded (what may name a symptom's entity)."""
        if self.template is not None:
            return fold(self.template.template)
        values = self.row.values.values() if self.row is not None else ()
        return fold(" ".join(str(v) for v in values if v is not None))


def queried_table(exchange: Exchange, tables: Sequence[Table]) -> Table | None:
    """The catalog table a query_mysql call read: its result's scope, else its SQL."""
    observation = exchange.observation
    if isinstance(observation, MysqlObservation) and observation.scope.tables:
        named = observation.scope.tables[0].lower()
        found = next((t for t in tables if t.qualified == named), None)
        if found is not None:
            return found
    return table_of(str(exchange.arguments.get("sql", "")), tables)


def row_candidates(
    exchanges: Iterable[Exchange], tables: Sequence[Table], onset: datetime
) -> list[Candidate]:
    """The candidates the rows of cause tables hold for a symptom from ``onset``."""
    found: dict[str, Candidate] = {}
    for exchange in exchanges:
        table = queried_table(exchange, tables)
        observation = exchange.observation
        if table is None or table.kind is None or not isinstance(observation, MysqlObservation):
            continue
        for candidate in _of_table(exchange, table, observation.rows, onset):
            # A retried, simpler query returns the same rows without their ids: one candidate.
            values = candidate.row.values if candidate.row is not None else {}
            identity = json.dumps(
                [table.qualified, {k: v for k, v in values.items() if k != "id"}],
                sort_keys=True,
                default=str,
            )
            found.setdefault(identity, candidate)
    return sorted(found.values(), key=lambda c: (c.at, c.key), reverse=True)


def _of_table(
    exchange: Exchange, table: Table, rows: Sequence[ResultRow], onset: datetime
) -> list[Candidate]:
    kind = table.kind
    if kind is TableKind.CHANGE:
        return [
            _row(CauseKind.CHANGE, exchange, table, row, at)
            for row in rows
            if (at := parse_timestamp(row.values.get(table.time_column or "")))
            and onset - CHANGE_WINDOW <= at <= onset + _TOLERANCE
        ]
    if kind is TableKind.EXPIRY:
        return [
            _row(CauseKind.EXPIRY, exchange, table, row, at)
            for row in rows
            if (at := parse_timestamp(row.values.get(table.expiry_column or "")))
            and onset - EXPIRY_WINDOW <= at <= onset + _TOLERANCE
        ]
    if kind is TableKind.CAPACITY:
        return _first_per_entity(CauseKind.CAPACITY, exchange, table, rows, onset, at_limit)
    if kind is TableKind.STATE:
        return _first_per_entity(CauseKind.DEPENDENCY, exchange, table, rows, onset, _failing)
    return []


def _first_per_entity(
    kind: CauseKind,
    exchange: Exchange,
    table: Table,
    rows: Sequence[ResultRow],
    onset: datetime,
    qualifies: Callable[[Table, ResultRow], bool],
) -> list[Candidate]:
    """One candidate per thing: its earliest qualifying row at or before the onset."""
    earliest: dict[tuple[str, ...], tuple[datetime, ResultRow]] = {}
    for row in rows:
        if not qualifies(table, row):
            continue
        at = parse_timestamp(row.values.get(table.time_column or "")) or onset
        if at > onset + _TOLERANCE:
            continue
        thing = tuple(fold(row.values.get(c)) for c in table.entity_columns)
        if thing not in earliest or at < earliest[thing][0]:
            earliest[thing] = (at, row)
    return [_row(kind, exchange, table, row, at) for at, row in earliest.values()]


def _number(value: object) -> float | None:
    try:
        return float(str(value).rstrip("%").strip())
    except ValueError:
        return None


def at_limit(table: Table, row: ResultRow) -> bool:
    """Whether a capacity row's usage reached its limit (see :data:`AT_LIMIT`)."""
    if table.usage_pair is None:
        return False
    usage_column, limit_column = table.usage_pair
    usage = _number(row.values.get(usage_column))
    if usage is None:
        return False
    if limit_column is None:  # a percentage
        return usage >= AT_LIMIT * 100
    limit = _number(row.values.get(limit_column))
    return limit is not None and limit > 0 and usage >= AT_LIMIT * limit


def _failing(table: Table, row: ResultRow) -> bool:
    state = fold(row.values.get(table.status_column or ""))
    return bool(set(state.replace("_", " ").split()) & _FAILING_STATES)


_KIND_OF_TABLE = {
    TableKind.CHANGE: CauseKind.CHANGE,
    TableKind.EXPIRY: CauseKind.EXPIRY,
    TableKind.CAPACITY: CauseKind.CAPACITY,
    TableKind.STATE: CauseKind.DEPENDENCY,
}


def row_candidate(exchange: Exchange, table: Table, row: ResultRow, at: datetime) -> Candidate:
    """A row as a candidate of its table's kind (a row of another table as a change)."""
    kind = _KIND_OF_TABLE[table.kind] if table.kind is not None else CauseKind.CHANGE
    return _row(kind, exchange, table, row, at)


def _row(
    kind: CauseKind, exchange: Exchange, table: Table, row: ResultRow, at: datetime
) -> Candidate:
    services = {
        fold(row.values.get(c))
        for c in (table.service_column, *(c for c in table.entity_columns if c in _HOST_COLUMNS))
        if c and row.values.get(c) not in (None, "")
    }
    entities = {
        fold(row.values.get(c))
        for c in table.entity_columns
        if c != table.service_column and row.values.get(c) not in (None, "")
    }
    descriptive = [str(row.values.get(c)) for c in table.descriptive_columns() if row.values.get(c)]
    for value in descriptive:
        entities.update(text_entities(value))
    # Its own words: what the table records and what the row says, not its column names
    # (every flag table has a "key") nor the service's name (that is a SHARED link's).
    words = content_words(" ".join([table.label, *descriptive])) - content_words(" ".join(services))
    return Candidate(
        kind=kind,
        at=at,
        exchange=exchange,
        ref=row.ref,
        services=frozenset(s for s in services if s),
        entities=frozenset(e for e in entities - services if distinctive(e)),
        words=words,
        table=table,
        row=row,
    )


def log_candidates(
    exchanges: Iterable[Exchange], symptoms: Sequence[LogTemplate], onset: datetime
) -> list[Candidate]:
    """WARN+ templates that are not symptoms and began no later than the onset."""
    symptom_refs = {t.ref for t in symptoms}
    found: dict[str, Candidate] = {}
    for exchange in exchanges:
        observation = exchange.observation
        if not isinstance(observation, LogsObservation):
            continue
        for template in observation.templates:
            if (
                template.ref in symptom_refs
                or template.level.upper() not in _SEVERE
                or template.first_seen >= onset
                or template.ref in found
            ):
                continue
            messages = [e.message for e in observation.events if e.template_ref == template.ref]
            text = "\n".join([template.template, *messages])
            words = content_words(text)
            kind = next(
                (k for k in _LOG_KINDS if words & KIND_WORDS[k]),
                None,
            )
            services = frozenset(fold(s) for s in template.services)
            found[template.ref] = Candidate(
                kind=kind or CauseKind.DEPENDENCY,
                spoken=kind is not None,
                at=template.first_seen,
                exchange=exchange,
                ref=template.ref,
                services=services,
                entities=frozenset(text_entities(text) - services),
                words=words,
                template=template,
            )
    return sorted(found.values(), key=lambda c: (c.at, c.ref), reverse=True)


def describe(candidate: Candidate) -> str:
    """The candidate in words, from its values only (no time for a log template)."""
    if candidate.template is not None:
        template = candidate.template
        return (
            f"{template.count} {template.level} events '{quote(template.template)}' from "
            f"{', '.join(template.services) or 'the queried services'} since "
            f"{time_text(template.first_seen)}"
        )
    table = candidate.table
    assert table is not None
    if candidate.kind is CauseKind.CHANGE:
        return _change(candidate, table)
    names = [f"{c} {candidate.value(c)}" for c in table.entity_columns if candidate.value(c)]
    head = f"{table.singular_label.capitalize()} {', '.join(names) or candidate.ref}"
    if candidate.kind is CauseKind.EXPIRY:
        return f"{head}: {table.expiry_column} {time_text(candidate.at)} (expired)"
    if candidate.kind is CauseKind.CAPACITY:
        assert table.usage_pair is not None
        usage, limit = table.usage_pair
        figures = f"{usage} {candidate.value(usage)}"
        if limit:
            figures += f" of {limit} {candidate.value(limit)}"
        return f"{head}: {figures} at {time_text(candidate.at)} (at its limit)"
    state = f"{table.status_column} {candidate.value(table.status_column)}"
    detail = candidate.value(table.text_column or table.error_column)
    return f"{head}: {state}{f' ({detail})' if detail else ''} at {time_text(candidate.at)}"


def _change(candidate: Candidate, table: Table) -> str:
    """``Config change CHG-4821 on checkout-api: pool-size changed from 40 to 4 by deploy-bot
    at 2026-11-02 14:04:12 UTC``; a row without before/after values says what it did."""
    ident = candidate.value(table.ident_column)
    text = f"{table.singular_label.capitalize()}{f' {ident}' if ident else ''}"
    status = candidate.value(table.status_column)
    if status:
        text += f" ({status})"
    service = candidate.value(table.service_column)
    if service:
        text += f" on {service}"
    what = change_what(candidate, table)
    if what:
        text += f": {what}"
    actor = candidate.value(table.actor_column)
    if actor:
        text += f" by {actor}"
    return f"{text} at {time_text(candidate.at)}"


def change_what(candidate: Candidate, table: Table) -> str:
    """What a change row changed, in its own values."""
    pair = table.value_pair
    if pair is not None:
        subject = candidate.value(table.subject_column) or _strip_affixes(pair[0])
        return f"{subject} changed from {candidate.value(pair[0])} to {candidate.value(pair[1])}"
    text = candidate.value(table.text_column)
    if text:
        return text
    return ", ".join(
        f"{c} {candidate.value(c)}" for c in table.descriptive_columns() if candidate.value(c)
    )


def _strip_affixes(column: str) -> str:
    for prefix in ("old_", "previous_", "from_"):
        if column.startswith(prefix):
            return column[len(prefix) :]
    return column.removesuffix("_before")
