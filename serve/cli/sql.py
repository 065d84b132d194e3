"""``harness sql-check``: run the SQL validator from the command line.

``harness sql-check [--policy FILE] [--datasource NAME] "SQL"`` prints the plan as JSON and exits
0 when the statement is accepted; it prints ``SQL_REJECTED <REASON>`` and a short explanation
and exits 3 when it is refused. ``harness sql-check --show-policy`` prints the effective policy
(datasources, schemas, tables, allowed and sensitive columns, limits) as JSON.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from harness.contracts.errors import ErrorCode, SqlRejected
from harness.sql.policy import SqlPolicy
from harness.sql.reasons import EXPLANATIONS, RejectReason
from harness.sql.validator import SqlValidator

__all__ = ["register", "run_sql_check"]

_EXIT_OK = 0
_EXIT_USAGE = 2
_EXIT_REFUSED = 3


def register(subparsers: Any) -> None:
    """Add the ``sql-check`` command to a subparsers action.

    Args:
        subparsers: The object returned by ``ArgumentParser.add_subparsers()``.
    """
    parser = subparsers.add_parser(
        "sql-check",
        help="Validate one SELECT against the SQL policy; print the plan or the refusal.",
        description=(
            "Validate one MySQL SELECT against the SQL policy. Accepted: the plan as JSON, "
            "exit 0. Refused: 'SQL_REJECTED <REASON>' and an explanation, exit 3."
        ),
    )
    parser.add_argument("sql", nargs="?", metavar="SQL", help="The statement to check.")
    parser.add_argument(
        "--policy",
        type=Path,
        default=None,
        metavar="FILE",
        help="Policy JSON file (default: the bundled demo policy).",
    )
    parser.add_argument(
        "--datasource",
        default=None,
        metavar="NAME",
        help="Logical datasource (default: the policy's only datasource).",
    )
    parser.add_argument(
        "--show-policy",
        action="store_true",
        help="Print the effective policy as JSON instead of checking a statement.",
    )
    parser.set_defaults(handler=run_sql_check)


def run_sql_check(
    args: argparse.Namespace, *, stdout: IO[str] | None = None, stderr: IO[str] | None = None
) -> int:
    """Execute ``sql-check`` for parsed arguments; returns the exit code."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    try:
        policy = SqlPolicy.load(args.policy) if args.policy else SqlPolicy.demo()
    except (OSError, ValidationError, ValueError) as error:
        print(f"error: cannot load the SQL policy: {type(error).__name__}", file=err)
        return _EXIT_USAGE
    if policy.review is not None and policy.review.status != "CONFIRMED":
        guessed = len(policy.review.sensitive_guesses)
        print(
            f"note: this policy's review is {policy.review.status} "
            f"({guessed} guessed sensitive columns to confirm)",
            file=err,
        )
    if args.show_policy:
        print(policy.model_dump_json(indent=2), file=out)
        return _EXIT_OK
    if not args.sql:
        print("error: give a SQL statement or --show-policy", file=err)
        return _EXIT_USAGE
    datasource = args.datasource
    if datasource is None:
        if len(policy.datasources) != 1:
            names = ", ".join(sorted(policy.datasources))
            print(f"error: choose --datasource (one of: {names})", file=err)
            return _EXIT_USAGE
        datasource = next(iter(policy.datasources))
    try:
        plan = SqlValidator(policy).validate(datasource, args.sql)
    except SqlRejected as rejected:
        reason = RejectReason(rejected.context["reason"])
        detail = rejected.context.get("detail")
        print(f"{ErrorCode.SQL_REJECTED.value} {reason.value}", file=out)
        print(EXPLANATIONS[reason] + (f" [{detail}]" if detail else ""), file=out)
        return _EXIT_REFUSED
    print(plan.model_dump_json(indent=2), file=out)
    return _EXIT_OK
