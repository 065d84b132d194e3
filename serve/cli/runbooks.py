"""``harness runbooks approve DIR`` and ``harness runbooks check DIR``.

``approve`` records the content hash of every runbook below DIR, who approved it and when, in
the harness data directory (``approvals.json``; :mod:`harness.approval`), never beside the
runbooks: a next step is released only from an approved, unchanged runbook. ``check`` is a
runbook author's lint: every step of every runbook (list items, fenced command lines, the
sentences of paragraphs) with the outcome a released step would get (DIAGNOSTIC, CHANGE,
WITHHELD) and why, and whether the runbook is approved. With ``--workspace`` the workspace's
``[release]`` allowlist entries count, as they do in a run (and ``HARNESS_RELEASE_COMMANDS``
always). Exit 0; 2 on bad input
(WORKSPACE_INVALID, RUNBOOKS_UNREADABLE).
"""

from __future__ import annotations

import argparse
import getpass
import json
import re
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from harness.adapters.embedded import content_policy
from harness.approval import ApprovalBook, ApprovalError, content_hash
from harness.backends.knowledge_embedded import runbook_texts
from harness.contracts.errors import BackendError, WorkspaceError
from harness.release.links import showable
from harness.settings import Settings
from harness.workspace import load_workspace

__all__ = ["register", "runbook_steps"]

_EXIT_USAGE = 2
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?P<text>.+)$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`(])")


def register(subparsers: Any) -> None:
    """Add the ``runbooks`` command (``approve``, ``check``) to a subparsers action."""
    runbooks = subparsers.add_parser("runbooks", help="Approve and check runbook folders.")
    commands = runbooks.add_subparsers(dest="runbooks_command", metavar="COMMAND", required=True)
    approve = commands.add_parser(
        "approve", help="record the runbooks of DIR as approved (content hashes, approver, time)"
    )
    approve.add_argument("dir", type=Path, help="folder of markdown runbooks")
    approve.add_argument("--approver", default=None, help="who approves (default: your login)")
    approve.set_defaults(handler=_approve)
    check = commands.add_parser(
        "check", help="every step of every runbook in DIR with its outcome and reason"
    )
    check.add_argument("dir", type=Path, help="folder of markdown runbooks")
    check.add_argument(
        "--workspace", type=Path, default=None, help="harness.toml whose [release] entries count"
    )
    check.add_argument("--json", action="store_true", help="one JSON object per step")
    check.set_defaults(handler=_check)


def _documents(directory: Path, command: str) -> list[tuple[str, str]] | None:
    try:
        return runbook_texts(directory)
    except BackendError as exc:
        sys.stderr.write(f"harness runbooks {command}: RUNBOOKS_UNREADABLE {exc.message}\n")
        return None


def _approve(args: argparse.Namespace) -> int:
    documents = _documents(args.dir, "approve")
    if documents is None:
        return _EXIT_USAGE
    approver = args.approver or getpass.getuser()
    book = ApprovalBook(Settings().resolved_data_dir())
    try:
        added = book.approve(documents, approver=approver, at=datetime.now(UTC))
    except ApprovalError as exc:
        sys.stderr.write(f"harness runbooks approve: APPROVALS_UNWRITABLE {exc}\n")
        return _EXIT_USAGE
    print(
        f"approved {len(documents)} runbook(s) of {args.dir} ({added} new) as {approver}; "
        f"recorded in {book.path}"
    )
    return 0


def runbook_steps(markdown: str) -> Iterator[tuple[int, str]]:
    """``(line, text)`` of each step of a runbook: list items, fenced command lines, and the
    sentences of paragraphs; headings and tables are not steps."""
    fenced = False
    paragraph: list[tuple[int, str]] = []

    def flush() -> Iterator[tuple[int, str]]:
        if paragraph:
            text = " ".join(t for _, t in paragraph)
            for sentence in _SENTENCE.split(text):
                if sentence.strip():
                    yield paragraph[0][0], sentence.strip()
            paragraph.clear()

    for number, line in enumerate(markdown.splitlines(), 1):
        if _FENCE.match(line):
            yield from flush()
            fenced = not fenced
            continue
        if fenced:
            if line.strip():
                yield number, f"```\n{line.strip()}\n```"
            continue
        item = _ITEM.match(line)
        stripped = line.strip()
        if item:
            yield from flush()
            paragraph.append((number, item.group("text").strip()))
        elif not stripped or stripped.startswith(("#", "|", ">")):
            yield from flush()
        else:
            paragraph.append((number, stripped))
    yield from flush()


def _check(args: argparse.Namespace) -> int:
    workspace = None
    if args.workspace is not None:
        try:
            workspace = load_workspace(args.workspace)
        except WorkspaceError as exc:
            sys.stderr.write(f"harness runbooks check: WORKSPACE_INVALID {exc.message}\n")
            return _EXIT_USAGE
    allowlist = content_policy(Settings(), workspace).allowlist
    documents = _documents(args.dir, "check")
    if documents is None:
        return _EXIT_USAGE
    try:
        approved = ApprovalBook(Settings().resolved_data_dir()).approved_hashes()
    except ApprovalError as exc:
        sys.stderr.write(f"harness runbooks check: APPROVALS_UNREADABLE {exc}\n")
        return _EXIT_USAGE
    counts: dict[str, int] = {}
    for path, text in documents:
        status = "approved" if content_hash(text) in approved else "NOT APPROVED"
        if not args.json:
            print(f"{path}  [{status}]")
        for line, step in runbook_steps(text):
            verdict = allowlist.classify_step(step)
            counts[verdict.outcome] = counts.get(verdict.outcome, 0) + 1
            if args.json:
                row = {
                    "path": path,
                    "line": line,
                    "approved": status == "approved",
                    "outcome": verdict.outcome,
                    "reason": verdict.reason,
                    "step": showable(step),
                }
                print(json.dumps(row, ensure_ascii=False))
            else:
                shown = showable(step.replace("\n", " "))
                print(f"  {line:>4}  {verdict.outcome:<10}  {verdict.reason:<22}  {shown[:110]}")
    if not args.json:
        total = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        print(f"{len(documents)} runbook(s): {total or 'no steps'}")
    return 0
