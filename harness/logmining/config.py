"""Tuning and result types of the template miner, and the generic masks."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

__all__ = [
    "DEFAULT_DELIMITERS",
    "DEFAULT_MASKS",
    "HEX_LITERAL_MASK",
    "IPV4_MASK",
    "IPV6_MASK",
    "LONG_HEX_MASK",
    "NUMBER_MASK",
    "UUID_MASK",
    "WILDCARD",
    "MinedTemplate",
    "MinerConfig",
    "template_id_of",
]

WILDCARD = "<*>"

# Patterns for values that are variable in any log. Order matters: the alternation tries them
# left to right, so the most specific shapes (UUIDs, IPs) come before bare numbers.
UUID_MASK = r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"
# IPv6, full or compressed (at least two colons, so clock times do not match), opt. [..]:port.
IPV6_MASK = (
    r"(?<![\w:.])(?:\[(?:[0-9a-fA-F]{0,4}:){2,7}[0-9a-fA-F]{0,4}\](?::\d{1,5})?"
    r"|(?:[0-9a-fA-F]{1,4}:){7}[0-9a-fA-F]{1,4}"
    r"|(?:[0-9a-fA-F]{1,4}:){1,6}:(?:[0-9a-fA-F]{1,4}:){0,5}[0-9a-fA-F]{1,4})(?![\w:])"
)
# IPv4. A port is masked on its own as a number, so ``10.0.0.1:5432`` and ``db-3:5432``
# tokenise alike (``<*> : <*>``) and can share a template.
IPV4_MASK = r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w.])"
HEX_LITERAL_MASK = r"\b0[xX][0-9a-fA-F]+\b"
# Long hex ids (block ids, hashes, session ids) holding both a digit and a letter.
LONG_HEX_MASK = r"\b(?=[0-9a-fA-F]*\d)(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{8,}\b"
# Numbers as whole words: integers, decimals, dotted versions, signed values, optionally with
# a unit of time or size (3000ms, 1.5s, 64KB).
NUMBER_MASK = (
    r"(?<![\w.])[-+]?\d+(?:[.,]\d+)*"
    r"(?:ns|us|µs|ms|s|sec|secs|m|min|mins|h|hrs|d|[kKMGT]i?[bB]?|bytes|B)?(?![\w])"
)
DEFAULT_MASKS: tuple[str, ...] = (
    UUID_MASK,
    IPV6_MASK,
    IPV4_MASK,
    HEX_LITERAL_MASK,
    LONG_HEX_MASK,
    NUMBER_MASK,
)

# Characters that separate tokens besides whitespace; they become tokens of their own so that
# ``user=root`` and ``port:22`` compare position by position.
DEFAULT_DELIMITERS = "=:,;()[]{}\"'|"


@dataclass(frozen=True, kw_only=True)
class MinerConfig:
    """Tuning of the template miner. The defaults are generic, not fitted to one log source.

    Attributes:
        similarity_threshold: Minimum share of a template's constant tokens a line must equal to
            join that template's cluster.
        depth: Depth of the parse tree, counting the root and the token-count layer; ``depth - 2``
            leading tokens route a line to its leaf.
        max_children: Fan-out limit per internal node; overflowing tokens share a wildcard branch.
        max_clusters_per_leaf: Clusters kept per leaf before new lines are forced into the best one.
        extra_masks: Additional regular expressions whose matches become ``<*>``.
        delimiters: Characters split off as tokens of their own (besides whitespace).
        mask_digit_tokens: Treat any token that still holds a digit as variable; it keeps its
            text in the template until two lines disagree on it.
        merge_templates: Fold clusters whose constant words are equal once variables are
            dropped (an empty or repeated variable changes the token count, not the event).
    """

    similarity_threshold: float = 0.7
    depth: int = 4
    max_children: int = 100
    max_clusters_per_leaf: int = 1000
    extra_masks: tuple[str, ...] = ()
    delimiters: str = DEFAULT_DELIMITERS
    mask_digit_tokens: bool = True
    merge_templates: bool = True


@dataclass(frozen=True, kw_only=True)
class MinedTemplate:
    """A template and its stable id.

    Attributes:
        template_id: Short hash of ``template``; equal texts give equal ids in any process.
        template: The template text with ``<*>`` for variable parts.
    """

    template_id: str
    template: str


def template_id_of(template: str) -> str:
    """Return the stable id of a template text (12 hex digits of its SHA-1)."""
    return hashlib.sha1(template.encode("utf-8"), usedforsecurity=False).hexdigest()[:12]


def template_of_text(text: str) -> MinedTemplate:
    """Return the :class:`MinedTemplate` of a template text."""
    return MinedTemplate(template_id=template_id_of(text), template=text)
