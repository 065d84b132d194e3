"""Ingress contracts: what a caller may ask the harness for (HTTP body, CLI, evaluation).

Kept apart from the run machinery so that ``serve/`` (and an OpenAPI schema) can import the
request models without importing the agent loop. Ingress models forbid unknown fields.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

from harness.text import visible

__all__ = [
    "AS_OF_YEAR_PATTERN",
    "EARLIEST_AS_OF_YEAR",
    "LATEST_AS_OF_YEAR",
    "RunLimits",
    "RunRequest",
    "check_as_of",
    "check_readable",
]


def _json_integer(value: Any) -> Any:
    """A JSON Schema integer: an int or an integral number (``2.0`` is one in JSON Schema, and
    OpenAPI 3.1 publishes JSON Schema), never ``true`` or ``"5"`` (which pydantic's lax mode
    would turn into counts), nor ``2.5``."""
    if isinstance(value, bool | str | bytes):
        raise ValueError("expected an integer")
    return value


_Integer = BeforeValidator(_json_integer)

EARLIEST_AS_OF_YEAR = 1970
"""The earliest year of a run's "now": the Unix epoch's, before which no log system keeps time."""
LATEST_AS_OF_YEAR = 2261
"""The latest: the last whole year of 64-bit nanosecond timestamps (Loki's and Prometheus'
clocks end in April 2262)."""
AS_OF_YEAR_PATTERN = r"(?:19[7-9][0-9]|2[01][0-9]{2}|22[0-5][0-9]|226[01])"
"""The same span as a regular expression over the four digits of a year (for a JSON Schema)."""


def check_as_of(value: datetime | None) -> datetime | None:
    """``value`` when its year, as written, lies in the span every log system can query."""
    if value is not None and not EARLIEST_AS_OF_YEAR <= value.year <= LATEST_AS_OF_YEAR:
        raise ValueError(
            f"as_of must lie in the years {EARLIEST_AS_OF_YEAR} to {LATEST_AS_OF_YEAR}"
        )
    return value


def check_readable(question: str) -> str:
    """``question`` when it holds a character a reader sees (not only spaces, zero-width or
    other invisible characters)."""
    if not visible(question).strip():
        raise ValueError("the question holds no visible character")
    return question


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

    question: Annotated[str, AfterValidator(check_readable)] = Field(
        min_length=1, max_length=4000, description="The operator's question (something visible)."
    )
    session_id: str | None = Field(
        default=None, max_length=64, description="Conversation the run belongs to."
    )
    owner: str = Field(
        default="anonymous", max_length=128, description="Principal that owns the run."
    )
    analysis_id: str | None = Field(
        default=None, max_length=64, description="Id the draft must carry; default: derived."
    )
    as_of: Annotated[datetime | None, AfterValidator(check_as_of)] = Field(
        default=None,
        description="'Now' for the investigation (years 1970 to 2261); default: the clock.",
    )
    deadline_s: float | None = Field(
        default=None, gt=0, le=3600, description="Run deadline; default: deployment's."
    )
    limits: RunLimits | None = Field(
        default=None, description="Lower budget limits for this run; default: deployment's."
    )
