"""Guessing a column sensitive by its *content*: a bounded sample of its values, read through
the redactor's rules and the value shapes.

A column named innocently (``extra``, ``notes``, ``dsn``, ``rendered_env``, ``key_plain``,
``bundle``) may hold a bearer token in JSON, card numbers in free text, a connection string
with its password, an environment with its secrets, a private key. Each sampled value is
redacted (:mod:`harness.redaction`); a value redaction changes is judged by the rules that
change it alone (the table names each), and the rule names its class: a card, an IBAN or a
bank number is PAYMENT, an SSN is IDENTITY, an e-mail address or a phone number is CONTACT,
every other ``<SECRET>`` a CREDENTIAL, and so is a PEM block (a certificate bundle). Hosts, IPs, pods and process ids are infrastructure,
not personal data, and make no guess. One sensitive sample is enough to look (a notes column
with one card number holds card numbers); the reason says how many of how many.

The samples are never written or printed: only the class, the rules' names and the counts.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from harness.redaction import redact
from harness.redaction.rules import RULES
from harness.sql.sensitivity import SensitiveCategory, SensitiveGuess

__all__ = ["CATEGORY_OF_RULE", "guess_from_samples"]

CATEGORY_OF_RULE: dict[str, SensitiveCategory] = {
    "payment-card": SensitiveCategory.PAYMENT,
    "iban": SensitiveCategory.PAYMENT,
    "ssn": SensitiveCategory.IDENTITY,
    "email": SensitiveCategory.CONTACT,
    "spelled-email": SensitiveCategory.CONTACT,
    "percent-email": SensitiveCategory.CONTACT,
    "phone-international": SensitiveCategory.CONTACT,
    "phone-parenthesised": SensitiveCategory.CONTACT,
    "phone-plain": SensitiveCategory.CONTACT,
}
"""Rules whose finding is personal data of a class other than a credential."""

# Rules whose finding is where a workload runs, not a secret or a person's data.
_INFRASTRUCTURE = frozenset(
    {"cloud-host", "labelled-host", "internal-host", "ipv4", "ipv6", "pid", "pod-key",
     "daemonset-pod", "mac-address", "cisco-mac", "sql-literal", "orm-bind"}
)  # fmt: skip
# The order classes are named in when a column holds several.
_ORDER = (
    SensitiveCategory.CREDENTIAL,
    SensitiveCategory.PAYMENT,
    SensitiveCategory.IDENTITY,
    SensitiveCategory.CONTACT,
)


# A PEM block: a private key is the redactor's; a certificate bundle is named here, since a
# column of them (a service's TLS material) is one a reviewer decides on.
_PEM = re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*(?:CERTIFICATE|PRIVATE KEY|KEY)-----")


def _classes(value: str) -> dict[SensitiveCategory, set[str]]:
    """The classes of what redaction takes from ``value``, with the rules that take it."""
    found: dict[SensitiveCategory, set[str]] = {}
    if _PEM.search(value):
        found[SensitiveCategory.CREDENTIAL] = {"pem-block"}
    if redact(value) == value:
        return found
    for rule in RULES:
        if rule.id in _INFRASTRUCTURE or rule.apply(value) == value:
            continue
        category = CATEGORY_OF_RULE.get(rule.id, SensitiveCategory.CREDENTIAL)
        found.setdefault(category, set()).add(rule.id)
    return found


def guess_from_samples(samples: Sequence[str]) -> SensitiveGuess | None:
    """The class of the secret- or PII-shaped values among ``samples``, or None.

    The reason names the count: ``content: 3 of 20 samples (payment-card)``.
    """
    counts: Counter[SensitiveCategory] = Counter()
    rules: dict[SensitiveCategory, set[str]] = {}
    for value in samples:
        for category, ids in _classes(value).items():
            counts[category] += 1
            rules.setdefault(category, set()).update(ids)
    if not counts:
        return None
    category = max(_ORDER, key=lambda c: (counts[c], -_ORDER.index(c)))
    named = ", ".join(sorted(rules[category]))
    return SensitiveGuess(
        category=category,
        reason=f"content: {counts[category]} of {len(samples)} samples ({named})",
    )
