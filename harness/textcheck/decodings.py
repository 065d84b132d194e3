"""Text hidden in a common encoding, decoded: what a model reads out of it and a scanner does not.

An instruction planted in tool data can be written in an encoding a model decodes without being
asked (hex, base32, Ascii85, uuencode, character codes, Morse, Braille) or in a simple cipher
(ROT13, the text reversed). :func:`decoded_runs` finds the runs of a text written in one of the
encodings and returns those that decode to readable text; :func:`ciphered` gives the text
deciphered. Base64 is decoded here too. Nothing here judges what the decoded text says: the
text checks run on it as on any other reading (:mod:`harness.textcheck.readings`).

A run counts only when it decodes to *readable* text (printable, with a space between words,
mostly letters): identifiers, hashes and keys that happen to be valid hex or base64 decode to
bytes that are not.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re
from collections.abc import Callable, Iterator

__all__ = ["ciphered", "decoded_runs"]

# The shortest decoded text worth reading: shorter runs say nothing a check could act on.
_MIN_DECODED = 8

# Base64, standard or URL-safe, however it is attached to the text before it (``note=…``).
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{24,}={0,2}")
_URL_SAFE = str.maketrans("-_", "+/")
_BASE32 = re.compile(r"[A-Z2-7]{16,}={0,6}")
# Ascii85 (``<~…~>`` or bare, as ``base64.a85encode`` writes it): the characters ! to u, and z.
# Text in it shows many kinds of punctuation, where an identifier, a path or a timestamp
# shows a few (``-``, ``:``, ``.``, ``/``, ``_``).
_ASCII85 = re.compile(r"[!-uz]{20,}")
_ASCII85_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`")
_ASCII85_KINDS = 5
_ASCII85_LEAD = 16
# Hex: one run of digit pairs, pairs apart (``69 67``, ``69:67``), or each pair marked
# (``\\x69\\x67``, ``0x69 0x67``).
_HEX = re.compile(
    r"(?<![0-9A-Za-z])(?:[0-9A-Fa-f]{2}){8,}(?![0-9A-Za-z])|"
    r"(?<![0-9A-Za-z:-])[0-9A-Fa-f]{2}(?:[ :,-][0-9A-Fa-f]{2}){7,}(?![0-9A-Za-z:-])|"
    r"(?:(?:\\x|0x)[0-9A-Fa-f]{2}[ ,]*){8,}"
)
_HEX_MARKS = re.compile(r"\\x|0x|[ :,-]")
# Character codes in decimal, apart: ``105 103 110 111 114 101``.
_CHAR_CODES = re.compile(r"(?<![\d.])\d{2,3}(?:[ ,]+\d{2,3}){7,}(?![\d.])")
# Morse with ASCII or typographic dots and dashes: letters apart, words apart by ``/``, ``|``
# or a run of spaces.
_MORSE = re.compile(r"[.\-•·−–]{1,7}(?:(?: +| *[/|] *)[.\-•·−–]{1,7}){5,}")
_CODE_SEPARATOR = re.compile(r"[ ,]+")
_MORSE_WORD_BREAK = re.compile(r" *[/|] *| {2,}")
_MORSE_SYMBOLS = str.maketrans("•·−–", "..--")
_MORSE_CODE = {
    ".-": "a", "-...": "b", "-.-.": "c", "-..": "d", ".": "e", "..-.": "f", "--.": "g",
    "....": "h", "..": "i", ".---": "j", "-.-": "k", ".-..": "l", "--": "m", "-.": "n",
    "---": "o", ".--.": "p", "--.-": "q", ".-.": "r", "...": "s", "-": "t", "..-": "u",
    "...-": "v", ".--": "w", "-..-": "x", "-.--": "y", "--..": "z", "-----": "0",
    ".----": "1", "..---": "2", "...--": "3", "....-": "4", ".....": "5", "-....": "6",
    "--...": "7", "---..": "8", "----.": "9", ".-.-.-": ".", "--..--": ",", "..--..": "?",
    "-.-.--": "!", "---...": ":", "-.-.-.": ";", ".----.": "'", ".-..-.": '"', "-...-": "=",
    "-..-.": "/", ".--.-.": "@", "-....-": "-",
}  # fmt: skip
# Braille (six-dot cells, U+2800-U+283F): letters of grade 1 and the blank cell as a space;
# the capital sign is dropped and the number sign reads a-j as the digits.
_BRAILLE = re.compile("[\u2800-\u28ff]+(?:[ \u2800]+[\u2800-\u28ff]+)*")
_BRAILLE_LETTERS = dict(
    zip(
        "⠁⠃⠉⠙⠑⠋⠛⠓⠊⠚⠅⠇⠍⠝⠕⠏⠟⠗⠎⠞⠥⠧⠺⠭⠽⠵⠀⠲⠂⠖⠦⠄⠤⠌",
        "abcdefghijklmnopqrstuvwxyz .,!?'-/",
        strict=True,
    )
)
_BRAILLE_CAPITAL, _BRAILLE_NUMBER = "⠠", "⠼"
_BRAILLE_DIGITS = dict(zip("abcdefghij", "1234567890", strict=True))
# The end of a line in the characters of uuencode (space to backquote): a line of uuencode is
# its length character (32 + the bytes it holds), then four characters per three bytes.
_UU_TAIL = re.compile(r"(?m)[ -`]{5,}$")


def decoded_runs(text: str) -> list[str]:
    """The readable text each encoded run of ``text`` decodes to, in the order found."""
    found: list[str] = []
    seen: set[str] = set()
    for decode in _DECODERS:
        for decoded in decode(text):
            if decoded is not None and decoded not in seen and _readable(decoded):
                seen.add(decoded)
                found.append(decoded)
    return found


def ciphered(text: str) -> tuple[str, str]:
    """``text`` read through ROT13, and read backwards."""
    return codecs.encode(text, "rot13"), text[::-1]


def _readable(text: str) -> bool:
    """Printable text with words: a space, and letters for at least half the characters."""
    if len(text) < _MIN_DECODED or " " not in text or not text.isprintable():
        return False
    letters = sum(c.isalpha() for c in text)
    return 2 * letters >= len(text) - text.count(" ")


def _utf8(raw: bytes) -> str | None:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _base64(text: str) -> Iterator[str | None]:
    for run in _BASE64.findall(text):
        run = run.rstrip("=").translate(_URL_SAFE)
        try:
            yield _utf8(base64.b64decode(run + "=" * (-len(run) % 4), validate=True))
        except binascii.Error:
            continue


def _base32(text: str) -> Iterator[str | None]:
    for run in _BASE32.findall(text):
        try:
            yield _utf8(base64.b32decode(run + "=" * (-len(run) % 8)))
        except binascii.Error:
            continue


def _ascii85(text: str) -> Iterator[str | None]:
    framed = text.find("<~")
    end = text.find("~>", framed) if framed >= 0 else -1
    if end > framed:
        yield _a85(text[framed : end + 2], adobe=True)
    for run in _ASCII85.findall(text):
        if run.startswith("<~") or len(_ASCII85_PUNCTUATION.intersection(run)) < _ASCII85_KINDS:
            continue
        # The run may begin with the text it is attached to (``note=…``): each of the first
        # few characters is tried as its start.
        for start in range(min(_ASCII85_LEAD, len(run) - 20) + 1):
            decoded = _a85(run[start:], adobe=False)
            if decoded is not None and _readable(decoded):
                yield decoded
                break


def _a85(run: str, *, adobe: bool) -> str | None:
    try:
        return _utf8(base64.a85decode(run, adobe=adobe))
    except ValueError:
        return None


def _hex(text: str) -> Iterator[str | None]:
    for run in _HEX.findall(text):
        digits = _HEX_MARKS.sub("", run)
        if len(digits) % 2 == 0:
            yield _utf8(bytes.fromhex(digits))


def _char_codes(text: str) -> Iterator[str | None]:
    for run in _CHAR_CODES.findall(text):
        codes = [int(code) for code in _CODE_SEPARATOR.split(run)]
        if all(32 <= code < 127 for code in codes):
            yield "".join(map(chr, codes))


def _morse(text: str) -> Iterator[str | None]:
    for run in _MORSE.findall(text):
        words = _MORSE_WORD_BREAK.split(run.translate(_MORSE_SYMBOLS))
        letters = [[_MORSE_CODE.get(code) for code in word.split()] for word in words]
        if all(letter is not None for word in letters for letter in word):
            yield " ".join("".join(word) for word in letters)  # type: ignore[arg-type]


def _braille(text: str) -> Iterator[str | None]:
    for run in _BRAILLE.findall(text):
        out: list[str] = []
        number = False
        for cell in run.replace(" ", "\u2800"):
            if cell == _BRAILLE_CAPITAL:
                continue
            if cell == _BRAILLE_NUMBER:
                number = True
                continue
            letter = _BRAILLE_LETTERS.get(cell)
            if letter is None:
                break
            if letter == " ":
                number = False
            out.append(_BRAILLE_DIGITS.get(letter, letter) if number else letter)
        else:
            yield "".join(out)


def _uuencode(text: str) -> Iterator[str | None]:
    decoded = bytearray()
    for tail in _UU_TAIL.finditer(text):
        # The line starts where its length character says how long the rest is.
        line = tail.group()
        for start, char in enumerate(line):
            size = ord(char) - 32
            if 0 < size <= 45 and len(line) - start - 1 == 4 * -(-size // 3):
                try:
                    decoded += binascii.a2b_uu(line[start:])
                except binascii.Error:
                    continue
                break
    if decoded:
        yield _utf8(bytes(decoded))


_DECODERS: tuple[Callable[[str], Iterator[str | None]], ...] = (
    _base64,
    _base32,
    _ascii85,
    _hex,
    _char_codes,
    _morse,
    _braille,
    _uuencode,
)
