"""Typed retry policy per model-calling component.

The router and the SemanticGuard may retry *technical* failures (MODEL_ERROR, MODEL_TIMEOUT);
the SemanticGuard exactly once, with the same input. The diagnosis agent and tool calls never
retry automatically: a repeated agent turn could repeat tool calls and budget spend.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from harness.contracts.models import Component

__all__ = ["RetryPolicy"]

_DEFAULT_ATTEMPTS: Mapping[Component, int] = MappingProxyType(
    {
        Component.ROUTER: 2,
        Component.SYSTEM_CHAT: 1,
        Component.KNOWLEDGE_ANSWER: 1,
        Component.DIAGNOSIS_AGENT: 1,
        Component.EVIDENCE_REPAIR: 1,
        Component.SEMANTIC_GUARD: 2,
    }
)
_FIXED = {Component.DIAGNOSIS_AGENT: 1, Component.SEMANTIC_GUARD: 2}


@dataclass(frozen=True, kw_only=True)
class RetryPolicy:
    """Maximum attempts (first try included) per component."""

    attempts: Mapping[Component, int] = field(default_factory=lambda: dict(_DEFAULT_ATTEMPTS))

    def __post_init__(self) -> None:
        for component, fixed in _FIXED.items():
            if self.attempts.get(component, fixed) != fixed:
                raise ValueError(f"{component.value} attempts are fixed at {fixed}")
        if any(n < 1 for n in self.attempts.values()):
            raise ValueError("attempts must be >= 1")

    def max_attempts(self, component: Component) -> int:
        return self.attempts.get(component, _DEFAULT_ATTEMPTS[component])
