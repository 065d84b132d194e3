"""Quality gates between a draft and its release: EvidenceGuard and SemanticGuard.

``evidence`` checks every citation against the canonical store (no model); ``grounding`` is
its deterministic pre-check of stated identifiers and numbers; ``semantic`` is the isolated
single-turn judge. Their vocabulary (issue codes, verdicts) is :mod:`harness.contracts.verdicts`.
"""

from harness.guards.evidence import EvidenceGuard, EvidenceVerdict, VerifiedSnapshot
from harness.guards.semantic import SemanticGuard, SemanticJudgement

__all__ = [
    "EvidenceGuard",
    "EvidenceVerdict",
    "SemanticGuard",
    "SemanticJudgement",
    "VerifiedSnapshot",
]
