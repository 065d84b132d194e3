"""``harness diagnose "QUESTION"``: one diagnosis end to end on the embedded default.

Starts a local Ray instance (two CPUs, no dashboard; ``--address`` joins a cluster instead), a
pool of one pre-warmed RunActor whose deps are the embedded deployment (bundled demo incident,
offline demo model, fakeredis, SQLite), shows the run's progress and prints the released
result. ``--json`` prints only the released result (it carries ``kind`` and ``run_id``). The
run is on the durable record before the command exits (``harness runs``, ``harness trace``);
a run the audit does not hold is named on stderr.

With ``--workspace`` or the part flags (``--logs``, ``--db``, ``--sql-policy``, ``--runbooks``;
see :mod:`serve.cli.workspace_args`) the run investigates the user's own world instead, through
the same tools, boundary, store, guards and release. "Now" is then ``--as-of``, else the
workspace's ``as_of``, else the clock.

Exit codes: 0 for a DiagnosisReport or an Answer, 1 for anything else, 2 for bad input
(a WORKSPACE_INVALID workspace, an invalid request).
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from rich.markup import escape

from harness.embedded.demo import WINDOW_END
from serve.cli.audit import report_unrecorded
from serve.cli.workspace_args import add_workspace_arguments, workspace_from_args

if TYPE_CHECKING:
    from rich.console import Console

    from harness.contracts.ingress import RunRequest
    from harness.contracts.results import ReleasedResult
    from harness.diagnosis import RunDeps
    from harness.run.snapshot import RunSnapshot
    from harness.workspace import Workspace

__all__ = ["DEFAULT_AS_OF", "diagnose", "register"]

DEFAULT_AS_OF = WINDOW_END
"""'Now' of the bundled demo incident (the end of its log window)."""

_SUCCESS_KINDS = frozenset({"DiagnosisReport", "Answer"})
_POLL_INTERVAL_S = 0.25


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "diagnose", help="run one diagnosis end to end (local Ray, embedded default)"
    )
    parser.add_argument(
        "question", help='e.g. "Why does checkout-api return HTTP 500 since 14:05?"'
    )
    parser.add_argument("--json", action="store_true", help="print only the released result")
    parser.add_argument(
        "--as-of",
        type=_utc,
        default=None,
        metavar="ISO",
        help=(
            f"'now' of the investigation (default: {DEFAULT_AS_OF.isoformat()} for the demo; "
            "the workspace's as_of, else the clock, for your own world)"
        ),
    )
    parser.add_argument(
        "--deadline-s", type=float, default=None, metavar="N", help="run deadline in seconds"
    )
    parser.add_argument(
        "--address",
        default=None,
        metavar="ADDR",
        help="join this Ray cluster (auto, host:port, ray://…) instead of starting a local one",
    )
    add_workspace_arguments(parser)
    parser.set_defaults(handler=_handle, deps_factory=None)


async def diagnose(
    request: RunRequest,
    deps_factory: Callable[[], RunDeps] | None = None,
    *,
    on_progress: Callable[[RunSnapshot], None] | None = None,
) -> tuple[ReleasedResult, int]:
    """Run one request on a one-actor pool; Ray must be initialised.

    Returns:
        The released result, and how many records the pool could not have written before
        its actor went away (closing the pool has each actor write its runs' records).

    Args:
        request: What to diagnose.
        deps_factory: Builds the run's deps in the actor; default: the embedded deployment.
        on_progress: Called with each polled status snapshot while the run is in flight.
    """
    from actors.pool import RunPool
    from harness.settings import Settings

    settings = Settings()
    pool = RunPool(
        settings.pool_size, settings.runs_per_actor, deps_factory, name_prefix="cli-run-actor"
    )
    async with pool:
        run_id = await pool.submit(request)
        done = asyncio.ensure_future(pool.result(run_id))
        while not done.done():
            if on_progress is not None:
                on_progress(await pool.status(run_id))
            await asyncio.wait({done}, timeout=_POLL_INTERVAL_S)
    return done.result(), pool.unrecorded


def _utc(text: str) -> datetime:
    """An ISO 8601 time; a naive one is UTC, like every time of the harness."""
    value = datetime.fromisoformat(text)
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def _handle(args: argparse.Namespace) -> int:
    from rich.console import Console

    from actors.factory import local_ray
    from harness.contracts.errors import WorkspaceError
    from harness.contracts.ingress import RunRequest

    try:
        workspace = workspace_from_args(args)
    except WorkspaceError as error:
        reason = error.context.get("reason", "")
        Console(stderr=True).print(
            f"[red]{error.error_code.value} {reason}:[/red] {escape(error.message)}"
        )
        return 2
    try:
        request = RunRequest(
            question=args.question, as_of=_as_of(args, workspace), deadline_s=args.deadline_s
        )
    except ValueError as exc:
        Console(stderr=True).print(f"[red]invalid request:[/red] {escape(str(exc))}")
        return 2
    factory = args.deps_factory
    if factory is None and workspace is not None:
        from actors.deps import EmbeddedDepsFactory

        factory = EmbeddedDepsFactory(workspace=workspace)
    with local_ray(num_cpus=2, address=args.address):
        result = _run(request, args, factory, workspace)
    return 0 if result.kind in _SUCCESS_KINDS else 1


def _as_of(args: argparse.Namespace, workspace: Workspace | None) -> datetime:
    if args.as_of is not None:
        return args.as_of  # type: ignore[no-any-return]
    if workspace is None:
        return DEFAULT_AS_OF
    return workspace.as_of or datetime.now(UTC)


def _run(
    request: RunRequest,
    args: argparse.Namespace,
    factory: Callable[[], RunDeps] | None,
    workspace: Workspace | None,
) -> ReleasedResult:
    from rich.console import Console

    if args.json:
        result, unrecorded = asyncio.run(diagnose(request, factory))
        print(json.dumps(result.model_dump(mode="json"), ensure_ascii=False))
        report_unrecorded([result.run_id], pool_unrecorded=unrecorded)
        return result
    console = Console()
    console.print(f'[bold]Diagnosis Harness[/bold] — "{escape(request.question)}"')
    if workspace is not None:
        parts = "; ".join(workspace.describe())
        console.print(f"[dim]your workspace: {escape(parts)} (as of {request.as_of})[/dim]")
    elif args.deps_factory is None:
        console.print(f"[dim]embedded default: local Ray, bundled demo incident, {_model()}[/dim]")
    with console.status("starting a RunActor…") as spinner:

        def show(snapshot: RunSnapshot) -> None:
            spinner.update(
                f"{snapshot.phase.value} · tool calls {snapshot.tool_calls or 0} · "
                f"model calls {snapshot.model_calls or 0}"
            )

        result, unrecorded = asyncio.run(diagnose(request, factory, on_progress=show))
    _render(console, result)
    # A run the audit does not hold is named, not silently missing from `harness runs`.
    report_unrecorded([result.run_id], pool_unrecorded=unrecorded)
    return result


def _render(console: Console, result: ReleasedResult) -> None:
    from rich.table import Table

    from harness.contracts.results import DiagnosisReport

    colour = "green" if result.kind in _SUCCESS_KINDS else "yellow"
    console.print(f"[bold {colour}]{result.kind}[/bold {colour}]  run_id={result.run_id}")
    if isinstance(result, DiagnosisReport):
        # Released text is data: escape it so that no markup in it styles or links anything.
        console.print(escape(result.summary))
        table = Table("kind", "statement", "confidence", "citations")
        for c in result.conclusions:
            cites = ", ".join(f"{x.tool_call_id}:{x.item_ref}" for x in c.citations)
            table.add_row(c.kind.value, escape(c.statement), f"{c.confidence:.2f}", escape(cites))
        console.print(table)
        for step in result.next_steps:
            sources = ", ".join(f"{x.tool_call_id}:{x.item_ref}" for x in step.citations)
            console.print(
                f"- next step ({step.action}): {escape(step.text)} [dim]({escape(sources)})[/dim]"
            )
        for line in result.limitations:
            console.print(f"- limitation: {escape(line)}")
        return
    console.print_json(result.model_dump_json())


def _model() -> str:
    """The model the runs will call, as the heading names it (never its key)."""
    from harness.contracts.models import Component
    from harness.settings import Settings

    endpoint = Settings().model_endpoint(Component.DIAGNOSIS_AGENT)
    if endpoint.offline:
        return "offline demo model"
    return escape(f"model {endpoint.model} at {endpoint.base_url} ({endpoint.profile.name})")
