"""The redactor and its passes (private to :mod:`harness.redaction`)."""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = [
    "PLACEHOLDERS",
    "Redactor",
    "exchange_lines",
    "is_secret_shaped",
    "redact",
]

from harness.redaction._encoded import ENCODED_GATE, encoded_pairs
from harness.redaction._keys import (
    HINT_RE,
    SPLIT_KEY,
    compact,
    compacted,
    key_strength,
    skeleton,
)
from harness.redaction._numbers import numbers
from harness.redaction._patterns import (
    _AUTH_CREDENTIAL,
    _AUTH_SCHEME,
    _CJK_PROSE,
    _CLOSES,
    _CLOUD_HOST_RE,
    _DASHED_GATE,
    _DIGEST_LABEL,
    _DS_POD_RE,
    _DS_SUFFIX,
    _EMAIL,
    _FLAGS,
    _GENERIC_VALUE,
    _HEX,
    _HOST_CHARS,
    _HOST_SUFFIX_RE,
    _HOST_SUFFIXES,
    _HS,
    _ID_LABEL,
    _ID_SHAPE,
    _IP4_GATE,
    _IP4_RE,
    _IP6_GATE,
    _IP6_RE,
    _KEY_VALUE,
    _KNOWN_ID,
    _OPENS,
    _PASSPHRASE_WORD,
    _PCT_EMAIL,
    _PCT_KEY,
    _PEM,
    _PID_RE,
    _POD_KEY,
    _POD_RE,
    _PREFIXED_RE,
    _PREVIOUS_WORDS,
    _PROSE_AS,
    _PROSE_FOR,
    _PROSE_KEY,
    _PROSE_STOP,
    _REJECTED_VALUE,
    _RUN,
    _RUN_PIECES,
    _SPELLED_EMAIL,
    _STATEFUL_NAME,
    _TRACEPARENT,
    _URL_USERINFO,
    _USERINFO,
    DIGEST_ONLY_LABEL,
    DIGEST_VALUE,
    EMAIL,
    GLUED_TAIL,
    HOST,
    IP,
    PID,
    PLACEHOLDERS,
    POD,
    SECRET,
    SPELLED_EMAIL_GATE,
    _inert,
    _inert_pair,
    _is_key_char,
    _is_masked,
    _is_random,
    _looks_credential,
)
from harness.redaction._structured import (
    CLI_WORDS,
    CODE_GATE,
    CREDENTIAL_FILE_GATE,
    FLAG_ITEM_GATE,
    LOGIN_WORDS,
    OAUTH_GATE,
    ORACLE_WORDS,
    ORM_WORDS,
    PROTOCOL_WORDS,
    SQL_WORDS,
    cli_credentials,
    code_assignments,
    cookies,
    credential_files,
    exchange_lines,
    flag_items,
    login_calls,
    name_value_pairs,
    oauth_codes,
    oracle_logins,
    orm_binds,
    protocol_credentials,
    smtp_logins,
    sql_spans,
    xml_values,
    yaml_blocks,
)
from harness.text import INVISIBLE

# Passes until a fixpoint; real text settles after one or two (a third never changed the
# corpora); the bound only guards against a future rule that could oscillate.
_MAX_PASSES = 6
_YAML_BLOCK_GATE = re.compile(r"(?::|=>?)[ \t]*(?:\\[ \t]*)?(?:[|>][+\-]?\d*[ \t]*)?(?:#[^\n]*)?\n")


class Redactor:
    """Replaces secrets and identifiers in text with typed placeholders.

    Stateless apart from compiled patterns and small caches; one instance may be shared. Each
    rule is its own pass behind a cheap gate (a substring test or a short regex search): one
    combined alternation defeats the regex engine's literal scans and measured several times
    slower per line.
    """

    __slots__ = ()

    def redact(self, text: str) -> str:
        """Return ``text`` with every secret/identifier class replaced (idempotent).

        One pass can expose a match to a rule that already ran: a placeholder shortens a run
        (``user@example.comxoxe.xoxb-1-password=...`` loses its e-mail prefix), after which
        a ``key=value`` pair stands on its own. The passes are therefore repeated until
        nothing changes — a fixpoint, so redacting twice is the same as once. Text without
        anything to redact costs one pass, as before.
        """
        if "\n" not in text:
            return _redact_line(text)
        for _ in range(_MAX_PASSES):
            redacted = _redact_block(text)
            if redacted == text:
                return text
            text = redacted
        return text

    __call__ = redact

    def is_secret_shaped(self, text: str) -> bool:
        """Whether redaction would change ``text``: it holds a secret or an identifier."""
        return self.redact(text) != text


