"""Whether a value holds anything to hide (private to :mod:`harness.redaction`).

A secret-named key often holds no secret: a placeholder or template (``${DB_PASS}``,
``<your-token>``), a status word (``token=expired``), a masked example (``****``), a path under a
weak key. These predicates tell such values from credentials.
"""

from __future__ import annotations

import re

__all__ = ["inert", "inert_pair", "is_masked", "is_wordy", "looks_credential"]

# Values that only name a secret (shell/template variables, placeholders) are left alone,
# which keeps documentation and config templates readable; they hold nothing to leak. What is
# inside the braces must itself read as a name (``${DB_PASS}``, ``{{ .Values.db.password }}``,
# ``<your-token>``): ``{{Sup3rS3cret}}`` is a secret in braces, and a shell default
# (``${DB_PASS:-hunter2}``) is judged as a value of its own. PowerShell's ``$env:NAME`` and
# cmd's ``%NAME%`` are variables too.
_TEMPLATE = re.compile(
    r"\$\{\{(?P<a>.*)\}\}|\{\{(?P<b>.*)\}\}|\$\{(?P<c>[^}:=?+\-]*)(?:(?P<op>:?[-=?+])(?P<d>[^}]*))?\}?"
    r"|\$\((?P<e>.*)\)?|%\((?P<f>[^)]*)\)[sd]|<(?P<g>[^>]*)>?|\[(?P<h>[^\]]*)\]|\{(?P<i>[^{}]*)\}"
    r"|\$env:(?P<k>[A-Za-z_]\w*)|%(?P<l>[A-Za-z_]\w*)%|\$(?P<j>[\w.\-]+)",
    re.DOTALL,
)

# Besides placeholders, a secret-named key often holds a *status* (``token=expired``,
# ``auth=failed``, MySQL's ``using password: NO``): the word a diagnosis needs, and no secret.
_INERT_WORDS = frozenset(
    {"%s", "%d", "?", "null", "none", "nil", "true", "false", "undefined", "empty", "|", ">",
     "|-", ">-", "|+", ">+", "n/a", "na", "-",
     "yes", "no", "on", "off", "ok", "okay", "set", "unset", "notset", "not_set", "not-set",
     "valid", "invalid", "expired", "revoked", "rotated", "failed", "failure", "success",
     "succeeded", "missing", "required", "optional", "incorrect", "correct", "wrong",
     "denied", "rejected", "accepted", "granted", "refused", "mismatch", "mismatched",
     "matched", "match", "present", "absent", "provided", "not_provided", "supplied",
     "redacted", "masked", "hidden", "removed", "omitted", "filtered", "sensitive",
     "verified", "unverified", "malformed", "unknown", "disabled", "enabled", "blank",
     "error", "ignored", "pending", "stale", "too_short", "too_long", "weak", "strong",
     "changed", "reset", "locked", "unlocked", "skipped"}
)  # fmt: skip

_NAME_PIECE = re.compile(r"[a-z0-9]+|[A-Z0-9]+|(?:[A-Z]?[a-z]+)+\d*")

_NAME_SPLIT = re.compile(r"[\s._\-/:\[\]'\"|()]+")

# Masked example values ("ghp_xxxx…", "XXXX-XXXX", "****") follow a common convention.
_MASK_CHARS = frozenset("xX*#•")


def is_masked(value: str) -> bool:
    """True when at least three quarters of ``value`` are mask characters (x, X, *, #)."""
    masked = sum(1 for c in value if c in _MASK_CHARS)
    return masked * 4 >= len(value) * 3


_SHELL_NAME = re.compile(r"(?:[A-Z_][A-Z0-9_]*|[a-z_][A-Za-z_]*|\d+)(?:[.\-](?:[A-Za-z_]\w*))*")


def _reads_as_name(inner: str) -> bool:
    """Whether a template's inside is a variable name or path, not a secret in braces."""
    inner = inner.strip()
    if not inner:
        return True
    # One case throughout (``f5pass``, ``DB_PASS_2``) or camelCase words (``dbPassword``);
    # ``Sup3rS3cret`` mixes case and digits inside its words, as generated secrets do.
    return all(not part or _NAME_PIECE.fullmatch(part) for part in _NAME_SPLIT.split(inner))


def inert(value: str) -> bool:
    """Whether ``value`` holds nothing to hide: a status word, a mask, a template or variable."""
    value = value.strip()
    if (
        value.lower() in _INERT_WORDS
        or is_masked(value)
        or (len(value) > 1 and len(set(value)) == 1)
    ):
        return True
    template = _TEMPLATE.fullmatch(value)
    if template is None:
        return False
    if template.group("e") is not None:
        return True  # a command substitution: its output, not its text, is the value
    inner = next(g for g in template.groups() if g is not None)
    if template.group("j") is not None or template.group("k") is not None or template.group("l"):
        # A bare ``$name`` is a variable as shells and configs spell one (``$DB_PASS``,
        # ``$password``, ``$dbPassword``, ``$1``); ``$Summer2024`` is a password with a "$".
        return _SHELL_NAME.fullmatch(inner) is not None
    if template.group("op") is not None:
        default = template.group("d") or ""
        # ``${X:?message}`` and ``${X:+alt}`` carry no default; ``${X:-v}`` and ``${X:=v}`` do.
        return _reads_as_name(inner) and (
            template.group("op")[-1] in "?+" or not default or inert(default)
        )
    return _reads_as_name(inner)


def inert_pair(pair: str) -> bool:
    """A ``user:password`` pair whose password part is a variable or placeholder."""
    if pair.startswith("<") and pair.endswith(">"):
        return True
    _, _, password = pair.partition(":")
    password = password.strip("\"'")
    return bool(password) and inert(password)


# An object store or file path under a weak key (``object_key=uploads/2024/a1b2.png``, S3's
# ``Key: orders/2024/part-0001.parquet``): path segments and a file extension. A base64 key
# has slashes too, but no extension after a dot.
_OBJECT_PATH = re.compile(r"/?(?:[\w.\-=]+/)+[\w\-=]+(?:\.[A-Za-z][A-Za-z0-9]{0,6})+/?")


def looks_credential(value: str) -> bool:
    """Weak-key values (``key=...``) count only when they look generated, not like words.

    Namespaced cache/map keys (``stock:SKU-11554``, ``user:42:cart``) are not credentials.
    """
    if len(value) < 12 or ":" in value or is_wordy(value) or _OBJECT_PATH.fullmatch(value):
        return False
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    if has_digit and has_alpha:
        return True
    return has_alpha and not is_wordy(value) and value.lower() != value


_WORDY_TOKENS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")

_DIGIT_GROUPS = re.compile(r"\d+")

_VOWELS = frozenset("aeiouyAEIOUY")


def is_wordy(text: str) -> bool:
    """True when most of ``text`` is made of pronounceable words (identifiers, paths).

    Digits sprinkled all through a string (four or more separate groups) mark it as generated
    whatever its letters look like.
    """
    if len(_DIGIT_GROUPS.findall(text)) >= 4:
        return False
    wordy = sum(
        len(t) for t in _WORDY_TOKENS.findall(text) if len(t) >= 4 and not _VOWELS.isdisjoint(t)
    )
    return wordy * 2 >= len(text)
