"""The trace timeline: typed metadata-only events and the recorder that numbers them."""

from harness.trace.events import (
    AgentStep,
    EvidenceCheck,
    EvidenceRepair,
    ModelCallUsage,
    ModelTokenUsage,
    ReleaseDecision,
    Routed,
    RoutingAttempt,
    RunFinished,
    RunStarted,
    SemanticCheck,
    ToolInvocation,
    ToolRequestRejected,
    TraceCategory,
    TraceDetails,
    TraceEvent,
)
from harness.trace.recorder import TraceRecorder

__all__ = [
    "AgentStep",
    "EvidenceCheck",
    "EvidenceRepair",
    "ModelCallUsage",
    "ModelTokenUsage",
    "ReleaseDecision",
    "Routed",
    "RoutingAttempt",
    "RunFinished",
    "RunStarted",
    "SemanticCheck",
    "ToolInvocation",
    "ToolRequestRejected",
    "TraceCategory",
    "TraceDetails",
    "TraceEvent",
    "TraceRecorder",
]
