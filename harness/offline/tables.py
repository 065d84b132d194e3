"""Which tables the offline demo model reads, and how it asks them: by rules over the catalog.

The model knows no table in advance. The ``query_mysql`` tool definition lists what the policy
lets it read (:mod:`harness.sql.catalog`); from that list and the words of the question and
the symptom it picks

* **change tables** — tables that record what changed: their name says so (a change, a
  deployment, a release, a rollout, a migration, a revision, an upgrade, a patch, a rotation)
  and they have a time column. Rows of these inside the suspect window are the suspects;
* **impact tables** — tables the question or the symptom names (``orders`` for a template
  holding ``order_id=``; ``invoices`` for "invoice"), with a status and a time column: how many
  rows FAILED since the onset, by status and error column.

Columns are recognised by name only (the catalog carries no types): a time column ends in
``_at``/``_time``/``_ts``/``_on``/``_date`` (or is ``ts``/``time``/``timestamp``/``date``), a
service column is ``service``/``service_name``/``app``/``application``/``component``, an actor
column ends in ``_by`` (or is ``author``/``actor``/``operator``/``owner``), and a change's
before and after values are an ``old_X``/``new_X`` (``X_before``/``X_after``,
``previous_X``/``current_X``) pair. Masked columns are never queried. Tables are taken in name
order, so the same catalog always yields the same calls.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from harness.sql.catalog import CatalogTable, parse_catalog

__all__ = [
    "ROW_LIMIT",
    "Table",
    "change_sql",
    "change_tables",
    "identifier_tokens",
    "impact_sql",
    "impact_tables",
    "table_of",
    "tables_for",
    "words_of",
]

ROW_LIMIT = 50
_IMPACT_LIMIT = 10
_FAILED = "FAILED"
_CHANGE_WORDS = frozenset(
    {
        "change",
        "deployment",
        "deploy",
        "release",
        "rollout",
        "migration",
        "revision",
        "upgrade",
        "patch",
        "rotation",
    }
)
_TIME = re.compile(r"(?:_at|_time|_ts|_on|_date)$|^(?:ts|time|timestamp|date|datetime)$")
_SERVICE = ("service", "service_name", "app", "application", "component")
_ACTOR = re.compile(r"_by$|^(?:author|actor|operator|owner|user|username)$")
_STATUS = ("status", "state")
_ERROR = ("error_code", "error", "error_type", "failure_reason", "reason", "last_error")
# A column that names a change for people: a ticket, a change id, a version.
_IDENT = ("ticket", "change_id", "change_ref", "reference", "jira", "issue", "version")
# A column whose value says what changed, best read alone.
_TEXT = ("description", "summary", "title", "message", "comment", "details", "change")
# A column naming the thing whose value changed (config key, flag, setting).
_SUBJECT = re.compile(r"(?:^|_)(?:key|setting|parameter|property|flag|name)$")
_PAIRS = (
    (re.compile(r"^old_(\w+)$"), "new_{}"),
    (re.compile(r"^previous_(\w+)$"), "current_{}"),
    (re.compile(r"^(\w+)_before$"), "{}_after"),
    (re.compile(r"^from_(\w+)$"), "to_{}"),
)
_FROM = re.compile(r"\bfrom\s+`?([a-z_][a-z0-9_$]*)`?\s*\.\s*`?([a-z_][a-z0-9_$]*)`?", re.I)
_WORD = re.compile(r"[a-z0-9]+")
_IDENTIFIER = re.compile(r"[A-Za-z0-9]+(?:[._-][A-Za-z0-9]+)+")


def _singular(word: str) -> str:
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
            found.update((word, _singular(word)))
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
    def time_column(self) -> str | None:
        return next((c for c in self.readable if _TIME.search(c)), None)

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
    def value_pair(self) -> tuple[str, str] | None:
        """The (before, after) columns of a changed value, when the table records them."""
        readable = set(self.readable)
        for column in self.readable:
            for pattern, partner in _PAIRS:
                found = pattern.match(column)
                if found and partner.format(found.group(1)) in readable:
                    return column, partner.format(found.group(1))
        return None

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
        return " ".join([*words[:-1], _singular(words[-1])]) if words else self.name

    @functools.cached_property
    def is_change_table(self) -> bool:
        parts = {_singular(part) for part in self.name.split("_")}
        return bool(parts & _CHANGE_WORDS) and self.time_column is not None

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


def change_tables(tables: Iterable[Table]) -> list[Table]:
    """Tables that record changes, in name order."""
    return [t for t in tables if t.is_change_table]


def impact_tables(tables: Iterable[Table], words: frozenset[str]) -> list[Table]:
    """Tables named by ``words`` whose rows have a status and a time: where failures show."""
    return [
        t
        for t in tables
        if not t.is_change_table
        and t.status_column is not None
        and t.time_column is not None
        and _singular(t.name) in words
    ]


def change_sql(table: Table, start: str, end: str, *, simpler: bool) -> str:
    """The rows of a change table in ``[start, end]``, newest first (simpler: from start)."""
    time = table.time_column
    assert time is not None
    columns = [c for c in table.readable if not (simpler and c == "id")]
    head = f"SELECT {', '.join(columns)} FROM {table.qualified}"
    if simpler:
        return f"{head} WHERE {time} >= '{start}' LIMIT {ROW_LIMIT}"
    return (
        f"{head} WHERE {time} BETWEEN '{start}' AND '{end}' ORDER BY {time} DESC LIMIT {ROW_LIMIT}"
    )


def impact_sql(table: Table, since: str) -> str:
    """How many rows of an impact table FAILED since ``since``, by status and error."""
    status, time = table.status_column, table.time_column
    assert status is not None and time is not None
    groups = [status] + ([table.error_column] if table.error_column else [])
    alias = table.name
    return (
        f"SELECT {', '.join(groups)}, COUNT(*) AS {alias} FROM {table.qualified} "
        f"WHERE {status} = '{_FAILED}' AND {time} >= '{since}' "
        f"GROUP BY {', '.join(groups)} ORDER BY {alias} DESC LIMIT {_IMPACT_LIMIT}"
    )
