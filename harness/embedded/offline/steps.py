"""The offline demo model's next steps: quoted from the runbooks that bear on the diagnosis.

Steps come from the runbooks that link the root cause (their cause matched it), that match
the symptom, or whose remedy speaks of the root cause; without a root cause, only what the
symptom's runbook says to check. Each step is a runbook's own sentence, with its title, citing
the excerpt it comes from. "Revert <change>" is written from the change's values only when a
remedy of such a runbook says to revert a change of that kind. A sentence that acts on what a
runbook makes conditional on something the evidence shows false is never a step, and a
sentence the excerpt cut off is never quoted.
"""

from __future__ import annotations

import re
from typing import Any

from harness.embedded.offline.analysis import Analysis
from harness.embedded.offline.candidates import KIND_WORDS, Candidate, CauseKind
from harness.embedded.offline.entities import fold, named_in
from harness.embedded.offline.runbooks import Runbook, Section, content_words, sentences
from harness.embedded.offline.wording import clip

__all__ = ["next_steps"]

_ACTION = re.compile(
    r"\b(revert|roll ?back|rollback|restart|trigger|confirm|page|declare|pin|renew|rotate|"
    r"replace|free|delete|extend|raise|lower|increase|fix|restore|replay|scale|unseal)\b",
    re.I,
)
_ROLLBACK = re.compile(r"\b(revert|roll ?back|rollback|undo|restore)\b", re.I)
_CHECK = re.compile(r"\b(check|confirm|compare|look|count|read|verify|find)\b", re.I)

Citation = dict[str, str]


def next_steps(analysis: Analysis) -> list[dict[str, Any]]:
    """Steps quoted from the runbooks that match the symptom or link the root cause."""
    steps: dict[str, list[Citation]] = {}
    root = analysis.root
    linked = [k.runbook for k in (root.links + root.upstream if root else ()) if k.runbook]
    about = [rb for rb in analysis.runbooks if root and _remedies(rb, root.candidate)]
    runbooks = list(dict.fromkeys([*linked, *analysis.symptom_runbooks[:2], *about]))
    refused = _conditional_actions(analysis)
    if root is not None and root.candidate.kind is CauseKind.CHANGE:
        revert = _revert(root.candidate, runbooks, refused)
        if revert is not None:
            steps[revert[0]] = revert[1]
    wanted = Section.REMEDY if root is not None else Section.CHECK
    pattern = _ACTION if root is not None else _CHECK
    for runbook in runbooks:
        for call_id, block, text in runbook.parts(wanted):
            for sentence in _sentences(text):
                if not pattern.search(sentence) or sentence in refused:
                    continue
                steps.setdefault(
                    clip(f"{sentence} (runbook: {runbook.title})"),
                    [{"tool_call_id": call_id, "item_ref": block.ref}],
                )
    return [{"text": text, "citations": citations} for text, citations in steps.items()]


def _remedies(runbook: Runbook, candidate: Candidate) -> bool:
    """Whether a runbook's remedy speaks of the candidate: names it, or its kind and subject."""
    text = "\n".join(t for _, _, t in runbook.parts(Section.REMEDY))
    if not text:
        return False
    if named_in(fold(text), candidate.entities | candidate.services):
        return True
    words = content_words(text)
    return bool(words & KIND_WORDS[candidate.kind]) and bool(words & candidate.words)


def _conditional_actions(analysis: Analysis) -> set[str]:
    """Sentences whose action a runbook makes conditional on what the evidence shows false."""
    return {
        a.contradiction.condition.sentence
        for a in analysis.assessments
        if a.contradiction is not None and not a.contradiction.condition.prohibits
    }


def _revert(
    root: Candidate, runbooks: list[Runbook], refused: set[str]
) -> tuple[str, list[Citation]] | None:
    """ "Revert <change>", when a runbook's remedy says to revert a change of this kind."""
    table = root.table
    assert table is not None
    for runbook in runbooks:
        for call_id, block, sentence in runbook.remedies():
            if sentence in refused or not _ROLLBACK.search(sentence):
                continue
            words = content_words(sentence)
            if not (words & KIND_WORDS[CauseKind.CHANGE] or words & root.words):
                continue
            on = f" on {root.value(table.service_column)}" if table.service_column else ""
            ident = root.value(table.ident_column) or "the change"
            pair = table.value_pair
            if pair is not None:
                subject = root.value(table.subject_column) or pair[0]
                text = (
                    f"Revert {ident}: set {subject}{on} back to {root.value(pair[0])} "
                    f"(now {root.value(pair[1])}), as '{runbook.title}' prescribes."
                )
            else:
                text = f"Revert the {table.singular_label} {ident}{on}, as '{runbook.title}' prescribes."
            citations = [
                {"tool_call_id": call_id, "item_ref": block.ref},
                {"tool_call_id": root.exchange.call_id, "item_ref": root.ref},
            ]
            return clip(text), citations
    return None


def _sentences(text: str) -> list[str]:
    # A sentence the excerpt cut off ("…") would be quoted as something it does not say.
    return [s for s in sentences(text) if len(s) >= 20 and not s.endswith("…")]
