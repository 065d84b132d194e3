"""Deterministic grounding: what a statement asserts must stand in the evidence it cites.

A conclusion that says "pool size changed from 40 to 4 at 14:04 (CHG-4821)" must cite items
in which ``40``, ``4``, ``14:04`` and ``CHG-4821`` actually occur. What counts as a claim and
what counts as occurring is decided on *normalised* text on both sides, so that a claim cannot
slip past by its spelling:

- both sides are folded (:func:`harness.text.plain_lower`: NFKC, no zero-width characters,
  look-alike letters to Latin, no case) — ``СНG-4821`` is checked as ``chg-4821``;
- identifiers (tickets, change ids, error codes, dotted keys, schema.table) match as whole
  tokens: ``CHG-479`` is not grounded by ``CHG-4797``;
- numbers match by value: ``1,990`` and ``1990`` are the same claim, a unit (``250ms``,
  ``30 s``, ``15%``) does not hide the number, spelled-out numbers (``forty``) are numbers,
  and ``40`` is not grounded by ``1407``;
- single digits are too common to check everywhere, but not in a change: "from 4 to 8",
  "4 -> 8", "set to 8";
- times (``14:05``, ``14:05:10``, ``2:05 pm``) and dates (``2026-11-02``, ``2026/11/02``,
  ``2 November 2026``) match by value, against any time or date in the evidence.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache

from harness.text import plain_lower
from harness.textcheck.rulebook import Located

__all__ = [
    "Claim",
    "EvidenceIndex",
    "ItemValues",
    "claims",
    "content_words",
    "shares_subject",
    "ungrounded_tokens",
]

# ---------------------------------------------------------------- claims


@dataclass(frozen=True, order=True)
class Claim:
    """One checkable assertion: its kind, its normalised value, and how it was written."""

    kind: str  # "id" | "number" | "time" | "date"
    value: str
    text: str


_UNITS = r"(?:ms|s|sec|secs|seconds?|m|min|mins|minutes?|h|hrs?|hours?|d|days?|%|b|kb|mb|gb|tb|kib|mib|gib|tib)"
# A pattern that begins with what may not stand before it (``(?<![a-z0-9])[a-z]``) is written
# with its first character first and that test after it (``[a-z](?<![a-z0-9][a-z])``): the
# same matches, and the compiler skips ahead to the characters a match can begin with instead
# of trying the pattern at every position.
_ID_PATTERNS = (
    re.compile(r"[a-z](?<![a-z0-9][a-z])[a-z0-9]+-\d{2,}(?![a-z0-9])"),  # change ids: chg-4821
    re.compile(r"[a-z](?<![a-z0-9_][a-z])[a-z]+(?:_[a-z0-9]+)+(?![a-z0-9_])"),  # db_pool_timeout
    re.compile(r"[a-z](?<![a-z0-9_.-][a-z])[a-z0-9_-]*(?:\.[a-z0-9_-]+){2,}(?![a-z0-9_-])"),  # keys
    re.compile(
        r"[a-z](?<![a-z0-9_.][a-z])[a-z0-9_]*\.[a-z][a-z0-9_]*(?=\s|$|[,;)])"
    ),  # schema.table
)
_DATE_ISO = re.compile(r"(\d(?<!\d\d)\d{3})[-/](\d{1,2})[-/](\d{1,2})(?!\d)")
_MONTHS = {
    m: i
    for i, names in enumerate(
        [
            ("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"),
            ("may",), ("jun", "june"), ("jul", "july"), ("aug", "august"),
            ("sep", "sept", "september"), ("oct", "october"), ("nov", "november"),
            ("dec", "december"),
        ],
        1,
    )
    for m in names
}  # fmt: skip
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DATE_DMY = re.compile(
    rf"(\d(?<![a-z0-9]\d)\d?)(?:st|nd|rd|th)?\s+({_MONTH})\.?,?\s+(\d{{4}})(?!\d)"
)
_DATE_MDY = re.compile(
    rf"(?<![a-z0-9])({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})(?!\d)"
)
_TIME = re.compile(
    r"(\d(?<![\d:]\d)\d?):(\d{2})(?::(\d{2}))?(?:\.\d+)?(?:\s*(am|pm|a\.m\.|p\.m\.))?(?![\d:])"
)
# Thousands separators: a comma (a plain space separates list items; see _GROUP_SPACE).
_GROUPED = r"\d{1,3}(?:,\d{3})+"
_NUMBER = re.compile(
    rf"(?<![a-z0-9_.])-?({_GROUPED}|\d+)(\.\d+)?(?:\s?{_UNITS})?(?![a-z0-9_]|\.\d)"
)
_NON_DIGIT = re.compile(r"\D")
# Where a _NUMBER may begin: a hyphen or a digit, with none of its letters before it.
_NUMBER_START = re.compile(r"[-\d](?<![a-z0-9_.][-\d])")
# Each with the words one of which it needs (a cheap test that skips the regex), matched
# only where its matches can begin.
_CHANGE_DIGITS = (
    (Located(re.compile(r"\bfrom\s+(\d+)\s+to\s+(\d+)\b")), ("from",)),
    (
        Located(re.compile(r"(?<![\d.])(\d+)\s*(?:->|→|=>|⇒)\s*(\d+)(?![\d.])")),
        ("->", "→", "=>", "⇒"),
    ),
    (
        Located(
            re.compile(
                r"\b(?:set|changed|lowered|raised|reduced|increased|dropped|cut|bumped)\s+"
                r"(?:\w+\s+){0,6}?to\s+(\d+)\b"
            )
        ),
        ("to",),
    ),
)
# Cheap necessary conditions, tested before the costly patterns: a digit (every date, time
# and number has one), a month's first three letters (every month name has them).
_DIGIT = re.compile(r"\d")
_MONTH_PREFIX = re.compile("jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec")
# The month-first date, matched only where a month name begins; the day-first one searched
# only in text that holds what follows its day (a month name, then a year).
_DATE_MDY_LOCATED = Located(_DATE_MDY)
_DATE_DMY_TAIL = Located(re.compile(rf"(?:{_MONTH})\.?,?\s+\d{{4}}(?!\d)"))
# What a time and each kind of identifier needs, found by a literal the compiler looks for:
# a digit, a colon and two digits; a hyphen and two digits; an underscore; a dot and a letter.
_TIME_HINT = re.compile(r":(?<=\d:)(?=\d\d)")
_ID_HINTS: tuple[re.Pattern[str] | str, ...] = (
    re.compile(r"-(?=\d\d)"),
    "_",
    ".",
    re.compile(r"\.(?=[a-z])"),
)

_UNITS_WORDS = {
    w: i
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
        ]
    )
}
_TENS_WORDS = {
    w: 10 * i
    for i, w in enumerate(
        ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
    )
    if w != "_"
}
_SCALE_WORDS = {"hundred": 100, "thousand": 1000}
_WORD_NUMBER = re.compile(
    r"\b(?:(?:"
    + "|".join([*_UNITS_WORDS, *_TENS_WORDS, *_SCALE_WORDS, "and", "a"])
    + r")(?:[\s-]+|\b)){1,8}"
)
# Any word _spelled reads as a number (a substring test: "none" passes too, harmlessly).
_NUMBER_WORDS = tuple([*_UNITS_WORDS, *_TENS_WORDS, *_SCALE_WORDS])


def _spelled(match: re.Match[str]) -> str:
    words = [w for w in re.split(r"[\s-]+", match.group(0).strip()) if w]
    if not any(w in _UNITS_WORDS or w in _TENS_WORDS for w in words):
        return match.group(0)
    total = current = 0
    seen = False
    for word in words:
        if word in _UNITS_WORDS:
            current += _UNITS_WORDS[word]
            seen = True
        elif word in _TENS_WORDS:
            current += _TENS_WORDS[word]
            seen = True
        elif word in _SCALE_WORDS:
            current = max(current, 1) * _SCALE_WORDS[word]
            if word == "thousand":
                total, current = total + current, 0
            seen = True
        elif (word == "a" and not seen) or (word == "and" and seen):
            continue
        else:
            return match.group(0)
    trailing = " " if match.group(0).endswith((" ", "-")) else ""
    return f"{total + current}{trailing}"


@lru_cache(maxsize=1 << 14)
def _canonical_number(digits: str, fraction: str | None) -> str:
    # Remembered: evidence repeats its numbers (statuses, ports, counts) and a Decimal
    # normalisation costs a microsecond or two each.
    plain = digits.replace(",", "") + (fraction or "")
    try:
        return format(Decimal(plain).normalize(), "f")
    except InvalidOperation:  # pragma: no cover - the regex only passes digits
        return plain


def _canonical_time(hour: str, minute: str, second: str | None, meridiem: str | None) -> str:
    h = int(hour)
    if meridiem:
        h = h % 12 + (12 if meridiem.startswith("p") else 0)
    return f"{h:02d}:{minute}" + (f":{second}" if second else "")


def _dates(text: str) -> list[tuple[str, str, tuple[int, int]]]:
    found: list[tuple[str, str, tuple[int, int]]] = []
    if _DIGIT.search(text) is None:
        return found  # every date has a digit
    if "-" in text or "/" in text:
        for m in _DATE_ISO.finditer(text):
            found.append(
                (f"{m.group(1)}-{int(m.group(2)):02d}-{int(m.group(3)):02d}", m.group(0), m.span())
            )
    if _MONTH_PREFIX.search(text) is None:
        return found
    for m in _DATE_DMY.finditer(text) if _DATE_DMY_TAIL.search(text) else ():
        found.append(
            (f"{m.group(3)}-{_MONTHS[m.group(2)]:02d}-{int(m.group(1)):02d}", m.group(0), m.span())
        )
    for m in _DATE_MDY_LOCATED.finditer(text):
        found.append(
            (f"{m.group(3)}-{_MONTHS[m.group(1)]:02d}-{int(m.group(2)):02d}", m.group(0), m.span())
        )
    return found


# NFKC turns a no-break or thin space into a plain one; between digit groups it is a thousands
# separator, so it becomes a comma first.
_GROUP_SPACE = re.compile(r"(?<=\d)[\u00a0\u2007\u2009\u202f](?=\d{3}(?!\d))")


_GROUP_SPACES = frozenset("\u00a0\u2007\u2009\u202f")


def _normalised(text: str) -> str:
    if _GROUP_SPACES.isdisjoint(text):
        return plain_lower(text)  # no space a thousands separator could be
    return plain_lower(_GROUP_SPACE.sub(",", text))


def _tried_at(
    pattern: re.Pattern[str], starts: re.Pattern[str], text: str
) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text)`` for a pattern whose every match begins where ``starts``
    matches and holds a character: the pattern is tried there only."""
    found = starts.search(text)
    while found is not None:
        position = found.start()
        match = pattern.match(text, position)
        if match is None:
            found = starts.search(text, position + 1)
            continue
        yield match
        found = starts.search(text, match.end())


