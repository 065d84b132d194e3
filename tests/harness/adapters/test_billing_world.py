"""A world the harness was not built around: files, a database URL and a runbook folder.

The billing world (``tests/fixtures/billing_world``) is diagnosed through the same tool plane,
boundary, canonical store, guards and release as the demo, with the offline model behind the
openai SDK. The released report's root cause must come from that world's rows and templates,
every citation must be evidence of that world, nothing of the demo may appear, and no secret
of its logs or database may reach the model, the trace or the report.
"""

from __future__ import annotations

import asyncio
import filecmp
import importlib.util
import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from harness.adapters.embedded import ToolPlane, build_run_deps, build_tool_plane
from harness.adapters.sql_reflection import reflect_database
from harness.contracts.errors import WorkspaceError
from harness.contracts.ingress import RunRequest
from harness.contracts.invocation import CanonicalInvocation
from harness.contracts.observation import observation_adapter
from harness.contracts.results import DiagnosisReport
from harness.diagnosis import DiagnosisRun
from harness.settings import Settings
from harness.sql.reflection import draft_policy
from harness.trace import ToolInvocation
from harness.workspace import Workspace, resolve_workspace
from tests.billing_world import (
    AS_OF,
    QUESTION,
    WORLD,
    WORLD_SERVICES,
    copy_world,
    demo_words_in,
    secrets_in,
)

UNKNOWN_COLUMN = "Unknown column 'tax_region' in 'field list'"


def world_with_policy(directory: Path) -> Path:
    world = copy_world(directory)
    database = reflect_database(f"sqlite:///{world / 'billing.db'}")
    drafted = draft_policy(
        database.tables,
        datasource=database.datasource,
        default_schema=database.default_schema,
        source=database.source,
        case_sensitive=database.case_sensitive,
    )
    (world / "sql-policy.json").write_text(drafted.policy.model_dump_json(indent=2))
    return world


def workspace_of(world: Path) -> Workspace:
    """The world named part by part, as flags would: files, a database URL, a runbook folder."""
    return resolve_workspace(
        {
            "logs": {"paths": ["logs"]},
            "database": {"url": "sqlite:///billing.db", "policy": "sql-policy.json"},
            "runbooks": {"path": "runbooks"},
        },
        base=world,
    )


def diagnose(workspace: Workspace) -> tuple[ToolPlane, DiagnosisRun, DiagnosisReport]:
    settings = Settings()
    plane = build_tool_plane(settings, workspace=workspace)
    run = DiagnosisRun(
        RunRequest(question=QUESTION, as_of=AS_OF), build_run_deps(settings, plane=plane)
    )
    result = asyncio.run(run.execute())
    assert isinstance(result, DiagnosisReport), result
    return plane, run, result


