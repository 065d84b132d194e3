"""Per-run pseudonyms for the identifiers redaction hides: ``<HOST#1>``, ``<POD#2>``, ``<IP#1>``
(private to :mod:`harness.redaction`).

Redaction replaces every host with one ``<HOST>``, so a reader cannot tell that two events
concern the same machine. A :class:`Pseudonyms` table, held by one run (or one command's
invocation), numbers each distinct value of a class by its first appearance: the same value
gives the same token for the run's whole life, two values give two tokens, and a new table
starts again at 1. The token is a counter, never a digest of the value, so nothing about the
value can be learned or matched across runs; the table itself (value → number) stays in the
run's memory and is never shown.

The rules stay as they are (they write ``<HOST>``, and everything keyed on a redacted text,
template ids and evidence identities among them, keeps its identity); the span of the original
each placeholder replaced is read back — redaction only replaces spans, so the text between
placeholders is the original's own — and numbered.

Projectors are stateless tasks that cannot hold a run's table, and the calls of one turn finish
in any order. So a projector does not number: a :class:`PseudonymMarks` (one per projection)
writes a *mark* in place of each numbered placeholder (``<HOST~9f3a61.2>``: a random nonce of
the projection and the index of the value in the marks' own list) and hands the values back
beside the observation, inside the harness. The run's :class:`Pseudonyms` then resolves every
mark to the run's token (:meth:`Pseudonyms.resolve`) before anyone sees the observation. Text
from the data that imitates a mark cannot name a value: it would have to guess the nonce, which
is drawn after the data was written, and a mark whose nonce or index is not the projection's own
becomes the bare class. A mark is longer than the token it becomes, so an observation that fit
its byte bound with marks still fits once resolved, and :func:`without_partial_mark` keeps a cut
from leaving half a mark behind.
"""

from __future__ import annotations

import re
import secrets
import threading
from collections.abc import Callable, Sequence

from harness.redaction._placeholders import HOST, IP, PLACEHOLDER_RE, POD

__all__ = [
    "PSEUDONYMOUS",
    "PseudonymMarks",
    "Pseudonyms",
    "identifiers",
    "without_partial_mark",
]

PSEUDONYMOUS = (HOST, POD, IP)
"""The placeholders numbered per run: identifiers a diagnosis links events by."""

_PLACEHOLDER = re.compile(PLACEHOLDER_RE)
_MARK = re.compile(r"<(HOST|POD|IP)~([0-9a-f]{6})\.(\d{1,6})>")
# The start of a mark that a cut ended inside (``…<HOST~9f3a``).
_PARTIAL_MARK = re.compile(
    r"<(?:H(?:O(?:S(?:T(?:~[0-9a-f.]*)?)?)?)?|P(?:O(?:D(?:~[0-9a-f.]*)?)?)?"
    r"|I(?:P(?:~[0-9a-f.]*)?)?)?$"
)
# An address's port is where it was reached, not which machine it is.
_PORT = re.compile(
    r"^(?P<ip>\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$|^\[(?P<ip6>[0-9A-Fa-f:.]+)\]:\d{1,5}$"
)
# Longest text matched back (a log message is far shorter; matching grows with it).
_MAX_TEXT = 16384
# Most values one projection marks; past it a placeholder stays the class.
_MAX_MARKS = 100_000


class Pseudonyms:
    """One run's table of pseudonyms (see the module docstring). Safe to share between the
    threads of one run."""

    __slots__ = ("_lock", "_tables")

    def __init__(self) -> None:
        self._tables: dict[str, dict[str, int]] = {kind: {} for kind in PSEUDONYMOUS}
        self._lock = threading.Lock()

    def token(self, placeholder: str, value: str) -> str:
        """The run's token for ``value`` of the class ``placeholder`` (``<HOST>`` → ``<HOST#n>``)."""
        key = _key(placeholder, value)
        with self._lock:
            table = self._tables[placeholder]
            number = table.get(key)
            if number is None:
                number = table[key] = len(table) + 1
        return f"{placeholder[:-1]}#{number}>"

    def apply(self, original: str, redacted: str) -> str:
        """``redacted`` (the redaction of ``original``) with each host, pod and IP numbered.

        When the spans cannot be read back (a text too long, or one that does not match), the
        placeholders are left as they are: a pseudonym is never guessed.
        """
        return _named(redacted, identifiers(original, redacted), self.token)

    def resolve(self, text: str, nonce: str, values: Sequence[tuple[str, str]]) -> str:
        """``text`` with every mark of one projection (``nonce``, ``values``: what its
        :class:`PseudonymMarks` recorded) replaced by the run's token; a mark that is not the
        projection's own becomes its bare class."""
        if "~" not in text:
            return text

        def token(found: re.Match[str]) -> str:
            kind = f"<{found.group(1)}>"
            index = int(found.group(3))
            if found.group(2) != nonce or index >= len(values) or values[index][0] != kind:
                return kind
            return self.token(kind, values[index][1])

        return _MARK.sub(token, text)

    def counts(self) -> dict[str, int]:
        """How many distinct values of each class the run has seen (no value itself)."""
        with self._lock:
            return {kind: len(table) for kind, table in self._tables.items()}