@lru_cache(maxsize=65536)
def _redact_line(text: str) -> str:
    """One line to its fixpoint (cached: stack frames and redacted lines repeat heavily)."""
    for _ in range(_MAX_PASSES):
        redacted = _pass(text)
        if redacted == text:
            return text
        text = redacted
    return text


def _redact_block(text: str) -> str:
    """One pass over a multi-line text: the rules that span lines, then each line (cached).

    Private keys, YAML blocks, ``name``/``value`` pairs, XML elements and SQL statements may
    continue over lines; every other rule sees one line at a time, so the frames of a stack
    trace, repeated across messages, are redacted once.
    """
    low = text.lower()
    if ("begin" in low and "----" in text) or "putty-user-key-file" in low:
        text = _PEM.sub(SECRET, text)
    if any(word in low for word in SQL_WORDS):
        text = sql_spans(text)
    if _YAML_BLOCK_GATE.search(text) and _has_hint(text):
        text = yaml_blocks(text)
    if ("value" in low or "Value" in text) and _has_hint(text):
        text = name_value_pairs(text)
    if "</" in text and _has_hint(text):
        text = xml_values(text)
    if FLAG_ITEM_GATE.search(text) and _has_hint(text):
        text = flag_items(text)
    if "auth" in low and "login" in low:
        text = smtp_logins(text)
    return "\n".join(_redact_line(line) for line in text.split("\n"))


def _pass(text: str) -> str:
    if not text:
        return text
    if ("%" in text or "\\" in text or "&" in text) and ENCODED_GATE.search(text):
        text = encoded_pairs(text, _redact_line)
    low = text.lower()
    if ("begin" in low and "----" in text) or "putty-user-key-file" in low:
        text = _PEM.sub(SECRET, text)
    if any(word in low for word in SQL_WORDS):
        text = sql_spans(text)
    if any(word in text for word in ORM_WORDS):
        text = orm_binds(text)
    if " -" in text and any(word in low for word in CLI_WORDS):
        text = cli_credentials(text)
    if "/" in text and any(word in low for word in ORACLE_WORDS):
        text = oracle_logins(text)
    if any(word in text for word in PROTOCOL_WORDS) or '"auth"' in low:
        text = protocol_credentials(text)
    if "code=" in low and OAUTH_GATE.search(text):
        text = oauth_codes(text)
    if ("BUNDLE_" in text or text.count(":") >= 4) and CREDENTIAL_FILE_GATE.search(text):
        text = credential_files(text)
    if "(" in text and any(word in low for word in LOGIN_WORDS) and CODE_GATE.search(text):
        text = login_calls(text)
    if _has_hint(text):
        if ("(" in text or "[" in text) and CODE_GATE.search(text):
            text = code_assignments(text)
        if "-" in text and "," in text and FLAG_ITEM_GATE.search(text):
            text = flag_items(text)
        if _YAML_BLOCK_GATE.search(text):
            text = yaml_blocks(text)
        if "value" in low or "Value" in text:
            text = name_value_pairs(text)
        if "<" in text and ("</" in text or "/>" in text):
            text = xml_values(text)
        if "cookie" in low:
            text = cookies(text)
        if " -" in text or text.startswith("-"):
            text = _FLAGS.sub(_flag, text)
        text = _key_values(text)
        text = _prose_spans(text, low)
    if "%" in text:
        text = _PCT_KEY.sub(_pct_key, text)
        text = _PCT_EMAIL.sub(EMAIL, text)
    if "@" in text:
        if "://" in text:
            text = _URL_USERINFO.sub(_url_userinfo, text)
        if ":" in text:
            text = _USERINFO.sub(_userinfo, text)
        text = _EMAIL.sub(EMAIL, text)
    if SPELLED_EMAIL_GATE.search(text):
        text = _SPELLED_EMAIL.sub(EMAIL, text)
    text = numbers(text)
    text = _RUN.sub(_run, text)
    if SECRET in text:
        text = GLUED_TAIL.sub(SECRET, text)
    if _DASHED_GATE.search(text):
        text = _CLOUD_HOST_RE.sub(HOST, text)
    if any(suffix in low for suffix in _HOST_SUFFIXES):
        text = _hosts(text)
    if ":" in text and _IP6_GATE.search(text):
        text = _IP6_RE.sub(IP, text)
    if text.count(".") >= 3 and _IP4_GATE.search(text):
        text = _IP4_RE.sub(IP, text)
    if "pid" in low or "[" in text:
        text = _PID_RE.sub(_pid, text)
    if "pod" in low:
        text = _POD_KEY.sub(_pod_key, text)
    if "-" in text:
        text = _ds_pods(text)
    return text