@pytest.fixture(scope="module")
def diagnosed(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[ToolPlane, DiagnosisRun, DiagnosisReport]:
    return diagnose(workspace_of(world_with_policy(tmp_path_factory.mktemp("billing"))))


def records(plane: ToolPlane, run: DiagnosisRun) -> dict[str, CanonicalInvocation]:
    ids = [
        e.details.tool_call_id for e in run.trace.events if isinstance(e.details, ToolInvocation)
    ]
    found = {cid: asyncio.run(plane.store.get(run.run_id, cid)) for cid in ids}
    assert all(found.values())
    return {cid: record for cid, record in found.items() if record is not None}


def cited_item(record: CanonicalInvocation, ref: str) -> Any:
    observation = observation_adapter().validate_python(record.agent_result)
    items = [
        *getattr(observation, "rows", []),
        *getattr(observation, "templates", []),
        *getattr(observation, "evidence", []),
    ]
    return next(item for item in items if item.ref == ref)


def test_the_root_cause_is_this_worlds_migration_and_symptom(
    diagnosed: tuple[ToolPlane, DiagnosisRun, DiagnosisReport],
) -> None:
    plane, run, report = diagnosed
    by_id = records(plane, run)
    (root,) = [c for c in report.conclusions if c.kind.value == "ROOT_CAUSE"]
    # Linked by what the symptom names (the column) and by the runbook's symptom and cause.
    assert root.statement.startswith(
        "Schema migration 42 on billing-api: rename column invoices.tax_region to tax_zone by "
        "flyway at 2026-03-10 09:36:52 UTC; the symptom names tax_region; the runbook 'Queue "
        'consumer fails after a schema migration ("Unknown column")\' describes the symptom '
        "and states this cause. The first 'Failed to persist invoice"
    )
    cited = {c.item_ref.split(":")[0]: (by_id[c.tool_call_id], c.item_ref) for c in root.citations}
    (row_record, row_ref), (tpl_record, tpl_ref) = cited["row"], cited["tpl"]
    row, template = cited_item(row_record, row_ref), cited_item(tpl_record, tpl_ref)
    assert row_record.agent_result["scope"]["tables"] == ["main.schema_migrations"]
    assert (row.values["version"], row.values["description"]) == (
        "42",
        "rename column invoices.tax_region to tax_zone",
    )
    assert UNKNOWN_COLUMN in template.template and template.services == ["invoice-consumer"]
    applied = datetime.fromisoformat(str(row.values["applied_at"])).replace(tzinfo=UTC)
    assert applied < template.first_seen
    assert "doc" in cited  # the runbook that names the symptom backs it too


def test_every_citation_is_evidence_of_this_world_and_nothing_of_the_demo_appears(
    diagnosed: tuple[ToolPlane, DiagnosisRun, DiagnosisReport],
) -> None:
    plane, run, report = diagnosed
    by_id = records(plane, run)
    runbooks = {p.stem for p in (WORLD / "runbooks").glob("*.md")}
    citations = [c for k in report.conclusions for c in k.citations]
    citations += [c for s in report.next_steps for c in s.citations]
    for citation in citations:
        record = by_id[citation.tool_call_id]
        scope = record.agent_result["scope"]
        if record.tool_name == "query_logs":
            item = cited_item(record, citation.item_ref)
            assert set(item.services) <= WORLD_SERVICES
        elif record.tool_name == "query_mysql":
            assert all(t.startswith("main.") for t in scope["tables"])
        elif citation.item_ref != "scope":
            assert cited_item(record, citation.item_ref).doc_id in runbooks
    seen = [json.dumps(r.request) + json.dumps(r.agent_result) for r in by_id.values()]
    assert demo_words_in("\n".join([report.model_dump_json(), *seen])) == []
    assert {r.tool_name for r in by_id.values()} == {
        "query_logs",
        "query_mysql",
        "search_knowledge",
    }


def test_no_secret_of_the_world_reaches_the_model_the_trace_or_the_report(
    diagnosed: tuple[ToolPlane, DiagnosisRun, DiagnosisReport],
) -> None:
    plane, run, report = diagnosed
    model_views = [json.dumps(r.agent_result) for r in records(plane, run).values()]
    trace = [e.model_dump_json() for e in run.trace.events]
    durable = run.record.model_dump_json() if run.record is not None else ""
    assert secrets_in("\n".join([report.model_dump_json(), *model_views, *trace, durable])) == []
    # The secrets are really there to be found: the logs and the database hold them.
    logs = (WORLD / "logs" / "invoice-consumer.log").read_text()
    assert secrets_in(logs + (WORLD / "logs" / "billing-api.jsonl").read_text())[:2] == [
        "Rb7-Kq2pWx9Lm",
        "sk_live_51HxQ2eZvKYlo2C8a9XyZ1234abcd",
    ]


def test_the_answer_follows_the_data(tmp_path: Path) -> None:
    world = world_with_policy(tmp_path)
    with sqlite3.connect(world / "billing.db") as db:
        db.execute(
            "UPDATE schema_migrations SET version = '43', description = ? WHERE version = '42'",
            ("drop column invoices.tax_region",),
        )
    _, _, report = diagnose(workspace_of(world))
    (root,) = [c for c in report.conclusions if c.kind.value == "ROOT_CAUSE"]
    assert root.statement.startswith(
        "Schema migration 43 on billing-api: drop column invoices.tax_region by flyway"
    )
    assert "rename column" not in report.model_dump_json()


def test_the_fixture_is_what_its_generator_writes(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("billing_generate", WORLD / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.write(tmp_path)
    files = [
        "billing.sql",
        "logs/invoice-consumer.log",
        "logs/billing-api.jsonl",
        "logs/archive/ledger-worker-2026-03-10.log.gz",
    ]
    assert [f for f in files if not filecmp.cmp(tmp_path / f, WORLD / f, shallow=False)] == []


def test_the_sqlite_file_is_opened_read_only_and_never_created(tmp_path: Path) -> None:
    world = world_with_policy(tmp_path)
    plane = build_tool_plane(workspace=workspace_of(world))
    engine = plane.backends["query_mysql"]._engines["billing"]  # type: ignore[attr-defined]
    with engine.connect() as conn, pytest.raises(sa.exc.OperationalError, match="readonly"):
        conn.exec_driver_sql("CREATE TABLE planted (a INTEGER)")
    (world / "billing.db").unlink()
    with pytest.raises(WorkspaceError) as missing:
        workspace_of(world)
    assert missing.value.context == {"reason": "NOT_FOUND"}
    assert not (world / "billing.db").exists()
