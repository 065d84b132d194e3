"""Composition root of the tool plane: settings → store, backends, projectors, registry.

With default settings everything is embedded: the canonical store in this process's memory
(:class:`~harness.store.LocalCanonicalStore`), the bundled demo database on SQLite, the bundled
logs and runbooks. Each ``HARNESS_*`` URL swaps one part for
the real system (Redis, MySQL, Loki, an HTTP RAG service) without touching the core.

A :class:`~harness.workspace.Workspace` (the user's own world) replaces the bundled demo
altogether: its log files, database and runbook folder feed the same tools, projectors,
boundary and store. A part it leaves out comes from a configured ``HARNESS_*`` system when
there is one, and is otherwise not offered to the model — never taken from the demo.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from harness.adapters.reasoning_cipher import FernetReasoningCipher, load_or_create_keys
from harness.approval import ApprovalBook
from harness.audit.records import AuditSink, FanOutSink
from harness.audit.writer import AuditWriter
from harness.clock import SystemClock
from harness.contracts.catalog import WorldCatalog
from harness.contracts.envelope import ToolPolicy
from harness.contracts.ids import new_run_id
from harness.diagnosis import RunDeps
from harness.ports import CanonicalStore, Clock, Projector, ToolBackend, ToolExecutor
from harness.projectors.logs import LogsProjector
from harness.projectors.mysql import MysqlProjector
from harness.projectors.rag import RagProjector
from harness.release import ContentPolicy
from harness.run.boundary import ToolBoundary
from harness.run.budget import Budgets, RunBudget
from harness.run.context import RunContext
from harness.run.control import InformationControl
from harness.settings import Settings
from harness.sql.catalog import describe_tables, parse_catalog
from harness.sql.policy import SqlPolicy
from harness.sql.validator import SqlValidator
from harness.stepcheck import Allowlist
from harness.store.local import LocalCanonicalStore
from harness.tools import (
    QUERY_LOGS,
    QUERY_MYSQL,
    SEARCH_KNOWLEDGE,
    InlineToolExecutor,
    ToolRegistry,
    default_specs,
)
from harness.workspace import Workspace

__all__ = [
    "ToolPlane",
    "audit_sink",
    "build_audit_writer",
    "build_run_deps",
    "build_tool_plane",
    "reasoning_cipher",
    "tool_plane_of",
    "world_catalog",
]


@dataclass
class ToolPlane:
    """Everything a run needs to call tools; shared by the runs of one process."""

    settings: Settings
    registry: ToolRegistry
    backends: dict[str, ToolBackend]
    projectors: dict[str, Projector]
    store: CanonicalStore
    validator: SqlValidator
    datasource: str
    """The logical datasource the agent is told to query."""
    clock: Clock = field(default_factory=SystemClock)
    _executors: dict[bool, InlineToolExecutor] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _catalog: WorldCatalog | None = field(default=None, init=False, repr=False, compare=False)

    def executor(self, *, project_in_thread: bool = True) -> InlineToolExecutor:
        """The plane's inline executor: one per process and setting, so that every run of
        the plane shares its tool slots and threads."""
        executor = self._executors.get(project_in_thread)
        if executor is None:
            executor = self._executors[project_in_thread] = InlineToolExecutor(
                self.backends,
                self.projectors,
                project_in_thread=project_in_thread,
                clock=self.clock,
                slots=self.settings.tool_slots,
            )
        return executor

    def catalog(self) -> WorldCatalog:
        """The world's catalog of this plane (read once: services and hosts from the logs,
        tables from the SQL policy, titles from the runbooks)."""
        if self._catalog is None:
            self._catalog = world_catalog(self)
        return self._catalog

    def policy(self) -> ToolPolicy:
        return ToolPolicy(
            authorized_tools=frozenset(self.registry.names()),
            execute_timeout_s=self.settings.execute_timeout_s,
            project_timeout_s=self.settings.project_timeout_s,
        )

    def open_run(
        self,
        *,
        run_id: str | None = None,
        budgets: Budgets | None = None,
        auto_round: bool = True,
        project_in_thread: bool = True,
    ) -> ToolBoundary:
        """Open a RUNNING run and the boundary that guards its tool calls."""
        run = RunContext.open(
            run_id=run_id or new_run_id(),
            now=self.clock.now(),
            timeout_s=self.settings.run_deadline_s,
        )
        run.start()
        policy = self.policy()
        return ToolBoundary(
            run=run,
            budget=RunBudget(budgets),
            registry=self.registry,
            policy=policy,
            store=self.store,
            executor=self.executor(project_in_thread=project_in_thread),
            clock=self.clock,
            control=InformationControl(no_gain_threshold=policy.no_gain_threshold),
            auto_round=auto_round,
        )


def build_tool_plane(
    settings: Settings | None = None,
    *,
    sqlite_dir: Path | None = None,
    workspace: Workspace | None = None,
) -> ToolPlane:
    """Wire the three tools from settings; embedded defaults where no URL is set.

    Args:
        settings: Deployment settings; read from the environment when omitted.
        sqlite_dir: Where the bundled demo database is installed (in memory when omitted).
        workspace: The user's own world; replaces the bundled demo (see the module doc).

    Raises:
        WorkspaceError: The workspace's database URL cannot be used (WORKSPACE_INVALID).
    """
    settings = settings or Settings()
    if workspace is not None:
        return _workspace_plane(settings, workspace)
    policy = (
        SqlPolicy.load(settings.sql_policy_path) if settings.sql_policy_path else SqlPolicy.demo()
    )
    validator = SqlValidator(policy)
    backends: dict[str, ToolBackend] = {
        QUERY_LOGS: _logs_backend(settings),
        QUERY_MYSQL: _sql_backend(settings, sqlite_dir),
        SEARCH_KNOWLEDGE: _knowledge_backend(settings),
    }
    return _plane(settings, validator, backends, settings.mysql_datasource)


def tool_plane_of(
    settings: Settings,
    *,
    policy: SqlPolicy,
    backends: dict[str, ToolBackend],
    datasource: str,
) -> ToolPlane:
    """A tool plane over given backends (e.g. recorded responses): same specs and projectors."""
    return _plane(settings, SqlValidator(policy), backends, datasource)


def _plane(
    settings: Settings,
    validator: SqlValidator,
    backends: dict[str, ToolBackend],
    datasource: str,
) -> ToolPlane:
    # A tool is offered only when something serves it; the model is told what it may read.
    specs = default_specs(
        mysql_planner=validator.planner, mysql_catalog=describe_tables(validator.policy)
    )
    registry = ToolRegistry.of(spec for spec in specs if spec.name in backends)
    projectors: dict[str, Projector] = {
        QUERY_LOGS: LogsProjector(),
        QUERY_MYSQL: MysqlProjector(),
        SEARCH_KNOWLEDGE: RagProjector(),
    }
    return ToolPlane(
        settings=settings,
        registry=registry,
        backends=backends,
        projectors={name: projectors[name] for name in backends},
        store=_store(settings),
        validator=validator,
        datasource=datasource,
    )


def world_catalog(plane: ToolPlane) -> WorldCatalog:
    """The world's catalog from what the plane's tools expose.

    A backend that can list its names (the embedded and file backends) contributes them; one
    that cannot (Loki, an HTTP RAG service) or fails to contributes nothing, and the catalog
    holds what the others know — a gap means fewer answers are held back, never more invented.
    """
    names: dict[str, set[str]] = {"services": set(), "hosts": set(), "runbooks": set()}
    cap = Budgets().max_raw_bytes_per_call
    for backend in plane.backends.values():
        source = getattr(backend, "catalog_names", None)
        if source is None:
            continue
        try:
            for kind, items in source(max_raw_bytes=cap).items():
                names.setdefault(kind, set()).update(items)
        except Exception:  # a backend that cannot be read now fails its tool calls, not runs
            continue
    tables = [t.table for t in parse_catalog(describe_tables(plane.validator.policy))]
    return WorldCatalog.of(
        services=names["services"],
        hosts=names["hosts"],
        tables=tables,
        runbooks=names["runbooks"],
    )


def _workspace_plane(settings: Settings, workspace: Workspace) -> ToolPlane:
    backends: dict[str, ToolBackend] = {}
    if workspace.logs is not None:
        from harness.backends.logs_files import FileLogBackend

        backends[QUERY_LOGS] = FileLogBackend(
            workspace.logs.paths,
            log_format=workspace.logs.format,
            formats=workspace.logs.formats,
            service=workspace.logs.service,
            year=workspace.logs.year,
            timezone=workspace.logs.timezone,
            as_of=workspace.as_of,
            max_store_bytes=settings.log_store_max_bytes,
        )
    elif settings.loki_url:
        backends[QUERY_LOGS] = _logs_backend(settings)
    if workspace.runbooks is not None:
        from harness.backends.knowledge_embedded import EmbeddedKnowledgeBackend

        backends[SEARCH_KNOWLEDGE] = EmbeddedKnowledgeBackend(
            workspace.runbooks.path, approved=approved_runbooks(settings)
        )
    elif settings.rag_url:
        backends[SEARCH_KNOWLEDGE] = _knowledge_backend(settings)
    policy = SqlPolicy(datasources={})
    if workspace.database is not None:
        policy = SqlPolicy.load(workspace.database.policy)
        backends[QUERY_MYSQL] = _workspace_sql_backend(settings, workspace)
    elif settings.mysql_url and settings.sql_policy_path:
        policy = SqlPolicy.load(settings.sql_policy_path)
        backends[QUERY_MYSQL] = _sql_backend(settings, None)
    datasource = workspace.datasource or settings.mysql_datasource
    return _plane(settings, SqlValidator(policy), backends, datasource)


def _workspace_sql_backend(settings: Settings, workspace: Workspace) -> ToolBackend:
    from harness.adapters.readonly_sql import ReadOnlySqlBackend
    from harness.adapters.sql_urls import open_url

    database = workspace.database
    assert database is not None and database.datasource is not None
    url = open_url(database.url.get_secret_value())  # a SQLite file opens read-only
    return ReadOnlySqlBackend(
        {database.datasource: url.render_as_string(hide_password=False)},
        statement_timeout_s=settings.statement_timeout_s,
    )


def _store(settings: Settings) -> CanonicalStore:
    ttl_s, max_bytes = settings.store_ttl_s, settings.max_record_bytes
    if settings.redis_url is None:
        # One process, no server: the local store keeps the Redis store's contract without
        # the cost of a Redis emulator (fakeredis parsed every command and ran Lua).
        return LocalCanonicalStore(ttl_s=ttl_s, max_record_bytes=max_bytes)
    from harness.adapters.redis_store import RedisCanonicalStore, redis_client

    return RedisCanonicalStore(
        redis_client(settings.redis_url, max_connections=settings.redis_max_connections),
        prefix=settings.store_prefix,
        ttl_s=ttl_s,
        max_record_bytes=max_bytes,
    )


def _logs_backend(settings: Settings) -> ToolBackend:
    if settings.loki_url:
        from harness.adapters.loki import LokiLogBackend

        return LokiLogBackend(settings.loki_url, timeout_s=settings.execute_timeout_s)
    from harness.backends.logs_embedded import EmbeddedLogBackend

    return EmbeddedLogBackend()


def _knowledge_backend(settings: Settings) -> ToolBackend:
    if settings.rag_url:
        from harness.adapters.rag_http import HttpRagBackend

        return HttpRagBackend(settings.rag_url, timeout_s=settings.execute_timeout_s)
    from harness.backends.knowledge_embedded import EmbeddedKnowledgeBackend

    return EmbeddedKnowledgeBackend(approved=approved_runbooks(settings))


def approved_runbooks(settings: Settings) -> frozenset[str]:
    """Content hashes of approved runbooks: the data directory's approvals and the bundled
    ones (:mod:`harness.approval`)."""
    return ApprovalBook(settings.resolved_data_dir()).approved_hashes()


def _sql_backend(settings: Settings, sqlite_dir: Path | None) -> ToolBackend:
    from harness.adapters.readonly_sql import ReadOnlySqlBackend

    if settings.mysql_url:
        engine: object = settings.mysql_url
    else:
        from harness.adapters.demo_db import sqlite_demo_engine

        engine = sqlite_demo_engine(sqlite_dir, cache_dir=settings.resolved_data_dir() / "cache")
    return ReadOnlySqlBackend(
        {settings.mysql_datasource: engine},  # type: ignore[dict-item]
        statement_timeout_s=settings.statement_timeout_s,
    )


def build_audit_writer(
    settings: Settings | None = None, *, clock: Clock | None = None
) -> AuditWriter:
    """An in-process batching writer into the deployment's audit database.

    The database is not touched until the first flush (which upgrades it to head), so a
    database that is down at start-up costs counted failures, not a failed start. Close the
    writer when the process ends (``await writer.close()``) to write what is still queued.
    """
    from harness.adapters.audit_sql import SqlAuditStore, create_audit_engine

    settings = settings or Settings()
    clock = clock or SystemClock()
    engine = create_audit_engine(settings.audit_database_url(), timeout_s=settings.audit_timeout_s)
    return AuditWriter(SqlAuditStore(engine, clock=clock), clock, settings.audit_writer_policy())


def build_run_deps(
    settings: Settings | None = None,
    *,
    plane: ToolPlane | None = None,
    executor: ToolExecutor | None = None,
    budgets: Budgets | None = None,
    audit: AuditSink | None = None,
    workspace: Workspace | None = None,
) -> RunDeps:
    """Everything a DiagnosisRun needs, from settings: tool plane plus model clients.

    Args:
        settings: Deployment settings; the embedded default when omitted.
        plane: An already built tool plane to share (built from ``settings`` otherwise).
        executor: Tool executor (e.g. Ray tasks); the plane's inline executor by default.
        budgets: Run budgets; the defaults otherwise.
        audit: Where each run's durable record goes (a node's writer, see
            ``actors.audit_writer``, or :func:`build_audit_writer`); None keeps no audit.
        workspace: The user's world, whose ``[release]`` section extends what released text
            may link to and which commands a next step may ask for.
    """
    from harness.adapters.openai_model import build_model_clients, component_call_settings

    settings = settings or (plane.settings if plane else Settings())
    plane = plane or build_tool_plane(settings)
    return RunDeps(
        models=build_model_clients(settings),
        registry=plane.registry,
        store=plane.store,
        executor=executor or plane.executor(),
        clock=plane.clock,
        policy=plane.policy(),
        budgets=budgets or Budgets(),
        component_settings=component_call_settings(settings),
        datasource=plane.datasource,
        catalog=plane.catalog(),
        default_deadline_s=settings.run_deadline_s,
        content=content_policy(settings, workspace),
        cipher=reasoning_cipher(settings),
        reasoning_retention=timedelta(days=settings.reasoning_retention_days),
        audit=audit_sink(settings, audit),
    )


def content_policy(settings: Settings, workspace: Workspace | None = None) -> ContentPolicy:
    """What released text may link to and which commands a step may ask for: the settings'
    hosts, the defaults, and the workspace's ``[release]`` additions (the operator's, never
    the evidence's)."""
    release = workspace.release if workspace is not None else None
    hosts = [*settings.release_url_allowlist, *(release.allowed_hosts if release else ())]
    # Each list was judged when it loaded; a workspace's entry replaces a setting's of its name.
    entries = {
        e.name: e for e in [*settings.release_commands, *(release.commands if release else ())]
    }
    return ContentPolicy(
        allowed_url_hosts=frozenset(h.lower() for h in hosts),
        allowlist=Allowlist([entry.rule() for entry in entries.values()]),
    )


def audit_sink(settings: Settings, writer: AuditSink | None = None) -> AuditSink | None:
    """Where finished runs' records go: the audit writer, and the span export when it is on."""
    sinks: list[AuditSink] = [writer] if writer is not None else []
    if settings.otel_exporter != "off":
        from harness.adapters.otel_export import build_span_sink

        sinks.append(build_span_sink(settings.otel_exporter, settings.otel_endpoint))
    if not sinks:
        return None
    return sinks[0] if len(sinks) == 1 else FanOutSink(sinks)


def reasoning_cipher(settings: Settings) -> FernetReasoningCipher:
    """The cipher sealing provider reasoning: configured keys, or the embedded key file."""
    if settings.reasoning_keys:
        keys = {k: v.get_secret_value() for k, v in settings.reasoning_keys.items()}
        assert settings.reasoning_key_id is not None  # Settings checks it names a loaded key
        return FernetReasoningCipher(keys, settings.reasoning_key_id)
    keys, current = load_or_create_keys(settings.resolved_data_dir() / "reasoning-keys.json")
    return FernetReasoningCipher(keys, current)
