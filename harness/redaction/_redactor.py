"""The redactor: the table of rules applied to a text (private to :mod:`harness.redaction`)."""

from __future__ import annotations

from harness.redaction.rules import ENGINE

__all__ = ["Redactor", "is_secret_shaped", "redact"]


class Redactor:
    """Replaces secrets and identifiers in text with typed placeholders.

    Stateless apart from compiled patterns and small caches; one instance may be shared. The
    rules are :data:`harness.redaction.rules.RULES`, each its own pass behind a cheap gate (a
    substring test or a short regex search): one combined alternation defeats the regex
    engine's literal scans and measured several times slower per line.
    """

    __slots__ = ()

    def redact(self, text: str) -> str:
        """Return ``text`` with every secret/identifier class replaced (idempotent).

        One pass can expose a match to a rule that already ran: a placeholder shortens a run
        (``user@example.comxoxe.xoxb-1-password=...`` loses its e-mail prefix), after which
        a ``key=value`` pair stands on its own. The passes are therefore repeated until
        nothing changes — a fixpoint, so redacting twice is the same as once. Text without
        anything to redact costs one pass. Text with line breaks first gets the rules that
        span lines (private keys, YAML blocks, ``name``/``value`` pairs, XML elements, SQL
        statements, flag lists, SMTP exchanges), then each of its lines.
        """
        return ENGINE.redact(text)

    __call__ = redact

    def is_secret_shaped(self, text: str) -> bool:
        """Whether redaction would change ``text``: it holds a secret or an identifier."""
        return self.redact(text) != text


_DEFAULT = Redactor()


def redact(text: str) -> str:
    """Redact ``text`` with the default :class:`Redactor` (see the package docstring)."""
    return _DEFAULT.redact(text)


def is_secret_shaped(text: str) -> bool:
    """Whether the default :class:`Redactor` would change ``text``.

    A log query that would be redacted names a secret or an identifier (a key, a host, an IP,
    a pod) that observations never show; searching for it can only probe the raw text, so
    ``query_logs`` refuses such a query (SECRET_IN_QUERY).
    """
    return _DEFAULT.is_secret_shaped(text)
