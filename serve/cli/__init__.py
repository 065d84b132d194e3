"""The ``harness`` operator CLI.

Each sub-command lives in its own module with a ``register(subparsers)`` function; this module
only assembles them. Exit codes: 0 success, 2 usage error, 3 refused by policy (e.g. SQL
rejected), 1 anything else.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from collections.abc import Sequence

__all__ = ["build_parser", "main"]

_COMMAND_MODULES = (
    "diagnose",
    "demo",
    "project",
    "sql",
    "sql_policy",
    "redact",
    "logs",
    "offline_model",
    "models",
    "audit",
    "api",
    "eval",
    "workspace",
    "runbooks",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="harness",
        description="Diagnosis Harness: the deterministic control boundary around an LLM diagnosis agent.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log safe summaries to stderr")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMAND_MODULES:
        module = importlib.import_module(f"serve.cli.{name}")
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, stream=sys.stderr)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    from serve.cli.audit import warn_stranded_database

    warn_stranded_database()
    try:
        return int(handler(args) or 0)
    except BrokenPipeError:
        # The reader went away (``harness runs --json | head -1``): nothing is left to say,
        # and the interpreter must not fail flushing stdout on its way out.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