def _has_hint(text: str) -> bool:
    """Whether ``text`` may hold a keyed secret (a hint word in its key skeleton)."""
    if "--user" in text or "-u " in text:
        return True
    view = skeleton(text)
    if HINT_RE.search(view):
        return True
    if not INVISIBLE.isdisjoint(view) or SPLIT_KEY.search(view):
        return HINT_RE.search(compacted(view)) is not None
    return False


def _hints(text: str) -> list[tuple[int, int]]:
    """Spans of the hint words of ``text`` (in its key skeleton), in text offsets."""
    view = skeleton(text)
    hits = [(m.start(), m.end()) for m in HINT_RE.finditer(view)]
    if not INVISIBLE.isdisjoint(view) or SPLIT_KEY.search(view):
        compacted, origin = compact(view, separators=True)
        hits += [(origin[m.start()], origin[m.end() - 1] + 1) for m in HINT_RE.finditer(compacted)]
        hits.sort()
    return hits


def _key_values(text: str) -> str:
    """Replace the values of secret-named keys, visiting only identifiers with a hint word.

    Hints are found in the key skeleton of the text (:mod:`._keys`): case, accents,
    full-width forms and digits standing for letters folded, invisible characters skipped.
    """
    hits = _hints(text)
    out: list[str] = []
    last = 0
    for hint_start, hint_end in hits:
        if hint_start < last:
            continue
        start = hint_start
        while start > last and _is_key_char(text[start - 1]):
            start -= 1
        # A key starts with a letter or underscore; digits, dots and dashes before it belong
        # to whatever came first (an address, a version), which a later pass may replace.
        while start < hint_start and not (text[start].isalpha() or text[start] == "_"):
            start += 1
        match = _KEY_VALUE.match(text, start)
        replaced: str | None
        if match is not None and match.end("key") >= hint_end:
            replaced, end = _key_value(text, match)
        else:
            prose = _PROSE_KEY.match(text, start)
            if prose is None or prose.end("key") < hint_end:
                continue
            replaced, end = _prose_value(text, prose)
        if replaced is None:
            continue
        out.append(text[last:start])
        out.append(replaced)
        last = end
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


def _strength(text: str, start: int, key: str) -> int:
    """The key's strength, counting the words right before it (``mot de passe``, ``API key``)."""
    strength = key_strength(key)
    if strength == 2 or start == 0 or not text[start - 1].isspace():
        return strength
    before = _PREVIOUS_WORDS.search(text, max(0, start - 40), start)
    if before is None:
        return strength
    words = [w for w in before.groups() if w]
    for count in (1, 2):
        if len(words) >= count and key_strength("".join(words[-count:]) + key) == 2:
            return 2
    return strength


def _flag(match: re.Match[str]) -> str:
    if match.group("flag") is not None:
        head = match.group("flag") + match.group("fsep")
        value = match.group("fval")
        if key_strength(match.group("flag")) == 2 and not _inert(value.strip("\"'")):
            return head + SECRET
        return head + _key_values(value)
    pair = match.group("upair").strip("\"'")
    if pair in (":", "") or _inert_pair(pair):
        return match.group(0)
    return match.group("uflag") + SECRET


