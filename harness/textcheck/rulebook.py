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

An alternative that runs is tried only where a match can begin. Most begin with a literal (the
words of ``\\b(ignore|disregard)\\s+``, after zero-width assertions): its *starts*, read from
the same parse. A case-insensitive pattern that begins with ``\\b`` gets no literal prefix from
the regular expression compiler, which then tries the whole pattern at every position of the
text; the book finds the starts' occurrences in one pass of an Aho-Corasick automaton and
calls ``match`` at those positions only, which finds the matches ``finditer`` finds, in the same
order (:meth:`RuleBook.matches`). Where a start cannot be told from the lower-cased text (a
character that matches a Latin letter case-insensitively but lower-cases to another, such as
the dotless ``ı``), or an alternative has no starts, the whole text is searched.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from operator import itemgetter

# The parser and opcodes of the standard library's regular expressions (stable since 3.11).
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any, cast

import ahocorasick

__all__ = [
    "UNFOLDED",
    "Located",
    "RuleBook",
    "Starts",
    "TextRule",
    "alternatives",
    "anchors_of",
    "clauses_of",
    "folds",
    "starts_of",
]

# An anchor shorter than this is too common to tell anything ("a", "rm" still passes).
_MIN_ANCHOR = 2
# The anchor of one of the automaton's (end, anchor) hits.
_anchor = itemgetter(1)


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
        return _every_branch(arg, _anchors)
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        low, _high, body = cast(tuple[int, int, Any], arg)
        return _anchors(list(body)) if low >= 1 else None
    return None


def _every_branch(
    arg: object, of: Callable[[list[tuple[object, object]]], frozenset[str] | None]
) -> frozenset[str] | None:
    """The union of ``of`` over the branches of an alternation (``arg`` of a BRANCH); None
    when it is None for any branch."""
    found: set[str] = set()
    for branch in arg[1]:  # type: ignore[index]
        strings = of(list(branch))
        if strings is None:
            return None
        found |= strings
    return frozenset(found)


def anchors_of(pattern: str, flags: int = 0) -> frozenset[str] | None:
    """The anchors of ``pattern`` as a whole (None: it may match without any)."""
    try:
        parsed = sre_parse.parse(pattern, flags)
    except re.error:
        return None
    return _anchors(list(parsed))


_FLAGS = re.IGNORECASE
"""Every rule is case-insensitive: a text is compared with the anchors in lower case."""

_ZERO_WIDTH = frozenset({sre.AT, sre.ASSERT, sre.ASSERT_NOT})
_BEGINNING = frozenset({sre.AT_BEGINNING, sre.AT_BEGINNING_STRING})
# Starts grow by joining literals and literal alternations (``(ba|z)?sh`` starts with "bash",
# "zsh" or "sh"); past this many strings the shorter set is kept.
_MAX_STARTS = 256
_MAX_CLASS = 16  # a class of this many literals or fewer reads as its characters
_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT)

# The characters outside ASCII that a case-insensitive pattern matches otherwise than their
# lower case says: those whose lower case is not one character (``İ``), and those the regular
# expression engine holds equal to a character with another lower case (``ı`` and "i", ``ſ``
# and "s", ``ς`` and "σ", ``ϐ`` and "β", ``ᲀ`` and "в"...). In a text without them, a pattern's
# literal occurs, lower-cased, where the lower-cased text holds it, at the same position; an
# anchor or start that holds one is not used (a test walks every code point for this set).
UNFOLDED = frozenset(
    "\u00b5\u0130\u0131\u017f\u0345\u0390\u0392\u0395\u0398\u0399\u039a\u039c\u03a0\u03a1"
    "\u03a3\u03a6\u03b0\u03b2\u03b5\u03b8\u03b9\u03ba\u03bc\u03c0\u03c1\u03c2\u03c3\u03c6"
    "\u03d0\u03d1\u03d5\u03d6\u03f0\u03f1\u03f4\u03f5\u0412\u0414\u041e\u0421\u0422\u042a"
    "\u0432\u0434\u043e\u0441\u0442\u044a\u0462\u0463\u1c80\u1c81\u1c82\u1c83\u1c84\u1c85"
    "\u1c86\u1c87\u1c88\u1e60\u1e61\u1e9b\u1fbe\u1fd3\u1fe3\ua64a\ua64b\ufb05\ufb06"
)
_FOLDED_PREFIX = re.compile(f"[^{''.join(sorted(UNFOLDED))}]*")


