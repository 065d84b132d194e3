"""The tools: their typed arguments, their registry, and the in-process executor.

``arguments`` holds the only shapes a model's tool arguments may take; ``registry`` binds a
tool name to its arguments, read-only declaration, planner and scope; ``inline`` runs
backends and projectors in this process (the Ray executor lives in ``actors/``).
"""

from harness.tools.arguments import (
    LOG_LEVELS,
    MAX_LOG_RANGE,
    QueryLogsRequest,
    QueryMysqlRequest,
    SearchKnowledgeRequest,
    ToolRequest,
)
from harness.tools.inline import InlineToolExecutor, default_inline_slots
from harness.tools.registry import (
    QUERY_LOGS,
    QUERY_MYSQL,
    SEARCH_KNOWLEDGE,
    ToolRegistry,
    ToolSpec,
    default_specs,
    scope_identity,
    scope_of,
)

__all__ = [
    "LOG_LEVELS",
    "MAX_LOG_RANGE",
    "QUERY_LOGS",
    "QUERY_MYSQL",
    "SEARCH_KNOWLEDGE",
    "InlineToolExecutor",
    "QueryLogsRequest",
    "QueryMysqlRequest",
    "SearchKnowledgeRequest",
    "ToolRegistry",
    "ToolRequest",
    "ToolSpec",
    "default_inline_slots",
    "default_specs",
    "scope_identity",
    "scope_of",
]
