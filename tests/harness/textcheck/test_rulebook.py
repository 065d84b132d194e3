"""A rule book runs an alternative only where its anchors occur: the same matches as each
rule's whole pattern, found with less work."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.textcheck.commands import _DANGEROUS
from harness.textcheck.injections import _INJECTIONS
from harness.textcheck.rulebook import (
    UNFOLDED,
    Located,
    RuleBook,
    Starts,
    TextRule,
    alternatives,
    anchors_of,
    clauses_of,
    folds,
    starts_of,
)


def test_top_level_alternatives_split_outside_groups_and_classes() -> None:
    assert alternatives(r"\b(x|y)z|[|]q|\bw\|v|\bu") == [r"\b(x|y)z", "[|]q", r"\bw\|v", r"\bu"]
    assert alternatives("a") == ["a"]


def test_anchors_are_literals_every_match_contains() -> None:
    assert anchors_of(r"\brm\s+-r") == frozenset({"rm"})
    # Every element of a sequence is required; the longer literal tells more.
    assert anchors_of(r"(drop|truncate)\s+table\b", re.I) == frozenset({"table"})
    assert anchors_of(r"(drop|truncate)\s+x", re.I) == frozenset({"drop", "truncate"})
    # The most telling element is kept: "acknowledge|validate|confirm", not "to".
    assert anchors_of(r"\bto\s+(acknowledge|validate|confirm)\s+x", re.I) == frozenset(
        {"acknowledge", "validate", "confirm"}
    )
    # Optional elements give none; a branch without a literal gives none for the whole.
    assert anchors_of(r"(sudo\s+)?\s*") is None
    assert anchors_of(r"(ab|\d+)") is None
    # A prefix the parser factors out of an alternation is joined back to each branch.
    assert anchors_of(r"\b(nc|ncat|netcat)\s+-e", re.I) == frozenset({"nc", "ncat", "netcat"})
    assert anchors_of(r"\b(nc|n\d)\s") is None
    # Case-insensitive literals are compared in lower case.
    assert anchors_of(r"DROP\s+X", re.I) == frozenset({"drop"})


WORDS = [
    "rm",
    "-rf",
    "/",
    "drop",
    "table",
    "delete",
    "from",
    "kubectl",
    "delete",
    "ignore",
    "all",
    "previous",
    "instructions",
    "system:",
    "assistant",
    "you",
    "are",
    "now",
    "curl",
    "|",
    "sh",
    "chmod",
    "777",
    "where",
    "1=1",
    "note",
    "to",
    "the",
    "ai",
    "tell",
    "the",
    "operator",
    "to",
    "run",
    "email",
    "send",
    "the",
    "password",
    "to",
    "https://x.example",
    "![a](http://x)",
    "iex",
    "base64",
    "-d",
]
TEXT = st.lists(
    st.one_of(st.sampled_from(WORDS), st.text(alphabet="abcDEF -_/.:;|$()'\"019\n", max_size=8)),
    max_size=16,
).map(" ".join)


def _finditer(rule: TextRule, text: str, hits: frozenset[str]) -> Iterator[re.Match[str]]:
    """The matches of each alternative of ``rule`` that has no anchors or one of them in
    ``hits``, alternative by alternative: what an anchor filter should run, one rule at a time."""
    for source in alternatives(rule.pattern):
        anchors, pattern = _parsed(source)
        if anchors is None or not anchors.isdisjoint(hits):
            yield from pattern.finditer(text)


@cache
def _parsed(source: str) -> tuple[frozenset[str] | None, re.Pattern[str]]:
    return anchors_of(source, re.IGNORECASE), re.compile(source, re.IGNORECASE)


# No deadline: the first example compiles every pattern of both books.
@settings(max_examples=400, deadline=None)
@given(TEXT)
def test_every_rule_book_finds_what_its_whole_patterns_find(text: str) -> None:
    for book in (_INJECTIONS, _DANGEROUS):
        hits = book.hits(text)
        for rule in book.rules:
            found = next(_finditer(rule, text, hits), None) is not None
            assert found is (rule.regex.search(text) is not None), (text, rule.id)


@settings(max_examples=400, deadline=None)
@given(TEXT)
def test_a_rule_book_matches_as_its_rules_do_one_after_another(text: str) -> None:
    for book in (_INJECTIONS, _DANGEROUS):
        hits = book.hits(text)
        expected = [
            (rule.id, match.span()) for rule in book.rules for match in _finditer(rule, text, hits)
        ]
        assert [(rule.id, match.span()) for rule, match in book.matches(text)] == expected


def _rule(rule_id: str, pattern: str) -> TextRule:
    return TextRule(
        id=rule_id, category=rule_id.upper(), pattern=pattern, description="", examples=(),
        lookalikes=(),
    )  # fmt: skip


def test_a_rule_book_reports_rules_in_order() -> None:
    first, second = _rule("first", r"\bdelete\b"), _rule("second", r"\brm\s+-rf\b")
    book = RuleBook((first, second))
    assert book.first("rm -rf x and delete y") is first
    assert book.first("RM -RF x") is second
    assert book.first("nothing here") is None


def test_an_alternative_is_compiled_only_once_a_text_holds_its_anchors() -> None:
    book = RuleBook((_rule("drop", r"\bdrop\s+database\b|\btruncate\s+\w+"),))
    assert book.first("select 1") is None
    assert book._index.compiled == [None, None]
    assert book.first("TRUNCATE orders") is not None
    assert [pattern is None for pattern in book._index.compiled] == [True, False]


def test_starts_are_the_literals_every_match_begins_with() -> None:
    assert starts_of(r"\b(ignore|disregard)\s+x", re.I) == Starts(
        frozenset({"ignore", "disregard"})
    )
    # An optional element adds the starts of what follows it; literals join.
    assert starts_of(r"(ba|z)?sh\s+-c", re.I) == Starts(frozenset({"bash", "zsh", "sh"}))
    assert starts_of(r"\b(the\s+)?(correct|real)\s", re.I) == Starts(
        frozenset({"the", "correct", "real"})
    )
    # A start that begins with another adds no position.
    assert starts_of(r"\b(do\s+not|don['’]?t)\s", re.I) == Starts(frozenset({"do"}))
    # A start is cut before a character whose lower case does not say what it matches.
    assert starts_of(r"\b(prüfe|check|dıe)\b", re.I) == Starts(frozenset({"prüfe", "check", "d"}))
    # ``^`` first: that way begins at the beginning of the text.
    assert starts_of(r"(^|[\n>])\s*x", re.I) == Starts(frozenset({"\n", ">"}), at_beginning=True)
    # A match that may begin with anything else has no starts.
    assert starts_of(r"\b\w+_x") is None
    assert starts_of(r"(^|\s)x") is None
    assert starts_of(r"a?") is None
    assert starts_of(r"[ſb]x") is None
    # ``^`` of every line is only an assertion where the match begins.
    assert starts_of(r"(?m)^x") == Starts(frozenset({"x"}))
    # In an ASCII text only starts an ASCII text can hold count: a Cyrillic word (whose "с"
    # folds unlike "c") no longer leaves the pattern to be tried everywhere; "ſ" matches "s".
    mixed = r"\b(install|скачай(те)?)\b"
    assert starts_of(mixed, re.I) is None
    assert starts_of(mixed, re.I, ascii_text=True) == Starts(frozenset({"install"}))
    assert starts_of(r"\b(скачай|下载)\b", re.I, ascii_text=True) == Starts(frozenset())
    assert starts_of(r"\b(install|ſkip)\b", re.I, ascii_text=True) is None


def test_clauses_are_every_anchor_set_a_match_needs() -> None:
    pattern = r"\bas\s+the\s+(\w+\s+){0,2}(assistant|ai)\s*,\s*(you|your)\b"
    assert set(clauses_of(pattern, re.I)) == {
        frozenset({"as"}),
        frozenset({"the"}),
        frozenset({"assistant", "ai"}),
        frozenset({"you", "your"}),
        frozenset({"you"}),  # the parser reads "you|your" as "you", then an optional "r"
    }
    assert clauses_of(r"(x\d)?") == []


def test_unfolded_is_every_character_a_pattern_matches_otherwise_than_its_lower_case() -> None:
    """Outside ASCII, the characters whose lower case is not the engine's (``İ``) or that the
    engine holds equal to a character of another lower case."""
    import _sre  # type: ignore[import-not-found]
    import sys
    from re import _casefix  # type: ignore[attr-defined]

    found = set()
    for code in range(sys.maxunicode + 1):
        if 0xD800 <= code <= 0xDFFF:
            continue
        char, lower = chr(code), _sre.unicode_tolower(code)
        if not char.isascii() and (char.lower() != chr(lower) or lower in _casefix._EXTRA_CASES):
            found.add(char)
    assert found == UNFOLDED
    # The engine agrees: each of them matches a character whose lower case is not its own.
    assert re.fullmatch("i", "ı", re.I) and re.fullmatch("s", "ſ", re.I)
    assert folds("Ignore", "ignore") and not folds("ıgnore", "ıgnore")


# Text that lower-cases otherwise than the engine folds it, with the words of the rules.
EXOTIC = st.lists(
    st.one_of(
        st.sampled_from(WORDS),
        st.sampled_from(WORDS).map(str.upper),
        st.text(alphabet="aIsS ıſİΣσςKΑ€—\n\"'>[]#:;.", max_size=6),
    ),
    max_size=14,
).map(" ".join)


@settings(max_examples=400, deadline=None)
@given(st.one_of(TEXT, EXOTIC))
def test_a_rule_book_matches_as_finditer_whatever_the_letters(text: str) -> None:
    for book in (_INJECTIONS, _DANGEROUS):
        hits = book.hits(text)
        expected = [
            (rule.id, match.span()) for rule in book.rules for match in _finditer(rule, text, hits)
        ]
        assert [(rule.id, match.span()) for rule, match in book.matches(text)] == expected


def test_a_match_may_begin_at_the_beginning_or_at_a_start() -> None:
    book = RuleBook((_rule("role", r"(^|\n)\s*system\s*:"),))
    assert [m.span() for _, m in book.matches("  system: x\nsystem: y")] == [(0, 9), (11, 19)]
    assert [m.span() for _, m in book.matches("a system: x")] == []
    # An empty match at the beginning: the rest is as ``finditer`` finds it.
    empty = RuleBook((_rule("empty", r"^(system)?|\n\s*sys"),))
    assert [m.span() for _, m in empty.matches("x\n sys")] == [
        m.span() for m in re.finditer(r"^(system)?", "x\n sys", re.I)
    ] + [(1, 6)]


def test_matches_follow_one_another_as_finditer_finds_them() -> None:
    book = RuleBook((_rule("semi", r"\bx;"), _rule("dot", r"y\.y")))
    assert [m.span() for _, m in book.matches("x;x; X;")] == [(0, 2), (2, 4), (5, 7)]
    assert [m.span() for _, m in book.matches("y.y.y.y")] == [(0, 3), (4, 7)]


def test_a_text_that_folds_otherwise_is_searched_whole() -> None:
    """``ſ`` matches "s" case-insensitively, yet lower-cases to itself: the start "sh" is not in
    the lower-cased text, and the match that begins there is found all the same (once the
    anchor "curl" has let the rule run)."""
    book = RuleBook((_rule("shell", r"\bsh\s+-c\s+curl\b"),))
    assert [m.span() for _, m in book.matches("run ſh -c curl x")] == [(4, 14)]
    assert [m.span() for _, m in book.matches("ıgnore; SH -c CURL x")] == [(8, 18)]


def _located_patterns() -> list[re.Pattern[str]]:
    from harness.stepcheck.rules import PROSE_RULES

    return [
        *(rule.regex for rule in PROSE_RULES),
        re.compile(r"(^|\n)\s*system\s*:", re.I),
        re.compile(r"(?m)^delete\s+/\S+"),
        re.compile(r"^(system)?|\bsys\b", re.I),
    ]


@settings(max_examples=300, deadline=None)
@given(st.one_of(TEXT, EXOTIC))
def test_a_located_pattern_finds_what_finditer_finds(text: str) -> None:
    for pattern in _located_patterns():
        located = Located(pattern)
        expected = [(m.span(), m.groups()) for m in pattern.finditer(text)]
        assert [(m.span(), m.groups()) for m in located.finditer(text)] == expected, pattern
        found, first = located.search(text), pattern.search(text)
        assert (found and found.span()) == (first and first.span())
