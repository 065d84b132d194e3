"""TraceRecorder: the run's append-only timeline, metadata only.

Sequence numbers are assigned here, by the run's owner, in the order events happen. Details
are whitelisted per key: ids, codes, counts, sizes, latencies — never prompts, thoughts, draft
text or raw tool payloads. A sink failure is counted and never changes a run's result.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["TraceCategory", "TraceEvent", "TraceRecorder", "TraceSink"]

log = logging.getLogger(__name__)

_ALLOWED_DETAIL_KEYS = frozenset(
    {
        "tool_call_id",
        "tool_name",
        "outcome",
        "error_code",
        "evidence_status",
        "intent",
        "attempt",
        "verdict",
        "issue_codes",
        "issues",
        "latency_ms",
        "status",
        "result_type",
        "component",
        "input_tokens",
        "output_tokens",
        "total_tokens",
        "usage",
        "ledger",
        "tokens_reconciled",
        "unavailable_usage",
        "stage",
        "repaired",
        "count",
        "phase",
        "dropped_late",
        "dropped_finishes",
    }
)


class TraceCategory(str, Enum):
    RUN = "RUN"
    ROUTING = "ROUTING"
    AGENT = "AGENT"
    TOOL = "TOOL"
    EVIDENCE = "EVIDENCE"
    SEMANTIC = "SEMANTIC"
    RELEASE = "RELEASE"


class TraceEvent(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int = 1
    run_id: str
    sequence_no: int = Field(ge=1)
    category: TraceCategory
    name: str = Field(max_length=64)
    at: datetime
    details: dict[str, Any] = Field(default_factory=dict)


class TraceSink(Protocol):
    async def append(self, event: TraceEvent) -> None: ...


@dataclass
class TraceRecorder:
    """Owned by one run; not shared across runs or threads."""

    run_id: str
    clock: Any
    sink: TraceSink | None = None
    events: list[TraceEvent] = field(default_factory=list)
    sink_failures: int = 0

    def record(
        self, category: TraceCategory, name: str, details: Mapping[str, Any] | None = None
    ) -> TraceEvent:
        safe = {k: v for k, v in (details or {}).items() if k in _ALLOWED_DETAIL_KEYS}
        event = TraceEvent(
            run_id=self.run_id,
            sequence_no=len(self.events) + 1,
            category=category,
            name=name,
            at=self.clock.now(),
            details=safe,
        )
        self.events.append(event)
        return event

    async def flush(self) -> None:
        """Hand every event to the sink; failures are counted and logged, never raised."""
        if self.sink is None:
            return
        for event in self.events:
            try:
                await self.sink.append(event)
            except Exception:
                self.sink_failures += 1
                log.warning("trace sink failed run_id=%s seq=%d", self.run_id, event.sequence_no)
