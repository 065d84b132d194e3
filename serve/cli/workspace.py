"""``harness workspace check``: every log file of a workspace as a run would read it.

For each file: its format (detected, or chosen by name or pattern), its encoding, how many
events it holds and how many of its lines no format claims (kept as unparsed text), the time
range of its events, the services they name and where their zones come from (the line, the
format's convention, the workspace's ``timezone``, or UTC assumed). A file that cannot be read
at all (binary, unreadable) is listed with the reason, and the command then exits 1; a bad
workspace exits 2 (WORKSPACE_INVALID), as ``harness diagnose`` does.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from typing import IO, Any

from harness.backends.logs_files import FileLogBackend
from harness.contracts.errors import WorkspaceError
from harness.contracts.rawcap import RawCap
from harness.settings import Settings
from harness.workspace import Workspace
from serve.cli.workspace_args import add_workspace_arguments, workspace_from_args

__all__ = ["check_logs", "register", "run_check"]

_EXIT_UNREADABLE = 1
_EXIT_USAGE = 2


def register(subparsers: Any) -> None:
    """Add the ``workspace`` command (with its ``check`` subcommand) to a subparsers action."""
    workspace = subparsers.add_parser("workspace", help="Check a user's own world.")
    commands = workspace.add_subparsers(dest="workspace_command", metavar="COMMAND", required=True)
    check = commands.add_parser(
        "check",
        help="List every log file with its format, events, time range, services and "
        "unparsed lines.",
    )
    add_workspace_arguments(check)
    check.add_argument("--json", action="store_true", help="one JSON object per file")
    check.set_defaults(handler=_handle_check)


def _handle_check(args: argparse.Namespace) -> int:
    try:
        workspace = workspace_from_args(args)
    except WorkspaceError as exc:
        reason = exc.context.get("reason", "")
        sys.stderr.write(f"harness workspace check: WORKSPACE_INVALID {reason}: {exc.message}\n")
        return _EXIT_USAGE
    if workspace is None or workspace.logs is None:
        sys.stderr.write(
            "harness workspace check: name a workspace with logs (--workspace, --logs)\n"
        )
        return _EXIT_USAGE
    return run_check(workspace, as_json=args.json, stdout=sys.stdout)


def check_logs(workspace: Workspace, max_store_bytes: int | None = None) -> list[dict[str, Any]]:
    """One summary per log file of ``workspace`` (see the module docstring).

    Raises:
        RawTooLarge: The files pass the store's cap.
    """
    logs = workspace.logs
    if logs is None:
        return []
    backend = FileLogBackend(
        logs.paths,
        log_format=logs.format,
        formats=logs.formats,
        service=logs.service,
        year=logs.year,
        timezone=logs.timezone,
        as_of=workspace.as_of,
    )
    cap = RawCap(max_store_bytes or Settings().log_store_max_bytes)
    rows = []
    for reading in backend.read_files(cap):
        row: dict[str, Any] = {
            "file": str(reading.path),
            "format": reading.format,
            "chosen": reading.chosen,
            "encoding": reading.encoding,
            "error": reading.error,
            "events": 0,
            "unparsed": 0,
            "first": None,
            "last": None,
            "services": [],
            "zones": {},
        }
        if reading.error is None:
            stored = backend.stored_events(reading)
            stamps = sorted(e["ts"] for e in stored if not e.get("ts_inferred"))
            row.update(
                events=len(reading.events) - reading.unparsed,
                unparsed=reading.unparsed,
                first=stamps[0] if stamps else None,
                last=stamps[-1] if stamps else None,
                services=sorted({e["service"] for e in stored}),
                zones=dict(Counter(e.zone.value for e in reading.events if e.time is not None)),
            )
        rows.append(row)
    return rows


def run_check(workspace: Workspace, *, as_json: bool, stdout: IO[str]) -> int:
    """Write the check of ``workspace``'s log files; 1 when a file cannot be read at all."""
    rows = check_logs(workspace)
    for row in rows:
        if as_json:
            stdout.write(json.dumps(row, ensure_ascii=False) + "\n")
            continue
        if row["error"]:
            stdout.write(f"{row['file']}: CANNOT BE READ ({row['error']})\n")
            continue
        how = "chosen" if row["chosen"] else "detected"
        zones = ", ".join(f"{n} {source}" for source, n in sorted(row["zones"].items()))
        stdout.write(
            f"{row['file']}: {row['format']} ({how}), {row['encoding']}, {row['events']} events, "
            f"{row['unparsed']} unparsed lines, {row['first'] or '-'} .. {row['last'] or '-'}, "
            f"services {', '.join(row['services']) or '-'}; zones: {zones or 'none'}\n"
        )
    unreadable = [row for row in rows if row["error"]]
    if not as_json:
        stdout.write(
            f"{len(rows)} files, {sum(r['events'] for r in rows)} events, "
            f"{sum(r['unparsed'] for r in rows)} unparsed lines, {len(unreadable)} unreadable\n"
        )
    return _EXIT_UNREADABLE if unreadable else 0
