"""Which tables the offline demo model reads: decided by their columns, never by their names.

The model knows no table in advance. The ``query_mysql`` tool definition lists what the policy
lets it read (:mod:`harness.sql.catalog`); from each table's columns it derives their *roles*
and from the roles what the table records:

* **changes** — a time column and something that says what changed: a before/after pair
  (``old_X``/``new_X``, ``X_before``/``X_after``, ``previous_X``/``current_X``,
  ``from_X``/``to_X``), an actor (``*_by``), an identifier (version, ticket), or the key, flag
  or setting it changed (deployments, config changes, flag events, migrations);
* **expiries** — an expiry column (``not_after``, ``expires_at``, ``valid_until``, …):
  certificates, tokens, licences, passwords;
* **capacities** — a usage and its limit (``used_bytes``/``size_bytes``, ``lag``/``max_lag``,
  ``used_gib``/``quota_gib``) or a percentage (``used_pct``): disks, quotas, pools, queues;
* **states** — a state column beside a time and a named entity (host, dependency, job): health
  checks, dependency states;
* **impacts** — a status and a time, in a table the question or the symptom names
  (``orders`` for a template holding ``order_id=``): how many rows FAILED since the onset.

Column roles come from the names of columns only (the catalog carries no types): a time column
ends in ``_at``/``_time``/``_ts``/``_on``/``_date`` (or is ``ts``/``time``/``timestamp``/
``date``), a service column is ``service``/``service_name``/``app``/``application``/
``component``, an entity column ends in a word that names a thing (host, topic, volume, mount,
bucket, cn, domain, flag, key, dependency, …). Masked columns are never queried. Tables are
taken in name order, so the same catalog always yields the same calls.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum

from harness.sql.catalog import CatalogTable, parse_catalog

__all__ = [
    "Table",
    "TableKind",
    "identifier_tokens",
    "impact_tables",
    "singular",
    "table_of",
    "tables_for",
    "words_of",
]


class TableKind(str, Enum):
    """What a table records, by its columns."""

    CHANGE = "CHANGE"
    EXPIRY = "EXPIRY"
    CAPACITY = "CAPACITY"
    STATE = "STATE"


_TIME = re.compile(r"(?:_at|_time|_ts|_on|_date)$|^(?:ts|time|timestamp|date|datetime)$")
_EXPIRY = re.compile(
    r"expir|^not_?after$|^valid_?(?:until|to|thru|through)$|(?:^|_)(?:valid_until|not_after)$"
)
_SERVICE = ("service", "service_name", "app", "application", "component")
_ACTOR = re.compile(r"_by$|^(?:author|actor|operator|owner|user|username)$")
_STATUS = ("status", "state", "health", "phase", "condition")
_ERROR = ("error_code", "error", "error_type", "failure_reason", "reason", "last_error")
# A column that names a change for people: a ticket, a change id, a version.
_IDENT = ("ticket", "change_id", "change_ref", "reference", "jira", "issue", "version")
# A column whose value says what changed or what is wrong, best read alone.
_TEXT = ("description", "summary", "title", "message", "comment", "details", "detail", "change")
# A column naming the thing whose value changed (config key, flag, setting).
_SUBJECT = re.compile(r"(?:^|_)(?:key|setting|parameter|property|flag|feature|toggle)$")
# The last word of a column that names one thing of the world.
_ENTITY_WORDS = frozenset(
    """
    service app application component host hostname node instance server machine pod cluster
    topic queue stream channel group cn domain fqdn subject san certificate cert volume mount
    mountpoint device filesystem fs path bucket disk flag feature toggle key setting parameter
    property dependency upstream target endpoint peer remote table database schema name pool
    tenant job worker consumer producer
    """.split()  # noqa: SIM905
)
_USAGE = re.compile(
    r"(?:^|_)(?:used|usage|use|current|lag|depth|backlog|in_use|active|fill|utili[sz]ation|"
    r"inflight|pending|open|consumed)(?:_|$)"
)
_LIMIT = re.compile(
    r"(?:^|_)(?:limit|quota|capacity|max|maximum|total|threshold|size|allowed)(?:_|$)"
)
_PERCENT = re.compile(r"(?:^|_)(?:pct|percent|percentage)$")
_PAIRS = (
    (re.compile(r"^old_(\w+)$"), "new_{}"),
    (re.compile(r"^previous_(\w+)$"), "current_{}"),
    (re.compile(r"^(\w+)_before$"), "{}_after"),
    (re.compile(r"^from_(\w+)$"), "to_{}"),
)
_FROM = re.compile(r"\bfrom\s+`?([a-z_][a-z0-9_$]*)`?\s*\.\s*`?([a-z_][a-z0-9_$]*)`?", re.I)
_WORD = re.compile(r"[a-z0-9]+")
_IDENTIFIER = re.compile(r"[A-Za-z0-9]+(?:[._/-][A-Za-z0-9]+)+")


def singular(word: str) -> str:
    """An English singular good enough for table names (``releases`` → release)."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "ches", "shes", "xes", "uses")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        return word[:-1]
    return word


