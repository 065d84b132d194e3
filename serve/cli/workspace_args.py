"""The flags that name a user's own world, shared by ``harness diagnose`` and ``harness project``.

``--workspace`` names a ``harness.toml`` (or the folder holding one); the other flags name the
parts directly and lie over the file's, table by table. Flag paths are relative to the current
directory, the file's to the file. No flag and no file: the bundled demo, as always.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from harness.workspace import (
    WORKSPACE_FILE,
    Workspace,
    absolute_sqlite_url,
    merge_sections,
    read_workspace_file,
    resolve_workspace,
)

__all__ = ["add_workspace_arguments", "workspace_from_args"]


def add_workspace_arguments(parser: argparse.ArgumentParser, *, parts: bool = True) -> None:
    """Add ``--workspace`` to ``parser`` and, with ``parts``, the flags naming each part."""
    group = parser.add_argument_group(
        "your own world (default: the bundled demo incident)",
        "Name a harness.toml, or the parts directly; flags override the file's entries.",
    )
    group.add_argument(
        "--workspace", type=Path, metavar="PATH", help="harness.toml, or a folder holding one"
    )
    if not parts:
        return
    group.add_argument(
        "--logs",
        type=Path,
        action="append",
        metavar="PATH",
        help="log file or folder (any format of `harness logs formats`, .gz); repeatable",
    )
    group.add_argument(
        "--log-format",
        metavar="NAME|PATTERN",
        help="auto (default, detected per file), a format's name (postgresql, nginx-access, "
        "json, …) or a pattern ('<Date> <Time> <Level> <Content>', or a regex with named groups)",
    )
    group.add_argument("--service", metavar="NAME", help="service of log lines that name none")
    group.add_argument("--db", metavar="URL", help="SQLAlchemy URL of the business database")
    group.add_argument(
        "--sql-policy", type=Path, metavar="FILE", help="SQL policy (harness sql-policy init)"
    )
    group.add_argument("--datasource", metavar="NAME", help="datasource of the SQL policy")
    group.add_argument("--runbooks", type=Path, metavar="DIR", help="folder of markdown runbooks")


def workspace_from_args(args: argparse.Namespace) -> Workspace | None:
    """The workspace the flags name, resolved and checked; None for the bundled demo.

    Raises:
        WorkspaceError: WORKSPACE_INVALID (see :class:`harness.workspace.WorkspaceReason`).
    """
    cwd = Path.cwd()
    flags: dict[str, Any] = {}
    given = vars(args) if "db" in vars(args) else {}  # a parser with --workspace only
    log_paths, url, policy, runbook_dir = (
        given.get(k) for k in ("logs", "db", "sql_policy", "runbooks")
    )
    logs = _present(
        paths=[cwd / p for p in log_paths] if log_paths else None,
        format=given.get("log_format"),
        service=given.get("service"),
    )
    database = _present(
        url=absolute_sqlite_url(url, cwd) if url else None,
        policy=cwd / policy if policy else None,
        datasource=given.get("datasource"),
    )
    runbooks = _present(path=cwd / runbook_dir if runbook_dir else None)
    for name, section in (("logs", logs), ("database", database), ("runbooks", runbooks)):
        if section:
            flags[name] = section
    if args.workspace is None and not flags:
        return None
    if args.workspace is None:
        return resolve_workspace(flags, base=cwd)
    file = args.workspace / WORKSPACE_FILE if args.workspace.is_dir() else args.workspace
    data = read_workspace_file(file)
    return resolve_workspace(merge_sections(data, flags), base=file.resolve().parent)


def _present(**values: Any) -> dict[str, Any]:
    return {key: value for key, value in values.items() if value is not None}