def folds(text: str, lower: str) -> bool:
    """Whether the lower-cased ``lower`` shows every literal of a pattern where and as it
    matches ``text`` (see :data:`UNFOLDED`)."""
    return text.isascii() or (len(lower) == len(text) and UNFOLDED.isdisjoint(text))


@dataclass(frozen=True)
class Starts:
    """Where the matches of a pattern begin: at an occurrence of one of ``strings`` (in lower
    case, none the prefix of another, none holding a character of :data:`UNFOLDED`), or at
    the beginning of the text (``at_beginning``: the pattern may begin with ``^`` there)."""

    strings: frozenset[str]
    at_beginning: bool = False


def starts_of(pattern: str, flags: int = 0, *, ascii_text: bool = False) -> Starts | None:
    """Where every match of ``pattern`` begins (after its zero-width assertions), or None when
    that cannot be read from its parse.

    ``ascii_text``: where its matches in an ASCII text begin. A start holding a character that
    matches no ASCII character, in any case, cannot occur there and is left out (a pattern
    whose words are in Cyrillic, Greek or CJK as well as in English is located in English
    text by its English words; without this, one Cyrillic ``с``, which folds unlike ``c``,
    leaves the whole pattern to be tried at every position).
    """
    try:
        parsed = sre_parse.parse(pattern, flags)
    except re.error:
        return None
    return _parsed_starts(parsed, ascii_text=ascii_text)


@functools.cache
def _matches_ascii(char: str) -> bool:
    """Whether ``char``, as a case-insensitive literal, matches some ASCII character."""
    literal = re.compile(re.escape(char), re.IGNORECASE)
    return any(literal.fullmatch(chr(code)) for code in range(128))


def _parsed_starts(parsed: Any, *, ascii_text: bool = False) -> Starts | None:
    found = _Reader(multiline=bool(parsed.state.flags & re.MULTILINE)).of(list(parsed))
    if found is None:
        return None
    if ascii_text:
        reachable = frozenset(start for start in found.strings if all(map(_matches_ascii, start)))
        found = Starts(reachable, found.at_beginning)
    # Cut before the first character of :data:`UNFOLDED` (what begins with a start begins with
    # its prefixes too): a start that begins with one is none.
    cut = sorted({_FOLDED_PREFIX.match(start).group() for start in found.strings}, key=len)  # type: ignore[union-attr]
    if cut and cut[0] == "":
        return None
    # A start that begins with another adds no position.
    kept: list[str] = []
    for start in cut:
        if not start.startswith(tuple(kept)):
            kept.append(start)
    return Starts(frozenset(kept), found.at_beginning)


class _Reader:
    """Reads the starts of a parsed pattern, within a budget of steps (an optional element
    or an empty branch makes the starts of what follows it count too)."""

    _BUDGET = 20000

    def __init__(self, *, multiline: bool) -> None:
        self.multiline = multiline
        self.steps = 0

    def of(self, items: list[tuple[object, object]]) -> Starts | None:
        """The starts of the sequence ``items``: the strings of its leading literal elements,
        joined, then the starts of the first element that is not one (with those of what
        follows it where it may match nothing); None when a match may begin otherwise."""
        self.steps += 1
        if self.steps > self._BUDGET:
            return None
        head: frozenset[str] = frozenset({""})
        for position, (op, arg) in enumerate(items):
            if op is sre.AT and arg in _BEGINNING and head == {""} and not self.multiline:
                # ``^`` before anything consumed: this way, the match begins at 0.
                return Starts(frozenset(), at_beginning=True)
            if op in _ZERO_WIDTH:
                continue  # evaluated where the match begins, by ``match`` as by ``search``
            exact = _exact(op, arg)
            if exact is not None and "" not in exact:
                grown = _joined(head, exact)
                if grown is None:
                    break
                head = grown
                continue
            tails = self._element(op, arg, items[position + 1 :])
            if tails is None:
                break
            grown = _joined(head, tails.strings)
            if grown is None:
                break
            # After a literal, a ``^`` matches nowhere: only a way with nothing before it
            # begins at 0.
            return Starts(grown, tails.at_beginning and head == {""})
        return None if "" in head else Starts(head)

    def _element(self, op: object, arg: object, rest: list[tuple[object, object]]) -> Starts | None:
        """The starts of an element followed by ``rest``."""
        if op is sre.SUBPATTERN:
            _group, add_flags, _del_flags, body = cast(tuple[Any, int, int, Any], arg)
            if add_flags & re.MULTILINE:
                return None
            return self.of([*body, *rest])
        if op is sre.BRANCH:
            return self._union(self.of([*branch, *rest]) for branch in arg[1])  # type: ignore[index]
        if op in _REPEATS:
            low, high, body = cast(tuple[int, int, Any], arg)
            once = [*body, *rest] if high == 1 else list(body)
            if low >= 1:
                return self.of(once)
            return self._union(iter((self.of(list(rest)), self.of(once))))
        return None

    @staticmethod
    def _union(ways: Iterator[Starts | None]) -> Starts | None:
        strings: set[str] = set()
        at_beginning = False
        for way in ways:
            if way is None:
                return None
            strings |= way.strings
            at_beginning |= way.at_beginning
        return Starts(frozenset(strings), at_beginning)


