"""Secrets in prose: a key and its value joined by words, not by a separator (private to
:mod:`harness.redaction`).

``the password was X``, ``requirepass X``, ``密码是X``, ``password for bob is X``, ``use X as the
password``: the value goes when it looks like a credential (digits, symbols or inner capitals),
so that ordinary words after a key (``password reset requested``) stay.
"""

from __future__ import annotations

import re

from harness.redaction._keys import (
    ASSIGNMENT,
    HSPACE,
    KEY_CHARS,
    key_strength,
    key_strength_at,
    skeleton,
)
from harness.redaction._placeholders import PLACEHOLDER_RE, SECRET
from harness.redaction._values import inert

__all__ = [
    "CJK_KEYS",
    "PROSE_KEY",
    "PROSE_STOP",
    "cjk_prose",
    "prose_for",
    "prose_use_as",
    "prose_value",
]

# A key in prose: "the password was X", "requirepass X", "with credentials X", and the same
# with a quoted X ("with password 'X'", ``requirepass "X"``; up to 200 characters on one line).
PROSE_KEY = re.compile(
    r"(?P<key>[^\W\d]" + KEY_CHARS + r"*+)"
    r"(?P<sep>" + HSPACE + r"+(?:(?:temporary|temporaire|provisoire|temporal|temporanea|initial"
    r"|new|nouveau|neues|nuevo|nueva|nova|nuova)" + HSPACE + r"+)?"
    r"(?:(?:is|was|are|were|set to|changed to|reset to|is now|now|became"
    r"|est|ist|war|es|era|lautet|lauten|é|è|to|是|为|は|が|:|—|–)[:：]?" + HSPACE + r"+)?)"
    r"(?:(?P<q>[\"'`])(?P<qv>[^\"'`\n]{1,200})(?P=q)"
    r"|(?P<uv>(?!" + PLACEHOLDER_RE + r")[^\s\"'`,;]+))",
    re.IGNORECASE,
)

# The same in languages written without spaces: ``密码是X``, ``新密码为X``, ``パスワードはXです``,
# ``비밀번호는 X``. The key ends where its word ends, a particle may follow, and the value is the
# run of ASCII characters after it.
CJK_KEYS = ("密码", "密碼", "口令", "密钥", "秘钥", "令牌", "パスワード", "暗証番号", "トークン",
            "비밀번호", "암호", "토큰")  # fmt: skip
_CJK_PROSE = re.compile(
    r"(?P<key>" + "|".join(CJK_KEYS) + ")"
    r"(?P<sep>(?:[是为為はがも]|는|은|이|가)?[:：]?" + HSPACE + r"*)"
    r"(?P<v>(?!" + PLACEHOLDER_RE + r")[!-~]+)"
)

# English prose that puts words between the key and its value (``password for bob changed to
# X``, ``token for svc-deploy is X``) or the value before the key (``use X as the password``).
_PROSE_WORD_KEY = r"(?:password|passwd|passphrase|passcode|token|secret|api[ _\-]?key|pin)"

_PROSE_FOR = re.compile(
    r"(?i)(?P<head>(?<![\w\-])" + _PROSE_WORD_KEY + r"s?[ \t]+for[ \t]+"
    r"(?:(?:the|user|account|service|role)[ \t]+)?[^\s\"'`,;]+[ \t]+"
    r"(?:(?:has|have|been|was|is|now|changed|set|reset|updated)[ \t]+){0,3}(?:is|to)[:]?[ \t]+)"
    r"(?P<v>(?!" + PLACEHOLDER_RE + r")[^\s\"'`,;]+)"
)

_PROSE_AS = re.compile(
    r"(?i)(?P<head>(?<![\w\-])use[ \t]+)(?P<v>(?!" + PLACEHOLDER_RE + r")[^\s\"'`,;]+)"
    r"(?P<tail>[ \t]+as[ \t]+(?:(?:the|your|a|an|new|temporary|initial)[ \t]+)*"
    + _PROSE_WORD_KEY
    + r")\b"
)

# Words that start prose rather than hold a value (``password for bob``, ``token from env``).
PROSE_STOP = frozenset(
    {"for", "from", "to", "at", "on", "in", "by", "with", "via", "as", "and", "or", "not",
     "user", "username", "login", "host", "the", "a", "an", "of", "if", "is", "was"}
)  # fmt: skip