def claims(statement: str) -> list[Claim]:
    """What ``statement`` asserts, in order of appearance, without duplicates."""
    text = _normalised(statement)
    if any(word in text for word in _NUMBER_WORDS):
        text = _WORD_NUMBER.sub(_spelled, text)
    digits = _DIGIT.search(text) is not None
    found: list[tuple[int, Claim]] = []
    # Characters inside a claim found so far (one byte per character; one past the end, so
    # that an empty span at the end of the text indexes it).
    taken = bytearray(len(text) + 1)

    def add(kind: str, value: str, written: str, span: tuple[int, int]) -> None:
        start, end = span
        if taken[start] or (end > 0 and taken[end - 1]):
            return  # already covered by a more specific claim
        if end > start:
            taken[start:end] = b"\x01" * (end - start)
        found.append((start, Claim(kind, value, written)))

    for value, written, span in _dates(text):
        add("date", value, written, span)
    for m in _TIME.finditer(text) if digits and _TIME_HINT.search(text) else ():
        if int(m.group(1)) < 24 and int(m.group(2)) < 60:
            add("time", _canonical_time(*m.group(1, 2, 3, 4)), m.group(0), m.span())
    for pattern, hint in zip(_ID_PATTERNS, _ID_HINTS, strict=True):
        if not (hint in text if isinstance(hint, str) else hint.search(text)):
            continue
        for m in pattern.finditer(text):
            add("id", m.group(0), m.group(0), m.span())
    for change, words in _CHANGE_DIGITS if digits else ():
        if not any(word in text for word in words):
            continue
        for m in change.finditer(text):
            for group in range(1, (m.lastindex or 0) + 1):
                add(
                    "number", _canonical_number(m.group(group), None), m.group(group), m.span(group)
                )
    for m in _tried_at(_NUMBER, _NUMBER_START, text) if digits else ():
        number = m.group(1).lstrip("-")
        if len(_NON_DIGIT.sub("", number)) >= 2 or m.group(2):
            add("number", _canonical_number(number, m.group(2)), m.group(0).strip(), m.span())
    unique: dict[tuple[str, str], Claim] = {}
    for _, claim in sorted(found, key=lambda pair: pair[0]):
        unique.setdefault((claim.kind, claim.value), claim)
    return list(unique.values())