def _joined(head: frozenset[str], tails: frozenset[str]) -> frozenset[str] | None:
    joined = frozenset(h + t for h in head for t in tails)
    return joined if len(joined) <= _MAX_STARTS else None


def _exact(op: object, arg: object) -> frozenset[str] | None:
    """The strings (in lower case) an element consumes, when it is made of literals: a literal,
    a small class of literals, a group or alternation of them, one made optional; None
    otherwise."""
    if op is sre.LITERAL:
        return frozenset({chr(arg).lower()})  # type: ignore[arg-type]
    if op is sre.IN:
        members = cast(list[tuple[object, object]], arg)
        if len(members) <= _MAX_CLASS and all(kind is sre.LITERAL for kind, _ in members):
            return frozenset(chr(code).lower() for _, code in members)  # type: ignore[arg-type]
        return None
    if op is sre.SUBPATTERN:
        return _sequence_exact(list(arg[-1]))  # type: ignore[index]
    if op is sre.BRANCH:
        return _every_branch(arg, _sequence_exact)
    if op in _REPEATS:
        low, high, body = cast(tuple[int, int, Any], arg)
        if low in (0, 1) and high == 1:
            exact = _sequence_exact(list(body))
            if exact is not None and low == 0:
                exact |= {""}
            return exact
    return None


def _sequence_exact(items: list[tuple[object, object]]) -> frozenset[str] | None:
    found: frozenset[str] | None = frozenset({""})
    for op, arg in items:
        if op in _ZERO_WIDTH:
            if op is sre.AT and arg in _BEGINNING:
                return None  # where it may match is no string's business
            continue
        exact = _exact(op, arg)
        if exact is None or found is None:
            return None
        found = _joined(found, exact)
    return found


def clauses_of(pattern: str, flags: int = 0) -> list[frozenset[str]]:
    """Every set of anchors one of which each match of ``pattern`` contains: its literal runs,
    the anchors of its alternations, those of the groups and repeats it needs (each a
    necessary condition; :func:`anchors_of` is the most telling of the top-level ones)."""
    try:
        parsed = sre_parse.parse(pattern, flags)
    except re.error:
        return []
    return list(dict.fromkeys(_clauses(list(parsed))))


