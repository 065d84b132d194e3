"""Release: the policy that turns a checked draft into the one released result.

``policy`` runs EvidenceGuard, the repair round and SemanticGuard and picks the result;
``facts`` renders the verified facts a SafeFallback carries. The result types themselves are
contracts in :mod:`harness.results`.
"""

from harness.release.facts import observed_facts
from harness.release.policy import ReleaseContext, ReleasePolicy

__all__ = ["ReleaseContext", "ReleasePolicy", "observed_facts"]
