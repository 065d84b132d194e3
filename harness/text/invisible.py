"""Characters that render as nothing: one set for every check that must see past them.

A secret's key spelled ``pass\\u200bword``, an instruction hidden behind bidirectional
overrides, a link split by a soft hyphen: each check that reads text must skip, drop or show
the same characters, or an attacker picks the one a check forgot. The set is the union of
what the checks used to list each on their own:

- zero-width spaces and joiners (U+200B-U+200D, U+2060, U+FEFF), the soft hyphen (U+00AD),
  the combining grapheme joiner (U+034F), the Mongolian vowel separator (U+180E);
- direction marks, embeddings, overrides and isolates (U+200E, U+200F, U+061C,
  U+202A-U+202E, U+2066-U+2069) and the deprecated format controls (U+206A-U+206F);
- invisible operators (U+2061-U+2064) and the unassigned U+2065 of that block;
- variation selectors (U+FE00-U+FE0F) and Hangul fillers (U+115F, U+1160, U+3164, U+FFA0);
- tag characters (U+E0000-U+E007F), which mirror ASCII and render as nothing: a check that
  reads them as the ASCII they mirror does so before it drops the rest.
"""

from __future__ import annotations

__all__ = ["INVISIBLE", "INVISIBLE_CLASS", "drop_invisible", "is_invisible"]

_CODE_POINTS: tuple[int, ...] = (
    0x00AD, 0x034F, 0x061C, 0x115F, 0x1160, 0x180E, *range(0x200B, 0x2010),
    *range(0x202A, 0x202F), *range(0x2060, 0x2070), 0x3164, *range(0xFE00, 0xFE10), 0xFEFF,
    0xFFA0, *range(0xE0000, 0xE0080),
)  # fmt: skip

INVISIBLE: frozenset[str] = frozenset(map(chr, _CODE_POINTS))
"""Every character that renders as nothing."""


def _ranges(points: tuple[int, ...]) -> str:
    parts: list[str] = []
    start = previous = points[0]
    for point in (*points[1:], -2):
        if point == previous + 1:
            previous = point
            continue
        parts.append(chr(start) if start == previous else f"{chr(start)}-{chr(previous)}")
        start = previous = point
    return "".join(parts)


INVISIBLE_CLASS: str = _ranges(tuple(sorted(_CODE_POINTS)))
"""The body of a regex character class of :data:`INVISIBLE` (``f"[{INVISIBLE_CLASS}]"``)."""

_DROP = dict.fromkeys(_CODE_POINTS)


def is_invisible(char: str) -> bool:
    """Whether ``char`` renders as nothing."""
    return char in INVISIBLE


def drop_invisible(text: str) -> str:
    """``text`` without the characters that render as nothing."""
    return text.translate(_DROP)
