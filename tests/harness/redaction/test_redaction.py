"""Redaction: third-party secret corpora, identifier classes, and invariants (hypothesis)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.redaction import PLACEHOLDERS, Redactor, redact

# Under the ``secrets`` corpus (HARNESS_CORPORA_DIR/secrets).
GITLEAKS = Path("gitleaks", "gitleaks_rule_samples_dev.jsonl")
DETECT_SECRETS = Path("detect-secrets")


@pytest.fixture(scope="session")
def secrets(corpus: Callable[..., Path]) -> Path:
    """The ``secrets`` corpus folder (the test skips when it is absent)."""
    return corpus("secrets")


# ----------------------------------------------------------------------------- secret rule
#
# The gitleaks rows carry no separate secret field, so the secret strings of a ``tp`` row are
# derived mechanically, and conservatively (over-inclusive), from its text:
#
# 1. Split the text into maximal tokens on whitespace, quotes, backticks, ``= : , ; ( ) [ ] { }
#    < > \ |``; strip surrounding dots; split each token once more on ``/`` and ``@``.
# 2. A token directly followed by ``=`` or ``:`` (quotes/backslashes/spaces in between
#    allowed, ``://`` excluded) is a key name, not a secret, and is skipped.
# 3. Shell/template variables (``$X``, ``${X}``, ``$(...)``, ``{{...}}``) are skipped: they name
#    a secret but hold none.
# 4. A remaining token of at least 8 characters is a secret when it
#    a. starts with a known credential prefix (``ghp_``, ``xox``, ``sk-``, ``AKIA``, ``eyJ``...), or
#    b. mixes letters and digits, unless it is a word with one or two digits stuck on
#       (``1Password``, ``oauth2-provider``, ``service1``: every letter run is word-like), or
#    c. has no digit but a mixed-case letter run that is not camelCase words
#       (``yqDVtkqPECriaLRi`` is a secret, ``postmanAPItoken`` is an identifier).
#
# "Word-like" = every camelCase piece of the run has 2+ letters and a vowel. A redactor that
# only blanks ``password=`` values fails this rule on most rows (see the meta-test below).

_TOKEN = re.compile(r"[^\s\"'`=:,;()\[\]{}<>\\|]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+")
_PREFIXES = (
    "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xox", "xapp-", "sk-",
    "sk_", "rk_", "pk_", "AKIA", "ASIA", "AIza", "ya29.", "glc_", "glsa_", "sntrys_", "sgp_",
    "hvs.", "hvb.", "dapi", "sq0", "EAA", "fo1_", "fm1", "fm2", "pplx-", "AGE-SECRET-KEY",
    "ABSK", "ops_", "sha256~", "eyJ",
)  # fmt: skip


def _word_like(run: str) -> bool:
    return all(len(p) >= 2 and re.search("[aeiouyAEIOUY]", p) for p in _CAMEL.findall(run))


def _looks_secret(token: str) -> bool:
    if len(token) < 8:
        return False
    if token.startswith("$") or "${" in token or "$(" in token or "{{" in token:
        return False
    if token.startswith(_PREFIXES):
        return True
    digits = sum(c.isdigit() for c in token)
    runs = re.findall("[A-Za-z]+", token)
    if digits and runs:
        return not (digits <= 2 and all(_word_like(r) for r in runs))
    if digits:
        return False
    return any(re.search("[a-z]", r) and re.search("[A-Z]", r) and not _word_like(r) for r in runs)


def secret_strings(text: str) -> list[str]:
    """The secret strings of a text, by the rule above."""
    found: list[str] = []
    for match in _TOKEN.finditer(text):
        after = text[match.end() : match.end() + 4].lstrip(" \"'\\")
        if after[:1] in (":", "=") and not after.startswith("://"):
            continue
        for piece in re.split(r"[/@]", match.group(0).strip(".")):
            if _looks_secret(piece):
                found.append(piece)
    return found


@cache
def _gitleaks(secrets: Path) -> tuple[dict[str, str], ...]:
    text = (secrets / GITLEAKS).read_text()
    return tuple(json.loads(line) for line in text.splitlines() if line.strip())


def _rows(secrets: Path, kind: str) -> list[dict[str, str]]:
    """The gitleaks rows of one kind (``tp`` or ``fp``) of the ``secrets`` corpus."""
    return [row for row in _gitleaks(secrets) if row["kind"] == kind]


# ----------------------------------------------------------------------------- corpora


def test_every_gitleaks_true_positive_secret_is_gone(secrets: Path) -> None:
    rows = _rows(secrets, "tp")
    assert len(rows) > 100
    leaks = []
    checked = 0
    for row in rows:
        out = redact(row["text"])
        for secret in secret_strings(row["text"]):
            checked += 1
            if secret in out:
                leaks.append((row["rule_id"], secret))
    print(f"\ngitleaks tp: {len(rows)} rows, {checked} secret strings, {len(leaks)} leaked")
    assert checked > 120
    assert leaks == []


def test_secret_rule_is_strict_enough_to_fail_a_naive_redactor(secrets: Path) -> None:
    naive = re.compile(r"(?i)(password\s*=\s*)\S+")
    leaked_rows = sum(
        1
        for row in _rows(secrets, "tp")
        if any(s in naive.sub(r"\1X", row["text"]) for s in secret_strings(row["text"]))
    )
    assert leaked_rows > 90


def test_share_of_gitleaks_false_positives_left_intact(secrets: Path) -> None:
    # Many fp rows are real-format keys that gitleaks allow-lists by context (GCP keys in
    # public web apps, hashes in lockfiles); redacting them is the safe side. Reported, with a
    # floor so that a redactor blanking every long token fails.
    rows = _rows(secrets, "fp")
    unchanged = sum(1 for row in rows if redact(row["text"]) == row["text"])
    no_secret_added = sum(
        1 for row in rows if redact(row["text"]).count("<SECRET>") == row["text"].count("<SECRET>")
    )
    print(
        f"\ngitleaks fp: {unchanged}/{len(rows)} = {unchanged / len(rows):.1%} unchanged, "
        f"{no_secret_added}/{len(rows)} = {no_secret_added / len(rows):.1%} without a <SECRET>"
    )
    assert no_secret_added / len(rows) >= 0.45
    assert unchanged / len(rows) >= 0.4


DETECT_SECRETS_VALUES = [
    ("config.ini", "123456789a1234"),
    ("config.ini", "23456789a1"),
    ("config.ini", "vh987tyw9ehy8ghis7vwyhiwbwitefy7w3ASDGYDGUASDG"),
    ("config.ini", "12345678901234"),
    ("config.yaml", "AKIATESTTESTTESTTEST"),
    ("config.yaml", "ToCynx5Se4e2PtoZxEhW7lUJcOX15c54"),
    ("config.md", "ToCynx5Se4e2PtoZxEhW7lUJcOX15c54"),
    ("config.env", "gX69YO4CvBsVjzAwYxdGyDd30t5+9ez31gKATtj4"),
    ("files/private_key", "somethingSuperRandomAndSecretHereThatShouldNeverBeShared"),
]


@pytest.mark.parametrize(("name", "secret"), DETECT_SECRETS_VALUES)
def test_detect_secrets_files_lose_their_secrets(secrets: Path, name: str, secret: str) -> None:
    text = (secrets / DETECT_SECRETS / name).read_text(encoding="utf-8")
    assert secret in text
    assert secret not in redact(text)


# ----------------------------------------------------------------------------- classes


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("password=hunter2 user=bob", "password=<SECRET> user=bob"),
        ('{"password": "hunter2", "user": "bob"}', '{"password": "<SECRET>", "user": "bob"}'),
        ("db_pass: hunter2", "db_pass: <SECRET>"),
        ("mysqldump --password hunter2 orders", "mysqldump --password <SECRET> orders"),
        ("export API_TOKEN=abc123def", "export API_TOKEN=<SECRET>"),
        ("Authorization: Bearer abc.def.ghi", "Authorization: Bearer <SECRET>"),
        ("Authorization: Basic dXNlcjpwYXNz", "Authorization: Basic <SECRET>"),
        ("got AKIAIOSFODNN7EXAMPLE from env", "got <SECRET> from env"),
        ("token ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8", "token <SECRET>"),
        (
            "url=jdbc:mysql://app:S3cret@db.prod.internal:3306/orders",
            "url=jdbc:mysql://<SECRET>@<HOST>:3306/orders",
        ),
        ("curl -u admin:pa55word https://x.io", "curl -u <SECRET> https://x.io"),
        ("on pod checkout-api-7d9f8b6c5-x2kqp", "on pod <POD>"),
        ("pod=payments-0 restarted", "pod=<POD> restarted"),
        ("host ip-10-0-3-17.ec2.internal down", "host <HOST> down"),
        ("resolve redis-01.cache.corp failed", "resolve <HOST> failed"),
        ("peer 10.0.3.17:8080 reset", "peer <IP> reset"),
        ("peer [2001:db8::1]:443 and fe80::1ff:fe23:4567:890a", "peer <IP> and <IP>"),
        ("pid=4242 exited; PID 77 started", "pid=<PID> exited; PID <PID> started"),
        ("sshd[1234]: accepted", "sshd[<PID>]: accepted"),
        ("notify ops.team@example.com", "notify <EMAIL>"),
        # Addresses spelled out so that harvesters miss them.
        ("mail alice [at] example [dot] com now", "mail <EMAIL> now"),
        ("contact: j.doe(at)example.org", "contact: <EMAIL>"),
        ("Bob.Smith AT corp DOT co DOT uk wrote", "<EMAIL> wrote"),
        ("reply to jane <at> example <dot> io.", "reply to <EMAIL>."),
        ("ops {at} mail.example.net", "<EMAIL>"),
        (
            "slow query: SELECT * FROM orders WHERE email = 'a@b.com' AND total > 42.5 LIMIT 10",
            "slow query: SELECT * FROM orders WHERE email = ? AND total > ? LIMIT ?",
        ),
        (
            "UPDATE accounts SET balance = -10 WHERE id = 7",
            "UPDATE accounts SET balance = ? WHERE id = ?",
        ),
        (
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----\nok",
            "<SECRET>\nok",
        ),
    ],
)
def test_each_class_gets_its_placeholder(text: str, expected: str) -> None:
    assert redact(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "GET /api/v1/orders/12345 200 35ms",
        "at com.example.checkout.TokenService.validate(TokenService.java:42)",
        "java.lang.IllegalStateException: pool exhausted (active=50, idle=0, waiting=120)",
        "request_id=203db13e-70c7-462b-9a3d-bf32640cb0be status=500 latency_ms=1834",
        "14:05:03.123 checkout-api started in 2.5s on port 8080",
        "max_tokens=1024 temperature=0.2",
        "GET http://inventory-service.shop.svc.cluster.local:8080/v1/stock/SKU-10962",
        "AuthFilter: request denied",
        # Near misses of spelled-out addresses: ``at`` and ``dot`` in prose.
        "look at this dot product",
        "failed at db dot primary",
        "retry at 14:05 dot matrix printer",
        "queue [at] capacity",
    ],
)
def test_ordinary_log_text_is_left_alone(text: str) -> None:
    assert redact(text) == text


def test_redactor_instance_and_module_function_agree() -> None:
    text = "password=x pod checkout-api-7d9f8b6c5-x2kqp 10.1.2.3"
    assert Redactor()(text) == Redactor().redact(text) == redact(text)


# ----------------------------------------------------------------------------- properties

_FRAGMENTS = [
    "password=",
    "token: ",
    '"api_key": "',
    "Authorization: Bearer ",
    " ",
    "\n",
    "=",
    ":",
    '"',
    "'",
    "/",
    ".",
    "-",
    "pod ",
    "SELECT a FROM t WHERE x = '",
    "10.0.0.1",
    "checkout-api-7d9f8b6c5-x2kqp",
    "user@example.com",
    "pid=12",
    "<SECRET>",
    "<IP>",
    "?",
]


@pytest.fixture(scope="session")
def samples(secrets: Path) -> list[str]:
    """Every secret string of the gitleaks ``tp`` rows, sorted."""
    return sorted({s for row in _rows(secrets, "tp") for s in secret_strings(row["text"])})


def _texts(samples: Sequence[str]) -> st.SearchStrategy[str]:
    return st.lists(
        st.one_of(
            st.sampled_from(_FRAGMENTS),
            st.sampled_from(samples),
            st.text(alphabet=st.characters(codec="ascii", exclude_categories=("Cc",)), max_size=12),
        ),
        max_size=12,
    ).map("".join)


# The samples come from the corpus, so they are drawn inside the test (st.data) rather than
# named in @given at import time.
@settings(max_examples=600, deadline=None)
@given(data=st.data())
def test_redaction_is_idempotent(samples: list[str], data: st.DataObject) -> None:
    text = data.draw(_texts(samples), label="text")
    once = redact(text)
    assert redact(once) == once


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_redaction_never_grows_a_secret(samples: list[str], data: st.DataObject) -> None:
    text = data.draw(_texts(samples), label="text")
    secret = data.draw(st.sampled_from(samples), label="secret")
    assert redact(text).count(secret) <= text.count(secret)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(PLACEHOLDERS), max_size=6), st.sampled_from([" ", "=", ": "]))
def test_placeholders_are_stable(placeholders: list[str], sep: str) -> None:
    text = sep.join(placeholders)
    assert redact(text) == text
    assert redact("password" + sep + text) == redact(redact("password" + sep + text))


def test_a_pair_exposed_by_a_placeholder_is_redacted_in_the_same_call() -> None:
    # The e-mail rule shortens the run, which exposes ``password=...`` to the key/value rule
    # (the key is taken whole, e-mail included, and the e-mail then goes on its own).
    text = "user@example.comxoxe.xoxb-1-password=password="
    once = redact(text)
    assert once == "<EMAIL>=<SECRET>"
    assert redact(once) == once
