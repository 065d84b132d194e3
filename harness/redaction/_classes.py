"""Secrets written the ways the key-value rule does not read: a key spelled with spaces
between its letters, ``set password to X``, a ``user/password`` pair after a login word, a
key and its value on two lines, the second copy of a value in the same text, and internal
host names that carry an internal label inside a public domain (private to
:mod:`harness.redaction`).

Each is one class of the table (:mod:`harness.redaction.rules`) with its neighbours: the
separators, disguises and repetitions the examples there name.
"""

from __future__ import annotations

import re

from harness.redaction._keyed import key_values
from harness.redaction._keys import HSPACE, key_strength
from harness.redaction._placeholders import HOST, PLACEHOLDER_RE, SECRET
from harness.redaction._values import inert

__all__ = [
    "LABELLED_HOST_GATE",
    "LOGIN_PAIR_WORDS",
    "SPACED_KEY_GATE",
    "SPLIT_LINE_GATE",
    "labelled_hosts",
    "login_pairs",
    "set_to_values",
    "spaced_keys",
    "split_line_values",
    "value_copies",
]

_PLACEHOLDER = re.compile(PLACEHOLDER_RE)
# Words a "value" of these forms may be without being one (``set password to expire``).
_NOT_VALUES = frozenset(
    {
        "expire", "expired", "expires", "never", "blank", "empty", "default", "none", "null",
        "nil", "the", "a", "an", "be", "match", "change", "random", "true", "false", "on", "off",
        "required", "optional", "disabled", "enabled", "unset", "reset", "rotate", "something",
    }
)  # fmt: skip


def _is_value(value: str) -> bool:
    bare = value.strip("\"'`.,;")
    return (
        len(bare) >= 4
        and bare.lower() not in _NOT_VALUES
        and _PLACEHOLDER.search(bare) is None
        and not inert(bare)
    )


# ----------------------------------------------------------------------------- spaced keys

# A key written one letter at a time (``p a s s w o r d = X``), then its separator and value.
_SPACED_KEY = re.compile(
    r"(?<![\w])(?P<key>(?:[^\W\d_][ \u00a0]){3,}[^\W\d_])"
    r"(?P<sep>" + HSPACE + r"*(?:=|:|：)" + HSPACE + r"*)"
    r"(?P<v>(?!" + PLACEHOLDER_RE + r")[^\s\"'`,;]+)"
)
SPACED_KEY_GATE = re.compile(
    r"[ \u00a0](?<=[^\W\d_][ \u00a0])[^\W\d_][ \u00a0][^\W\d_][ \u00a0][^\W\d_]"
)


def _spaced_key(match: re.Match[str]) -> str:
    key = match.group("key").replace(" ", "").replace("\u00a0", "")
    if key_strength(key) != 2 or not _is_value(match.group("v")):
        return match.group(0)
    return match.group("key") + match.group("sep") + SECRET


def spaced_keys(text: str) -> str:
    """The value of a secret key spelled with a space between its letters."""
    return _SPACED_KEY.sub(_spaced_key, text)


# ----------------------------------------------------------------------------- set X to Y

# ``set password to X``, ``changed the admin password to X``, ``reset her token for bob to X``:
# a verb of setting, the key (one or two words), an optional ``for <who>``, ``to``, the value.
_SET_TO = re.compile(
    r"(?i)(?<![\w])(?P<head>(?:set|sets|setting|change[sd]?|changing|reset|resets|resetting"
    r"|update[sd]?|updating|rotate[sd]?|rotating)\s+"
    r"(?:(?:the|your|my|his|her|their|its|our|a)\s+)?"
    r"(?:(?:new|temporary|temp|initial|default)\s+)?"
    r"(?P<key>[^\W\d][\w\-]*(?:\s[^\W\d][\w\-]*)?)"
    r"(?:\s+for\s+[^\s]+)?\s+to\s+(?:be\s+)?)"
    r"(?P<q>[\"'`]?)(?P<v>[^\s\"'`]+?)(?P=q)(?=[\s,;.!?)]*(?:\s|$))"
)


def _set_to(match: re.Match[str]) -> str:
    words = match.group("key").split()
    if key_strength("".join(words)) != 2 and key_strength(words[-1]) != 2:
        return match.group(0)
    if not _is_value(match.group("v")):
        return match.group(0)
    return match.group("head") + match.group("q") + SECRET + match.group("q")


def set_to_values(text: str) -> str:
    """The value a secret is set to in prose: ``set password to X``."""
    return _SET_TO.sub(_set_to, text)


# ----------------------------------------------------------------------------- user/password

LOGIN_PAIR_WORDS = (
    "login", "logon", "log in", "logged in", "sign in", "signed in", "connect", "authenticat",
    "cred", "account",
)  # fmt: skip
"""Words one of which stands before a ``user/password`` pair (the rule's gate)."""

_LOGIN_PAIR = re.compile(
    r"(?i)(?P<head>(?<![\w])(?:log(?:ged|ging)?[ \t]*[io]n|sign(?:ed)?[ \t]+in|connect(?:ed|ing)?"
    r"|authenticat\w*|creds?|credentials|account)(?:[ \t]*[:=])?[ \t]+"
    r"(?:(?:as|with|using|to)[ \t]+)?(?P<user>[A-Za-z_][\w.\-]{0,31})/)"
    r"(?P<pw>(?!" + PLACEHOLDER_RE + r")[^\s/@,;]{6,})(?=[\s@,;)]|$)"
)
# A name, not a password: lower-case words and numbers joined by separators (``payments-2024``).
_NAME_LIKE = re.compile(r"[a-z]+(?:[\-_.][a-z0-9]+)+|[a-z]+|v?\d+(?:\.\d+)*")


