"""Typed tool requests: the only shapes a model's tool arguments may take.

These are ingress models (``extra="forbid"``): unknown fields, wrong types and out-of-range
values are INVALID_ARGUMENTS before any budget is reserved.
"""

from __future__ import annotations

import unicodedata
from datetime import UTC, datetime, timedelta
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = [
    "LOG_LEVELS",
    "MAX_LOG_RANGE",
    "QueryLogsRequest",
    "QueryMysqlRequest",
    "SearchKnowledgeRequest",
    "ToolRequest",
]

LOG_LEVELS = ("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL")
MAX_LOG_RANGE = timedelta(hours=24)


class _Ingress(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True)


class QueryLogsRequest(_Ingress):
    """Arguments of ``query_logs``."""

    start: datetime = Field(description="Range start, ISO 8601; naive times are UTC.")
    end: datetime = Field(description="Range end (exclusive), ISO 8601; at most 24 h after start.")
    services: list[str] = Field(
        default_factory=list,
        max_length=8,
        description="Services (topics) to include; empty means all.",
    )
    query: str | None = Field(
        default=None, min_length=1, max_length=256, description="Case-insensitive substring."
    )
    level: Literal["TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"] | None = Field(
        default=None, description="Minimum level to include."
    )

    @field_validator("start", "end")
    @classmethod
    def _utc(cls, value: datetime) -> datetime:
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)

    @field_validator("services")
    @classmethod
    def _services(cls, value: list[str]) -> list[str]:
        for name in value:
            if not name or len(name) > 64 or not all(c.isalnum() or c in "-_." for c in name):
                raise ValueError("service names are 1-64 characters of [A-Za-z0-9._-]")
        return sorted(set(value))

    @field_validator("query")
    @classmethod
    def _printable(cls, value: str | None) -> str | None:
        # A NUL marks a placeholder in the text queries are matched on; no control character
        # belongs in a substring search.
        if value is not None and any(unicodedata.category(c) == "Cc" for c in value):
            raise ValueError("the query may not hold control characters")
        return value

    @model_validator(mode="after")
    def _range(self) -> QueryLogsRequest:
        if self.end <= self.start:
            raise ValueError("end must be after start")
        if self.end - self.start > MAX_LOG_RANGE:
            raise ValueError("the range may span at most 24 hours")
        return self


class QueryMysqlRequest(_Ingress):
    """Arguments of ``query_mysql``: one read-only SELECT against a logical datasource."""

    datasource: str = Field(min_length=1, max_length=64, description="Logical datasource name.")
    sql: str = Field(min_length=1, max_length=4000, description="One SELECT statement (MySQL).")


class SearchKnowledgeRequest(_Ingress):
    """Arguments of ``search_knowledge``."""

    query: str = Field(min_length=1, max_length=512, description="What to look up.")
    top_k: int = Field(default=5, ge=1, le=10, description="Documents to return.")


ToolRequest = QueryLogsRequest | QueryMysqlRequest | SearchKnowledgeRequest
