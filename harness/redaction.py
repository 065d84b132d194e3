"""Redaction of secrets and identifiers in free text (log lines, stack traces, SQL).

Everything a projector shows the model passes through :func:`redact`. Each class of sensitive
value becomes a typed placeholder, so the model still sees *that* something was there:

============= ========================================================================
``<SECRET>``  passwords/tokens/keys in ``k=v``, ``k: v``, ``"k": "v"``, ``--flag v`` forms,
              ``Authorization`` values, JWTs, cloud/SaaS tokens with known prefixes, PEM
              private keys, ``user:pass@`` in URLs/DSNs, ``curl -u user:pass``, and
              high-entropy strings of 16+ characters
``<POD>``     Kubernetes pod names (``name-<hash>-<5 chars>``, ``pod=...``)
``<HOST>``    ``ip-10-0-3-17``-style and internal FQDNs (``.internal``, ``.local``, ...);
              Kubernetes service names (``*.svc.cluster.local``) stay visible
``<IP>``      IPv4 and IPv6 addresses, with their port
``<PID>``     ``pid=123``, ``pid 123``, ``sshd[1234]:``
``<EMAIL>``   e-mail addresses
``?``         string and number literals inside SQL statements
============= ========================================================================

The redactor is idempotent (``redact(redact(x)) == redact(x)``): placeholders are never matched
again and no rule can turn a placeholder into a new match. It only ever replaces spans, so it
cannot grow a secret back. It runs on every log line, so each rule is one precompiled regex
behind a cheap substring gate; ``benchmarks/bench_logs_projector.py`` reports the speed.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = [
    "PLACEHOLDERS",
    "LogQuery",
    "Redactor",
    "fold",
    "is_secret_shaped",
    "match_view",
    "redact",
]

from harness._redaction_match import LogQuery, fold, match_view
from harness._redaction_rules import (
    _DIGEST_LABEL,
    _EMAIL,
    _FLAGS,
    _HEX,
    _HINT_RE,
    _HOST_RE,
    _HOST_SUFFIXES,
    _IDENT_CHARS,
    _IP4_RE,
    _IP6_RE,
    _KEY_VALUE,
    _KEYED_HINTS,
    _PEM,
    _PID_RE,
    _POD_KEY,
    _POD_RE,
    _PREFIXED_RE,
    _RUN,
    _RUN_PIECES,
    _SQL_LITERAL,
    _SQL_SPAN,
    _SQL_WORDS,
    _URL_USERINFO,
    EMAIL,
    HOST,
    IP,
    PID,
    PLACEHOLDERS,
    POD,
    SECRET,
    _inert,
    _inert_pair,
    _is_masked,
    _is_random,
    _key_strength,
    _looks_credential,
)

# Passes until a fixpoint; real text settles after one or two (a third never changed the
# corpora); the bound only guards against a future rule that could oscillate.
_MAX_PASSES = 6


class Redactor:
    """Replaces secrets and identifiers in text with typed placeholders.

    Stateless apart from compiled patterns and small caches; one instance may be shared. Each
    rule is its own pass behind a substring gate: one combined alternation defeats the regex
    engine's literal scans and measured several times slower per line.
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
        for _ in range(_MAX_PASSES):
            redacted = self._pass(text)
            if redacted == text:
                return redacted
            text = redacted
        return text

    def _pass(self, text: str) -> str:
        if not text:
            return text
        low = text.lower()
        if "-----begin" in low:
            text = _PEM.sub(SECRET, text)
        if any(word in low for word in _SQL_WORDS):
            text = _SQL_SPAN.sub(_sql_span, text)
        if any(hint in low for hint in _KEYED_HINTS):
            if "-" in text:
                text = _FLAGS.sub(_flag, text)
            text = _key_values(text)
        if "@" in text:
            if "://" in text:
                text = _URL_USERINFO.sub(_url_userinfo, text)
            text = _EMAIL.sub(EMAIL, text)
        text = _RUN.sub(_run, text)
        if "ip-" in low or any(suffix in low for suffix in _HOST_SUFFIXES):
            text = _HOST_RE.sub(_host, text)
        if "::" in text or text.count(":") >= 7:
            text = _IP6_RE.sub(IP, text)
        if text.count(".") >= 3:
            text = _IP4_RE.sub(IP, text)
        if "pid" in low or "[" in text:
            text = _PID_RE.sub(_pid, text)
        if "pod" in text:
            text = _POD_KEY.sub(_pod_key, text)
        return text

    __call__ = redact

    def match_view(self, text: str) -> str:
        """The redacted, folded text a log query is decided on (see :class:`LogQuery`)."""
        return match_view(self.redact(text))

    def is_secret_shaped(self, text: str) -> bool:
        """Whether redaction would change ``text``: it holds a secret or an identifier."""
        return self.redact(text) != text


