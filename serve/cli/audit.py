"""``harness runs``, ``harness trace RUN_ID`` and ``harness purge``: the durable audit, read.

They read the deployment's audit database (``HARNESS_AUDIT_URL``, else the embedded SQLite file
in the data directory), which holds metadata only: what each run did, what it cost, how it
ended — never prompts, SQL, log lines or results. ``--json`` prints the same rows as JSON.

Exit codes: 0 success; 1 when the run is unknown or the audit database cannot be read (the
message names the exception's class only: driver messages can carry hosts and credentials).
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from rich.markup import escape

if TYPE_CHECKING:
    from rich.console import Console

    from harness.adapters.audit_sql import SqlAuditStore
    from harness.audit.records import RunAudit
    from harness.trace import TraceEvent

__all__ = ["register", "report_unrecorded", "warn_stranded_database"]

_T = TypeVar("_T")
_SHOWN_LIMIT = 1000


def register(subparsers: Any) -> None:
    runs = subparsers.add_parser("runs", help="list recent runs from the audit (newest first)")
    runs.add_argument("--limit", type=_limit, default=20, metavar="N", help="rows (default 20)")
    runs.add_argument("--owner", default=None, help="only runs of this owner principal")
    runs.add_argument("--session", default=None, help="only runs of this session id")
    runs.add_argument("--json", action="store_true", help="print JSON lines, one run each")
    runs.set_defaults(handler=_runs)

    trace = subparsers.add_parser("trace", help="print one run's timeline from the audit")
    trace.add_argument("run_id", help="the run, as printed by `harness diagnose` or `runs`")
    trace.add_argument("--json", action="store_true", help="print JSON lines, one event each")
    trace.set_defaults(handler=_trace)

    purge = subparsers.add_parser(
        "purge",
        help=(
            "delete expired reasoning rows and runs older than the audit retention "
            "(HARNESS_AUDIT_RETENTION_DAYS; safe to run concurrently)"
        ),
    )
    purge.add_argument("--json", action="store_true", help="print the counts as JSON")
    purge.set_defaults(handler=_purge)


def _limit(text: str) -> int:
    value = int(text)
    if not 1 <= value <= _SHOWN_LIMIT:
        raise argparse.ArgumentTypeError(f"between 1 and {_SHOWN_LIMIT}")
    return value


def _with_store(
    use: Callable[[SqlAuditStore], Coroutine[Any, Any, _T]],
) -> tuple[_T | None, str | None]:
    """Open the audit store, run ``use``, close it; (result, None) or (None, error class)."""
    from harness.adapters.audit_sql import open_audit_store

    store = None
    try:
        store = open_audit_store()
        return asyncio.run(use(store)), None
    except Exception as exc:  # the driver's text may name hosts or credentials: class only
        return None, type(exc).__name__
    finally:
        if store is not None:
            store.close()


def report_unrecorded(run_ids: list[str], *, pool_unrecorded: int = 0) -> int:
    """Check that each run is in the audit database; name on stderr each one that is not.

    A short-lived driver (``harness diagnose``) checks its runs after its pool closed, which
    has each actor hand its finished runs' records to the audit writer and have them written:
    a run the audit does not hold is reported, never silently missing from ``harness runs``.

    Args:
        run_ids: The runs this command ran.
        pool_unrecorded: Records the pool counted as not written in time.

    Returns:
        The runs that are not recorded (0 when the audit is switched off).
    """
    from rich.console import Console

    from harness.settings import Settings

    if not Settings().audit_enabled or not run_ids:
        return 0

    async def absent(store: SqlAuditStore) -> list[str]:
        return [run_id for run_id in run_ids if await store.run(run_id) is None]

    # The database is the truth: a drain that timed out (pool_unrecorded) may still have been
    # written by the writer before this check. Without the database, every run counts as missing.
    missing, error = _with_store(absent)
    if error is not None or missing is None:
        missing = run_ids
    if missing:
        if error:
            detail = f"audit database unavailable: {error}"
        elif pool_unrecorded:
            detail = f"not written in time; {pool_unrecorded} record(s) late"
        else:
            detail = "not written in time"
        Console(stderr=True).print(
            f"[yellow]warning:[/yellow] {len(missing)} run(s) not recorded in the audit "
            f"({escape(detail)}; `harness runs` will not list them): {escape(', '.join(missing))}"
        )
    return len(missing)


def warn_stranded_database() -> None:
    """Name on stderr an audit database left at the default data directory after the data
    directory setting moved elsewhere (its runs would otherwise vanish from ``harness runs``
    without a word)."""
    from pydantic import ValidationError
    from rich.console import Console

    from harness.settings import AUDIT_FILE, Settings

    try:
        settings = Settings()
    except ValidationError:
        return  # the command itself reports invalid settings
    old = settings.stranded_audit_database()
    if old is None:
        return
    new = settings.resolved_data_dir() / AUDIT_FILE
    Console(stderr=True, highlight=False).print(
        f"[yellow]warning:[/yellow] an audit database is at {escape(str(old))}, but "
        f"HARNESS_DATA_DIR names {escape(str(settings.resolved_data_dir()))}, which holds "
        "none: the runs recorded there are not read here. Move it "
        f"(mv {escape(str(old))} {escape(str(new))}) or unset HARNESS_DATA_DIR."
    )


def _fail(error: str) -> int:
    from rich.console import Console

    Console(stderr=True).print(f"[red]audit database unavailable[/red] ({escape(error)})")
    return 1


def _runs(args: argparse.Namespace) -> int:
    rows, error = _with_store(
        lambda store: store.runs(limit=args.limit, owner=args.owner, session_id=args.session)
    )
    if error is not None or rows is None:
        return _fail(error or "no result")
    if args.json:
        for run in rows:
            print(run.model_dump_json())
        return 0
    _print_runs(rows)
    return 0


def _print_runs(rows: list[RunAudit]) -> None:
    from rich.table import Column, Table

    # Ids are never wrapped or cut: operators copy them into `harness trace`.
    table = Table(
        Column("run_id", no_wrap=True, min_width=24),
        "created (UTC)",
        "owner",
        "intent",
        "released",
        "duration",
        "tokens",
        "tools",
    )
    for run in rows:
        released: str = run.result_kind or "-"
        if run.error_code is not None:
            released += f" {run.error_code.value}"
        elif run.failure_stage is not None:
            released += f" {run.failure_stage}"
        tokens = f"{run.ledger.total_tokens}" + ("" if run.tokens_reconciled else " (unreconciled)")
        table.add_row(
            run.run_id,
            run.created_at.strftime("%Y-%m-%d %H:%M:%S"),
            escape(run.owner),
            run.intent.value if run.intent else "-",
            released,
            f"{run.duration_ms / 1000:.2f} s",
            tokens,
            f"{run.ledger.executions}/{run.ledger.tool_calls}",
        )
    console = _console()
    console.print(table)
    if not rows:
        console.print("[dim]no runs recorded yet[/dim]")


def _trace(args: argparse.Namespace) -> int:
    async def read(store: SqlAuditStore) -> tuple[RunAudit | None, list[TraceEvent]]:
        return await store.run(args.run_id), await store.timeline(args.run_id)

    found, error = _with_store(read)
    if error is not None or found is None:
        return _fail(error or "no result")
    run, events = found
    if run is None and not events:
        from rich.console import Console

        Console(stderr=True).print(f"[red]no such run[/red] {escape(args.run_id)}")
        return 1
    if args.json:
        for event in events:
            print(event.model_dump_json())
        return 0
    _print_trace(run, events)
    return 0


def _print_trace(run: RunAudit | None, events: list[TraceEvent]) -> None:
    from rich.table import Table

    console = _console()
    if run is not None:
        kind = run.result_kind or "-"
        console.print(
            f"[bold]{run.run_id}[/bold]  {run.status.value} → {kind}  "
            f"{run.duration_ms / 1000:.2f} s  tokens {run.ledger.total_tokens}  "
            f"owner {escape(run.owner)}  session {escape(run.session_id)}"
        )
    start = events[0].at if events else None
    table = Table("#", "+ms", "category", "event", "details")
    for event in events:
        offset = (event.at - start).total_seconds() * 1000 if start else 0.0
        table.add_row(
            str(event.sequence_no),
            f"{offset:.1f}",
            event.category.value,
            event.event_type,
            escape(_summary(event.details.model_dump(mode="json"))),
        )
    console.print(table)


def _console() -> Console:
    """A console for tables: the terminal's width, or a wide page when piped (rows are not
    cut into columns of a few characters when the output goes to a file or grep)."""
    from rich.console import Console

    console = Console()
    return console if console.is_terminal else Console(width=200)


def _summary(details: dict[str, Any]) -> str:
    """The details as ``key=value`` pairs (metadata only by construction), unset ones left out."""
    parts = []
    for key, value in details.items():
        if key == "kind" or value is None or value == [] or value == {}:
            continue
        text = json.dumps(value, separators=(",", ":")) if isinstance(value, dict | list) else value
        parts.append(f"{key}={text}")
    return " ".join(str(p) for p in parts)


def _purge(args: argparse.Namespace) -> int:
    from datetime import UTC, datetime, timedelta

    from harness.settings import Settings

    now = datetime.now(UTC)
    cutoff = now - timedelta(days=Settings().audit_retention_days)

    async def purge(store: SqlAuditStore) -> tuple[int, int]:
        return await store.purge(now), await store.purge_runs(cutoff)

    deleted, error = _with_store(purge)
    if error is not None or deleted is None:
        return _fail(error or "no result")
    reasoning, runs = deleted
    if args.json:
        print(json.dumps({"reasoning_rows_deleted": reasoning, "runs_deleted": runs}))
    else:
        print(
            f"purged {reasoning} expired reasoning row(s) and {runs} run(s) created before "
            f"{cutoff:%Y-%m-%d %H:%M} UTC"
        )
    return 0
