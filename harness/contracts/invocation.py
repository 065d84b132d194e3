"""The canonical invocation: what a tool call really did, owned by the harness.

Two orthogonal statuses: whether the call finished, and what its result holds. Only these
pairs exist:

=================  ==================  ==========
InvocationStatus   EvidenceStatus      citable
=================  ==================  ==========
PROJECTING         None                no
READY              EVIDENCE_FOUND      yes
READY              NO_EVIDENCE         scoped negative finding only
ERROR              ERROR               no
=================  ==================  ==========

:class:`CanonicalInvocation` refuses any other pair at construction time.
"""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from harness.contracts.errors import ErrorCode
from harness.contracts.raw import RawResponse

__all__ = [
    "LEGAL_STATUS_PAIRS",
    "CanonicalInvocation",
    "EvidenceStatus",
    "InvocationStatus",
]


class InvocationStatus(str, Enum):
    """Lifecycle of one tool invocation."""

    PROJECTING = "PROJECTING"
    READY = "READY"
    ERROR = "ERROR"


class EvidenceStatus(str, Enum):
    """What the objective result holds, independent of the lifecycle."""

    EVIDENCE_FOUND = "EVIDENCE_FOUND"
    NO_EVIDENCE = "NO_EVIDENCE"
    ERROR = "ERROR"


LEGAL_STATUS_PAIRS: frozenset[tuple[InvocationStatus, EvidenceStatus | None]] = frozenset(
    {
        (InvocationStatus.PROJECTING, None),
        (InvocationStatus.READY, EvidenceStatus.EVIDENCE_FOUND),
        (InvocationStatus.READY, EvidenceStatus.NO_EVIDENCE),
        (InvocationStatus.ERROR, EvidenceStatus.ERROR),
    }
)


class CanonicalInvocation(BaseModel):
    """One tool call as the harness recorded it (Redis, short TTL, harness-only)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Literal[2] = Field(
        default=2, description="Record format (1: raw inline as JSON; 2: raw kept as bytes)."
    )
    tool_call_id: str = Field(description="The model framework's tool call id, single use per run.")
    run_id: str = Field(description="The run that owns the record.")
    tool_name: str = Field(description="Registered tool name.")
    request: dict[str, Any] = Field(description="The typed request, as validated.")
    raw: RawResponse | None = Field(
        default=None,
        description="Backend response, verbatim (JSON bytes; stored compressed, read lazily).",
    )
    agent_result: dict[str, Any] | None = Field(
        default=None, description="The bounded AgentObservation built from the raw response."
    )
    invocation_status: InvocationStatus = Field(description="PROJECTING, READY or ERROR.")
    evidence_status: EvidenceStatus | None = Field(
        default=None, description="Set with READY or ERROR; None while PROJECTING."
    )
    error_code: ErrorCode | None = Field(default=None, description="Set exactly when ERROR.")
    started_at: datetime = Field(description="When the record was begun (UTC).")
    completed_at: datetime | None = Field(default=None, description="When it became terminal.")

    @model_validator(mode="after")
    def _legal_pair(self) -> CanonicalInvocation:
        if (self.invocation_status, self.evidence_status) not in LEGAL_STATUS_PAIRS:
            raise ValueError(
                f"illegal status pair {self.invocation_status.value}/"
                f"{self.evidence_status.value if self.evidence_status else None}"
            )
        is_error = self.invocation_status is InvocationStatus.ERROR
        if is_error != (self.error_code is not None):
            raise ValueError("error_code is set exactly when the invocation is ERROR")
        if self.invocation_status is InvocationStatus.READY and self.agent_result is None:
            raise ValueError("a READY invocation carries its agent_result")
        if self.invocation_status is InvocationStatus.PROJECTING and self.completed_at is not None:
            raise ValueError("a PROJECTING invocation has no completed_at")
        return self

    def raw_response(self) -> Any:
        """The stored backend response as Python data (None when none was kept)."""
        return None if self.raw is None else self.raw.value()

    @property
    def citable(self) -> bool:
        """Whether EvidenceGuard may count this record at all."""
        return self.invocation_status is InvocationStatus.READY
