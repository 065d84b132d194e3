"""Duplicate-scope and information-gain control (docs/architecture.md §4, "One tool call").

The harness, not the model, decides when querying has stopped paying off. Scopes are
normalised per tool; an exact repeat of a scope that already produced a READY result (or is
in flight) is DUPLICATE_SCOPE. Gain is measured on *new evidence identities* (document ids,
log template ids, row hashes); a round without any, or one the agent itself marks NO_GAIN, is
a NO_GAIN round. After ``no_gain_threshold`` consecutive NO_GAIN rounds the harness requires
the agent to stop: further tool calls are INFORMATION_SATURATED.

Counters and thresholds live here and in the ControlView only; the model never sees them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.contracts.errors import ErrorCode, ProtocolError
from harness.contracts.invocation import EvidenceStatus

__all__ = ["InformationControl", "RoundOutcome"]


@dataclass(frozen=True, kw_only=True)
class RoundOutcome:
    """The verdict on one closed round."""

    gain: bool
    new_identities: int
    consecutive_no_gain: int
    stop_required: bool


@dataclass
class InformationControl:
    """Per-run duplicate and gain bookkeeping. Mutated only on the owning loop."""

    no_gain_threshold: int = 2
    _ready_scopes: set[str] = field(default_factory=set)
    _in_flight: set[str] = field(default_factory=set)
    _seen: set[str] = field(default_factory=set)
    _round_new: int = 0
    consecutive_no_gain: int = 0
    stop_required: bool = False

    def __post_init__(self) -> None:
        if self.no_gain_threshold < 1:
            raise ValueError("no_gain_threshold must be >= 1")

    def admit(self, scope_identity: str) -> None:
        """Refuse a call when the run is saturated or the scope repeats a READY/in-flight call."""
        if self.stop_required:
            raise ProtocolError(ErrorCode.INFORMATION_SATURATED, "stop required")
        if scope_identity in self._ready_scopes or scope_identity in self._in_flight:
            raise ProtocolError(ErrorCode.DUPLICATE_SCOPE, "scope already checked")
        self._in_flight.add(scope_identity)

    def settle(
        self,
        scope_identity: str,
        *,
        ready: bool,
        evidence_status: EvidenceStatus | None = None,
        identities: frozenset[str] = frozenset(),
    ) -> int:
        """Record how an admitted call ended; return how many identities were new.

        A call that ended in ERROR frees its scope so it may be retried (and budgeted).
        """
        self._in_flight.discard(scope_identity)
        if not ready:
            return 0
        self._ready_scopes.add(scope_identity)
        if evidence_status is not EvidenceStatus.EVIDENCE_FOUND:
            return 0
        new = identities - self._seen
        self._seen |= new
        self._round_new += len(new)
        return len(new)

    def close_round(self, *, agent_says_no_gain: bool = False) -> RoundOutcome:
        """End a model round; objective signals and the agent's own evaluation both count."""
        gain = self._round_new > 0 and not agent_says_no_gain
        new = self._round_new
        self._round_new = 0
        self.consecutive_no_gain = 0 if gain else self.consecutive_no_gain + 1
        if self.consecutive_no_gain >= self.no_gain_threshold:
            self.stop_required = True
        return RoundOutcome(
            gain=gain,
            new_identities=new,
            consecutive_no_gain=self.consecutive_no_gain,
            stop_required=self.stop_required,
        )
