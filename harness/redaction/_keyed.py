"""Secrets under their key: ``key=value``, ``key: value``, ``"key": "value"``, ``--flag value``
and keys written with percent escapes (private to :mod:`harness.redaction`).

Keys are found by their hint words in the key skeleton of the text (:mod:`._keys`), so the
patterns only run where a key may be; a key's strength (:func:`._keys.key_strength`) and the
value's look (:mod:`._values`) decide whether the value goes.
"""

from __future__ import annotations

import re

from harness.redaction._keys import (
    ASSIGNMENT,
    HSPACE,
    KEY_CHARS,
    hint_spans,
    is_key_char,
    key_strength,
    key_strength_at,
)
from harness.redaction._placeholders import PLACEHOLDER_RE, PLACEHOLDERS, SECRET
from harness.redaction._prose import PROSE_KEY, PROSE_STOP, prose_value
from harness.redaction._values import inert, inert_pair, looks_credential

__all__ = ["FLAG_START", "flags", "key_values", "pct_keys"]

# A quoted value (plain or JSON-escaped quotes; an unterminated quote runs to the end of the
# line), or an unquoted one that runs to whitespace or a list separator. An HTTP auth scheme
# in front of the value stays visible, whatever space follows it (NBSP, a narrow or an
# ideographic space, a tab, an invisible character). An unquoted value goes on over what only *may* end it:
# a ``&`` not followed by the next ``key=`` (``password=ab&Cd9``), a backslash escape that is
# not a JSON quote or control escape (``ab\Cd``, Java's ``ab\=cd``), and a quote glued
# between two of its characters (``ab"Cd``); a value never runs to a later pair's key.
_SCHEME = (
    r"(?:(?i:Bearer|Basic|Token|Digest|Bot|JWT|Negotiate|Api-Token|OAuth|SSWS|NTLM|Kerberos|"
    r"ApiKey|Api-Key|SharedKey|SharedAccessSignature|GenieKey|SSO-Key|Splunk|HMAC|Hawk|DPoP|"
    r"AWS4-HMAC-SHA256)" + HSPACE + r"+|!!?[A-Za-z][\w\-]*[ \t]+)?"  # and a YAML tag: ``!!str X``
)

_VALUE = (
    r"(?!" + _SCHEME + PLACEHOLDER_RE + r")"
    r"(?P<scheme>" + _SCHEME + r")"
    r"(?:(?P<q>\\*[\"'`])(?P<qv>[^\n]*?)(?P<qc>(?P=q)|(?=\n)|\Z)"
    r"|(?P<uv>(?:[^\s\"'`\\,;&)}\]]|[,;)}\]](?=[^\s\"'`,;])|&(?![\w.\-\[\]%]*=|amp;|&)"
    r"|\\[^\s\"'`\\nrtu]|(?<=[^\W_])[\"'](?=[^\W_]))+))"
)

_FLAGS = re.compile(
    # Command-line flags: --password hunter2, --token=abc.
    # (The lookbehinds sit after the first "-" so that the engine scans for it.)
    r"(?P<flag>-(?<![\w\->]-)-?[\w\-]*?(?:pass|pwd|secret|token|key|auth|cred|cookie)[\w\-]*)"
    r"(?P<fsep>=|[ \t]+)"
    r"(?P<fval>(?!" + PLACEHOLDER_RE + r")(?!-)(?:\"[^\"\n]*\"|'[^'\n]*'|\S+))"
    # And curl -u / --user user:password (the whole credential pair goes).
    r"|(?P<uflag>-(?<![\w\->]-)(?:u|-user)(?:[ \t]+|=))(?P<upair>(?!"
    + PLACEHOLDER_RE
    + r")\S*:\S*)"
)

# key = value, key: value, "key": "value", key := value, key => value, key<TAB>value, with
# full-width ``：``/``＝`` and any Unicode space. Matched only at identifiers that hold a hint
# word (found in the key skeleton of the text), so the regex never walks the whole line.
_KEY_VALUE = re.compile(
    r"(?P<key>[^\W\d]" + KEY_CHARS + r"*+)"
    # The separator is atomic: "=>" must not back off to "=" and take ">" as a value. A key
    # may be closed by a quote or a bracket: PHP's ``[password] => X`` (``print_r``), a form's
    # ``user[password]=X``.
    r"(?P<sep>(?>(?:\\*[\"'`]|\])?"
    + HSPACE
    + r"*(?:=>|:=|[=＝]|[:：](?!//))"
    + HSPACE
    + r"*|\t+))"
    + _VALUE
)

# What makes the identifier after it a variable's name, not a key: ``$``, ``${``, ``%`` (cmd),
# ``$env:`` (PowerShell).
_REFERENCE_BEFORE = re.compile(r"(?:\$\{?|%|\$env:)\Z", re.IGNORECASE)

# Words that continue an unquoted passphrase (``passphrase=correct horse battery staple``).
_PASSPHRASE_WORD = re.compile(r" +(?P<w>[^\s=:;,&|\"'<>(){}\[\]]+)(?![=:\w])")


