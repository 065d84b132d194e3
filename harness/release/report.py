"""The harness-written parts of a DiagnosisReport: its summary and its limitations.

The agent's own summary and limitations are never released: a summary could announce an
incident no conclusion backs, a limitation could carry a command. The summary is rendered
from the checked conclusions; the limitations from what the run's records show (truncated or
failed tool calls, steps withheld, no root cause established).
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.contracts.draft import Conclusion, ConclusionKind
from harness.guards.evidence import StepCheck, VerifiedSnapshot
from harness.trace import ToolInvocation, TraceEvent

__all__ = ["render_limitations", "render_summary"]

_SUMMARY_CHARS = 2000
_MAX_LIMITATIONS = 10
_STEP_REASONS = {
    "NO_RUNBOOK_CITED": "cites no runbook item of this run",
    "CITATION_INVALID": "cites an item that is missing or holds no evidence",
    "UNGROUNDED": "states values its sources do not hold",
    "NOT_FROM_SOURCE": "is not worded from its sources",
    "DANGEROUS": "would run a dangerous command",
    "UNREVIEWED_SOURCE": "cites a runbook that is not approved, or changed since its approval",
}


def render_summary(conclusions: Sequence[Conclusion]) -> str:
    """The root causes in their checked words, then what else the report holds."""
    roots = [c for c in conclusions if c.kind is ConclusionKind.ROOT_CAUSE]
    counts = {
        kind: sum(c.kind is kind for c in conclusions)
        for kind in (
            ConclusionKind.CONTRIBUTING_FACTOR,
            ConclusionKind.OBSERVATION,
            ConclusionKind.NEGATIVE_FINDING,
        )
    }
    head = (
        "Root cause: " + " ".join(c.statement for c in roots[:2])
        if roots
        else "No root cause is established by the checked evidence."
    )
    parts = [
        f"{n} {kind.value.lower().replace('_', ' ')}{'' if n == 1 else 's'}"
        for kind, n in counts.items()
        if n
    ]
    tail = f" The report also holds {_join(parts)}." if parts else ""
    summary = head + tail
    return summary if len(summary) <= _SUMMARY_CHARS else summary[: _SUMMARY_CHARS - 1] + "…"


def render_limitations(
    conclusions: Sequence[Conclusion],
    snapshot: VerifiedSnapshot,
    events: Sequence[TraceEvent],
    withheld: Sequence[tuple[StepCheck, str]],
) -> list[str]:
    """What the report cannot vouch for, each line derived from a record of this run."""
    lines: list[str] = []
    if not any(c.kind is ConclusionKind.ROOT_CAUSE for c in conclusions):
        lines.append("The root cause is not established by the cited evidence.")
    # In the order the draft cites them (deterministic for a given draft; the snapshot's order is
    # its ids', random per run, and the calls of one turn finish in any order).
    cited = [c.tool_call_id for conclusion in conclusions for c in conclusion.citations]
    first = {cid: i for i, cid in reversed(list(enumerate(cited)))}
    records = sorted(snapshot.records.items(), key=lambda kv: (first.get(kv[0], len(first)), kv[0]))
    for tool_call_id, observation in records:
        if observation.truncated:
            lines.append(
                f"The {observation.tool_name} result {tool_call_id} was truncated; counts and "
                "rows may be incomplete."
            )
    for tool_call_id, observation in records:
        unread = getattr(observation, "unread_files", None)
        if unread:
            lines.append(
                f"The log files {_join(list(unread))} could not be read ({tool_call_id}); their "
                "events are missing from every log result."
            )
    for event in events:
        details = event.details
        if isinstance(details, ToolInvocation) and details.outcome == "ERROR":
            code = details.error_code.value if details.error_code else "an error"
            lines.append(
                f"The {details.tool_name} call {details.tool_call_id} ended with {code}; "
                "its evidence is missing."
            )
    if any(c.kind is ConclusionKind.NEGATIVE_FINDING for c in conclusions):
        lines.append("A negative finding holds only within the scope of the query it cites.")
    for reason in dict.fromkeys(reason for _, reason in withheld):
        n = sum(r == reason for _, r in withheld)
        lines.append(
            f"{n} suggested next step{'' if n == 1 else 's'} withheld: it "
            f"{_STEP_REASONS.get(reason) or _action(reason)}."
        )
    return list(dict.fromkeys(lines))[:_MAX_LIMITATIONS]


def _action(reason: str) -> str:
    """A step the allowlist withholds: its reason is a rule name or code, never its text."""
    return f"asks for an action the allowlist does not release ({reason})"


def _join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
