"""One set of invisible characters: the regex class, the predicate and the drop agree on it."""

from __future__ import annotations

import re
import sys

from harness.text import INVISIBLE, INVISIBLE_CLASS, drop_invisible, is_invisible, visible

# What the checks listed each on their own before they shared one set: the set is their union.
_EARLIER_SETS = (
    "\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff\u00ad\u034f\u180e",
    "\u200b\u200c\u200d\u2060\ufeff\u180e\u200e\u200f\u061c\u2061\u2062\u2063\u2064",
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufe00\ufe0f\u3164\u115f\u1160\uffa0",
    "".join(map(chr, range(0xE0000, 0xE0080))),
)


def test_the_set_holds_every_character_the_checks_listed_before() -> None:
    for listed in _EARLIER_SETS:
        assert set(listed) <= INVISIBLE


def test_the_regex_class_matches_exactly_the_set() -> None:
    pattern = re.compile(f"[{INVISIBLE_CLASS}]")
    matched = {chr(c) for c in range(sys.maxunicode + 1) if pattern.fullmatch(chr(c))}
    assert matched == INVISIBLE


def test_nothing_visible_is_in_the_set() -> None:
    for char in "a Z 0 \t\n\u00a0\u3000-_.é密":
        assert not is_invisible(char)
        assert drop_invisible(char) == char


def test_every_invisible_character_is_dropped_from_what_a_reader_sees() -> None:
    text = "pass" + "".join(sorted(INVISIBLE)) + "word"
    assert drop_invisible(text) == "password"
    assert visible(text) == "password"
