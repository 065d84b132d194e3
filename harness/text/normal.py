"""Normalising text before it is judged: what a reader sees, not how it was encoded.

Checks that decide on text (grounding, the content scanner) must not be fooled by spelling:
NFKC folds full-width and compatibility forms, characters that render as nothing are dropped,
and letters that render like Latin ones (Cyrillic, Greek, Armenian, IPA and small capitals;
Unicode's confusables, restricted to the ones that occur in identifiers and words) fold to
Latin. :func:`plain_lower` also ignores case.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from harness.text.invisible import drop_invisible

__all__ = ["plain", "plain_lower", "visible"]

_CONFUSABLES = str.maketrans(
    {
        "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P",
        "С": "C", "Т": "T", "Х": "X", "У": "Y", "Ѕ": "S", "І": "I", "Ј": "J", "Ԛ": "Q",
        "Ԝ": "W", "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x",
        "ѕ": "s", "і": "i", "ј": "j", "ԛ": "q", "ԝ": "w", "һ": "h", "ԁ": "d", "ɡ": "g",
        "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M",
        "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "ο": "o", "ν": "v",
        "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ι": "i", "κ": "k",
        "օ": "o", "ս": "u", "ɑ": "a", "ı": "i", "ɪ": "i", "ɢ": "g", "ɴ": "n", "ᴏ": "o",
        "ʀ": "r", "ᴇ": "e", "ᴀ": "a", "ʙ": "b", "ᴄ": "c", "ᴅ": "d", "ꜰ": "f", "ʜ": "h",
        "ᴊ": "j", "ᴋ": "k", "ʟ": "l", "ᴍ": "m", "ᴘ": "p", "ꜱ": "s", "ᴛ": "t", "ᴜ": "u",
        "ᴠ": "v", "ᴡ": "w", "ʏ": "y", "ᴢ": "z",
        "‐": "-", "‑": "-", "‒": "-", "–": "-", "—": "-", "−": "-",
    }
)  # fmt: skip


def visible(text: str) -> str:
    """NFKC with the characters that render as nothing dropped (:data:`~harness.text.INVISIBLE`):
    the characters a reader sees."""
    return drop_invisible(unicodedata.normalize("NFKC", text))


@lru_cache(maxsize=8192)
def plain(text: str) -> str:
    """:func:`visible`, with look-alike letters folded to Latin; case kept.

    Folding look-alikes suits Latin-script checks; text in a script that shares those letters
    (Russian) is better judged on :func:`visible`, so a check may look at both.
    """
    return visible(text).translate(_CONFUSABLES)


def plain_lower(text: str) -> str:
    """:func:`plain`, in lower case."""
    return plain(text).lower()