# A dash where a command's words start (the text's start or after a space): a gate for the
# flags above; the literal comes first so that the engine scans for it.
FLAG_START = re.compile(r"-(?:(?<=^-)|(?<= -))")


def flags(text: str) -> str:
    """Command-line flags that name a secret (``--password X``, ``--token=X``) and ``-u user:X``."""
    return _FLAGS.sub(_flag, text)


def key_values(text: str) -> str:
    """Replace the values of secret-named keys, visiting only identifiers with a hint word.

    Hints are found in the key skeleton of the text (:mod:`._keys`): case, accents,
    full-width forms and digits standing for letters folded, invisible characters skipped.
    """
    hits = hint_spans(text)
    out: list[str] = []
    last = 0
    for hint_start, hint_end in hits:
        if hint_start < last:
            continue
        start = hint_start
        while start > last and is_key_char(text[start - 1]):
            start -= 1
        # A key starts with a letter or underscore; digits, dots and dashes before it belong
        # to whatever came first (an address, a version), which a later pass may replace.
        while start < hint_start and not (text[start].isalpha() or text[start] == "_"):
            start += 1
        if _REFERENCE_BEFORE.search(text, max(0, start - 5), start):
            continue  # ``$PASS``, ``${TOKEN}``, ``%PASSWORD%``, ``$env:TOKEN``: a reference
        match = _KEY_VALUE.match(text, start)
        replaced: str | None
        if match is not None and match.end("key") >= hint_end:
            replaced, end = _key_value(text, match)
        else:
            prose = PROSE_KEY.match(text, start)
            if prose is None or prose.end("key") < hint_end:
                continue
            replaced, end = prose_value(text, prose)
        if replaced is None:
            continue
        out.append(text[last:start])
        out.append(replaced)
        last = end
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


def _flag(match: re.Match[str]) -> str:
    if match.group("flag") is not None:
        head = match.group("flag") + match.group("fsep")
        value = match.group("fval")
        if key_strength(match.group("flag")) == 2 and not inert(value.strip("\"'")):
            return head + SECRET
        return head + key_values(value)
    pair = match.group("upair").strip("\"'")
    if pair in (":", "") or inert_pair(pair):
        return match.group(0)
    return match.group("uflag") + SECRET


def _key_value(text: str, match: re.Match[str]) -> tuple[str, int]:
    quote = match.group("q")
    value = match.group("qv") if quote is not None else match.group("uv")
    key = match.group("key")
    strength = key_strength_at(text, match.start(), key)
    if quote is None and strength:
        special = _wrapped_value(text, match, strength) or _auth_credential(text, match, strength)
        if special is not None:
            return special
    end = match.end()
    if quote is None and strength == 2 and "\t" not in match.group("sep"):
        end = _passphrase_end(text, value, end)
    elif quote is not None and match.group("qc"):
        close = _closing_quote(text, match.start("qv"), quote)
        if close is not None:
            value, end = text[match.start("qv") : close], close + len(quote)
    # A status word is inert alone (``password: incorrect``), not as a passphrase's first word.
    secret = (
        bool(value)
        and (end > match.end() or not inert(value))
        and (strength == 2 or (strength == 1 and looks_credential(value)))
    )
    head = key + match.group("sep") + match.group("scheme")
    tail = ""
    if quote is not None:
        head += quote
        tail = match.group("qc")
    if not secret:
        # The value may itself hold a keyed secret (``url=...?token=...``).
        value = match.group("qv") if quote is not None else value
        return head + key_values(value) + tail, match.end()
    return head + SECRET + tail, end


def _closing_quote(text: str, start: int, quote: str) -> int | None:
    """Where a quoted value really ends: the first ``quote`` on the line that is not escaped.

    A quote of ``k`` backslashes and a quote character (``"`` in JSON, ``\\"`` in JSON inside
    a JSON string) closes when the backslashes before its character number ``k`` modulo
    ``2(k + 1)``: ``\\"`` inside a JSON string, and ``\\\\\\"`` inside an escaped one, are
    quote characters of the value.
    """
    char = quote[-1]
    escapes = len(quote) - 1
    index = text.find(char, start)
    while index != -1:
        if "\n" in text[start:index]:
            return None
        run = index
        while run > start and text[run - 1] == "\\":
            run -= 1
        backslashes = index - run
        if backslashes >= escapes and backslashes % (2 * escapes + 2) == escapes:
            return index - escapes
        index = text.find(char, index + 1)
    return None


# A value that opens a list or object (``['x']``, ``{"value": "x"}``, Go's ``map[k:[x]]`` and
# ``[]string{x}``): the secret is inside, up to the bracket that closes it on the same line.
_OPENS = re.compile(r"(?:\[\]\w*)?[\[{(]+")

_CLOSES = {"[": "]", "{": "}", "(": ")"}

# An Authorization header's scheme that no list names: one word, then the credential.
_AUTH_SCHEME = re.compile(r"[A-Za-z][\w.\-]{0,30}")

_AUTH_CREDENTIAL = re.compile(r"[ \t]+(?P<c>[^\s\"'`,;]+)")

