"""TraceRecorder: the run's append-only timeline.

Sequence numbers are assigned here, by the run's owner, in the order events happen — one event
loop, so concurrent tool calls of a run still get gap-free, strictly increasing numbers. The
timeline leaves the process inside the run's durable record (:class:`harness.audit.records.RunRecord`).

Watchers (a progress stream) wait for the timeline to grow with :meth:`TraceRecorder.wait_beyond`
instead of polling: recording an event wakes them on the same loop.
"""

from __future__ import annotations

import asyncio
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
    _grown: asyncio.Event | None = field(default=None, init=False, repr=False, compare=False)

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
        if self._grown is not None:
            self._grown.set()
            self._grown = None
        return event

    async def wait_beyond(self, sequence_no: int) -> None:
        """Return once the timeline holds an event numbered above ``sequence_no``."""
        while len(self.events) <= sequence_no:
            if self._grown is None:
                self._grown = asyncio.Event()
            await self._grown.wait()
