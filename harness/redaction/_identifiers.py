"""Identifiers taken from data, in the order that keeps them safe: derive, redact, then key
(private to :mod:`harness.redaction`).

A service name read from a log line becomes a key (a query filter, a grouping, a label the
model sees). Slugging it first would fold a secret into the key (``checkout-api
password=hunter2`` → ``checkout-api-password-hunter2``) where no rule recognises it any more.
So the identifier is first *derived* from the raw value (a pod's name → its workload, which is
what the diagnosis needs and holds no per-instance part), then *redacted* with the same rules
as every other text, and only then *keyed*: the first word that is left, slugged. A value that
redaction takes whole becomes a key naming its class (``redacted-email``), never its text.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from harness.redaction._hosts import POD_NAME_RE
from harness.redaction._placeholders import PLACEHOLDER_RE

__all__ = ["identifier_key", "workload_of"]

# A Deployment's pod name: the workload, the pod template hash, the pod's own suffix.
_POD_WHOLE = re.compile(r"(?P<workload>[a-z][a-z0-9]*(?:-[a-z0-9]+)*)-[a-z0-9]{6,10}-[a-z0-9]{5}")
_PLACEHOLDER = re.compile(PLACEHOLDER_RE)
_KEY_CHARS = re.compile(r"[^A-Za-z0-9._-]+")
_MAX_KEY = 64
# How a key ends before its value (``token: <SECRET>``).
_KEY_ENDS = ("=", ":", "=>", "->")


def workload_of(name: str) -> str:
    """The workload a pod name belongs to (``checkout-api-7d9f8b6c5-x2x9q`` → ``checkout-api``);
    any other name unchanged."""
    if POD_NAME_RE.fullmatch(name):
        match = _POD_WHOLE.fullmatch(name)
        if match is not None:
            return match.group("workload")
    return name


def identifier_key(text: str, redact: Callable[[str], str]) -> str:
    """``text`` as a key of 1-64 characters of ``[A-Za-z0-9._-]``: derived, redacted, keyed.

    Each word is derived (:func:`workload_of`), the whole redacted, and the key is what comes
    before the first placeholder, less the word that led up to it (the ``password=`` of
    ``checkout-api password=<SECRET>``): what redaction took, and the key naming it, are not
    part of a name. A text that redaction takes from its start keys as the class it was
    replaced by: ``<EMAIL>`` → ``redacted-email``.
    """
    words = text.split()
    if not words:
        return "unknown"
    redacted = redact(" ".join(map(workload_of, words)))
    placeholder = _PLACEHOLDER.search(redacted)
    if placeholder is not None:
        head = redacted[: placeholder.start()]
        glued = bool(head) and not head[-1].isspace()
        head = head.rstrip()
        if glued or head.endswith(_KEY_ENDS):
            head = head.rsplit(None, 1)[0] if head.split()[:-1] else ""
        if not head.strip():
            return "redacted-" + placeholder.group(0).strip("<>").lower()
        redacted = head
    return _KEY_CHARS.sub("-", redacted).strip("-._")[:_MAX_KEY] or "unknown"
