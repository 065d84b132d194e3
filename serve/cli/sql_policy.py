"""``harness sql-policy init --db URL``: draft the SQL policy of a user's database for review.

Reflects the schema of the URL's own schema, or of the ``--schema`` names given, samples each
text column's values (``--sample`` rows, default 20; 0 reads names and types only) and writes
an :class:`~harness.sql.policy.SqlPolicy` in the usual format: every table and column
allowlisted, the columns guessed sensitive by name, type or content marked sensitive (masked,
select-only) and listed in the policy's ``review`` with their reasons (a content guess names
its class, the rules that found it and how many samples), status PENDING. The guesses are
printed as well, and the text columns that could not be sampled; sampled values never are. ``--out FILE`` writes the file
(refusing to overwrite one without ``--force``); without it the JSON goes to stdout and the
list to stderr.

Exit codes: 0 written, 2 bad input (WORKSPACE_INVALID), 1 the database could not be read.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import IO, Any

from harness.contracts.errors import HarnessError, WorkspaceError

__all__ = ["register", "run_init"]

_EXIT_OK = 0
_EXIT_FAILED = 1
_EXIT_USAGE = 2


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "sql-policy",
        help="draft the SQL policy of your own database (sensitive columns guessed for review)",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    init = actions.add_parser(
        "init",
        help="reflect a database and write an allowlist policy with sensitive guesses marked",
        description=(
            "Reflect the schema of --db and write an allowlist policy in the SqlPolicy format. "
            "Columns whose name, type or sampled values suggest secrets or personal data are "
            "marked sensitive and listed for review."
        ),
    )
    init.add_argument("--db", required=True, metavar="URL", help="SQLAlchemy URL of the database")
    init.add_argument("--out", type=Path, default=None, metavar="FILE", help="policy file to write")
    init.add_argument(
        "--datasource",
        default=None,
        metavar="NAME",
        help="logical datasource name (default: the database's name)",
    )
    init.add_argument(
        "--schema",
        action="append",
        default=[],
        metavar="NAME",
        help="schema (MySQL database) to include; repeatable (default: the URL's own)",
    )
    init.add_argument(
        "--sample",
        type=int,
        default=20,
        metavar="N",
        help="non-null values read per text column to judge its content (default: %(default)s;"
        " 0: names and types only)",
    )
    init.add_argument("--force", action="store_true", help="overwrite an existing --out file")
    init.set_defaults(handler=run_init)


def run_init(
    args: argparse.Namespace, *, stdout: IO[str] | None = None, stderr: IO[str] | None = None
) -> int:
    """Execute ``sql-policy init`` for parsed arguments; returns the exit code."""
    from harness.adapters.sql_reflection import reflect_database
    from harness.sql.reflection import draft_policy

    out = stdout or sys.stdout
    err = stderr or sys.stderr
    if args.out is not None and args.out.exists() and not args.force:
        print(f"error: {args.out} exists; give --force to overwrite it", file=err)
        return _EXIT_USAGE
    try:
        database = reflect_database(args.db, schemas=args.schema, sample=max(args.sample, 0))
    except WorkspaceError as error:
        print(f"{error.error_code.value} {error.context['reason']}: {error.message}", file=err)
        return _EXIT_USAGE
    except HarnessError as error:
        print(f"{error.error_code.value}: the database could not be read", file=err)
        return _EXIT_FAILED
    datasource = args.datasource or database.datasource
    drafted = draft_policy(
        database.tables,
        datasource=datasource,
        default_schema=database.default_schema,
        source=database.source,
        case_sensitive=database.case_sensitive,
    )
    text = drafted.policy.model_dump_json(indent=2) + "\n"
    report = out
    if args.out is None:
        out.write(text)
        report = err
    else:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")
    tables = sum(
        len(schema.tables)
        for source in drafted.policy.datasources.values()
        for schema in source.schemas.values()
    )
    where = f"wrote {args.out}" if args.out is not None else "policy on stdout"
    print(
        f"{where}: datasource {datasource}, {tables} tables from {database.source}; "
        f"{len(drafted.guesses)} columns guessed sensitive — review them:",
        file=report,
    )
    for guess in drafted.guesses:
        print(
            f"  {guess.table}.{guess.column}  {guess.category} ({guess.reason})",
            file=report,
        )
    for skipped in drafted.skipped:
        print(f"  skipped {skipped}", file=report)
    for unsampled in drafted.unsampled:
        print(f"  not sampled {unsampled}", file=report)
    print(
        "Confirm each guess, mark what the rules missed, then set review.status to CONFIRMED.",
        file=report,
    )
    return _EXIT_OK
