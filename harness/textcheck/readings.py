"""The ways a reader can read one text: what the text checks judge, not its encoding.

An instruction planted in tool data is written to reach a model while slipping past a
scanner: zero-width and full-width characters, letters that look Latin, invisible Unicode
tag characters that spell ASCII ("ASCII smuggling"), letters spaced apart, digits for letters,
an instruction in ROT13, written backwards or in an encoding (:mod:`.decodings`: base64, hex,
Morse…), words run together or spelled in the NATO alphabet (:mod:`.runtogether`).
:func:`readings` turns one text into the texts a model would understand from it; a
check that matches any of them matches the text. :func:`surface`
gives only the first two (what the text shows, and the same with look-alikes folded), which
suits checks for commands, where digits and spacing carry meaning.

Every reading keeps line breaks (one ``\\n`` for a run of whitespace that holds one) and folds
other whitespace runs to one space, so a pattern can anchor at the start of a line.
"""

from __future__ import annotations

import html
import re
import unicodedata
from functools import lru_cache
from urllib.parse import unquote

from harness.text import INVISIBLE_CLASS, plain, visible
from harness.textcheck.decodings import ciphered, decoded_runs
from harness.textcheck.runtogether import spaced_out

__all__ = ["readings", "surface"]

# From the first blank before a line break (blanks taken whole): tried from every blank of
# a long run, the search was quadratic in the run's length.
_BREAK = re.compile(r"(?<![^\S\n])[^\S\n]*+\n\s*")
# Whitespace other than one plain space: runs of two or more, tabs and other spaces.
_SPACE = re.compile(r"[^\S\n]{2,}|[^\S \n]")
# Unicode tag characters (U+E0020-U+E007E) mirror printable ASCII and render as nothing.
_TAGS = re.compile("[\U000e0000-\U000e007f]")
# Single letters each followed by the same one separator, three or more in a row: "i g n o r e",
# "I-G-N-O-R-E", "i.g.n.o.r.e".
_SPACED = re.compile(r"\b[^\W\d_]([ .\-*])(?:[^\W\d_]\1)+[^\W\d_]\b")
# Characters that render as nothing (:data:`~harness.text.INVISIBLE`), read as a space where
# they stand between words: tag characters among them have been read as the ASCII they
# mirror before this runs.
_INVISIBLE = re.compile(f"[{INVISIBLE_CLASS}]")
# A word that mixes letters with digits or $/@ standing for letters: "ign0re", "pr3v10us".
_LEET_WORD = re.compile(r"(?<![\w$@])[\w$@]*?[^\W\d_][013457$@][\w$@]*")
_LEET = str.maketrans("013457$@", "oieastsa")
# A log line's timestamp (ISO 8601 or syslog's) and level, as they lead the line.
_TIMESTAMP = (
    r"\s*(?:\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?|"
    r"[A-Z][a-z]{2} +\d{1,2} \d\d:\d\d:\d\d)"
)
_LOG_TIMESTAMP = re.compile(_TIMESTAMP)
_LOG_PREFIX = re.compile(
    rf"^(?:{_TIMESTAMP})?\s*\[?(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|FATAL|CRITICAL)?"
    r"\]?:?\s*"
)
_ESCAPED = {"n": "\n", "t": " ", "r": "", '"': '"', "\\": "\\", "/": "/"}
_JSON_ESCAPE = re.compile(r'\\(?:u([0-9a-fA-F]{4})|([ntr"\\/]))')
_COMBINING = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")


def _folded(text: str) -> str:
    if "\n" in text:
        text = _BREAK.sub("\n", text)
    return _SPACE.sub(" ", text)


@lru_cache(maxsize=4096)
def surface(text: str) -> tuple[str, ...]:
    """The text as shown, and with look-alike letters folded to Latin when that differs (a
    Russian sentence must stay Russian for checks written in Russian)."""
    seen = visible(text)
    folded = plain(text)
    return tuple(_folded(r) for r in ((seen, folded) if folded != seen else (seen,)))


