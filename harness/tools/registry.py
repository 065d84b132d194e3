"""The tool registry: what each tool is, what it accepts and how it is planned.

A :class:`ToolSpec` binds a tool name to its typed request, its read-only declaration and an
optional pure *planner* that turns the request into the object the backend executes (for
``query_mysql`` the validator's ``MysqlQueryPlan``). Planning runs before anything is reserved
or stored, so a refused plan is a rejection, not an execution.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pydantic_core
from pydantic import BaseModel

from harness.contracts.errors import ErrorCode, ProtocolError
from harness.contracts.models import ToolDefinition
from harness.redaction import is_secret_shaped
from harness.tools.arguments import QueryLogsRequest, QueryMysqlRequest, SearchKnowledgeRequest

__all__ = [
    "QUERY_LOGS",
    "QUERY_MYSQL",
    "SEARCH_KNOWLEDGE",
    "ToolRegistry",
    "ToolSpec",
    "default_specs",
    "plan_logs_query",
    "scope_identity",
    "scope_of",
]

QUERY_LOGS = "query_logs"
QUERY_MYSQL = "query_mysql"
SEARCH_KNOWLEDGE = "search_knowledge"


@dataclass(frozen=True, kw_only=True)
class ToolSpec:
    """One tool as the harness knows it.

    Attributes:
        name: Registered name, as the model calls it.
        description: What the model is told the tool does.
        request_model: The typed ingress model the arguments must parse into.
        read_only: The tool's own declaration; the boundary refuses tools that are not.
        planner: Pure request → executable plan (raises a HarnessError to reject).
        scope: Plan → normalised scope text used for duplicate identity.
    """

    name: str
    description: str
    request_model: type[BaseModel]
    read_only: bool = True
    planner: Callable[[BaseModel], BaseModel] | None = None
    scope: Callable[[BaseModel], str] | None = None

    def plan(self, request: BaseModel) -> BaseModel:
        return self.planner(request) if self.planner else request

    def normalized_scope(self, plan: BaseModel) -> str:
        return self.scope(plan) if self.scope else scope_of(self.name, plan)

    def definition(self) -> ToolDefinition:
        """The tool as offered to a model (adapters render it in their wire format)."""
        return ToolDefinition(
            name=self.name,
            description=self.description,
            parameters=_json_schema(self.request_model),
        )


def _json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A fresh copy of the model's JSON Schema (a caller may edit it)."""
    return pydantic_core.from_json(_json_schema_text(model))  # type: ignore[no-any-return]


@functools.cache
def _json_schema_text(model: type[BaseModel]) -> bytes:
    # pydantic builds the schema anew on every call (~0.8 ms for a tool's request); a run
    # offers its tools on every model turn. Request models are classes, fixed once defined.
    return pydantic_core.to_json(model.model_json_schema())


def scope_of(tool_name: str, plan: BaseModel) -> str:
    """Canonical JSON of a plan: sorted keys, no whitespace, prefixed by the tool name."""
    body = json.dumps(plan.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
    return f"{tool_name}:{body}"


def scope_identity(normalized_scope: str) -> str:
    """Short stable hash of a normalised scope."""
    return hashlib.sha256(normalized_scope.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class ToolRegistry:
    """The tools of a deployment, by name."""

    specs: Mapping[str, ToolSpec] = field(default_factory=dict)

    @classmethod
    def of(cls, specs: Iterable[ToolSpec]) -> ToolRegistry:
        return cls({spec.name: spec for spec in specs})

    def get(self, name: str) -> ToolSpec | None:
        return self.specs.get(name)

    def names(self) -> list[str]:
        return sorted(self.specs)

    def definitions(self, authorized: Iterable[str]) -> list[ToolDefinition]:
        """Definitions of the registered tools in ``authorized``, by name."""
        allowed = set(authorized)
        return [self.specs[name].definition() for name in self.names() if name in allowed]


def _knowledge_scope(plan: BaseModel) -> str:
    assert isinstance(plan, SearchKnowledgeRequest)
    query = " ".join(plan.query.lower().split())
    return f"{SEARCH_KNOWLEDGE}:{json.dumps({'query': query, 'top_k': plan.top_k}, sort_keys=True)}"


def plan_logs_query(request: BaseModel) -> BaseModel:
    """The ``query_logs`` planner: refuse a substring query that holds a secret-shaped token.

    Matching is decided on redacted text (:class:`harness.backends.log_query.LogQuery`), so such a
    query could never match anything a model was shown; refusing it with a stable code makes
    the probe visible and costs the tool call. "Secret-shaped" is "the redactor would change
    it", which covers keys and tokens and also the hosts, IPs, pods and e-mails that
    observations never show.

    Raises:
        ProtocolError: SECRET_IN_QUERY.
    """
    assert isinstance(request, QueryLogsRequest)
    if request.query is not None and is_secret_shaped(request.query):
        raise ProtocolError(ErrorCode.SECRET_IN_QUERY, "query_logs query is secret-shaped")
    return request


def default_specs(
    *,
    mysql_planner: Callable[[BaseModel], BaseModel] | None = None,
    mysql_catalog: str = "",
) -> list[ToolSpec]:
    """The three read-only tools of the product.

    Args:
        mysql_planner: Builds the executable plan of a ``query_mysql`` request (the validator).
        mysql_catalog: The readable tables, as :func:`harness.sql.catalog.describe_tables`
            writes them; appended to the ``query_mysql`` description so that the model knows
            what it may read.
    """
    mysql_description = (
        "Run one read-only SELECT (MySQL dialect) against an allowed datasource. Only "
        "allowlisted tables and columns are readable; a LIMIT is enforced."
    )
    if mysql_catalog.strip():
        mysql_description = f"{mysql_description}\n{mysql_catalog.strip()}"
    return [
        ToolSpec(
            name=QUERY_LOGS,
            description=(
                "Search application logs in a time range (at most 24 h), optionally filtered by "
                "services, a case-insensitive substring and a minimum level. Returns aggregated "
                "templates with counts and first/last times, plus sampled events. The substring "
                "is matched on the redacted text; a query holding a secret, host, IP, pod or "
                "e-mail is refused (SECRET_IN_QUERY)."
            ),
            request_model=QueryLogsRequest,
            planner=plan_logs_query,
        ),
        ToolSpec(
            name=QUERY_MYSQL,
            description=mysql_description,
            request_model=QueryMysqlRequest,
            planner=mysql_planner,
            scope=_mysql_scope,
        ),
        ToolSpec(
            name=SEARCH_KNOWLEDGE,
            description="Search runbooks and the knowledge base. Returns bounded excerpts.",
            request_model=SearchKnowledgeRequest,
            scope=_knowledge_scope,
        ),
    ]


def _mysql_scope(plan: BaseModel) -> str:
    normalized = getattr(plan, "normalized_sql", None)
    if normalized is None:  # no planner configured: scope is the raw request
        return scope_of(QUERY_MYSQL, plan)
    return f"{QUERY_MYSQL}:{plan.datasource}:{normalized}"  # type: ignore[attr-defined]
