"""Words written without spaces between them, and letters spelled in the NATO alphabet.

``ignoreallpreviousinstructions`` and ``India Golf November Oscar Romeo Echo …`` reach a model
as the sentence they spell, and a scanner whose patterns expect words between spaces misses
both. :func:`spaced_out` reads a run of fourteen or more letters as the words it is made of,
when every piece is a word of the given vocabulary (the words the text checks' own
patterns are written in, see :meth:`RuleBook.words`, and the small words between them),
optionally with a plural ``s``, in three pieces at least (four in camel case). A run that
does not split entirely into such words (an id, a hash, a long word) stays as it is. A run of
four or more NATO code words is read as the letters they stand for first.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["spaced_out"]

_MIN_RUN = 14
_MAX_RUN = 240  # longer runs are data (a key, a blob), not words run together
_RUN = re.compile(rf"[A-Za-z]{{{_MIN_RUN},{_MAX_RUN}}}")
_LONGEST_WORD = 24

_NATO = {
    "alfa": "a", "alpha": "a", "bravo": "b", "charlie": "c", "delta": "d", "echo": "e",
    "foxtrot": "f", "golf": "g", "hotel": "h", "india": "i", "juliet": "j", "juliett": "j",
    "kilo": "k", "lima": "l", "mike": "m", "november": "n", "oscar": "o", "papa": "p",
    "quebec": "q", "romeo": "r", "sierra": "s", "tango": "t", "uniform": "u", "victor": "v",
    "whiskey": "w", "whisky": "w", "xray": "x", "x-ray": "x", "yankee": "y", "zulu": "z",
}  # fmt: skip
_CODE = "|".join(sorted(map(re.escape, _NATO), key=len, reverse=True))
_NATO_RUN = re.compile(rf"\b(?:(?:{_CODE})[\s,.;/-]+){{3,}}(?:{_CODE})\b", re.IGNORECASE)
_NATO_WORD = re.compile(rf"\b(?:{_CODE})\b", re.IGNORECASE)

# Small words a sentence needs between the words the patterns name.
_SMALL_WORDS = frozenset(
    [
        "an", "the", "all", "and", "or", "of", "to", "in", "on", "at", "by", "for",
        "from", "with", "as", "is", "are", "be", "was", "were", "been", "it", "its", "this",
        "that", "these", "those", "any", "every", "each", "no", "not", "do", "does", "don", "you",
        "your", "yours", "me", "my", "we", "our", "us", "now", "then", "than", "so", "if", "when",
        "what", "which", "who", "how", "here", "there", "above", "below", "before", "after",
        "prior", "earlier", "instead", "only", "just", "also", "new", "old", "real", "true",
        "false",
    ]
)  # fmt: skip


def spaced_out(text: str, vocabulary: frozenset[str]) -> str:
    """``text`` with NATO spellings read as letters and runs of words written together split
    into their words (see the module docstring); ``text`` itself when neither applies."""
    low = text.lower()
    # Four code words at least (counted as substrings: never fewer than there are, a cheap
    # bound) before the slow search.
    if sum(map(low.count, _NATO)) >= 4:
        text = _NATO_RUN.sub(_letters, text)
    if not _RUN.search(text):
        return text
    return _RUN.sub(lambda found: _split(found.group(), vocabulary) or found.group(), text)


def _letters(found: re.Match[str]) -> str:
    return "".join(_NATO[code.lower()] for code in _NATO_WORD.findall(found.group()))


def _split(run: str, vocabulary: frozenset[str]) -> str | None:
    """The words ``run`` is made of (fewest pieces), or None when it is not all words."""
    words = _words(vocabulary)
    low = run.lower()
    size = len(low)
    # From each position a word can start at (the run's start, or where a word ended): the
    # fewest words that reach it, and where the last of them starts.
    best: dict[int, tuple[int, int]] = {0: (0, 0)}
    for start in range(size):
        reached = best.get(start)
        if reached is None:
            continue
        for end in range(start + 1, min(size, start + _LONGEST_WORD) + 1):
            if low[start:end] in words:
                known = best.get(end)
                if known is None or reached[0] + 1 < known[0]:
                    best[end] = (reached[0] + 1, start)
    last = best.get(size)
    # Three words or more; four when the run is written in camel case, as identifiers are
    # (``invokeForRequest``, ``DataSourceConfig``: a stack trace is full of them).
    if last is None or last[0] < (3 if run.islower() or run.isupper() else 4):
        return None
    pieces: list[str] = []
    end = size
    while end:
        start = best[end][1]
        pieces.append(low[start:end])
        end = start
    return " ".join(reversed(pieces))


@lru_cache(maxsize=4)
def _words(vocabulary: frozenset[str]) -> frozenset[str]:
    """Every piece a run may be split into: the vocabulary's words of two or more letters
    (and their plurals) and the small words. Not "a" nor "i": a lone letter splits any run
    somewhere, and the work grows with the places a split can go on from."""
    words = {word for word in vocabulary if len(word) > 1}
    words |= {word + "s" for word in words if len(word) > 2}
    return frozenset(words | _SMALL_WORDS)
