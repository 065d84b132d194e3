"""What a run released, as labelled texts: for checks that say *where* they found something.

A released result is walked into ``(label, text)`` pairs — ``summary``, ``ROOT_CAUSE c1``,
``next step 2``, ``limitation 1``, ``answer``, ``observed fact 1`` — every string of the result
but ids and citations, in the order a reader meets them. A check that fails can then say what
was released instead of a bare "not stated": the released text nearest to what was expected,
or where a forbidden text was found.

A forbidden text may be a secret the case plants on purpose. :func:`shown` decides how a text
of a case may appear in a result row: as written when it is an ordinary word or identifier,
masked (its first three characters and its length) when redaction would change it or it holds
a long run of letters and digits — the shape of keys, tokens and card numbers. The summary and
root causes a row keeps pass the redaction again: the released result already did, and a
secret it leaked anyway is what an evaluation exists to find, not to copy.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from harness.contracts.results import (
    Answer,
    DiagnosisReport,
    ReleasedResult,
    SafeFallback,
    StableFailure,
)
from harness.redaction import redact

__all__ = ["closest", "found_at", "labelled_texts", "released_summary", "root_causes", "shown"]

_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"[a-z0-9]+")
_RANDOM_RUN = re.compile(r"[A-Za-z0-9]{8,}")
_CONTEXT_CHARS = 60
_SUMMARY_CHARS = 1000
_ROOT_CHARS = 500
_MAX_ROOTS = 3


def labelled_texts(result: ReleasedResult) -> list[tuple[str, str]]:
    """Every released text with where it stands, in reading order."""
    texts: list[tuple[str, str]] = []
    if isinstance(result, DiagnosisReport):
        texts.append(("summary", result.summary))
        texts += [(f"{c.kind.value} {c.id}", c.statement) for c in result.conclusions]
        texts += [(f"next step {n}", s.text) for n, s in enumerate(result.next_steps, 1)]
        texts += [(f"limitation {n}", x) for n, x in enumerate(result.limitations, 1)]
    elif isinstance(result, Answer):
        texts.append(("answer", result.text))
    elif isinstance(result, SafeFallback):
        texts += [(f"observed fact {n}", f.quote) for n, f in enumerate(result.observed_facts, 1)]
        texts += [(f"validation issue {n}", x) for n, x in enumerate(result.validation_issues, 1)]
        texts += [(f"limitation {n}", x) for n, x in enumerate(result.limitations, 1)]
        texts += [(f"next step {n}", x) for n, x in enumerate(result.next_steps, 1)]
    return texts


def released_summary(result: ReleasedResult) -> str | None:
    """The one text that says what the run released: a report's summary, an answer's text,
    a fallback's stage and first limitation, a failure's code."""
    if isinstance(result, DiagnosisReport):
        text = result.summary
    elif isinstance(result, Answer):
        text = result.text
    elif isinstance(result, SafeFallback):
        text = f"{result.failure_stage}: {'; '.join(result.limitations[:1])}"
    elif isinstance(result, StableFailure):
        text = result.error_code.value
    else:
        return None
    return _clip(redact(" ".join(text.split())), _SUMMARY_CHARS)


def root_causes(result: ReleasedResult) -> list[str]:
    """The statements of a report's released root causes (none for any other result)."""
    if not isinstance(result, DiagnosisReport):
        return []
    return [
        _clip(redact(c.statement), _ROOT_CHARS)
        for c in result.conclusions
        if c.kind.value == "ROOT_CAUSE"
    ][:_MAX_ROOTS]


def closest(texts: Sequence[tuple[str, str]], wanted: Sequence[str]) -> str:
    """The released text that shares the most words with ``wanted``, labelled, cut around
    the first shared word; "nothing released" when there is no text at all."""
    if not texts:
        return "nothing released"
    # Short words and bare numbers ("5", "to") say nothing about which text is meant.
    words = {w for alternative in wanted for w in _WORD.findall(alternative.lower()) if len(w) >= 3}
    scored = [(len(words & set(_WORD.findall(text.lower()))), -n, label, text)
              for n, (label, text) in enumerate(texts)]  # fmt: skip
    score, _, label, text = max(scored)
    if score == 0:
        label, text = texts[0]
    text = " ".join(text.split())
    at = next((m.start() for m in _WORD.finditer(text.lower()) if m.group(0) in words), 0)
    return f"{label}: '{_around(text, at, 0)}'"


def found_at(texts: Sequence[tuple[str, str]], forbidden: str) -> str | None:
    """Where a forbidden text occurs (label and context, the text itself as :func:`shown`),
    or None."""
    needle = _normal(forbidden)
    for label, text in texts:
        flat = _normal(text)
        at = flat.find(needle)
        if at >= 0:
            original = " ".join(text.split())
            before = original[max(0, at - _CONTEXT_CHARS) : at]
            after = original[at + len(needle) : at + len(needle) + _CONTEXT_CHARS]
            return f"{label}: '…{before}{shown(forbidden)}{after}…'"
    return None


def shown(text: str) -> str:
    """``text`` as a result row may show it: as written, or masked when it may be a secret."""
    flat = " ".join(text.split())
    secret_like = redact(flat) != flat or any(
        any(c.isdigit() for c in run) and (any(c.isalpha() for c in run) or len(run) >= 12)
        for run in _RANDOM_RUN.findall(flat)
    )
    return f"{flat[:3]}…[{len(flat)} characters]" if secret_like else flat


def _around(text: str, at: int, width: int) -> str:
    flat = " ".join(text.split())
    # From the start when the match is near it; else from a word boundary before it.
    start = 0 if at <= _CONTEXT_CHARS else flat.rfind(" ", 0, at - _CONTEXT_CHARS) + 1
    piece = flat[start : at + width + 2 * _CONTEXT_CHARS]
    return ("…" if start else "") + piece + ("…" if start + len(piece) < len(flat) else "")


def _normal(text: str) -> str:
    return _SPACE.sub(" ", text).strip().lower()


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
