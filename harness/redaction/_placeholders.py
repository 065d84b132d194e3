"""The placeholders redaction writes in place of what it removes (private to
:mod:`harness.redaction`).

A placeholder is never matched again by any rule (each pattern refuses to start at one), which
keeps redaction idempotent.
"""

from __future__ import annotations

__all__ = ["EMAIL", "HOST", "IP", "PID", "PLACEHOLDERS", "PLACEHOLDER_RE", "POD", "SECRET"]

SECRET = "<SECRET>"

POD = "<POD>"

HOST = "<HOST>"

IP = "<IP>"

PID = "<PID>"

EMAIL = "<EMAIL>"

PLACEHOLDERS = (SECRET, POD, HOST, IP, PID, EMAIL)

# A placeholder, as a regex (``(?!...)`` before a value keeps a rule from taking one).
PLACEHOLDER_RE = r"<(?:SECRET|POD|HOST|IP|PID|EMAIL)>"