def _key_value(text: str, match: re.Match[str]) -> tuple[str, int]:
    quote = match.group("q")
    value = match.group("qv") if quote is not None else match.group("uv")
    key = match.group("key")
    strength = _strength(text, match.start(), key)
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
        and (end > match.end() or not _inert(value))
        and (strength == 2 or (strength == 1 and _looks_credential(value)))
    )
    head = key + match.group("sep") + match.group("scheme")
    tail = ""
    if quote is not None:
        head += quote
        tail = match.group("qc")
    if not secret:
        # The value may itself hold a keyed secret (``url=...?token=...``).
        value = match.group("qv") if quote is not None else value
        return head + _key_values(value) + tail, match.end()
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
    if opener == "{" and _ASSIGNMENT.search(inner):
        # An object: its own keys decide, and its "value" keys hold the secret.
        body = _GENERIC_VALUE.sub(_generic_value, _key_values(text[inner_start:inner_end]))
        return head + body + text[inner_end:end], end
    if (
        not inner
        or inner in PLACEHOLDERS
        or _inert(inner)
        or (strength == 1 and not _looks_credential(inner))
    ):
        return head + _key_values(text[inner_start:inner_end]) + text[inner_end:end], end
    return head + SECRET + text[inner_end:end], end


def _generic_value(match: re.Match[str]) -> str:
    value = match.group("v")
    bare = value.strip("\"'")
    if not bare or bare in PLACEHOLDERS or _inert(bare):
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
        if word is None or word.group("w").lower() in _PROSE_STOP:
            return end
        end = word.end()


def _prose_value(text: str, match: re.Match[str]) -> tuple[str | None, int]:
    """``the password was X``, ``requirepass X``, ``credentials X``: a credential-looking X
    (quoted or not; a quoted X keeps its quotes)."""
    key = match.group("key")
    quote = match.group("q")
    value = match.group("qv") if quote is not None else match.group("uv")
    start = match.start()
    if start > 0 and text[start - 1] in "=:/":
        return None, match.end()  # the "key" is itself a value (grant_type=client_credentials)
    if _strength(text, start, key) != 2 or not _prose_credential(value):
        return None, match.end()
    if match.group("sep").strip().rstrip(":：").lower() == "to" and not _TO_KEYS.search(
        skeleton(key)
    ):
        return None, match.end()  # ``hasło to X``; in English, ``password to bob`` is prose
    if quote is not None:
        return key + match.group("sep") + quote + SECRET + quote, match.end()
    attached = _NEXT_KEY.match(value)
    if (attached is not None and key_strength(attached.group("k")) == 2) or (
        key_strength(value) == 2 and _ASSIGNMENT.match(text, match.end())
    ):
        # ``pw PassWord: X``: the "value" is the next key; taking it would leave X behind,
        # so the key=value rule takes the pair at that key's own hint.
        return None, match.end()
    return key + match.group("sep") + SECRET, match.end()


# Keys of languages where a bare ``to`` says "is" (Polish, Czech).
_TO_KEYS = re.compile(r"(?:haslo|heslo)$")
# A prose "value" that is a secret's key name with its separator, or followed by one.
_ASSIGNMENT = re.compile(_HS + r"*(?:=>|:=|[=＝]|[:：](?!//))")
_NEXT_KEY = re.compile(r"(?P<k>[^\W\d][\w.\-]*)(?:[=＝]|[:：](?!//))$")


def _prose_spans(text: str, low: str) -> str:
    """Prose the key rules cannot take apart: keys glued to their value by a particle
    (``密码是X``), words between key and value (``password for bob is X``), and a value before
    its key (``use X as the password``)."""
    if not text.isascii():
        text = _CJK_PROSE.sub(_prose_span, text)
    if " for " in low:
        text = _PROSE_FOR.sub(_prose_span, text)
    if "use " in low and " as " in low:
        text = _PROSE_AS.sub(_prose_span, text)
    return text