# ---------------------------------------------------------------- evidence


# What an item holds: every number (grouped or not, with its fraction) and every digit run.
_GROUPED_NUMBER = re.compile(r"(\d(?<!\d\d)(?:\d{0,2}(?:,\d{3})+|\d*))(\.\d+)?")
_DIGIT_RUN = re.compile(r"\d(?<!\d\d)\d*")


@dataclass(frozen=True, slots=True)
class ItemValues:
    """The values one evidence item holds, normalised the way claims are (see
    :func:`_item_values`)."""

    text: str
    numbers: frozenset[str]
    times: frozenset[str]
    dates: frozenset[str]


def _item_values(text: str) -> ItemValues:
    """Every number, time and date of one item, and its normalised text."""
    normalised = _normalised(text)
    numbers: set[str] = set()
    times: set[str] = set()
    for m in _GROUPED_NUMBER.finditer(normalised):
        numbers.add(_canonical_number(m.group(1), m.group(2)))
        if m.group(2):  # "2.5" also holds the numbers 2 and 5 as written
            numbers.add(_canonical_number(m.group(1), None))
    for m in _DIGIT_RUN.finditer(normalised):  # every digit run, as written
        numbers.add(_canonical_number(m.group(0), None))
    for m in _TIME.finditer(normalised) if _TIME_HINT.search(normalised) else ():
        value = _canonical_time(*m.group(1, 2, 3, 4))
        times.update((value, value[:5]))
    dates = frozenset(value for value, _, _ in _dates(normalised))
    return ItemValues(normalised, frozenset(numbers), frozenset(times), dates)


