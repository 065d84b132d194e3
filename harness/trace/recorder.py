"""TraceRecorder: the run's append-only timeline.

Sequence numbers are assigned here, by the run's owner, in the order events happen. A sink
failure is counted and logged and never changes a run's result.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Protocol

from harness.ports import Clock
from harness.trace.events import TraceDetails, TraceEvent

__all__ = ["TraceRecorder", "TraceSink"]

log = logging.getLogger(__name__)


class TraceSink(Protocol):
    """Where a run's timeline goes when it ends (the durable audit, in production)."""

    async def append(self, event: TraceEvent) -> None: ...


@dataclass
class TraceRecorder:
    """Owned by one run; not shared across runs or threads."""

    run_id: str
    clock: Clock
    sink: TraceSink | None = None
    events: list[TraceEvent] = field(default_factory=list)
    sink_failures: int = 0

    def record(self, details: TraceDetails) -> TraceEvent:
        """Append one event with the next sequence number."""
        event = TraceEvent(
            run_id=self.run_id,
            sequence_no=len(self.events) + 1,
            category=details.category(),
            event_type=details.kind,
            at=self.clock.now(),
            details=details,
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