def _clauses(items: list[tuple[object, object]]) -> list[frozenset[str]]:
    found: list[frozenset[str]] = []
    run: list[str] = []
    for op, arg in [*items, (None, None)]:
        if op is sre.LITERAL:
            run.append(chr(arg).lower())  # type: ignore[arg-type]
            continue
        if len(run) >= _MIN_ANCHOR:
            found.append(frozenset({"".join(run)}))
        if op is sre.SUBPATTERN:
            found.extend(_clauses(list(arg[-1])))  # type: ignore[index]
        elif op in _REPEATS and cast(tuple[int, int, Any], arg)[0] >= 1:
            found.extend(_clauses(list(cast(tuple[int, int, Any], arg)[2])))
        elif op is sre.BRANCH:
            anchors = _element_anchors(op, arg)
            if anchors is not None:
                found.append(anchors)
        if run and op is not None:
            joined = _joined_prefixes("".join(run), op, arg)
            if joined is not None:
                found.append(joined)
        run = []
    return found


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
    Aho-Corasick automaton: every occurrence of every anchor, overlapping ones included, in
    time linear in the text), built on first use.

    The alternatives of all the rules are numbered in order, and each anchor names the ones
    that need it: a text runs the alternatives without anchors and those its anchors name, in
    their order, without a look at the hundreds of others (most texts hold few anchors). An
    alternative needs each of its other anchor sets too (:func:`clauses_of`), and is matched
    only where its starts occur (:func:`starts_of`), in a text whose lower case shows them
    (:func:`folds`). An alternative is compiled the first time a text holds one of its
    anchors: a process that imports the checks (each Ray worker among them) pays for the
    patterns it runs, not for all of them.
    """

    def __init__(self, rules: tuple[TextRule, ...]) -> None:
        self.rules = rules

    @cached_property
    def _automaton(self) -> Any:
        automaton = ahocorasick.Automaton()
        index = self._index
        words = {*index.needing, *index.keyed}.union(*(w for sets in index.checks for w in sets))
        for word in words:
            automaton.add_word(word, word)
        automaton.make_automaton()
        return automaton

    @cached_property
    def _index(self) -> _Index:
        numbered: list[tuple[TextRule, str]] = []
        needing: dict[str, list[int]] = {}
        always: list[int] = []
        keyed: dict[str, list[int]] = {}
        keyless: list[int] = []
        checks: list[tuple[frozenset[str], ...]] = []
        for rule in self.rules:
            for source in alternatives(rule.pattern):
                number = len(numbered)
                numbered.append((rule, source))
                anchors, clauses = _read(source)
                if anchors is None:
                    always.append(number)
                for anchor in anchors or ():
                    needing.setdefault(anchor, []).append(number)
                # In a text that folds, any set a match needs may name it: the most telling
                # one does, and the others are checked.
                sets = [*([anchors] if anchors is not None else []), *clauses]
                key = max(sets, key=lambda words: (min(map(len, words)), -len(words)), default=None)
                if key is None:
                    keyless.append(number)
                for anchor in key or ():
                    keyed.setdefault(anchor, []).append(number)
                checks.append(tuple(words for words in sets if words is not key))
        return _Index(
            numbered=tuple(numbered),
            needing={anchor: tuple(numbers) for anchor, numbers in needing.items()},
            always=frozenset(always),
            keyed={anchor: tuple(numbers) for anchor, numbers in keyed.items()},
            keyless=frozenset(keyless),
            checks=tuple(checks),
            compiled=[None] * len(numbered),
        )

    def hits(self, text: str) -> frozenset[str]:
        """The anchors that occur in ``text`` (compared in lower case)."""
        return frozenset(anchor for _, anchor in self._automaton.iter(text.lower()))

    def matches(self, text: str) -> Iterator[tuple[TextRule, re.Match[str]]]:
        """Every (rule, match) in rule order: each alternative's matches, alternative by
        alternative, as its ``finditer`` finds them."""
        index = self._index
        lower = text.lower()
        hits = set(map(_anchor, self._automaton.iter(lower)))
        folded = folds(text, lower)
        wanted = set(index.keyless if folded else index.always)
        naming = index.keyed if folded else index.needing
        for anchor in hits:
            numbers = naming.get(anchor)
            if numbers is not None:
                wanted.update(numbers)
        checks = index.checks
        for number in sorted(wanted):
            if folded and any(map(hits.isdisjoint, checks[number])):
                continue  # a word every match holds is missing
            rule = index.numbered[number][0]
            pattern = index.pattern(number)
            starts = index.starts(number) if folded else None
            if starts is None:
                for match in pattern.finditer(text):
                    yield rule, match
                continue
            for match in _located(pattern, index.locator(number), starts, text, lower):
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


class Located:
    """One pattern, matched only where its matches can begin (its :func:`starts_of`): the
    matches ``finditer`` finds, in its order, without trying the pattern at every position."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.starts = starts_of(pattern.pattern, pattern.flags)
        strings = sorted(self.starts.strings) if self.starts is not None else []
        self._locator = _locator(strings)
        # In an ASCII text (most texts) only the starts an ASCII text can hold count.
        self.ascii_starts = starts_of(pattern.pattern, pattern.flags, ascii_text=True)
        ascii_strings = sorted(self.ascii_starts.strings) if self.ascii_starts is not None else []
        self._ascii_locator = _locator(ascii_strings)

    def finditer(self, text: str, lower: str | None = None) -> Iterator[re.Match[str]]:
        """``pattern.finditer(text)``; ``lower`` is ``text.lower()`` when the caller has it."""
        lower = text.lower() if lower is None else lower
        if text.isascii() and self.ascii_starts is not None:
            return _located(self.pattern, self._ascii_locator, self.ascii_starts, text, lower)
        if self.starts is None or not folds(text, lower):
            return self.pattern.finditer(text)
        return _located(self.pattern, self._locator, self.starts, text, lower)

    def search(self, text: str, lower: str | None = None) -> re.Match[str] | None:
        """``pattern.search(text)``."""
        return next(iter(self.finditer(text, lower)), None)


