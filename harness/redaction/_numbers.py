"""Personal and payment numbers (private to :mod:`harness.redaction`).

Each shape is checked beyond its look where a check exists, so that ordinary numbers stay:
card numbers must pass Luhn and start with an issuer prefix, IBANs must pass ISO 7064 mod 97,
phone numbers need a ``+`` country code (or the North American ``(415) 555-0132`` shape) and
8-15 digits, SSNs exclude the never-issued areas. MAC addresses are machine identifiers and
become ``<HOST>``.
"""

from __future__ import annotations

import re

from harness.redaction._placeholders import HOST, SECRET
from harness.redaction._shapes import CISCO_MAC_ADDRESS, MAC_ADDRESS

__all__ = [
    "EIGHT_DIGITS",
    "FIVE_MAC_SEPARATORS",
    "THIRTEEN_DIGITS",
    "TWO_DOTS",
    "cards",
    "cisco_mac_addresses",
    "ibans",
    "international_phones",
    "mac_addresses",
    "parenthesised_phones",
    "plain_phones",
    "ssns",
]

# Each pattern starts with its rarest literal where it can, so that the engine scans for it.
_CARD = re.compile(
    r"(?=\d)(?<![\w\-.+/])(?:\d{13,19}|\d{4}(?P<s>[ \-])\d{4}(?P=s)\d{4}(?P=s)\d{1,7}"
    r"|\d{4}(?P<a>[ \-])\d{6}(?P=a)\d{4,5})(?![\w\-])"
)
_ISSUER = re.compile(r"4|5[1-5]|2[2-7]|3[47]|3[05689]|6(?:011|5|4[4-9]|2)|5[06-9]")
_SSN = re.compile(r"-(?<=(?<![\w\-])\d{3}-)(?!00)\d{2}-(?!0000)\d{4}(?![\w\-])")
_IBAN = re.compile(
    r"[A-Z](?<![A-Za-z0-9][A-Z])[A-Z]\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,4})?"
    r"(?![A-Za-z0-9])"
)
_PHONE_PLUS = re.compile(r"\+(?<![\w+]\+)\d{1,3}(?:[ .\-]?\(?\d{1,4}\)?){2,5}(?![\w])")
_PHONE_PAREN = re.compile(r"\((?<![\w\-.(]\()\d{3}\)[^\S\n]?\d{3}[.\-]\d{4}(?![\w\-])")
_PHONE_PLAIN = re.compile(r"[.\-](?<=(?<![\w\-.])\d{3}[.\-])\d{3}[.\-]\d{4}(?![\w\-.])")


def _luhn(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = ord(char) - 48
        if index % 2:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


def _card(match: re.Match[str]) -> str:
    text = match.group(0)
    separators = {c for c in text if not c.isdigit()}
    if len(separators) > 1:
        return text
    digits = text.replace(" ", "").replace("-", "")
    if not 13 <= len(digits) <= 19 or not _ISSUER.match(digits) or not _luhn(digits):
        return text
    return SECRET


def _iban(match: re.Match[str]) -> str:
    compact = match.group(0).replace(" ", "")
    if not 15 <= len(compact) <= 34:
        return match.group(0)
    moved = compact[4:] + compact[:4]
    number = "".join(str(int(c, 36)) for c in moved)
    return SECRET if int(number) % 97 == 1 else match.group(0)


def _phone(match: re.Match[str]) -> str:
    digits = sum(c.isdigit() for c in match.group(0))
    return SECRET if 8 <= digits <= 15 else match.group(0)


def _replace_from(pattern: re.Pattern[str], back: int, text: str, replace: str) -> str:
    """Substitute matches of a literal-first ``pattern`` whose real start is ``back``
    characters before the match (the part a lookbehind checked)."""
    out: list[str] = []
    last = 0
    for found in pattern.finditer(text):
        start = found.start() - back
        if start < last:
            continue
        out.append(text[last:start])
        out.append(replace)
        last = found.end()
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


def cards(text: str) -> str:
    """Card numbers: 13-19 digits (grouped or not) with an issuer prefix that pass Luhn."""
    return _CARD.sub(_card, text)


def ssns(text: str) -> str:
    """US social security numbers (``123-45-6789``), never-issued areas excepted."""
    out: list[str] = []
    last = 0
    for found in _SSN.finditer(text):
        # The pattern starts at the dash; its lookbehind checked the three-digit area.
        start = found.start() - 3
        area = text[start : found.start()]
        if start < last or area in ("000", "666") or area.startswith("9"):
            continue
        out.append(text[last:start])
        out.append(SECRET)
        last = found.end()
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


def ibans(text: str) -> str:
    """IBANs that pass ISO 7064 mod 97, grouped by four or not."""
    return _IBAN.sub(_iban, text)


def international_phones(text: str) -> str:
    """Phone numbers with a ``+`` country code and 8-15 digits."""
    return _PHONE_PLUS.sub(_phone, text)


def parenthesised_phones(text: str) -> str:
    """North American numbers with the area code in brackets: ``(415) 555-0132``."""
    return _replace_from(_PHONE_PAREN, 0, text, SECRET)


def plain_phones(text: str) -> str:
    """North American numbers in groups of three, three and four: ``415-555-0132``."""
    return _replace_from(_PHONE_PLAIN, 3, text, SECRET)


def mac_addresses(text: str) -> str:
    """MAC addresses in pairs of hex digits (``00:1A:2B:3C:4D:5E``, ``00-1a-…``)."""
    return MAC_ADDRESS.sub(HOST, text)


def cisco_mac_addresses(text: str) -> str:
    """MAC addresses as Cisco writes them (``001a.2b3c.4d60``), with a letter among the digits."""
    out: list[str] = []
    last = 0
    for found in CISCO_MAC_ADDRESS.finditer(text):
        start = found.start() - 4
        if start < last or not any(c.isalpha() for c in text[start : found.end()]):
            continue
        out.append(text[last:start])
        out.append(HOST)
        last = found.end()
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


def _at_least(count: int, chars: str) -> re.Pattern[str]:
    """A pattern found in a text that holds ``count`` characters of ``chars`` (a gate: anchored,
    its repeats possessive, so that a search costs one linear scan)."""
    return re.compile(rf"\A(?:[^{chars}]*+[{chars}]){{{count}}}")


# Gates: the digits a number needs, the separators a MAC address needs.
EIGHT_DIGITS = _at_least(8, "0-9")
THIRTEEN_DIGITS = _at_least(13, "0-9")
FIVE_MAC_SEPARATORS = _at_least(5, r":\-")
TWO_DOTS = _at_least(2, r"\.")
