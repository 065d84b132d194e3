"""The SQL the offline demo model writes: one query per table role, around the onset.

Each query reads one table (:mod:`harness.embedded.offline.tables`) in the window where its rows could
be a cause of a symptom that began at ``T``:

* a change table: rows whose time lies in ``[T − CHANGE_WINDOW, T]``, newest first;
* an expiry table: rows whose expiry lies in ``[T − EXPIRY_WINDOW, T]`` — what stopped being
  valid shortly before the symptom — latest expiry first;
* a capacity table: samples in ``[T − SAMPLE_WINDOW, T + AFTER]``, fullest first;
* a state table: states in ``[T − SAMPLE_WINDOW, T + AFTER]``, newest first;
* an impact table: how many rows FAILED since ``T``, by status and error.

A simpler variant (after a refusal) drops ordering and the upper bound. Literals are UTC
``YYYY-MM-DD HH:MM:SS`` strings, the start floored and the end ceiled to the second.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from harness.embedded.offline.tables import Table, TableKind

__all__ = [
    "CHANGE_WINDOW",
    "EXPIRY_WINDOW",
    "ROW_LIMIT",
    "SAMPLE_WINDOW",
    "cause_sql",
    "impact_sql",
    "sql_time",
]

ROW_LIMIT = 50
CHANGE_WINDOW = timedelta(minutes=60)
EXPIRY_WINDOW = timedelta(hours=24)
SAMPLE_WINDOW = timedelta(minutes=60)
# Samples and states just after the onset still describe it (they are taken every few minutes).
AFTER = timedelta(minutes=5)
_IMPACT_LIMIT = 10
_FAILED = "FAILED"


def sql_time(value: datetime, *, ceil: bool = False) -> str:
    """A UTC literal of ``value``, floored (or ceiled) to the second."""
    value = value.astimezone(UTC)
    if ceil and value.microsecond:
        value += timedelta(seconds=1)
    return value.replace(microsecond=0).strftime("%Y-%m-%d %H:%M:%S")


def cause_sql(table: Table, onset: datetime, *, simpler: bool) -> str | None:
    """The query that reads ``table``'s possible causes of a symptom from ``onset``."""
    columns = [c for c in table.readable if not (simpler and c == "id")]
    head = f"SELECT {', '.join(columns)} FROM {table.qualified}"
    kind = table.kind
    if kind is TableKind.EXPIRY:
        column, start, end, order = table.expiry_column, onset - EXPIRY_WINDOW, onset, None
    elif kind is TableKind.CHANGE:
        column, start, end, order = table.time_column, onset - CHANGE_WINDOW, onset, None
    elif kind is TableKind.CAPACITY:
        usage = table.usage_pair[0] if table.usage_pair else None
        column, start, end = table.time_column, onset - SAMPLE_WINDOW, onset + AFTER
        order = usage
        if column is None:
            return f"{head} ORDER BY {usage} DESC LIMIT {ROW_LIMIT}"
    elif kind is TableKind.STATE:
        column, start, end, order = table.time_column, onset - SAMPLE_WINDOW, onset + AFTER, None
    else:
        return None
    assert column is not None
    if simpler:
        return f"{head} WHERE {column} >= '{sql_time(start)}' LIMIT {ROW_LIMIT}"
    return (
        f"{head} WHERE {column} BETWEEN '{sql_time(start)}' AND '{sql_time(end, ceil=True)}' "
        f"ORDER BY {order or column} DESC LIMIT {ROW_LIMIT}"
    )


def impact_sql(table: Table, since: datetime) -> str:
    """How many rows of an impact table FAILED since ``since``, by status and error."""
    status, time = table.status_column, table.time_column
    assert status is not None and time is not None
    groups = [status] + ([table.error_column] if table.error_column else [])
    alias = table.name
    return (
        f"SELECT {', '.join(groups)}, COUNT(*) AS {alias} FROM {table.qualified} "
        f"WHERE {status} = '{_FAILED}' AND {time} >= '{sql_time(since, ceil=True)}' "
        f"GROUP BY {', '.join(groups)} ORDER BY {alias} DESC LIMIT {_IMPACT_LIMIT}"
    )