def _login_pair(match: re.Match[str]) -> str:
    password = match.group("pw")
    if _NAME_LIKE.fullmatch(password) or not _is_value(password):
        return match.group(0)
    return match.group("head") + SECRET


def login_pairs(text: str) -> str:
    """The password of a ``user/password`` pair after a login word (``login admin/X``)."""
    return _LOGIN_PAIR.sub(_login_pair, text)


# ----------------------------------------------------------------------------- two lines

# A line that ends at a secret key's separator, and a next line that holds one token.
_SPLIT_LINE = re.compile(
    r"(?<![\w.\-])(?P<key>[^\W\d][\w.\-]*)(?P<sep>[\"']?"
    + HSPACE
    + r"*(?:=|:|：)"
    + HSPACE
    + r"*)\n"
    r"(?P<ind>[ \t]*)(?P<v>(?!" + PLACEHOLDER_RE + r")[^\s\-#][^\s]*)(?P<end>[ \t]*(?:\n|\Z))"
)
SPLIT_LINE_GATE = re.compile(r"[=:：][ \t]*\n")


def _split_line(match: re.Match[str]) -> str:
    value = match.group("v")
    if key_strength(match.group("key")) != 2 or value.endswith(":") or not _is_value(value):
        return match.group(0)
    return (
        match.group("key")
        + match.group("sep")
        + "\n"
        + match.group("ind")
        + SECRET
        + match.group("end")
    )


def split_line_values(text: str) -> str:
    """A secret key at the end of one line and its value alone on the next."""
    return _SPLIT_LINE.sub(_split_line, text)


# ----------------------------------------------------------------------------- copies


def _removed(original: str, redacted: str) -> list[str]:
    """What redaction took out of ``original`` for each ``<SECRET>`` it wrote, in order.

    Redaction only replaces spans, so the text between placeholders is ``original``'s own;
    the pieces are matched in order (the least each placeholder can have taken).
    """
    pieces = redacted.split(SECRET)
    if len(pieces) < 2 or len(pieces) > 12:
        return []
    pattern = "(.+?)".join(map(re.escape, pieces))
    found = re.fullmatch(pattern, original, re.DOTALL)
    return list(found.groups()) if found is not None else []


# The words of a text, for the cheap test of a repeated value before any key is looked at.
_VALUE_LIKE = re.compile(r"\d|[^\w\-.]|[a-z][A-Z]|[A-Z][a-z]*[A-Z]")
_WORDS = re.compile(r"[^\s,;:=()\[\]{}\"'`<>]{6,}")


def _has_repeat(text: str) -> bool:
    """Whether some word of six characters or more that looks like a value (a digit, a
    symbol, or mixed case) occurs twice in ``text``."""
    words = _WORDS.findall(text)
    if len(words) < 2 or len(set(words)) == len(words):
        return False
    seen: set[str] = set()
    for word in words:
        if word in seen and _VALUE_LIKE.search(word):
            return True
        seen.add(word)
    return False


# Longer texts are not searched for copies (a log line is far shorter; the cost of matching
# the pieces back grows with the text).
_MAX_COPY_TEXT = 8192


def value_copies(text: str) -> str:
    """Secret-keyed values, and every other copy of such a value in the same text.

    ``new password: X, confirm: X`` names the value once under its key; the second copy
    stands under a word that is no key (``confirm``, ``retype``, ``again``) or none at all.
    """
    if len(text) > _MAX_COPY_TEXT or not _has_repeat(text):
        return text  # no value twice: the key-value rule alone decides this text
    redacted = key_values(text)
    if redacted == text:
        return text
    for value in _removed(text, redacted):
        bare = value.strip("\"'`")
        if (
            len(bare) < 6
            or _PLACEHOLDER.search(bare)
            or not _is_value(bare)
            or key_strength(bare.rstrip("=:")) != 0
        ):
            continue  # too short to be told apart, or a key's name (``password=password=``)
        # Each other copy, as a token of its own and not as a key (followed by ``=``/``:``).
        redacted = re.sub(
            r"(?<![\w<])" + re.escape(bare) + r"(?![\w>])(?![ \t]*[=:])", SECRET, redacted
        )
    return redacted


# ----------------------------------------------------------------------------- hosts

# A host name with an internal label inside a public domain (``db01.internal.example.com``):
# one or more labels, the internal label, then the organisation's domain. A reversed package
# name (``jdk.internal.misc``, ``com.acme.internal.io``) starts with its root word and is left.
_LABELLED_HOST = re.compile(
    r"(?i)(?<![\w.\-])(?:(?<=//)|(?<!/))(?!(?:com|org|net|io|java|javax|jdk|sun|android|kotlin|scala)\.)"
    r"(?:[a-z0-9](?:[a-z0-9\-]{0,61}[a-z0-9])?\.)+"
    r"(?:internal|intranet|intra|corp|lan|priv|private|int|mgmt|infra)\."
    r"(?:[a-z0-9](?:[a-z0-9\-]{0,61}[a-z0-9])?\.)*"
    r"(?:com|net|org|io|co|cloud|dev|app|biz|info|tech|systems|[a-z]{2})(?![\w\-]|\.\w)"
)
LABELLED_HOST_GATE = (
    ".internal.", ".intranet.", ".intra.", ".corp.", ".lan.", ".priv.", ".private.", ".int.",
    ".mgmt.", ".infra.",
)  # fmt: skip
"""Substrings one of which every such host name holds (lower case, the rule's gate)."""


def labelled_hosts(text: str) -> str:
    """Host names with an internal label inside a public domain."""
    return _LABELLED_HOST.sub(HOST, text)
