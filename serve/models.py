"""The HTTP API's own bodies (the run views themselves are ``harness.run.view``'s).

Ingress models forbid unknown fields: a misspelled field is a 422, not a silently ignored one.
They are strict as well: a value the published schema does not allow (``"wait": 0``, ``"5"`` for
a count, a Unix time for a date-time) is a 422, never coerced.
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

from harness.audit.reasoning import ReasoningEntry
from harness.contracts.ingress import AS_OF_YEAR_PATTERN, RunLimits, check_as_of, check_readable
from harness.contracts.models import Component
from harness.run.view import RunSummary
from harness.text import INVISIBLE
from harness.trace import TraceEvent

__all__ = [
    "RUN_ID_PATTERN",
    "SESSION_ID_PATTERN",
    "CheckState",
    "DiagnosisCreate",
    "Health",
    "Readiness",
    "ReasoningItem",
    "ReasoningResponse",
    "RunList",
    "TraceResponse",
]

SESSION_ID_PATTERN = r"^[A-Za-z0-9_.:-]{1,64}$"
RUN_ID_PATTERN = r"^run-[0-9a-f]{20}$"
# A character that is white space neither to Python's ``str.strip`` nor to a JSON Schema
# validator's ``\s`` (ECMA-262), nor renders as nothing (zero-width and other invisible
# characters of the Basic Multilingual Plane; a schema pattern keeps to it, and the tag
# characters above it are refused by the model's own check): a question the schema accepts is
# never blank once stripped.
_NOT_BLANK = r"[^\s\x1c-\x1f\x85" + "".join(c for c in sorted(INVISIBLE) if ord(c) <= 0xFFFF) + "]"
# An RFC 3339 date-time with its offset, in the years a run's "now" may have: the published
# schema states the span as this pattern, so a client that follows it is never refused.
AS_OF_PATTERN = rf"^{AS_OF_YEAR_PATTERN}-\d{{2}}-\d{{2}}[Tt]\d{{2}}:\d{{2}}:\d{{2}}(\.\d+)?([Zz]|[+-]\d{{2}}:\d{{2}})$"
_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")


def _rfc3339(value: Any) -> Any:
    """An RFC 3339 date-time with its offset (the schema's ``format: date-time``), parsed."""
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str) or _RFC3339.fullmatch(value) is None:
        raise ValueError("expected an RFC 3339 date-time with an offset")
    # RFC 3339 allows a lower-case "t" and "z"; Python reads only the upper-case ones.
    return datetime.fromisoformat(value.upper())


Rfc3339 = Annotated[datetime, BeforeValidator(_rfc3339)]


def _as_of_schema(schema: dict[str, Any]) -> None:
    """Publish the span of years on the date-time branch of ``as_of``'s schema."""
    for branch in schema.get("anyOf", [schema]):
        if branch.get("format") == "date-time":
            branch["pattern"] = AS_OF_PATTERN


class DiagnosisCreate(BaseModel):
    """Ask for one diagnosis (or a knowledge answer: the router decides)."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, str_strip_whitespace=True)

    question: Annotated[str, AfterValidator(check_readable)] = Field(
        min_length=1,
        max_length=4000,
        pattern=_NOT_BLANK,
        description=(
            "The operator's question (something visible; surrounding white space is dropped)."
        ),
    )
    session_id: str = Field(
        pattern=SESSION_ID_PATTERN, description="The conversation the run belongs to."
    )
    deadline_s: float | None = Field(
        default=None,
        gt=0,
        le=3600,
        description="Run deadline in seconds, up to the server's maximum; default: the server's.",
    )
    limits: RunLimits | None = Field(
        default=None, description="Budget limits, each up to the server's maximum."
    )
    as_of: Annotated[Rfc3339 | None, AfterValidator(check_as_of)] = Field(
        default=None,
        description=(
            "'Now' of the investigation (RFC 3339, with offset; years 1970 to 2261); default: "
            "the server's clock."
        ),
        json_schema_extra=_as_of_schema,
    )
    wait: bool = Field(
        default=False,
        description=(
            "Hold the request until the run released its result (up to the server's wait "
            "limit; then 202 with the run's status). False: answer 202 at once."
        ),
    )

    def fingerprint(self) -> str:
        """Digest of what decides the run (``wait`` only shapes the response)."""
        body = self.model_dump_json(exclude={"wait"})
        return hashlib.sha256(body.encode("utf-8")).hexdigest()


class RunList(BaseModel):
    """The caller's runs, newest first."""

    model_config = ConfigDict(frozen=True)

    runs: list[RunSummary] = Field(description="One line per run.")


class TraceResponse(BaseModel):
    """A run's timeline: metadata only (ids, codes, counts, sizes, latencies)."""

    model_config = ConfigDict(frozen=True)

    run_id: str = Field(description="The run.")
    source: Literal["live", "audit"] = Field(
        description="live: from the run's host (also while it runs); audit: the durable audit."
    )
    events: list[TraceEvent] = Field(description="Events in sequence_no order.")


class ReasoningItem(BaseModel):
    """The provider's reasoning for one model call, decrypted for the run's owner."""

    model_config = ConfigDict(frozen=True)

    component: Component = Field(description="The component that made the call.")
    component_round: int = Field(description="1-based logical call of the component.")
    attempt: int = Field(description="1-based attempt of that call.")
    available: bool = Field(description="Whether the provider returned reasoning at all.")
    text: str | None = Field(
        description="The reasoning; None when unavailable or sealed under a key no longer loaded."
    )
    unreadable: bool = Field(description="Sealed under a key that is not loaded, or altered.")
    created_at: datetime = Field(description="When it was sealed (UTC).")

    @classmethod
    def of(cls, entry: ReasoningEntry) -> ReasoningItem:
        return cls(
            component=entry.component,
            component_round=entry.component_round,
            attempt=entry.attempt,
            available=entry.available,
            text=entry.text,
            unreadable=entry.unreadable,
            created_at=entry.created_at,
        )


class ReasoningResponse(BaseModel):
    """The reasoning audit of one run (its owner only; each read is itself audited)."""

    model_config = ConfigDict(frozen=True)

    run_id: str = Field(description="The run.")
    session_id: str = Field(description="The run's session.")
    entries: list[ReasoningItem] = Field(description="One entry per model call, in call order.")


class Health(BaseModel):
    """Liveness: the replica answers."""

    model_config = ConfigDict(frozen=True)

    status: Literal["ok"] = Field(description="Always ok when the replica answers at all.")


CheckState = Literal["ok", "unavailable", "disabled"]


class Readiness(BaseModel):
    """Readiness: ready needs Redis and the run pool; an unreachable audit database only
    degrades (runs still complete; their audit records are counted as failed)."""

    model_config = ConfigDict(frozen=True)

    status: Literal["ready", "degraded"] = Field(description="ready, or degraded (audit down).")
    redis: CheckState = Field(description="The store of shared counters.")
    run_pool: CheckState = Field(description="The run desk and its pool of RunActors.")
    audit: CheckState = Field(
        description="The durable audit database (trace, reasoning); disabled: none configured."
    )
