"""``harness project logs|mysql|rag``: one tool call on the embedded backends, both views shown.

``--workspace`` (a harness.toml, or the folder holding one) points the call at a user's own
world instead of the bundled demo.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import uuid
from typing import Any

from harness.contracts.envelope import ToolBoundaryResult, ToolCallEnvelope
from harness.run.boundary import ToolBoundary
from harness.tools import QUERY_LOGS, QUERY_MYSQL, SEARCH_KNOWLEDGE
from serve.cli.workspace_args import add_workspace_arguments, workspace_from_args

__all__ = ["register", "render_views", "run_call"]

_TOOLS = {"logs": QUERY_LOGS, "mysql": QUERY_MYSQL, "rag": SEARCH_KNOWLEDGE}


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "project",
        help="run one tool on the embedded backend; print the AgentObservation and the ControlView",
    )
    tools = parser.add_subparsers(dest="tool", metavar="TOOL", required=True)
    logs = tools.add_parser("logs", help="query_logs")
    logs.add_argument("--start", default="2026-11-02T13:00:00Z")
    logs.add_argument("--end", default="2026-11-02T15:00:00Z")
    logs.add_argument("--service", action="append", default=[], dest="services")
    logs.add_argument("--query")
    logs.add_argument("--level", choices=["TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"])
    mysql = tools.add_parser("mysql", help="query_mysql")
    mysql.add_argument("sql")
    mysql.add_argument(
        "--datasource",
        dest="mysql_datasource",
        default=None,
        help="default: the world's datasource (the demo's: shop-primary)",
    )
    rag = tools.add_parser("rag", help="search_knowledge")
    rag.add_argument("query")
    rag.add_argument("--top-k", type=int, default=5)
    for sub in (logs, mysql, rag):
        sub.add_argument(
            "--json", action="store_true", help="print one JSON object instead of panels"
        )
        add_workspace_arguments(sub, parts=False)
        sub.set_defaults(handler=_handle)


def _arguments(args: argparse.Namespace, datasource: str) -> dict[str, Any]:
    if args.tool == "logs":
        body = {
            "start": args.start,
            "end": args.end,
            "services": args.services,
            "query": args.query,
            "level": args.level,
        }
        return {k: v for k, v in body.items() if v not in (None, [])}
    if args.tool == "mysql":
        return {"datasource": args.mysql_datasource or datasource, "sql": args.sql}
    return {"query": args.query, "top_k": args.top_k}


def run_call(
    boundary: ToolBoundary, tool_name: str, arguments: dict[str, Any]
) -> ToolBoundaryResult:
    envelope = ToolCallEnvelope(
        run_id=boundary.run.run_id,
        tool_call_id=f"call_{uuid.uuid4().hex[:12]}",
        tool_name=tool_name,
        arguments=json.dumps(arguments),
    )
    return asyncio.run(boundary.call(envelope))


def render_views(result: ToolBoundaryResult, *, title: str = "") -> None:
    """Print what the model sees beside what the harness keeps."""
    from rich.columns import Columns
    from rich.console import Console
    from rich.panel import Panel
    from rich.syntax import Syntax

    console = Console()
    model_view = json.dumps(json.loads(result.model_content()), indent=2, ensure_ascii=False)
    control_view = result.control.model_dump_json(indent=2)
    console.rule(title or f"{result.tool_name} · {result.outcome}")
    console.print(
        Columns(
            [
                Panel(
                    Syntax(model_view, "json", word_wrap=True),
                    title="AgentObservation (model)",
                    expand=True,
                ),
                Panel(
                    Syntax(control_view, "json", word_wrap=True),
                    title="ControlView (harness only)",
                    expand=True,
                ),
            ],
            equal=True,
            expand=True,
        )
    )


def _handle(args: argparse.Namespace) -> int:
    from harness.adapters.embedded import build_tool_plane
    from harness.contracts.errors import WorkspaceError

    try:
        plane = build_tool_plane(workspace=workspace_from_args(args))
    except WorkspaceError as error:
        print(f"{error.error_code.value} {error.context.get('reason', '')}: {error.message}")
        return 2
    boundary = plane.open_run()
    result = run_call(boundary, _TOOLS[args.tool], _arguments(args, plane.datasource))
    if args.json:
        print(
            json.dumps(
                {
                    "model": json.loads(result.model_content()),
                    "control": result.control.model_dump(mode="json"),
                },
                ensure_ascii=False,
            )
        )
    else:
        render_views(result)
    return 0 if result.outcome == "OBSERVATION" else 3 if result.outcome == "REJECTED" else 1
