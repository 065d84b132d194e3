"""The redactor: every rule, line by line and over lines, to a fixpoint (private to
:mod:`harness.redaction`).
"""

from __future__ import annotations

from functools import lru_cache

from harness.redaction._addresses import (
    SPELLED_EMAIL_GATE,
    emails,
    pct_emails,
    spelled_emails,
    url_userinfo,
    userinfo,
)
from harness.redaction._commands import (
    CLI_WORDS,
    ORACLE_WORDS,
    PROTOCOL_WORDS,
    cli_credentials,
    oracle_logins,
    protocol_credentials,
    smtp_logins,
)
from harness.redaction._encoded import ENCODED_GATE, encoded_pairs
from harness.redaction._hosts import (
    DASHED_GATE,
    cloud_hosts,
    daemonset_pods,
    internal_hosts,
    ipv4_addresses,
    ipv6_addresses,
    pids,
    pod_keys,
)
from harness.redaction._keyed import flags, key_values, pct_keys
from harness.redaction._keys import has_hint
from harness.redaction._numbers import numbers
from harness.redaction._placeholders import SECRET
from harness.redaction._prose import prose_spans
from harness.redaction._runs import glued_tails, token_runs
from harness.redaction._shapes import INTERNAL_HOST_SUFFIXES, IPV4_GATE, IPV6_GATE
from harness.redaction._sql import ORM_WORDS, SQL_WORDS, orm_binds, sql_spans
from harness.redaction._structured import (
    CODE_GATE,
    CREDENTIAL_FILE_GATE,
    FLAG_ITEM_GATE,
    LOGIN_WORDS,
    OAUTH_GATE,
    YAML_BLOCK_GATE,
    code_assignments,
    cookies,
    credential_files,
    flag_items,
    login_calls,
    name_value_pairs,
    oauth_codes,
    private_keys,
    xml_values,
    yaml_blocks,
)

__all__ = ["Redactor", "is_secret_shaped", "redact"]

# Passes until a fixpoint; real text settles after one or two (a third never changed the
# corpora); the bound only guards against a future rule that could oscillate.
_MAX_PASSES = 6


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
        text = private_keys(text)
    if any(word in low for word in SQL_WORDS):
        text = sql_spans(text)
    if YAML_BLOCK_GATE.search(text) and has_hint(text):
        text = yaml_blocks(text)
    if ("value" in low or "Value" in text) and has_hint(text):
        text = name_value_pairs(text)
    if "</" in text and has_hint(text):
        text = xml_values(text)
    if FLAG_ITEM_GATE.search(text) and has_hint(text):
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
        text = private_keys(text)
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
    if has_hint(text):
        if ("(" in text or "[" in text) and CODE_GATE.search(text):
            text = code_assignments(text)
        if "-" in text and "," in text and FLAG_ITEM_GATE.search(text):
            text = flag_items(text)
        if YAML_BLOCK_GATE.search(text):
            text = yaml_blocks(text)
        if "value" in low or "Value" in text:
            text = name_value_pairs(text)
        if "<" in text and ("</" in text or "/>" in text):
            text = xml_values(text)
        if "cookie" in low:
            text = cookies(text)
        if " -" in text or text.startswith("-"):
            text = flags(text)
        text = key_values(text)
        text = prose_spans(text, low)
    if "%" in text:
        text = pct_keys(text)
        text = pct_emails(text)
    if "@" in text:
        if "://" in text:
            text = url_userinfo(text)
        if ":" in text:
            text = userinfo(text)
        text = emails(text)
    if SPELLED_EMAIL_GATE.search(text):
        text = spelled_emails(text)
    text = numbers(text)
    text = token_runs(text)
    if SECRET in text:
        text = glued_tails(text)
    if DASHED_GATE.search(text):
        text = cloud_hosts(text)
    if any(suffix in low for suffix in INTERNAL_HOST_SUFFIXES):
        text = internal_hosts(text)
    if ":" in text and IPV6_GATE.search(text):
        text = ipv6_addresses(text)
    if text.count(".") >= 3 and IPV4_GATE.search(text):
        text = ipv4_addresses(text)
    if "pid" in low or "[" in text:
        text = pids(text)
    if "pod" in low:
        text = pod_keys(text)
    if "-" in text:
        text = daemonset_pods(text)
    return text


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
