"""TraceRecorder: the run's append-only timeline.

Sequence numbers are assigned here, by the run's owner, in the order events happen — one event
loop, so concurrent tool calls of a run still get gap-free, strictly increasing numbers. The
timeline leaves the process inside the run's durable record (:class:`harness.audit.RunRecord`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.ports import Clock
from harness.trace.events import TraceDetails, TraceEvent

__all__ = ["TraceRecorder"]


@dataclass
class TraceRecorder:
    """Owned by one run; not shared across runs or threads."""

    run_id: str
    clock: Clock
    events: list[TraceEvent] = field(default_factory=list)

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