def _prose_span(match: re.Match[str]) -> str:
    if not _prose_credential(match.group("v")):
        return match.group(0)
    start, end = match.span("v")
    whole = match.group(0)
    return whole[: start - match.start()] + SECRET + whole[end - match.start() :]


def _prose_credential(value: str) -> bool:
    if _inert(value) or value.lower() in _PROSE_STOP or value.startswith("-"):
        return False
    body = value.rstrip(".,;:!?)")
    if len(body) < 3:
        return False
    if any(c.isdigit() for c in body):
        return len(body) >= 3
    symbols = any(not c.isalnum() for c in body)
    inner_upper = any(c.isupper() for c in body[1:])
    return len(body) >= 6 and (symbols or inner_upper)


def _pct_key(match: re.Match[str]) -> str:
    if key_strength(match.group("key")) != 2 or _inert(match.group("v")):
        return match.group(0)
    return match.group("key") + match.group("sep") + SECRET


def _url_userinfo(match: re.Match[str]) -> str:
    return match.group("scheme") + SECRET + "@"


def _userinfo(match: re.Match[str]) -> str:
    if _inert(match.group("pw")):
        return match.group(0)
    return match.group("user") + ":" + SECRET + "@"


def _pid(match: re.Match[str]) -> str:
    key = match.group("k")
    return match.group(0)[:3] + key + PID if key is not None else f"[{PID}]"


def _hosts(text: str) -> str:
    """Internal host names: found by their suffix, then taken back to their first label."""
    out: list[str] = []
    last = 0
    for found in _HOST_SUFFIX_RE.finditer(text):
        start = found.start()
        if start < last:
            continue
        while start > last and text[start - 1] in _HOST_CHARS:
            start -= 1
        while start < found.start() and not text[start].isalnum():
            start += 1
        if start == found.start() or (start > 0 and text[start - 1] in "_>"):
            continue
        out.append(text[last:start])
        out.append(_host(text[start : found.end()]))
        last = found.end()
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


def _ds_pods(text: str) -> str:
    """DaemonSet pods (``fluentd-x7k2p``): found by the random suffix, then the name."""
    out: list[str] = []
    last = 0
    for found in _DS_SUFFIX.finditer(text):
        start = found.start()
        if start < last:
            continue
        while start > last and (
            text[start - 1].islower() or text[start - 1].isdigit() or text[start - 1] == "-"
        ):
            start -= 1
        candidate = text[start : found.end()]
        if not text[start : start + 1].isalpha() or not _DS_POD_RE.fullmatch(candidate):
            continue
        if start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_.>/"):
            continue
        out.append(text[last:start])
        out.append(POD)
        last = found.end()
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


def _host(name: str) -> str:
    # Kubernetes service names (``inventory-service.shop.svc.cluster.local``) name a service,
    # not a machine, and are what a diagnosis needs to see; a StatefulSet pod's own name in
    # front of one (``web-0.nginx.shop.svc.cluster.local``) does not.
    if name.lower().endswith(".svc.cluster.local"):
        first, _, rest = name.partition(".")
        if rest.count(".") >= 4 and _STATEFUL_NAME.fullmatch(first):
            return f"{POD}.{rest}"
        return name
    return HOST


def _pod_key(match: re.Match[str]) -> str:
    name = match.group("name")
    if not match.group("sep").strip() and not (
        _STATEFUL_NAME.fullmatch(name) or _POD_RE.fullmatch(name) or _DS_POD_RE.fullmatch(name)
    ):
        return match.group(0)
    return match.group("k") + POD


def _prefixed(match: re.Match[str]) -> str:
    return match.group(0) if _is_masked(match.group(0)) else SECRET