class EvidenceIndex:
    """The values a body of evidence holds, normalised the way claims are.

    Each item is read on its own (:func:`_item_values`), so a value never spans two items: a
    time at the end of one item and ``pm`` at the start of the next are not ``2:05 pm``.
    ``memo`` (text → its values) lets one check read each item once, however many of its
    conclusions and steps cite it.
    """

    def __init__(self, texts: list[str], memo: dict[str, ItemValues] | None = None) -> None:
        known = memo if memo is not None else {}
        items = [known[t] if t in known else known.setdefault(t, _item_values(t)) for t in texts]
        self._text = "\n".join(item.text for item in items)
        self.numbers: set[str] = set().union(*(item.numbers for item in items))
        self.times: set[str] = set().union(*(item.times for item in items))
        self.dates: set[str] = set().union(*(item.dates for item in items))

    def holds(self, claim: Claim) -> bool:
        """Whether the evidence contains the claimed value."""
        if claim.kind == "number":
            return claim.value in self.numbers
        if claim.kind == "time":
            return claim.value in self.times
        if claim.kind == "date":
            return claim.value in self.dates
        pattern = rf"(?<![a-z0-9]){re.escape(claim.value)}(?![a-z0-9])"
        return re.search(pattern, self._text) is not None

    def mentions(self, token: str) -> bool:
        """Whether ``token`` occurs as a whole word (folded) anywhere in the evidence."""
        pattern = rf"(?<![a-z0-9]){re.escape(plain_lower(token))}(?![a-z0-9])"
        return re.search(pattern, self._text) is not None


