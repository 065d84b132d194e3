"""``harness logs``: operator commands over raw log files.

``harness logs mine FILE [--format FMT]`` mines templates from a log file (``-`` for stdin) and
prints one JSON object per input line: ``{"line": N, "template_id": ..., "template": ...}``;
templates are redacted as tool output is (:class:`harness.redaction.Redactor`), with hosts,
pods and IPs numbered per invocation (``<HOST#1>``, :class:`harness.redaction.Pseudonyms`);
template ids are computed from the text before numbering, so they stay stable across runs.
Without ``--format`` the file's format is detected with the catalog of log formats
(:mod:`harness.logformats`) and only each line's message is mined; an explicit ``--format``
always wins.

``harness logs parse FILE [--log-format NAME|PATTERN] --json`` reads a file as a run would and
prints one JSON object per event (see :mod:`serve.cli.logs_parse`).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import IO, Any

from harness.logmining import MinerConfig, detect_format, mine_lines, parse_log_format
from harness.redaction import Pseudonyms, Redactor

__all__ = ["register", "run_mine"]

# Exit code for bad input (unreadable file, invalid format), as argparse uses for usage errors.
_EXIT_USAGE = 2


def register(subparsers: Any) -> None:
    """Add the ``logs`` command (with its ``mine`` subcommand) to a subparsers action.

    Args:
        subparsers: The object returned by ``ArgumentParser.add_subparsers()``.
    """
    logs = subparsers.add_parser("logs", help="Work with raw log files.")
    commands = logs.add_subparsers(dest="logs_command", metavar="COMMAND", required=True)
    mine = commands.add_parser(
        "mine",
        help="Mine templates; print JSONL {line, template_id, template} per input line.",
        description=(
            "Mine log templates with number normalisation. Every line is mined first, then "
            "reported with its final template; template ids are stable across runs."
        ),
    )
    mine.add_argument("file", metavar="FILE", help="Log file to mine, or '-' for stdin.")
    mine.add_argument(
        "--format",
        dest="log_format",
        default=None,
        metavar="FMT",
        help=(
            "Header format splitting headers from the message, e.g. "
            "'<Date> <Time> <Level> <Component>: <Content>'. Only <Content> is mined; "
            "lines that do not match are mined whole. Without it the format is detected "
            "from the first lines with the catalog of log formats."
        ),
    )
    mine.add_argument(
        "--similarity",
        type=float,
        default=MinerConfig().similarity_threshold,
        help="Similarity threshold for joining a template (default: %(default)s).",
    )
    mine.set_defaults(handler=_handle_mine)
    from serve.cli.logs_parse import register_parse

    register_parse(commands)


def _handle_mine(args: argparse.Namespace) -> int:
    return run_mine(
        args.file,
        args.log_format,
        config=MinerConfig(similarity_threshold=args.similarity),
        stdin=sys.stdin,
        stdout=sys.stdout,
        stderr=sys.stderr,
    )


def run_mine(
    path: str,
    log_format: str | None,
    *,
    config: MinerConfig | None = None,
    stdin: IO[str],
    stdout: IO[str],
    stderr: IO[str],
) -> int:
    """Mine ``path`` (or ``stdin`` for ``-``) and write JSONL to ``stdout``.

    Returns:
        The process exit code: 0 on success, 2 on an unreadable file or invalid format.
    """
    if log_format is not None:
        try:
            parse_log_format(log_format)
        except (re.error, ValueError) as exc:
            stderr.write(f"harness logs mine: invalid --format: {exc}\n")
            return _EXIT_USAGE
    try:
        lines = _read_lines(path, stdin)
    except OSError as exc:
        stderr.write(f"harness logs mine: cannot read {path}: {exc.strerror or exc}\n")
        return _EXIT_USAGE
    fmt = log_format if log_format is not None else detect_format(lines)
    write = stdout.write
    # One invocation is one run: its hosts, pods and IPs are numbered from 1 (<HOST#1>).
    pseudonyms = Pseudonyms()
    records = mine_lines(
        lines, fmt, config, redact=Redactor().redact, pseudonymize=pseudonyms.apply
    )
    for record in records:
        write(json.dumps(record, ensure_ascii=False))
        write("\n")
    return 0


def _read_lines(path: str, stdin: IO[str]) -> list[str]:
    # Logs are not always clean UTF-8; a stray byte must not stop the whole file.
    if path == "-":
        return stdin.read().splitlines()
    with open(path, encoding="utf-8", errors="replace", newline="") as handle:
        return handle.read().splitlines()