def _sql_span(match: re.Match[str]) -> str:
    return _SQL_LITERAL.sub("?", match.group(0))


def _key_values(text: str) -> str:
    """Replace the values of secret-named keys, visiting only identifiers with a hint word."""
    low = text.lower() if text.isascii() else None
    if low is None:
        # Lower-casing some non-ASCII letters changes the length; keep offsets aligned.
        low = "".join(c.lower() if c.isascii() else "\x00" for c in text)
    out: list[str] = []
    last = 0
    for hint in _HINT_RE.finditer(low):
        start = hint.start()
        if start < last:
            continue
        while start > last and text[start - 1] in _IDENT_CHARS:
            start -= 1
        # A key starts with a letter or underscore; digits, dots and dashes before it belong
        # to whatever came first (an address, a version), which a later pass may replace.
        while start < hint.start() and not (text[start].isalpha() or text[start] == "_"):
            start += 1
        if start > 0 and text[start - 1] in "$@":
            continue
        match = _KEY_VALUE.match(text, start)
        if match is None or match.end("key") <= hint.start():
            continue
        out.append(text[last:start])
        out.append(_key_value(match))
        last = match.end()
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


def _flag(match: re.Match[str]) -> str:
    if match.group("flag") is not None:
        head = match.group("flag") + match.group("fsep")
        value = match.group("fval")
        if _key_strength(match.group("flag")) == 2 and not _inert(value.strip("\"'")):
            return head + SECRET
        return head + _key_values(value)
    pair = match.group("upair").strip("\"'")
    if pair in (":", "") or _inert_pair(pair):
        return match.group(0)
    return match.group("uflag") + SECRET


def _key_value(match: re.Match[str]) -> str:
    quote = match.group("q")
    value = match.group("qv") if quote is not None else match.group("uv")
    strength = _key_strength(match.group("key"))
    secret = (
        bool(value)
        and not _inert(value)
        and (strength == 2 or (strength == 1 and _looks_credential(value)))
    )
    head = match.group("key") + match.group("sep") + match.group("scheme")
    tail = ""
    if quote is not None:
        head += quote
        tail = match.group("qc")
    if not secret:
        # The value may itself hold a keyed secret (``url=...?token=...``).
        return head + _key_values(value) + tail
    return head + SECRET + tail


def _url_userinfo(match: re.Match[str]) -> str:
    return match.group("scheme") + SECRET + "@"


def _pid(match: re.Match[str]) -> str:
    key = match.group("k")
    return match.group(0)[:3] + key + PID if key is not None else f"[{PID}]"


def _host(match: re.Match[str]) -> str:
    # Kubernetes service names (``inventory-service.shop.svc.cluster.local``) name a service,
    # not a machine, and are what a diagnosis needs to see.
    return match.group(0) if match.group(0).endswith(".svc.cluster.local") else HOST


def _pod_key(match: re.Match[str]) -> str:
    return match.group("k") + POD


def _prefixed(match: re.Match[str]) -> str:
    return match.group(0) if _is_masked(match.group(0)) else SECRET


def _run(match: re.Match[str]) -> str:
    run = match.group(0)
    start = match.start()
    if _HEX.fullmatch(run) and _DIGEST_LABEL.search(match.string, max(0, start - 24), start):
        return run
    return _redact_run(run)


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