def words_of(texts: Iterable[str]) -> frozenset[str]:
    """Lower-case words of ``texts`` and their singulars (``order_id`` → order, id)."""
    found: set[str] = set()
    for text in texts:
        for word in _WORD.findall(text.lower()):
            found.update((word, singular(word)))
    return frozenset(found)


def identifier_tokens(value: object) -> list[str]:
    """Identifier-shaped tokens of a value (``tax_region``, ``pool.max-size``): never prose."""
    text = "" if value is None else str(value)
    return [
        token
        for token in _IDENTIFIER.findall(text)
        if len(token) >= 4 and any(c.isalpha() for c in token)
    ]


@dataclass(frozen=True, kw_only=True)
class Table:
    """A readable table of the catalog with the roles of its columns."""

    entry: CatalogTable

    @property
    def qualified(self) -> str:
        return self.entry.qualified

    @property
    def name(self) -> str:
        return self.entry.table

    # A table's roles are asked for many times per turn; the catalog entry is frozen, so each
    # derived value is computed once per Table (and tables_for keeps the Tables of a catalog).
    @functools.cached_property
    def readable(self) -> tuple[str, ...]:
        """Columns whose values the model may see (masked ones are left out)."""
        return tuple(c for c in self.entry.columns if c not in self.entry.sensitive)

    @functools.cached_property
    def _readable_set(self) -> frozenset[str]:
        return frozenset(self.readable)

    def _first(self, names: Iterable[str]) -> str | None:
        readable = self._readable_set
        return next((n for n in names if n in readable), None)

    @functools.cached_property
    def expiry_column(self) -> str | None:
        """The column holding when the row's thing stops being valid."""
        return next((c for c in self.readable if _EXPIRY.search(c)), None)

    @functools.cached_property
    def time_column(self) -> str | None:
        """When the row happened (an expiry is not an event time)."""
        return next((c for c in self.readable if _TIME.search(c) and c != self.expiry_column), None)

    @functools.cached_property
    def service_column(self) -> str | None:
        return self._first(_SERVICE)

    @functools.cached_property
    def status_column(self) -> str | None:
        return self._first(_STATUS)

    @functools.cached_property
    def error_column(self) -> str | None:
        return self._first(_ERROR)

    @functools.cached_property
    def ident_column(self) -> str | None:
        return self._first(_IDENT)

    @functools.cached_property
    def actor_column(self) -> str | None:
        return next((c for c in self.readable if _ACTOR.search(c)), None)

    @functools.cached_property
    def subject_column(self) -> str | None:
        """The column naming what changed (``config_key``), when the table has one."""
        return next((c for c in self.readable if _SUBJECT.search(c)), None)

    @functools.cached_property
    def entity_columns(self) -> tuple[str, ...]:
        """Columns whose values name things of the world (host, topic, volume, cn, …)."""
        return tuple(
            c
            for c in self.readable
            if c != "id"
            and not c.endswith("_id")
            and c.rsplit("_", 1)[-1] in _ENTITY_WORDS
            and c not in (self.time_column, self.expiry_column)
        )

    @functools.cached_property
    def value_pair(self) -> tuple[str, str] | None:
        """The (before, after) columns of a changed value, when the table records them."""
        readable = self._readable_set
        for column in self.readable:
            for pattern, partner in _PAIRS:
                found = pattern.match(column)
                if found and partner.format(found.group(1)) in readable:
                    return column, partner.format(found.group(1))
        return None

    @functools.cached_property
    def usage_pair(self) -> tuple[str, str | None] | None:
        """(usage, limit) of a measured capacity; (percentage, None) for a share of 100."""
        usage = [c for c in self.readable if _USAGE.search(c) and not _LIMIT.search(c)]
        limits = [c for c in self.readable if _LIMIT.search(c) and not _TIME.search(c)]
        for column in usage:
            if _PERCENT.search(column):
                return column, next((lim for lim in limits if _PERCENT.search(lim)), None)
        if usage and limits:
            # Prefer a limit in the usage's unit (used_bytes with size_bytes).
            unit = usage[0].rsplit("_", 1)[-1]
            same = [lim for lim in limits if lim.rsplit("_", 1)[-1] == unit]
            return usage[0], (same or limits)[0]
        percent = next((c for c in self.readable if _PERCENT.search(c)), None)
        return (percent, None) if percent else None

    @functools.cached_property
    def text_column(self) -> str | None:
        return self._first(_TEXT)

    @property
    def label(self) -> str:
        """The table's rows in words: ``config_changes`` → "config changes"."""
        return self.name.replace("_", " ")

    @property
    def singular_label(self) -> str:
        """One row in words: ``config_changes`` → "config change"."""
        words = self.label.split()
        return " ".join([*words[:-1], singular(words[-1])]) if words else self.name

    @functools.cached_property
    def kind(self) -> TableKind | None:
        """What the table records, by its columns; None for other tables."""
        # An expiry, a capacity or a state can only be linked to a symptom through the thing it
        # belongs to: without an entity column its rows could never be a cause.
        if self.expiry_column is not None:
            return TableKind.EXPIRY if self.entity_columns else None
        if self.usage_pair is not None:
            return TableKind.CAPACITY if self.entity_columns else None
        if self.time_column is None:
            return None
        # Who changed it, to what, under which ticket or version, which key: a change. A
        # description alone says as much of a health check as of a change.
        if any((self.value_pair, self.actor_column, self.ident_column, self.subject_column)):
            return TableKind.CHANGE
        if self.status_column is not None and self.entity_columns:
            return TableKind.STATE
        return None

    def descriptive_columns(self) -> list[str]:
        """Columns that say what a row is about (not its id, time, service, actor or ident)."""
        return list(self._descriptive)

    @functools.cached_property
    def _descriptive(self) -> tuple[str, ...]:
        roles = {
            self.time_column,
            self.service_column,
            self.actor_column,
            self.ident_column,
            self.status_column,
        }
        return tuple(
            c for c in self.readable if c not in roles and c != "id" and not c.endswith("_id")
        )


def tables_for(descriptions: Mapping[str, str], datasource: str) -> list[Table]:
    """The readable tables of ``datasource`` that the query_mysql definition lists, by name."""
    return list(_tables_for(descriptions.get("query_mysql", ""), datasource))


@functools.lru_cache(maxsize=64)
def _tables_for(text: str, datasource: str) -> tuple[Table, ...]:
    # Every request carries the same definition: the catalog is parsed once per text.
    entries = [t for t in parse_catalog(text) if t.datasource == datasource]
    return tuple(sorted((Table(entry=t) for t in entries), key=lambda t: t.qualified))


def table_of(sql: str, tables: Iterable[Table]) -> Table | None:
    """The catalog table a query reads (its first ``FROM schema.table``)."""
    found = _FROM.search(sql)
    if found is None:
        return None
    qualified = f"{found.group(1).lower()}.{found.group(2).lower()}"
    return next((t for t in tables if t.qualified == qualified), None)


def impact_tables(tables: Iterable[Table], words: frozenset[str]) -> list[Table]:
    """Tables named by ``words`` whose rows have a status and a time: where failures show."""
    return [
        t
        for t in tables
        if t.kind is None
        and t.status_column is not None
        and t.time_column is not None
        and singular(t.name) in words
    ]
