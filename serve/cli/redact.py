"""``harness redact [FILE]``: print a text with every secret/identifier class replaced.

Reads FILE (or stdin when FILE is omitted or ``-``) and writes the redacted text to stdout,
line by line so that large files stream. Multi-line secrets (PEM private keys) are handled
within a block of lines: the whole input is redacted at once when it holds a PEM header.
"""

from __future__ import annotations

import argparse
import sys
from typing import IO, Any

from harness.redaction import Redactor

__all__ = ["redact_stream", "register"]

_EXIT_USAGE = 2


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
    """Redact ``source`` into ``sink``.

    Lines are redacted one at a time, except that a private-key block (``-----BEGIN``) up to
    its ``-----END`` line is redacted as one piece, since its body spans lines.
    """
    redactor = redactor or Redactor()
    block: list[str] = []
    for line in source:
        if block or "-----BEGIN" in line:
            block.append(line)
            if "-----END" in line:
                sink.write(redactor.redact("".join(block)))
                block = []
            continue
        sink.write(redactor.redact(line))
    if block:
        sink.write(redactor.redact("".join(block)))


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
