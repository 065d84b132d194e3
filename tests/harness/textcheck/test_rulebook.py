"""Rules run an alternative only where its anchors occur: the same matches as the whole
pattern, found with less work."""

from __future__ import annotations

import re
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.textcheck.commands import _DANGEROUS
from harness.textcheck.injection import _INJECTIONS
from harness.textcheck.rulebook import RuleBook, Rules, alternatives, anchors_of


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


def _finditer(rules: Rules, text: str, hits: frozenset[str]) -> Iterator[re.Match[str]]:
    """The matches of each alternative of ``rules`` that has no anchors or one of them in
    ``hits``, alternative by alternative: what an anchor filter should run, one rule at a time."""
    for alternative in rules.alternatives:
        anchors = alternative.anchors
        if anchors is None or not anchors.isdisjoint(hits):
            yield from alternative.pattern.finditer(text)


@settings(max_examples=400)
@given(TEXT)
def test_every_rule_book_finds_what_its_whole_patterns_find(text: str) -> None:
    for book in (_INJECTIONS, _DANGEROUS):
        hits = book.hits(text)
        for _name, rules in book.rules:
            found = next(_finditer(rules, text, hits), None) is not None
            assert found is (rules.pattern.search(text) is not None), (text, _name)


@settings(max_examples=400)
@given(TEXT)
def test_a_rule_book_matches_as_its_rules_do_one_after_another(text: str) -> None:
    for book in (_INJECTIONS, _DANGEROUS):
        hits = book.hits(text)
        expected = [
            (name, match.span())
            for name, rules in book.rules
            for match in _finditer(rules, text, hits)
        ]
        assert [(name, match.span()) for name, match in book.matches(text)] == expected


def test_a_rule_book_reports_rules_in_order() -> None:
    book = RuleBook((("FIRST", Rules(r"\bdelete\b")), ("SECOND", Rules(r"\brm\s+-rf\b"))))
    assert book.first("rm -rf x and delete y") == "FIRST"
    assert book.first("RM -RF x") == "SECOND"
    assert book.first("nothing here") is None