class PseudonymMarks:
    """The marks of one projection (see the module docstring): the projector calls
    :meth:`mark` on each text it shows and returns :attr:`nonce` and :attr:`values` beside the
    observation; the run resolves them. Not shared between threads."""

    __slots__ = ("_index", "nonce", "values")

    def __init__(self) -> None:
        self.nonce = secrets.token_hex(3)
        self.values: list[tuple[str, str]] = []
        self._index: dict[tuple[str, str], int] = {}

    def mark(self, original: str, redacted: str) -> str:
        """``redacted`` (the redaction of ``original``) with each host, pod and IP marked."""
        return _named(redacted, identifiers(original, redacted), self._mark)

    def mark_known(self, redacted: str, values: Sequence[str | None] | None) -> str:
        """``redacted`` marked from values read back earlier (:func:`identifiers`)."""
        return _named(redacted, values, self._mark)

    def _mark(self, placeholder: str, value: str) -> str:
        key = (placeholder, _key(placeholder, value))
        index = self._index.get(key)
        if index is None:
            if len(self.values) >= _MAX_MARKS:
                return placeholder
            index = self._index[key] = len(self.values)
            self.values.append(key)
        return f"{placeholder[:-1]}~{self.nonce}.{index}>"


def without_partial_mark(text: str) -> str:
    """``text`` (a cut) without the start of a mark it ends inside, so a cut never shows half
    of one: ``…failed on <HOST~9f3`` → ``…failed on ``."""
    if "<" not in text[-16:]:
        return text
    return _PARTIAL_MARK.sub("", text)


def identifiers(original: str, redacted: str) -> tuple[str | None, ...] | None:
    """For each placeholder of ``redacted`` (the redaction of ``original``), in order, the
    value it replaced when it is a host, pod or IP, else None; None when there is nothing to
    number or the spans cannot be read back. Only identifiers, never a secret: what a cache
    of redacted text may keep to number that text later (:meth:`PseudonymMarks.mark_known`)."""
    if not any(p in redacted for p in PSEUDONYMOUS) or len(original) > _MAX_TEXT:
        return None
    pieces = _PLACEHOLDER.split(redacted)
    values = _spans(original, pieces)
    if values is None:
        return None
    # A value that was a placeholder already (a template's word the miner's guard redacted)
    # names no one value: it stays the class.
    return tuple(
        value if kind in PSEUDONYMOUS and _PLACEHOLDER.fullmatch(value) is None else None
        for kind, value in zip(_PLACEHOLDER.findall(redacted), values, strict=True)
    )


def _named(
    redacted: str, values: Sequence[str | None] | None, name: Callable[[str, str], str]
) -> str:
    if values is None:
        return redacted
    pieces = _PLACEHOLDER.split(redacted)
    kinds = _PLACEHOLDER.findall(redacted)
    if len(kinds) != len(values):
        return redacted
    out = [pieces[0]]
    for kind, value, piece in zip(kinds, values, pieces[1:], strict=True):
        out.append(kind if value is None else name(kind, value))
        out.append(piece)
    return "".join(out)


def _spans(original: str, pieces: list[str]) -> list[str] | None:
    """The spans of ``original`` that the placeholders between ``pieces`` replaced.

    Each value is the shortest non-empty span before the next piece (what a lazy regex would
    take), found with ``str.find``; when that does not account for the whole original (the
    placement is ambiguous) the regex with backtracking decides, and None means no placement.
    """
    first = pieces[0]
    if not original.startswith(first):
        return None
    position = len(first)
    values: list[str] = []
    last = len(pieces) - 1
    for number, piece in enumerate(pieces[1:], start=1):
        if number == last:
            end = len(original) - len(piece)
            if end <= position or not original.endswith(piece):
                break
        elif not piece:
            break  # two placeholders side by side: only backtracking can split them
        else:
            end = original.find(piece, position + 1)
            if end < 0:
                break
        values.append(original[position:end])
        position = end + len(piece)
    else:
        if position == len(original):
            return values
    found = re.fullmatch("(.+?)".join(map(re.escape, pieces)), original, re.DOTALL)
    return None if found is None else list(found.groups())


def _key(placeholder: str, value: str) -> str:
    if placeholder == IP:
        port = _PORT.match(value)
        if port is not None:
            return port.group("ip") or port.group("ip6")
        return value.lower()
    return value.lower().rstrip(".")
