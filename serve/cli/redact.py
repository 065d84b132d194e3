"""``harness redact [FILE]``: print a text with every secret/identifier class replaced.

Reads FILE (or stdin when FILE is omitted or ``-``) and writes the redacted text to stdout,
one record at a time so that large files stream. A record is a line and the lines that
continue it: indented lines (stack frames, YAML blocks, a Kubernetes ``env`` entry's
``value:``), the body of a private key up to its END line, and an SQL statement while a quoted
literal is open or the next line continues the statement (``FROM``, ``WHERE``, ...). Secrets
split over lines are therefore redacted like those on one line.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import IO, Any

from harness.redaction import Redactor, exchange_lines

__all__ = ["redact_stream", "register"]

_EXIT_USAGE = 2
# A record is flushed at this size even when it still looks open.
_MAX_RECORD_LINES = 2000
_KEY_BEGIN = re.compile(r"-{4,5} ?BEGIN [A-Z0-9 ]*PRIVATE KEY|PuTTY-User-Key-File-\d+:")
_KEY_END = re.compile(r"-{4,5} ?END [A-Z0-9 ]*PRIVATE KEY|Private-MAC:")
_SQL = re.compile(r"(?i)\b(?:select|insert|update|delete|replace|create|alter|grant|set)\b")
_SQL_CONTINUES = re.compile(
    r"(?i)[ \t]*(?:from|where|and|or|set|values|join|left|right|inner|outer|on|order|group"
    r"|having|limit|union|identified|[(),])\b"
)


def register(subparsers: Any) -> None:
    """Add the ``redact`` command to a subparsers action.

    Args:
        subparsers: The object returned by ``ArgumentParser.add_subparsers()``.
    """
    parser = subparsers.add_parser(
        "redact",
        help="Print a text with secrets, pods, hosts, IPs, PIDs, e-mails and SQL literals replaced.",
        description=(
            "Replace secrets with <SECRET>, pod names with <POD>, hosts with <HOST>, IP "
            "addresses with <IP>, PIDs with <PID>, e-mail addresses with <EMAIL> and SQL "
            "literals with ?. Idempotent: redacting twice changes nothing."
        ),
    )
    parser.add_argument(
        "file", nargs="?", default="-", metavar="FILE", help="Input (default: stdin)."
    )
    parser.set_defaults(handler=_handle)


def redact_stream(source: IO[str], sink: IO[str], redactor: Redactor | None = None) -> None:
    """Redact ``source`` into ``sink``, one record (a line and its continuation) at a time."""
    redactor = redactor or Redactor()
    record: list[str] = []
    for line in source:
        if record and not (_continues(record, line) and len(record) < _MAX_RECORD_LINES):
            sink.write(redactor.redact("".join(record)))
            record = []
        record.append(line)
    if record:
        sink.write(redactor.redact("".join(record)))


def _continues(record: list[str], line: str) -> bool:
    """Whether ``line`` belongs to the record so far."""
    if line[:1] in (" ", "\t"):
        return True
    text = "".join(record)
    if _KEY_BEGIN.search(text) and not _KEY_END.search(text):
        return True
    if len(record) <= exchange_lines(record[0]):
        return True  # an exchange over lines (SMTP AUTH LOGIN) is redacted as one record
    if _SQL.search(text):
        if re.sub(r"\\.|''", "", text).count("'") % 2 == 1:
            return True
        return _SQL_CONTINUES.match(line) is not None
    return False


def _handle(args: argparse.Namespace) -> int:
    try:
        if args.file == "-":
            redact_stream(sys.stdin, sys.stdout)
        else:
            with open(args.file, encoding="utf-8", errors="replace") as source:
                redact_stream(source, sys.stdout)
    except BrokenPipeError:
        # The reader went away (``| head``); nothing is left to say.
        return 0
    except OSError as exc:
        # The path is the operator's own input; the OS error names no secret.
        print(f"harness redact: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return _EXIT_USAGE
    return 0
