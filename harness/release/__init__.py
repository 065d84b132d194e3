"""Release: the policy that turns a checked draft into the one released result.

``policy`` runs EvidenceGuard, the repair round, the text checks (:mod:`harness.textcheck`:
injected instructions, dangerous commands) and SemanticGuard and picks the result; ``links``
defangs links and shows control characters as symbols; ``report`` renders a report's summary
and limitations; ``facts`` quotes the verified facts a SafeFallback carries. The result types
are contracts in :mod:`harness.contracts.results`.
"""

from harness.release.facts import QuotedFacts, observed_facts
from harness.release.links import ContentPolicy
from harness.release.policy import (
    WITHHELD_ANSWER,
    WITHHELD_UNCITED_ANSWER,
    ReleaseContext,
    ReleasePolicy,
)
from harness.release.report import render_limitations, render_summary

__all__ = [
    "WITHHELD_ANSWER",
    "WITHHELD_UNCITED_ANSWER",
    "ContentPolicy",
    "QuotedFacts",
    "ReleaseContext",
    "ReleasePolicy",
    "observed_facts",
    "render_limitations",
    "render_summary",
]
