"""The run and its boundary: one run's state, limits and the one entry of every tool call.

``context`` (RunContext: identity, deadline, first terminal wins), ``budget`` (limits and the
ledger), ``retry`` (per-component retry policy), ``boundary`` (ToolBoundary: every tool call's
checks, in order), ``control`` (duplicate scopes and information gain), ``snapshot`` (what
status endpoints see of a run) and ``view`` (what the desk answers about runs). The
orchestration that drives them is :mod:`harness.diagnosis`. Import the names from their modules.
"""

__all__ = ["boundary", "budget", "context", "control", "retry", "snapshot", "view"]