def _run(match: re.Match[str]) -> str:
    """A run redacted, unless it is an identifier by its shape or its label.

    The cached redaction comes first: most runs come back unchanged, and only a run that
    would change needs its label looked up.
    """
    run = match.group(0)
    redacted = _redact_run(run)
    if redacted == run:
        return run
    start = match.start()
    hex_run = run.lstrip("/") if run.startswith("//") else run
    if _HEX.fullmatch(hex_run) and _DIGEST_LABEL.search(match.string, max(0, start - 48), start):
        return run
    if (
        DIGEST_VALUE.fullmatch(run)
        and not _PREFIXED_RE.match(run)
        and DIGEST_ONLY_LABEL.search(match.string, max(0, start - 32), start)
    ):
        return run
    if ("-" in run or "_" in run or "/" in run) and (
        _TRACEPARENT.fullmatch(run) or _KNOWN_ID.fullmatch(run.rstrip("."))
    ):
        return run
    if _labelled_id(match.string, start, run):
        return run
    return redacted


def _labelled_id(text: str, start: int, run: str) -> bool:
    """Whether ``run`` is an identifier by its label (``request_id=01ARZ3ND…``, ``"_id": …``).

    A label that names a credential stays a credential (``session_id``, ``secret_id``), and a
    token with a known secret prefix is one whatever its label says.
    """
    if not _ID_SHAPE.fullmatch(run) or _PREFIXED_RE.match(run.lstrip("/")):
        return False
    before = text[max(0, start - 48) : start]
    if "id" not in before.lower():
        return False
    label = _ID_LABEL.search(before)
    return label is not None and key_strength(label.group("label")) == 0


@lru_cache(maxsize=65536)
def _redact_run(run: str) -> str:
    """Redact one run; cached because runs repeat heavily in logs (paths, class names, pods).

    When a placeholder lands inside the run, the text before it becomes a run of its own on
    the next pass, so it is judged as one now too: that keeps redaction idempotent.
    """
    replaced = _PREFIXED_RE.sub(_prefixed, run)
    if replaced == run:
        replaced = _judge_run(run)
    if replaced == run:
        return run
    cut = replaced.find("<")
    head = replaced[:cut]
    if cut > 0 and _RUN.fullmatch(head):
        replaced = _redact_run(head) + replaced[cut:]
    return replaced


_PATH_WORD = re.compile(r"(?:^|/)[a-z]{2,}(?:/|$)")


def _is_path(run: str) -> bool:
    """A run with an all-lower-case segment between slashes is a path (``/v1/stock/...``);
    base64 with slashes almost never has one."""
    return "/" in run and _PATH_WORD.search(run) is not None


# A path or version piece that names the hex piece after it.
_ID_PIECE_LABELS = ("trace", "traces", "span", "spans", "commit", "commits", "git", "sha")


def _judge_run(run: str) -> str:
    """Redact a long token run whole when it is random, else only its random pieces.

    Runs may be paths or dotted names that merely contain a token, so pieces between ``.``
    and ``/`` are judged one by one; when random pieces make up most of a run that is not a
    path, the whole run goes (a secret with a dot in it must not leave a fragment behind).
    """
    if (
        "." not in run
        and "//" not in run
        and not _is_path(run)
        and _is_random(run.replace("/", ""))
    ):
        return SECRET
    parts = _RUN_PIECES.split(run)
    random_chars = 0
    for index in range(0, len(parts), 2):
        if (
            index
            and parts[index - 2].lower().endswith(_ID_PIECE_LABELS)
            and _HEX.fullmatch(parts[index])
        ):
            continue  # ``projects/p/traces/<id>``, ``1.4.2+git.<sha>``: named by the piece before
        if _is_random(parts[index]):
            random_chars += len(parts[index])
            parts[index] = SECRET
    if random_chars:
        if random_chars * 2 >= len(run) and "/" not in run:
            return SECRET
        run = "".join(parts)
    if "-" in run:
        run = _POD_RE.sub(POD, run)
    return run


_DEFAULT = Redactor()


def redact(text: str) -> str:
    """Redact ``text`` with the default :class:`Redactor` (see the module docstring)."""
    return _DEFAULT.redact(text)


def is_secret_shaped(text: str) -> bool:
    """Whether the default :class:`Redactor` would change ``text``.

    A log query that would be redacted names a secret or an identifier (a key, a host, an IP,
    a pod) that observations never show; searching for it can only probe the raw text, so
    ``query_logs`` refuses such a query (SECRET_IN_QUERY).
    """
    return _DEFAULT.is_secret_shaped(text)
