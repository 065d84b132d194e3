"""The trace timeline: typed metadata-only events and the recorder that numbers them."""

from harness.trace.events import (
    EvidenceCheck,
    EvidenceRepair,
    ModelCallUsage,
    ModelTokenUsage,
    ReleaseDecision,
    Routed,
    RunFinished,
    RunStarted,
    SemanticCheck,
    ToolInvocation,
    ToolRequestRejected,
    TraceCategory,
    TraceDetails,
    TraceEvent,
)
from harness.trace.recorder import TraceRecorder, TraceSink

__all__ = [
    "EvidenceCheck",
    "EvidenceRepair",
    "ModelCallUsage",
    "ModelTokenUsage",
    "ReleaseDecision",
    "Routed",
    "RunFinished",
    "RunStarted",
    "SemanticCheck",
    "ToolInvocation",
    "ToolRequestRejected",
    "TraceCategory",
    "TraceDetails",
    "TraceEvent",
    "TraceRecorder",
    "TraceSink",
]
