"""Ingress contracts: what a caller may ask the harness for (HTTP body, CLI, evaluation).

Kept apart from the run machinery so that ``serve/`` (and an OpenAPI schema) can import the
request models without importing the agent loop. Ingress models forbid unknown fields.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

__all__ = ["RunLimits", "RunRequest"]


def _json_integer(value: Any) -> Any:
    """A JSON Schema integer: an int or an integral float (``2.0``), never ``true`` or ``"5"``
    (which pydantic's lax mode would turn into counts)."""
    if isinstance(value, bool | str | bytes):
        raise ValueError("expected an integer")
    return value


_Integer = BeforeValidator(_json_integer)


class RunLimits(BaseModel):
    """Budget limits a caller asks for; they can only lower the deployment's own (never raise)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_tool_calls: Annotated[int, Field(ge=0, le=1000), _Integer] | None = Field(
        default=None, description="Tool calls the run may make."
    )
    max_model_calls: Annotated[int, Field(ge=1, le=1000), _Integer] | None = Field(
        default=None, description="Model calls the run may make."
    )
    max_total_tokens: Annotated[int, Field(ge=1, le=10_000_000), _Integer] | None = Field(
        default=None, description="Provider-reported tokens the run may use."
    )


class RunRequest(BaseModel):
    """One diagnosis question and how long the caller allows for it."""

    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True)

    question: str = Field(min_length=1, max_length=4000, description="The operator's question.")
    session_id: str | None = Field(
        default=None, max_length=64, description="Conversation the run belongs to."
    )
    owner: str = Field(
        default="anonymous", max_length=128, description="Principal that owns the run."
    )
    analysis_id: str | None = Field(
        default=None, max_length=64, description="Id the draft must carry; default: derived."
    )
    as_of: datetime | None = Field(
        default=None, description="'Now' for the investigation; default: the clock."
    )
    deadline_s: float | None = Field(
        default=None, gt=0, le=3600, description="Run deadline; default: deployment's."
    )
    limits: RunLimits | None = Field(
        default=None, description="Lower budget limits for this run; default: deployment's."
    )
