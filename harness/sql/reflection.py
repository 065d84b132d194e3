"""A policy drafted from a database's reflected schema: every table allowlisted, guesses masked.

The reflection itself (SQLAlchemy's inspector) is an adapter's job
(:mod:`harness.adapters.sql_reflection`); this module receives plain table descriptions and
drafts the :class:`~harness.sql.policy.SqlPolicy` that ``harness sql-policy init`` writes:

* each table and view of the reflected schemas is listed with all its columns;
* each column :func:`~harness.sql.sensitivity.guess_sensitive` flags is ``sensitive`` (masked,
  select-only) and listed in the policy's ``review`` with its reason, status PENDING;
* so is each column whose sampled values are secret- or PII-shaped
  (:func:`~harness.sql.content.guess_from_samples`: the redactor's rules and the value shapes,
  with the class and the number of samples), whatever its name; a text column that could not
  be sampled is reported;
* ``star`` stays false (a reviewer who narrows ``columns`` need not remember to reset it);
* names the policy cannot hold (not plain identifiers; mixed case on a case-sensitive server)
  and MySQL's own catalogues are skipped and reported, never silently renamed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from harness.sql.content import guess_from_samples
from harness.sql.policy import (
    FORBIDDEN_SCHEMAS,
    DatasourcePolicy,
    SchemaPolicy,
    SqlPolicy,
    TablePolicy,
)
from harness.sql.review import PolicyReview, ReviewedGuess
from harness.sql.sensitivity import guess_sensitive

__all__ = ["GENERATED_BY", "DraftedPolicy", "ReflectedColumn", "ReflectedTable", "draft_policy"]

GENERATED_BY = "harness sql-policy init"
_PLAIN = re.compile(r"^[a-z_][a-z0-9_$]{0,63}$")
_NOTE = (
    "Generated from the live schema: every table and column below is readable. Columns in "
    "sensitive_guesses were marked sensitive by their name or type; confirm each, mark any "
    "other column that holds personal data or secrets as sensitive, remove what the model need "
    "not read, then set status to CONFIRMED."
)


@dataclass(frozen=True, kw_only=True)
class ReflectedColumn:
    """A column as the database describes it, and a bounded sample of its values.

    ``samples`` is None when the column was not sampled (not a text column, or sampling was
    not asked for); ``sample_error`` says why sampling a text column failed. Samples live in
    memory for the guess only: they are never written or printed.
    """

    name: str
    type_name: str
    samples: tuple[str, ...] | None = None
    sample_error: str | None = None


@dataclass(frozen=True, kw_only=True)
class ReflectedTable:
    """A table or view as the database describes it."""

    schema: str
    name: str
    columns: tuple[ReflectedColumn, ...]


@dataclass(frozen=True, kw_only=True)
class DraftedPolicy:
    """The drafted policy, its guesses (also in ``policy.review``) and what was left out."""

    policy: SqlPolicy
    guesses: list[ReviewedGuess]
    skipped: list[str] = field(default_factory=list)
    unsampled: list[str] = field(default_factory=list)
    """Text columns whose values could not be sampled, with the reason."""


def draft_policy(
    tables: Sequence[ReflectedTable],
    *,
    datasource: str,
    default_schema: str | None,
    source: str,
    case_sensitive: bool,
) -> DraftedPolicy:
    """Draft the allowlist of ``tables`` with guessed sensitive columns marked for review.

    Args:
        tables: The reflected tables and views.
        datasource: The logical datasource name the policy gives them.
        default_schema: The schema unqualified names resolve against (when it is kept).
        source: Where they were reflected from, shown to the reviewer (no password).
        case_sensitive: Whether the server compares table names case-sensitively (MySQL on
            most systems); a mixed-case name could then not be read through the policy.
    """
    schemas: dict[str, dict[str, TablePolicy]] = {}
    guesses: list[ReviewedGuess] = []
    skipped: list[str] = []
    unsampled: list[str] = []
    for table in sorted(tables, key=lambda t: (t.schema, t.name)):
        where = f"{table.schema}.{table.name}"
        schema, name = (
            _policy_name(table.schema, case_sensitive),
            _policy_name(table.name, case_sensitive),
        )
        if schema is None or name is None or schema in FORBIDDEN_SCHEMAS:
            skipped.append(f"{where}: not a plain identifier or a system schema")
            continue
        columns: list[str] = []
        sensitive: list[str] = []
        for column in table.columns:
            # Column names are case-insensitive on every dialect the executor runs.
            column_name = _policy_name(column.name, case_sensitive=False)
            if column_name is None or column_name in columns:
                skipped.append(f"{where}.{column.name}: not a plain identifier")
                continue
            columns.append(column_name)
            if column.sample_error is not None:
                unsampled.append(f"{where}.{column.name}: {column.sample_error}")
            guess = guess_sensitive(column.name, column.type_name)
            if guess is None and column.samples:
                guess = guess_from_samples(column.samples)
            if guess is not None:
                sensitive.append(column_name)
                guesses.append(
                    ReviewedGuess(
                        datasource=datasource,
                        table=f"{schema}.{name}",
                        column=column_name,
                        category=guess.category.value,
                        reason=guess.reason,
                    )
                )
        if not columns:
            skipped.append(f"{where}: no readable column")
            continue
        schemas.setdefault(schema, {})[name] = TablePolicy(columns=columns, sensitive=sensitive)
    default = default_schema.lower() if default_schema else None
    policy = SqlPolicy(
        datasources={
            datasource: DatasourcePolicy(
                schemas={s: SchemaPolicy(tables=t) for s, t in schemas.items()},
                default_schema=default if default in schemas else None,
            )
        },
        review=PolicyReview(
            generated_by=GENERATED_BY, source=source, sensitive_guesses=guesses, note=_NOTE
        ),
    )
    return DraftedPolicy(policy=policy, guesses=guesses, skipped=skipped, unsampled=unsampled)


def _policy_name(name: str, case_sensitive: bool) -> str | None:
    lowered = name.lower()
    if not _PLAIN.match(lowered) or (case_sensitive and lowered != name):
        return None
    return lowered
