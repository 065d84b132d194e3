"""Deterministic grounding pre-check: stated identifiers and numbers must be in the evidence.

A conclusion that says "pool size changed from 40 to 4 at 14:04 (CHG-4821)" must cite
projections in which ``40``, ``4``?, ``14:04`` and ``CHG-4821`` actually appear. Single digits
are too common to check; everything else the regexes pick up is.
"""

from __future__ import annotations

import re

__all__ = ["claimed_tokens", "ungrounded_tokens"]

_PATTERNS = [
    re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?\b"),  # times
    re.compile(r"\b[A-Z][A-Z0-9]+-\d+\b"),  # tickets, change ids: CHG-4821
    re.compile(r"\b[A-Z]{2,}(?:_[A-Z0-9]+)+\b"),  # error codes: DB_POOL_TIMEOUT
    re.compile(r"\b[a-z][a-z0-9_-]*(?:\.[a-z0-9_-]+){2,}\b"),  # dotted keys: spring.datasource.x
    re.compile(r"\b[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*\b(?=\s|$|[,;)])"),  # schema.table
    re.compile(r"(?<![\w.:-])\d{2,}(?:\.\d+)?(?![\w:-])"),  # numbers with two or more digits
]


def claimed_tokens(statement: str) -> list[str]:
    """Identifiers and numbers a statement asserts, in order, without duplicates."""
    seen: dict[str, None] = {}
    taken: list[tuple[int, int]] = []
    for pattern in _PATTERNS:
        for match in pattern.finditer(statement):
            span = match.span()
            if any(s <= span[0] < e or s < span[1] <= e for s, e in taken):
                continue  # already covered by a more specific pattern
            taken.append(span)
            seen.setdefault(match.group(0), None)
    return list(seen)


def ungrounded_tokens(statement: str, evidence_text: str) -> list[str]:
    """The claimed tokens that do not occur in the cited evidence (case-insensitive)."""
    haystack = evidence_text.lower()
    return [token for token in claimed_tokens(statement) if token.lower() not in haystack]