def ungrounded_tokens(
    statement: str,
    evidence: EvidenceIndex | list[str] | str,
    *,
    claimed: list[Claim] | None = None,
) -> list[str]:
    """The claims of ``statement`` the evidence does not hold, as written in the statement.
    ``claimed`` is :func:`claims` of ``statement`` when the caller has read them already."""
    index = (
        evidence
        if isinstance(evidence, EvidenceIndex)
        else EvidenceIndex([evidence] if isinstance(evidence, str) else evidence)
    )
    found = claims(statement) if claimed is None else claimed
    return [claim.text for claim in found if not index.holds(claim)]


# ---------------------------------------------------------------- subjects

_WORD = re.compile(r"[a-z][a-z0-9]{3,}")
_NAME = re.compile(r"(?<![a-z0-9_.-])[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+(?![a-z0-9_-])")
# Words too common in incident text to tie a statement to one item.
_GENERIC = frozenset(
    [
        "about",
        "above",
        "after",
        "again",
        "against",
        "also",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "cause",
        "caused",
        "causes",
        "could",
        "does",
        "done",
        "during",
        "each",
        "error",
        "errors",
        "event",
        "events",
        "failed",
        "failure",
        "fails",
        "first",
        "from",
        "have",
        "having",
        "into",
        "last",
        "later",
        "likely",
        "more",
        "most",
        "other",
        "over",
        "same",
        "seen",
        "since",
        "some",
        "such",
        "than",
        "that",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "under",
        "until",
        "very",
        "warn",
        "warning",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "with",
        "within",
        "would",
        "root",
        "service",
        "services",
        "change",
        "changed",
        "changes",
        "changing",
        "config",
        "logs",
        "log",
        "line",
        "lines",
        "request",
        "requests",
        "response",
        "time",
    ]
)


def content_words(text: str) -> set[str]:
    """Distinctive words of ``text``: four letters or more, not generic incident vocabulary."""
    return {w for w in _WORD.findall(plain_lower(text)) if w not in _GENERIC}


def shares_subject(
    statement: str,
    item_text: str,
    memo: dict[str, ItemValues] | None = None,
    *,
    claimed: list[Claim] | None = None,
) -> bool:
    """Whether an item is about what the statement is about.

    It is when the item holds one of the statement's identifiers (a ticket, a dotted key, an
    error code), a name the statement uses (a service such as ``checkout-api``), or at least
    two of its distinctive words (a template's wording). Numbers alone never tie them.
    ``memo`` is :class:`EvidenceIndex`'s; ``claimed`` is :func:`claims` of ``statement`` when
    the caller has read them already.
    """
    index = EvidenceIndex([item_text], memo)
    found = claims(statement) if claimed is None else claimed
    if any(index.holds(c) for c in found if c.kind == "id"):
        return True
    folded = plain_lower(statement)
    if any(index.mentions(name) for name in _NAME.findall(folded)):
        return True
    return len(content_words(statement) & content_words(item_text)) >= 2
