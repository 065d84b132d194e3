"""Secrets behind escaped separators (private to :mod:`harness.redaction`).

A ``key=value`` pair can hide behind its own escaping: Gson writes ``=`` as ``\\u003d`` and
quotes as ``\\u0022``, and a query parameter carries a whole nested query or JSON body
percent-encoded (``next=%2Fcb%3Fpassword%3DX``, ``body=%7B%22token%22%3A%22X%22%7D``), once
or twice (``%253D``), and HTML escapes its quotes (``&quot;password&quot;:&quot;X&quot;``). No rule
sees a key, a separator and a value there.

So such text is also judged in a *decoded reading*: every escape of a printable ASCII
character replaced by that character, each decoded character remembering the span of the
text it came from. The reading is redacted like any line; each placeholder that redaction put
into it is then put over the escaped span it stands for, and every other character of the
text stays as written (still escaped).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from harness.redaction._placeholders import PLACEHOLDER_RE

__all__ = ["ENCODED_GATE", "encoded_pairs"]

# An escaped separator or quote: without one, nothing can hide behind escaping.
ENCODED_GATE = re.compile(
    r"%(?:25){0,2}(?:3[dDaA]|2[2267])|\\+u00(?:3[dDaA]|2[2267])"
    r"|&(?:quot|apos|#0*(?:61|58|34|39|38)|#[xX]0*(?:3[dDaA]|2[2267]));"
)
# One escape of a printable ASCII character: JSON ``\u00XX`` (its backslash escaped any number
# of times), a percent escape (percent-encoded once more, twice at most: ``%253D``), or an
# HTML character reference (``&quot;``, ``&#61;``, ``&#x3D;``).
_ESCAPE = re.compile(
    r"\\+u00(?P<u>[2-7][0-9a-fA-F])|%(?:25){0,2}(?P<p>[2-7][0-9a-fA-F])"
    r"|&(?:(?P<n>quot|apos|amp|lt|gt)|#[xX]0*(?P<x>[2-7][0-9a-fA-F])|#0*(?P<d>3[2-9]|[4-9]\d|1[01]\d|12[0-6]));"
)
_NAMED = {"quot": '"', "apos": "'", "amp": "&", "lt": "<", "gt": ">"}
_PLACEHOLDER = re.compile(f"({PLACEHOLDER_RE})")
# Aligning the redacted reading with the reading is a backtracking match; a line with more
# placeholders than this is left to the other rules rather than risk a slow match.
_MAX_PLACEHOLDERS = 12


def _decoded(text: str) -> tuple[str, list[int], list[int]]:
    """The decoded reading, and for each of its characters the span of ``text`` it came from."""
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    last = 0
    for found in _ESCAPE.finditer(text):
        for index in range(last, found.start()):
            chars.append(text[index])
            starts.append(index)
            ends.append(index + 1)
        chars.append(_character(found))
        starts.append(found.start())
        ends.append(found.end())
        last = found.end()
    for index in range(last, len(text)):
        chars.append(text[index])
        starts.append(index)
        ends.append(index + 1)
    return "".join(chars), starts, ends


def _character(escape: re.Match[str]) -> str:
    if escape.group("n") is not None:
        return _NAMED[escape.group("n")]
    if escape.group("d") is not None:
        return chr(int(escape.group("d")))
    return chr(int(escape.group("u") or escape.group("p") or escape.group("x"), 16))


def _replaced_spans(reading: str, redacted: str) -> list[tuple[int, int, str]] | None:
    """Where in ``reading`` each placeholder of ``redacted`` stands, or None when unsure.

    Redaction copies every character it does not replace, in order, so the text between two
    placeholders is a substring of the reading; a match of those pieces with a gap for each
    placeholder recovers the replaced spans.
    """
    pieces = _PLACEHOLDER.split(redacted)
    placeholders = pieces[1::2]
    if not placeholders or len(placeholders) > _MAX_PLACEHOLDERS:
        return None
    pattern = "(.+?)".join(re.escape(piece) for piece in pieces[0::2])
    aligned = re.fullmatch(pattern, reading, re.DOTALL)
    if aligned is None:
        return None
    return [
        (aligned.start(group), aligned.end(group), placeholder)
        for group, placeholder in enumerate(placeholders, start=1)
        if aligned.group(group) != placeholder
    ]


def encoded_pairs(text: str, redact_line: Callable[[str], str]) -> str:
    """Mask what redacting the decoded reading of ``text`` masks, over the escaped spans."""
    reading, starts, ends = _decoded(text)
    if reading == text:
        return text
    redacted = redact_line(reading)
    if redacted == reading:
        return text
    spans = _replaced_spans(reading, redacted)
    if not spans:
        return text
    out: list[str] = []
    last = 0
    for start, end, placeholder in spans:
        out.append(text[last : starts[start]])
        out.append(placeholder)
        last = ends[end - 1]
    out.append(text[last:])
    return "".join(out)
