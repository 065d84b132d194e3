"""Injected instructions: text addressed to a model, planted in the data it reads.

Tool data (a log line, a database value, a runbook excerpt) can carry text written by an
attacker, and the agent may quote it. :func:`injection` recognises instruction-shaped text:
text addressed to a model or an agent (override and role markers, directives about "your
reply", hidden-instruction wrappers, tool-steering, exfiltration and credential requests,
notes addressed to an AI or LLM reader, forged tool results and outcomes, a download piped
into a shell), judged on every reading of the text (:mod:`harness.textcheck.readings`: tag
characters, spaced letters, digits for letters, base64…). A hit anywhere in a report
downgrades it to a SafeFallback.

The rules name classes of attack, not payloads: each is a row of
:data:`~harness.textcheck.tables.INJECTION_RULES` with the inputs it must and must not match.
"""

from __future__ import annotations

from harness.textcheck.readings import readings
from harness.textcheck.rulebook import RuleBook
from harness.textcheck.tables import INJECTION_RULES

__all__ = ["injection"]

_INJECTIONS = RuleBook(INJECTION_RULES)


def injection(text: str) -> str | None:
    """The class of the first injection rule that matches ``text``, on the first of its
    readings that any rule matches, or None."""
    for reading in readings(text, _INJECTIONS.words):
        found = _INJECTIONS.first(reading)
        if found is not None:
            return found.category
    return None