def _located(
    pattern: re.Pattern[str],
    locator: Any,
    starts: Starts,
    text: str,
    lower: str,
) -> Iterator[re.Match[str]]:
    """As ``pattern.finditer(text)``: the leftmost match, then the next from where it ended,
    tried at the beginning (when ``starts`` say a match may begin there) and where ``locator``
    (:func:`_locator`) finds a start in ``lower`` (a match there holds its start, so none is
    empty). ``text`` must :func:`fold <folds>` to ``lower``."""
    resume = 0
    if starts.at_beginning:
        opening = pattern.match(text)
        if opening is not None and opening.end() == 0:
            # An empty match: ``finditer`` may find another one there.
            yield from pattern.finditer(text)
            return
        if opening is not None:
            yield opening
        resume = opening.end() if opening is not None else 1
    if locator is None:
        return
    # Every position where a start occurs, from one pass over the text (the automaton holds
    # each start's length); tried in order, skipping those inside a match already found.
    positions = sorted({end - length + 1 for end, length in locator.iter(lower, resume)})
    for position in positions:
        if position < resume:
            continue
        match = pattern.match(text, position)
        if match is not None:
            yield match
            resume = match.end()


def _locator(strings: list[str]) -> Any:
    """An Aho-Corasick automaton that finds every occurrence of any of ``strings`` (case
    sensitive, each with its length), or None for none. One pass over the text finds them
    all: an alternation of a hundred words, tried by the regular expression engine at each
    position its first characters allow, cost several times more."""
    if not strings:
        return None
    automaton = ahocorasick.Automaton()
    for string in strings:
        automaton.add_word(string, len(string))
    automaton.make_automaton()
    return automaton


@lru_cache(maxsize=2048)
def _read(source: str) -> tuple[frozenset[str] | None, tuple[frozenset[str], ...]]:
    """An alternative's anchors (:func:`anchors_of`) and the other anchor sets it needs
    (:func:`clauses_of`; none holds a character of :data:`UNFOLDED`), from one parse, once per
    process (rules that two books share, the pipe-to-shell ones, are read once)."""
    try:
        parsed = sre_parse.parse(source, _FLAGS)
    except re.error:
        return None, ()
    items = list(parsed)
    anchors = _anchors(items)
    clauses = tuple(
        clause
        for clause in dict.fromkeys(_clauses(items))
        if clause != anchors and not any(UNFOLDED.intersection(word) for word in clause)
    )
    return anchors, clauses


@lru_cache(maxsize=2048)
def _starts_of(source: str) -> Starts | None:
    return starts_of(source, _FLAGS)


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
    keyed: dict[str, tuple[int, ...]]
    """In a text that folds: the numbers of the alternatives each anchor names (each by the
    most telling set of anchors it needs, :func:`clauses_of` with :func:`anchors_of`)."""
    keyless: frozenset[int]
    """In a text that folds: the numbers of the alternatives without any anchors."""
    checks: tuple[tuple[frozenset[str], ...], ...]
    """In a text that folds: the other sets of anchors each alternative needs."""
    compiled: list[re.Pattern[str] | None]
    """Each alternative's pattern, once compiled."""
    locators: dict[int, tuple[Starts | None, Any]] = field(default_factory=dict)
    """Each alternative's starts and the automaton that finds them in lower-cased text, read
    and built on first use."""

    def pattern(self, number: int) -> re.Pattern[str]:
        """Alternative ``number``, compiled on first use (two threads may both compile it:
        the same pattern, and the list keeps either)."""
        compiled = self.compiled[number]
        if compiled is None:
            compiled = self.compiled[number] = re.compile(self.numbered[number][1], _FLAGS)
        return compiled

    def starts(self, number: int) -> Starts | None:
        """Where alternative ``number``'s matches begin (:func:`starts_of`), read on first
        use."""
        return self._located(number)[0]

    def locator(self, number: int) -> Any:
        """Alternative ``number``'s starts as one automaton over lower-cased text
        (:func:`_locator`)."""
        return self._located(number)[1]

    def _located(self, number: int) -> tuple[Starts | None, Any]:
        found = self.locators.get(number)
        if found is None:
            starts = _starts_of(self.numbered[number][1])
            found = self.locators[number] = (
                starts,
                _locator(sorted(starts.strings) if starts else []),
            )
        return found
