"""A model client slowed by a fixed latency per call (benchmarks, and ``--model-latency-ms``).

It stands for a remote endpoint's round trip: the wait goes through the injected clock, so
runs overlap it like real network I/O; the reply is the wrapped model's, unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.contracts.models import ModelClient, ModelReply, ModelRequest
from harness.ports import Clock

__all__ = ["SlowedModel"]


@dataclass(frozen=True)
class SlowedModel:
    """``inner``'s replies, each after ``latency_s`` more seconds."""

    inner: ModelClient
    latency_s: float
    clock: Clock

    async def complete(self, request: ModelRequest) -> ModelReply:
        await self.clock.sleep(self.latency_s)
        return await self.inner.complete(request)
