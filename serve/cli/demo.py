"""``harness demo``: the tool plane on the bundled incident, as the model would see it.

Until the run plane lands this walks the investigation an agent would make for "Why does
checkout-api return HTTP 500 since 14:05?" — knowledge, logs, database — through the real
ToolBoundary on the embedded default, and shows two refusals the harness makes on the way.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from harness.contracts.envelope import ToolBoundaryResult

__all__ = ["DEMO_CALLS", "register"]

DEMO_CALLS: list[tuple[str, str, dict[str, Any]]] = [
    (
        "Runbooks for the symptom",
        "search_knowledge",
        {"query": "checkout HTTP 500 connection is not available request timed out", "top_k": 3},
    ),
    (
        "checkout-api warnings and errors, 13:00-15:00",
        "query_logs",
        {
            "start": "2026-11-02T13:00:00Z",
            "end": "2026-11-02T15:00:00Z",
            "services": ["checkout-api"],
            "level": "WARN",
        },
    ),
    (
        "Config changes before the incident",
        "query_mysql",
        {
            "datasource": "shop-primary",
            "sql": "SELECT service, config_key, old_value, new_value, changed_by, changed_at, ticket "
            "FROM ops.config_changes WHERE changed_at >= '2026-11-02 12:00:00' ORDER BY changed_at",
        },
    ),
    (
        "Failed orders per 5 minutes",
        "query_mysql",
        {
            "datasource": "shop-primary",
            "sql": "SELECT DATE_FORMAT(created_at, '%H:%i') AS slot, status, error_code, COUNT(*) AS n "
            "FROM shop.orders WHERE status = 'FAILED' GROUP BY slot, status, error_code ORDER BY slot LIMIT 20",
        },
    ),
    (
        "Refused: the model tries to read password hashes through a predicate",
        "query_mysql",
        {
            "datasource": "shop-primary",
            "sql": "SELECT id FROM shop.customers WHERE password_hash LIKE '$2b$%'",
        },
    ),
    (
        "Refused: the same runbook search again",
        "search_knowledge",
        {"query": "checkout HTTP 500 connection is not available request timed out", "top_k": 3},
    ),
]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("demo", help="run the tool plane on the bundled demo incident")
    parser.add_argument("--json", action="store_true", help="print one JSON line per call")
    parser.set_defaults(handler=_handle)


def _handle(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from harness.adapters.embedded import build_tool_plane
    from serve.cli.project import render_views, run_call

    console = Console()
    plane = build_tool_plane()
    boundary = plane.open_run(auto_round=False)
    if not args.json:
        console.print(
            "[bold]Diagnosis Harness demo[/bold] — tool plane on the bundled incident "
            "(embedded: fakeredis, SQLite, bundled logs and runbooks; no model yet)"
        )
        console.print('Question: "Why does checkout-api return HTTP 500 since 14:05?"\n')
    results: list[tuple[str, ToolBoundaryResult]] = []
    for title, tool, arguments in DEMO_CALLS:
        result = run_call(boundary, tool, arguments)
        results.append((title, result))
        if args.json:
            print(
                json.dumps(
                    {
                        "title": title,
                        "model": json.loads(result.model_content()),
                        "control": result.control.model_dump(mode="json"),
                    },
                    ensure_ascii=False,
                )
            )
        else:
            render_views(result, title=title)
    if not args.json:
        table = Table(title="Calls")
        for column in ("call", "tool", "outcome", "evidence / code", "observation bytes"):
            table.add_column(column)
        for title, result in results:
            table.add_row(
                title,
                result.tool_name,
                result.outcome,
                (
                    result.observation.evidence_status.value
                    if result.observation
                    else str(result.error_code.value if result.error_code else "")
                ),
                str(len(result.model_content().encode())),
            )
        console.print(table)
        ledger = boundary.budget.ledger.snapshot()
        console.print(
            f"budget: tool_calls={ledger.tool_calls} executions={ledger.executions} "
            f"rejections={ledger.rejections} raw_bytes={ledger.raw_bytes} "
            f"projection_bytes={ledger.projection_bytes}"
        )
    return 0
