"""E-mail addresses (plain, percent-encoded, spelled out) and the user info of URLs and DSNs
(private to :mod:`harness.redaction`).
"""

from __future__ import annotations

import re

from harness.redaction._placeholders import EMAIL, PLACEHOLDER_RE, SECRET
from harness.redaction._shapes import DNS_LABEL, EMAIL_ADDRESS
from harness.redaction._values import inert

__all__ = [
    "SPELLED_EMAIL_GATE",
    "emails",
    "pct_emails",
    "spelled_emails",
    "url_userinfo",
    "userinfo",
]

_URL_USERINFO = re.compile(
    # user:password@ in URLs and DSNs (jdbc:mysql://, postgres://, redis://, amqp://, ...).
    r"(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*://)[^\s/@:\"'<>]*:[^\s/\"'<>]*@"
)

# user:password@ without a scheme: Go DSNs (``user:pass@tcp(host:3306)/db``, ``@unix(...)``,
# ``@/db``) and ``user:pass@host``. The password runs to the last ``@`` of the token.
_USERINFO = re.compile(
    r"(?<![\w.\-:/@%+~])(?!(?:mailto|sip|sips|tel|xmpp|urn|cid|mid|news|jdbc):)"
    r"(?P<user>[\w.\-%~+]{1,64}):(?P<pw>(?!" + PLACEHOLDER_RE + r"@)[^\s/\"'<>]+)@(?=[\w\[(/])"
)


def url_userinfo(text: str) -> str:
    """``scheme://user:password@``: the user and the password go."""
    return _URL_USERINFO.sub(_url_userinfo, text)


def userinfo(text: str) -> str:
    """``user:password@host`` without a scheme (Go DSNs): the password goes."""
    return _USERINFO.sub(_userinfo, text)


def _url_userinfo(match: re.Match[str]) -> str:
    return match.group("scheme") + SECRET + "@"


def _userinfo(match: re.Match[str]) -> str:
    if inert(match.group("pw")):
        return match.group(0)
    return match.group("user") + ":" + SECRET + "@"


def emails(text: str) -> str:
    """E-mail addresses."""
    return EMAIL_ADDRESS.sub(EMAIL, text)


# An address written out so that harvesters miss it: ``alice [at] example [dot] com``,
# ``alice(at)example.com``, ``alice AT example DOT com``. With brackets the words are marks
# enough; written bare, ``at`` and ``dot`` are words of prose (``look at this dot product``),
# so every separator must be ``dot`` and the last label a common top-level domain.
_AT = r"\s*[\[({<]\s*(?i:at)\s*[\])}>]\s*"

_DOT = r"(?:\s*[\[({<]\s*(?i:dot)\s*[\])}>]\s*|\.)"

_TOP_LEVEL = r"(?i:com|net|org|edu|gov|io|co|uk|de|fr|nl|info|biz|me|dev|app|ai)"

_SPELLED_EMAIL = re.compile(
    r"(?<![\w.%+\-])[A-Za-z0-9._%+\-]+(?:"
    + _AT
    + r"(?:"
    + DNS_LABEL
    + _DOT
    + r")+[A-Za-z]{2,}|\s+(?i:at)\s+(?:"
    + DNS_LABEL
    + r"\s+(?i:dot)\s+)+"
    + _TOP_LEVEL
    + r")(?![\w\-])"
)

SPELLED_EMAIL_GATE = re.compile(r"[\[({<]\s*at\s*[\])}>]|\sdot\s", re.IGNORECASE)


def spelled_emails(text: str) -> str:
    """Addresses spelled out: ``alice [at] example [dot] com``."""
    return _SPELLED_EMAIL.sub(EMAIL, text)


_PCT_EMAIL = re.compile(
    r"(?<![\w.%+\-])[\w.+\-]+%40(?:" + DNS_LABEL + r"\.)+[A-Za-z][A-Za-z0-9\-]*(?![\w\-])"
)


def pct_emails(text: str) -> str:
    """Percent-encoded addresses: ``alice%40example.com``."""
    return _PCT_EMAIL.sub(EMAIL, text)