# Inside an object that is a secret's value, the keys that only say "the value" hold it
# (Terraform's ``"password": {"sensitive": true, "value": "x"}``).
_GENERIC_VALUE = re.compile(
    r"(?P<k>[\"']?(?:value|val|data|plaintext|text|current|secret_value)[\"']?[ \t]*[:=][ \t]*)"
    r"(?P<v>\"[^\"\n]*\"|'[^'\n]*'|[^\s,;}\]]+)"
)

# Spring's binding error quotes the rejected value: ``field 'password': rejected value [x]``.
_REJECTED_VALUE = re.compile(r"rejected value \[(?P<v>[^\]\n]*)\]")


def _wrapped_value(text: str, match: re.Match[str], strength: int) -> tuple[str, int] | None:
    """A value inside brackets (``password: ['x']``, ``{"value": "x"}``, ``map[k:[x]]``) or
    quoted by Spring (``password': rejected value [x]``): masked up to its closing bracket."""
    start = match.start("uv")
    rejected = _REJECTED_VALUE.match(text, start)
    opener = ""
    if rejected is not None:
        inner_start, inner_end, end = rejected.start("v"), rejected.end("v"), rejected.end()
    else:
        opens = _OPENS.match(text, start)
        if opens is None:
            return None
        opener = opens.group()[-1]
        inner_start = opens.end()
        closing = _closing(text, inner_start, opener)
        if closing is None:
            return None
        inner_end, end = closing, closing + 1
    inner = text[inner_start:inner_end].strip().strip("\"'`").strip()
    head = text[match.start() : inner_start]
    if opener == "{" and ASSIGNMENT.search(inner):
        # An object: its own keys decide, and its "value" keys hold the secret.
        body = _GENERIC_VALUE.sub(_generic_value, key_values(text[inner_start:inner_end]))
        return head + body + text[inner_end:end], end
    if (
        not inner
        or inner in PLACEHOLDERS
        or inert(inner)
        or (strength == 1 and not looks_credential(inner))
    ):
        return head + key_values(text[inner_start:inner_end]) + text[inner_end:end], end
    return head + SECRET + text[inner_end:end], end


def _generic_value(match: re.Match[str]) -> str:
    value = match.group("v")
    bare = value.strip("\"'")
    if not bare or bare in PLACEHOLDERS or inert(bare):
        return match.group(0)
    quote = value[0] if value[0] in "\"'" and value[-1] == value[0] and len(value) > 1 else ""
    return match.group("k") + quote + SECRET + quote


def _closing(text: str, start: int, opener: str) -> int | None:
    """The index of the bracket that closes ``opener`` (opened just before ``start``) on the
    same line, brackets inside balanced; None when the line ends first."""
    depth = 1
    for index in range(start, min(len(text), start + 400)):
        char = text[index]
        if char == "\n":
            return None
        if char in _CLOSES:
            depth += 1
        elif char in "]})":
            depth -= 1
            if depth == 0:
                return index if char == _CLOSES[opener] else None
    return None


def _auth_credential(text: str, match: re.Match[str], strength: int) -> tuple[str, int] | None:
    """``Authorization: <Scheme> <credential>`` with a scheme no list names: the scheme stays,
    the credential goes."""
    if strength != 2 or match.group("scheme"):
        return None
    if not match.group("key").lower().rstrip("\"'`").endswith("authorization"):
        return None
    value = match.group("uv")
    credential = _AUTH_CREDENTIAL.match(text, match.end())
    if credential is None or not _AUTH_SCHEME.fullmatch(value):
        return None
    head = text[match.start() : match.end()] + text[match.end() : credential.start("c")]
    if credential.group("c") in PLACEHOLDERS:
        return head + credential.group("c"), credential.end()
    return head + SECRET, credential.end()


def _passphrase_end(text: str, value: str, end: int) -> int:
    """Where an unquoted passphrase ends: ``passphrase=correct horse battery staple``.

    Only a value that starts with a plain lower-case word continues, over the words that
    follow up to a ``key=``, punctuation or a word that starts the rest of a log message.
    """
    if not (value.isalpha() and value.islower() and len(value) <= 24):
        return end
    while True:
        word = _PASSPHRASE_WORD.match(text, end)
        if word is None or word.group("w").lower() in PROSE_STOP:
            return end
        end = word.end()


# ``pass%77ord=...``: a key written with percent escapes is judged decoded. A key starts where
# no key character precedes it: started after every ``-`` of ``a-a-a-…``, the search was
# quadratic in the run's length.
_PCT_KEY = re.compile(
    r"(?<![\w.\-%])(?P<key>[\w.\-]*+%[0-9A-Fa-f]{2}[\w.\-%]*)(?P<sep>=)"
    r"(?P<v>(?!" + PLACEHOLDER_RE + r")[^\s&;,\"'<>]+)"
)


def pct_keys(text: str) -> str:
    """``pass%77ord=X``: a key written with percent escapes, judged decoded."""
    return _PCT_KEY.sub(_pct_key, text)


def _pct_key(match: re.Match[str]) -> str:
    if key_strength(match.group("key")) != 2 or inert(match.group("v")):
        return match.group(0)
    return match.group("key") + match.group("sep") + SECRET
