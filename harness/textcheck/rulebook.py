"""Named text rules, and the book that runs each only where the words it needs occur.

A text check is a table of :class:`TextRule` s (a pattern, the class of attack it names, the
inputs it must and must not match), and a regular expression engine would try every rule at
every word of every text: most report text holds none of the words any rule starts with, yet
would pay for all of them. :class:`RuleBook` splits each pattern into its top-level
alternatives and reads, from each one's parse, the literal words one of which every match of
it contains (its anchors: ``\\brm\\s+-r`` needs "rm", ``(drop|truncate)\\s+table`` needs
"drop" or "truncate"). A text is lower-cased once; an alternative runs only when one of its
anchors is a substring of it. An alternative whose anchors cannot be read (it may start with
anything) always runs. The matches are those of the whole pattern: an anchor is a necessary
condition, never a sufficient one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property, lru_cache

# The parser and opcodes of the standard library's regular expressions (stable since 3.11).
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any, cast

import ahocorasick

__all__ = ["RuleBook", "TextRule", "alternatives", "anchors_of"]

# An anchor shorter than this is too common to tell anything ("a", "rm" still passes).
_MIN_ANCHOR = 2


def alternatives(pattern: str) -> list[str]:
    """The top-level alternatives of ``pattern`` (its ``|`` outside groups and classes)."""
    found: list[str] = []
    depth, in_class, escaped, start = 0, False, False, 0
    for index, char in enumerate(pattern):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            found.append(pattern[start:index])
            start = index + 1
    found.append(pattern[start:])
    return found


def _anchors(items: list[tuple[object, object]]) -> frozenset[str] | None:
    """Literal strings one of which every match of the sequence ``items`` contains, or None.

    Every element of a sequence must match, so each element that has anchors (a literal run,
    a group or alternation whose every branch has them, a repeat of at least one such element)
    gives a valid set; the most telling one is kept: the set whose shortest anchor is longest.
    """
    candidates: list[frozenset[str]] = []
    run: list[str] = []
    for op, arg in items:
        if op is sre.LITERAL:
            run.append(chr(arg).lower())  # type: ignore[arg-type]
            continue
        if len(run) >= _MIN_ANCHOR:
            candidates.append(frozenset({"".join(run)}))
        found = _element_anchors(op, arg)
        if found is not None:
            candidates.append(found)
        elif run:
            # The parser factors a common prefix out of an alternation ("nc|ncat" is "n" then
            # "c|cat"): a short run joined to the literal start of every branch is an anchor.
            joined = _joined_prefixes("".join(run), op, arg)
            if joined is not None:
                candidates.append(joined)
        run = []
    if len(run) >= _MIN_ANCHOR:
        candidates.append(frozenset({"".join(run)}))
    return max(candidates, key=lambda c: min(map(len, c)), default=None)


def _joined_prefixes(run: str, op: object, arg: object) -> frozenset[str] | None:
    """``run`` followed by the literal start of each branch of the alternation ``op``, when
    every one is long enough to be an anchor."""
    if op is sre.SUBPATTERN:
        body = list(arg[-1])  # type: ignore[index]
        if len(body) != 1:
            return None
        op, arg = body[0]
    if op is not sre.BRANCH:
        return None
    found: set[str] = set()
    for branch in arg[1]:  # type: ignore[index]
        prefix = run
        for item_op, item_arg in branch:
            if item_op is not sre.LITERAL:
                break
            prefix += chr(item_arg).lower()
        if len(prefix) < _MIN_ANCHOR:
            return None
        found.add(prefix)
    return frozenset(found)


def _element_anchors(op: object, arg: object) -> frozenset[str] | None:
    if op is sre.SUBPATTERN:
        return _anchors(list(arg[-1]))  # type: ignore[index]
    if op is sre.BRANCH:
        found: set[str] = set()
        for branch in arg[1]:  # type: ignore[index]
            anchors = _anchors(list(branch))
            if anchors is None:
                return None
            found |= anchors
        return frozenset(found)
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        low, _high, body = cast(tuple[int, int, Any], arg)
        return _anchors(list(body)) if low >= 1 else None
    return None


def anchors_of(pattern: str, flags: int = 0) -> frozenset[str] | None:
    """The anchors of ``pattern`` as a whole (None: it may match without any)."""
    try:
        parsed = sre_parse.parse(pattern, flags)
    except re.error:
        return None
    return _anchors(list(parsed))


_FLAGS = re.IGNORECASE
"""Every rule is case-insensitive: a text is compared with the anchors in lower case."""


@dataclass(frozen=True, kw_only=True)
class TextRule:
    """One named rule of a text check, with the inputs it must and must not match.

    Attributes:
        id: Stable and readable, ``<category>.<what it names>`` in lower case with hyphens
            (``override.previous-instructions``).
        category: The class the checks return when the rule decides (``OVERRIDE``,
            ``PIPE_TO_SHELL``): the release policy and the audit name it.
        pattern: A case-insensitive regular expression. Its top-level alternatives, when it
            has several, are spellings of one meaning; each runs only where its anchors occur.
        description: The class of attack the rule names, in one line.
        examples: Inputs the rule must match, and decide.
        lookalikes: Honest incident text that shares the rule's words (a runbook step, a log
            line, a changelog sentence), which it must not match.
    """

    id: str
    category: str
    pattern: str
    description: str
    examples: tuple[str, ...]
    lookalikes: tuple[str, ...]

    @cached_property
    def regex(self) -> re.Pattern[str]:
        """The whole pattern, compiled (what its alternatives together match)."""
        return re.compile(self.pattern, _FLAGS)


class RuleBook:
    """:class:`TextRule` s checked in order, with one pass for the anchors of all of them (an
    Aho-Corasick automaton: every occurrence of every anchor, overlapping ones included, in time
    linear in the text), built on first use.

    The alternatives of all the rules are numbered in order, and each anchor names the ones
    that need it: a text runs the alternatives without anchors and those its anchors name, in
    their order, without a look at the hundreds of others (most texts hold few anchors). An
    alternative is compiled the first time a text holds one of its anchors: a process that
    imports the checks (each Ray worker among them) pays for the patterns it runs, not for
    all of them.
    """

    def __init__(self, rules: tuple[TextRule, ...]) -> None:
        self.rules = rules

    @cached_property
    def _automaton(self) -> Any:
        automaton = ahocorasick.Automaton()
        for anchor in self._index.needing:
            automaton.add_word(anchor, anchor)
        automaton.make_automaton()
        return automaton

    @cached_property
    def _index(self) -> _Index:
        numbered: list[tuple[TextRule, str]] = []
        needing: dict[str, list[int]] = {}
        always: list[int] = []
        for rule in self.rules:
            for source in alternatives(rule.pattern):
                number = len(numbered)
                numbered.append((rule, source))
                anchors = _anchors_of(source)
                if anchors is None:
                    always.append(number)
                for anchor in anchors or ():
                    needing.setdefault(anchor, []).append(number)
        return _Index(
            numbered=tuple(numbered),
            needing={anchor: tuple(numbers) for anchor, numbers in needing.items()},
            always=frozenset(always),
            compiled=[None] * len(numbered),
        )

    def hits(self, text: str) -> frozenset[str]:
        """The anchors that occur in ``text`` (compared in lower case)."""
        return frozenset(anchor for _, anchor in self._automaton.iter(text.lower()))

    def matches(self, text: str) -> Iterator[tuple[TextRule, re.Match[str]]]:
        """Every (rule, match) in rule order: each alternative's matches, alternative by
        alternative."""
        index = self._index
        wanted = set(index.always)
        for anchor in self.hits(text):
            wanted.update(index.needing[anchor])
        for number in sorted(wanted):
            rule = index.numbered[number][0]
            for match in index.pattern(number).finditer(text):
                yield rule, match

    def first(self, text: str) -> TextRule | None:
        """The first rule that matches ``text``, or None."""
        return next((rule for rule, _ in self.matches(text)), None)

    @cached_property
    def words(self) -> frozenset[str]:
        """The words the patterns are written in: runs of two or more letters in their source,
        in lower case, not counting the letter of an escape (``\\s``, ``\\b``)."""
        return frozenset(
            word.lower() for rule in self.rules for word in _SOURCE_WORD.findall(rule.pattern)
        )


@lru_cache(maxsize=2048)
def _anchors_of(source: str) -> frozenset[str] | None:
    """:func:`anchors_of` an alternative, read once per process (rules that two books share,
    the pipe-to-shell ones, are parsed once)."""
    return anchors_of(source, _FLAGS)


# A run of letters in a pattern's source that is no escape's letter.
_SOURCE_WORD = re.compile(r"(?<![\\a-zA-Z])[a-zA-Z]{2,}")


@dataclass(frozen=True, kw_only=True)
class _Index:
    numbered: tuple[tuple[TextRule, str], ...]
    """Each alternative of each rule, in order, with its rule."""
    needing: dict[str, tuple[int, ...]]
    """The numbers of the alternatives that need each anchor."""
    always: frozenset[int]
    """The numbers of the alternatives without anchors."""
    compiled: list[re.Pattern[str] | None]
    """Each alternative's pattern, once compiled."""

    def pattern(self, number: int) -> re.Pattern[str]:
        """Alternative ``number``, compiled on first use (two threads may both compile it:
        the same pattern, and the list keeps either)."""
        compiled = self.compiled[number]
        if compiled is None:
            compiled = self.compiled[number] = re.compile(self.numbered[number][1], _FLAGS)
        return compiled
