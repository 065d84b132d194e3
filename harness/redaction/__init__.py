"""Redaction of secrets and identifiers in free text (log lines, stack traces, SQL).

Everything a projector shows the model passes through :func:`redact`. Each class of sensitive
value becomes a typed placeholder, so the model still sees *that* something was there:

============= ========================================================================
``<SECRET>``  passwords/tokens/keys in ``k=v``, ``k: v``, ``"k": "v"``, ``--flag v`` forms
              (also behind escaped separators: ``\\u003d``, ``%3D``, ``&quot;``), in prose,
              ``Authorization`` values, JWTs, cloud/SaaS tokens with known prefixes, PEM
              private keys, ``user:pass@`` in URLs/DSNs, Oracle's ``user/pass@db``,
              ``curl -u user:pass``, login calls (``login("app", X)``), a flag and its
              value as list items (``[--password, X]``), protocol traces (Redis
              ``"AUTH"``, IMAP ``LOGIN``, ``AUTH PLAIN``), OAuth codes in callback URLs,
              credential files (Bundler, ``.pgpass``), secrets set in code
              (``props.put("password", x)``), keys in brackets (``[password] => x``), JSON
              Patch values, YAML block scalars at any depth, and
              high-entropy strings of 16+ characters; identifiers (AWS resource ids, Stripe
              object ids, labelled trace/commit/``*_id`` values, digests under their labels,
              generated resource names), object paths under a weak key and status words
              (``token=expired``) stay
``<POD>``     Kubernetes pod names (``name-<hash>-<5 chars>``, ``pod=...``)
``<HOST>``    ``ip-10-0-3-17``-style and internal FQDNs (``.internal``, ``.local``, ...);
              Kubernetes service names (``*.svc.cluster.local``) stay visible
``<IP>``      IPv4 and IPv6 addresses, with their port
``<PID>``     ``pid=123``, ``pid 123``, ``sshd[1234]:``
``<EMAIL>``   e-mail addresses
``?``         string and number literals inside SQL statements
============= ========================================================================

Within one run, hosts, pods and IPs can be told apart without being shown: a
:class:`Pseudonyms` table numbers each distinct value by its first appearance (``<HOST#1>``,
``<HOST#2>``, ``<IP#1>``); a new run starts again at 1, and the token never depends on the value.

The rules are one ordered table, :data:`harness.redaction.rules.RULES`: each :class:`Rule`
names what it takes, the placeholder it writes, the :class:`Gate` a text must pass before its
matcher runs, whether it spans lines, and the examples it must change and the look-alikes it
must leave alone. A small engine applies the table and knows no rule by name.

The redactor is idempotent (``redact(redact(x)) == redact(x)``): placeholders are never matched
again and no rule can turn a placeholder into a new match. It only ever replaces spans, so it
cannot grow a secret back. It runs on every log line, so each rule is a precompiled matcher
behind a cheap gate; ``benchmarks/bench_logs_projector.py`` reports the speed.
"""

from harness.redaction._commands import exchange_lines
from harness.redaction._engine import Gate, Rule
from harness.redaction._identifiers import identifier_key, workload_of
from harness.redaction._placeholders import PLACEHOLDERS
from harness.redaction._pseudonyms import (
    PSEUDONYMOUS,
    PseudonymMarks,
    Pseudonyms,
    identifiers,
    without_partial_mark,
)
from harness.redaction._redactor import Redactor, is_secret_shaped, redact

__all__ = [
    "PLACEHOLDERS",
    "PSEUDONYMOUS",
    "Gate",
    "PseudonymMarks",
    "Pseudonyms",
    "Redactor",
    "Rule",
    "exchange_lines",
    "identifier_key",
    "identifiers",
    "is_secret_shaped",
    "redact",
    "without_partial_mark",
    "workload_of",
]