@lru_cache(maxsize=4096)
def readings(text: str, vocabulary: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """:func:`surface`, then each further reading that differs from it: tag characters and
    JSON string escapes decoded; invisible separators read as spaces, spaced letters joined,
    HTML entities and percent-escapes decoded, underscores as spaces, combining marks dropped;
    then digits read as letters; then, given a ``vocabulary``, the reading before that with
    words run together split apart and NATO spellings read as letters (:func:`~harness.textcheck.runtogether.spaced_out`); then
    log lines joined without their timestamps and levels; then the text through ROT13 and
    backwards; then its encoded runs decoded (base64, hex, Morse…:
    :func:`~harness.textcheck.decodings.decoded_runs`)."""
    if _TAGS.search(text):
        codes = (ord(c) - 0xE0000 for c in _TAGS.findall(text))
        smuggled = "".join(chr(code) for code in codes if 0x20 <= code < 0x7F)
        text = f"{_TAGS.sub('', text)}\n{smuggled}"
    if "\\u" in text or "\\n" in text:
        text = _unescaped(text)
    found = list(surface(text))
    base = found[-1]
    seen = set(found)
    # Invisible characters between words, as spaces; letters spaced apart, joined.
    spaced = _SPACED.sub(_joined, _INVISIBLE.sub(" ", text))
    decoded = _folded(plain(_encoded(spaced)))
    if decoded not in seen:
        found.append(decoded)
        seen.add(decoded)
    leet = _LEET_WORD.sub(_unleet, decoded)
    if leet not in seen:
        found.append(leet)
        seen.add(leet)
    if vocabulary:
        # From the reading before digits became letters: ids would become runs of letters.
        spaced_words = spaced_out(decoded, vocabulary)
        if spaced_words not in seen:
            found.append(spaced_words)
            seen.add(spaced_words)
    lines = base.split("\n")
    if len(lines) > 1 and sum(_LOG_TIMESTAMP.match(line) is not None for line in lines) > 1:
        # Log lines read as one text: a sentence split over lines, each behind its timestamp
        # and level, is the sentence a reader of the lines takes in.
        joined = " ".join(_LOG_PREFIX.sub("", line) for line in lines)
        if joined not in seen:
            found.append(joined)
            seen.add(joined)
    for reading in ciphered(base):
        if reading not in seen:
            found.append(reading)
            seen.add(reading)
    runs = decoded_runs(text)
    if runs:
        found.append(_folded("\n".join(runs)))
    return tuple(found)


def _unescaped(text: str) -> str:
    """``text`` with JSON's string escapes read: ``\\uXXXX`` (surrogate pairs joined), and
    ``\\n``, ``\\"`` and ``\\\\``. A JSON log line written with ASCII escapes (Python's
    default) shows a reader the characters, and a role line after an escaped line break."""
    text = _JSON_ESCAPE.sub(_escape, text)
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _escape(match: re.Match[str]) -> str:
    code = match.group(1)
    if code is not None:
        return chr(int(code, 16))
    return _ESCAPED[match.group(2)]


def _joined(match: re.Match[str]) -> str:
    return match.group().replace(match.group(1), "")


def _encoded(text: str) -> str:
    """``text`` with HTML entities and percent-escapes decoded, underscores read as spaces and
    combining marks dropped (an "i" with a dot above is an "i")."""
    if "&" in text:
        text = html.unescape(text)
    if "%" in text:
        text = unquote(text)
    text = text.replace("_", " ")
    if _COMBINING.search(text):
        text = "".join(
            c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c)
        )
    return text


def _unleet(match: re.Match[str]) -> str:
    word = match.group()
    # A number with a unit or a version ("500ms", "v1") is not a word spelled in digits: a
    # digit must follow a letter, and the word hold two letters.
    first = next((i for i, c in enumerate(word) if c.isalpha()), len(word))
    if sum(c.isalpha() for c in word) < 2 or not any(c in "013457$@" for c in word[first:]):
        return word
    return word.translate(_LEET)
