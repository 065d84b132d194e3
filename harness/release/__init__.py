"""Release: the policy that turns a checked draft into the one released result.

``policy`` runs EvidenceGuard, the repair round, the content checks and SemanticGuard and
picks the result; ``content`` defangs links and recognises dangerous commands and injected
instructions; ``report`` renders a report's summary and limitations; ``facts`` quotes the
verified facts a SafeFallback carries. The result types are contracts in
:mod:`harness.results`.
"""

from harness.release.commands import dangerous_command
from harness.release.content import ContentPolicy, injection
from harness.release.facts import QuotedFacts, observed_facts
from harness.release.policy import WITHHELD_ANSWER, ReleaseContext, ReleasePolicy
from harness.release.report import render_limitations, render_summary

__all__ = [
    "WITHHELD_ANSWER",
    "ContentPolicy",
    "QuotedFacts",
    "ReleaseContext",
    "ReleasePolicy",
    "dangerous_command",
    "injection",
    "observed_facts",
    "render_limitations",
    "render_summary",
]
