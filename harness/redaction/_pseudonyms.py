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
template ids among them, keeps its identity); :meth:`Pseudonyms.apply` then reads which span of
the original each placeholder replaced — redaction only replaces spans, so the text between
placeholders is the original's own — and numbers it.
"""

from __future__ import annotations

import re
import threading

from harness.redaction._placeholders import HOST, IP, PLACEHOLDER_RE, POD

__all__ = ["PSEUDONYMOUS", "Pseudonyms"]

PSEUDONYMOUS = (HOST, POD, IP)
"""The placeholders numbered per run: identifiers a diagnosis links events by."""

_PLACEHOLDER = re.compile(PLACEHOLDER_RE)
# An address's port is where it was reached, not which machine it is.
_PORT = re.compile(
    r"^(?P<ip>\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$|^\[(?P<ip6>[0-9A-Fa-f:.]+)\]:\d{1,5}$"
)
# Longest text matched back (a log message is far shorter; matching grows with it).
_MAX_TEXT = 16384


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
        if not any(p in redacted for p in PSEUDONYMOUS) or len(original) > _MAX_TEXT:
            return redacted
        pieces = _PLACEHOLDER.split(redacted)
        kinds = _PLACEHOLDER.findall(redacted)
        found = re.fullmatch("(.+?)".join(map(re.escape, pieces)), original, re.DOTALL)
        if found is None:
            return redacted
        out = [pieces[0]]
        for kind, value, piece in zip(kinds, found.groups(), pieces[1:], strict=True):
            # A value that was a placeholder already (a template's word the miner's guard
            # redacted) names no one value: it stays the class.
            numbered = kind in PSEUDONYMOUS and _PLACEHOLDER.fullmatch(value) is None
            out.append(self.token(kind, value) if numbered else kind)
            out.append(piece)
        return "".join(out)

    def counts(self) -> dict[str, int]:
        """How many distinct values of each class the run has seen (no value itself)."""
        with self._lock:
            return {kind: len(table) for kind, table in self._tables.items()}


def _key(placeholder: str, value: str) -> str:
    if placeholder == IP:
        port = _PORT.match(value)
        if port is not None:
            return port.group("ip") or port.group("ip6")
        return value.lower()
    return value.lower().rstrip(".")
