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
from harness.textcheck.rulebook import RuleBook, TextRule, alternatives, anchors_of


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