def prose_value(text: str, match: re.Match[str]) -> tuple[str | None, int]:
    """``the password was X``, ``requirepass X``, ``credentials X``: a credential-looking X
    (quoted or not; a quoted X keeps its quotes)."""
    key = match.group("key")
    quote = match.group("q")
    value = match.group("qv") if quote is not None else match.group("uv")
    start = match.start()
    if start > 0 and text[start - 1] in "=:/":
        return None, match.end()  # the "key" is itself a value (grant_type=client_credentials)
    if key_strength_at(text, start, key) != 2 or not _prose_credential(value):
        return None, match.end()
    if quote is None and _names_an_object(key, match.group("sep"), value):
        return None, match.end()
    if match.group("sep").strip().rstrip(":：").lower() == "to" and not _TO_KEYS.search(
        skeleton(key)
    ):
        return None, match.end()  # ``hasło to X``; in English, ``password to bob`` is prose
    if quote is not None:
        return key + match.group("sep") + quote + SECRET + quote, match.end()
    attached = _NEXT_KEY.match(value)
    if (attached is not None and key_strength(attached.group("k")) == 2) or (
        key_strength(value) == 2 and ASSIGNMENT.match(text, match.end())
    ):
        # ``pw PassWord: X``: the "value" is the next key; taking it would leave X behind,
        # so the key=value rule takes the pair at that key's own hint.
        return None, match.end()
    return key + match.group("sep") + SECRET, match.end()


# Keys that name a thing a system stores under a name of its own (a Kubernetes secret, a
# Vault token, a CLI's auth command group), as opposed to a value (a password, a passphrase):
# right after one, with nothing between, a kebab-case word is that thing's name or a
# subcommand (``kubectl get secret db-credentials``, ``gcloud auth print-access-token``,
# ``vault token lookup-self``), not its value.
_OBJECT_KEYS = frozenset(
    {"auth", "secret", "secrets", "token", "tokens", "credential", "credentials", "creds",
     "key", "keys", "apikey", "cookie", "cookies", "certificate", "cert"}
)  # fmt: skip


def _names_an_object(key: str, sep: str, value: str) -> bool:
    """Whether a prose "value" is the name of what an object key names: the key is an object
    noun, nothing but space joins them (``the secret is X`` states a value), and the word is a
    kebab-case name: lower-case ASCII words joined by hyphens, two or more (digits or capitals
    make it credential-shaped again: ``Corvid-Harbor-77``)."""
    if sep.strip():
        return False
    # ``API_KEY``, ``db.secret``: the key's last word counts.
    words = "".join(c if c.isalpha() else " " for c in skeleton(key)).split()
    parts = value.rstrip(".,;:!?)").split("-")
    return (
        bool(words)
        and words[-1] in _OBJECT_KEYS
        and len(parts) > 1
        and all(part.isascii() and part.isalpha() and part.islower() for part in parts)
    )


# Keys of languages where a bare ``to`` says "is" (Polish, Czech).
_TO_KEYS = re.compile(r"(?:haslo|heslo)$")

# A prose "value" that is itself a key with its separator (``pw PassWord: X``).
_NEXT_KEY = re.compile(r"(?P<k>[^\W\d][\w.\-]*)(?:[=＝]|[:：](?!//))$")


def cjk_prose(text: str) -> str:
    """A key glued to its value by a particle, in a language written without spaces:
    ``密码是X``, ``パスワードはXです``."""
    return _CJK_PROSE.sub(_prose_span, text)


def prose_for(text: str) -> str:
    """Words between a key and its value: ``password for bob is X``."""
    return _PROSE_FOR.sub(_prose_span, text)


def prose_use_as(text: str) -> str:
    """A value before its key: ``use X as the password``."""
    return _PROSE_AS.sub(_prose_span, text)


def _prose_span(match: re.Match[str]) -> str:
    if not _prose_credential(match.group("v")):
        return match.group(0)
    start, end = match.span("v")
    whole = match.group(0)
    return whole[: start - match.start()] + SECRET + whole[end - match.start() :]


def _prose_credential(value: str) -> bool:
    if inert(value) or value.lower() in PROSE_STOP or value.startswith("-"):
        return False
    body = value.rstrip(".,;:!?)")
    if len(body) < 3:
        return False
    if any(c.isdigit() for c in body):
        return len(body) >= 3
    symbols = any(not c.isalnum() for c in body)
    inner_upper = any(c.isupper() for c in body[1:])
    return len(body) >= 6 and (symbols or inner_upper)
