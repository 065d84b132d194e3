"""Patterns and predicates of the redactor (private to :mod:`harness.redaction`).

Each class of sensitive value is one precompiled regex or a small predicate; the order in
which :class:`harness.redaction.Redactor` applies them is what keeps redaction idempotent.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import lru_cache

SECRET = "<SECRET>"
POD = "<POD>"
HOST = "<HOST>"
IP = "<IP>"
PID = "<PID>"
EMAIL = "<EMAIL>"
PLACEHOLDERS = (SECRET, POD, HOST, IP, PID, EMAIL)

_PLACEHOLDER_RE = r"<(?:SECRET|POD|HOST|IP|PID|EMAIL)>"

# ----------------------------------------------------------------------------- PEM blocks

# A private key body spans lines; the END line may be missing in a truncated log record, in
# which case everything up to the end of the text is the key.
_PEM = re.compile(
    r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
    r"(?:.*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|.*\Z)",
    re.DOTALL,
)

# ----------------------------------------------------------------------------- SQL literals

_SQL_WORDS = ("select", "insert", "update", "delete", "replace")
_SQL_SPAN = re.compile(
    r"(?is)\b(?:select\b[^\n]*?\bfrom\b|insert\s+(?:ignore\s+)?into\b|replace\s+into\b"
    r"|update\s+\S+\s+set\b|delete\s+from\b)[^\n]*"
)
# Single-quoted strings (with '' and backslash escapes) and bare numbers/hex; double quotes
# are identifiers in ANSI mode and often the JSON string around the statement, so they stay.
_SQL_LITERAL = re.compile(
    r"'(?:[^'\\\n]|\\.|'')*'"
    r"|(?<![\w.$<>?])[-+]?(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)(?![\w.]|\.\d)"
)

# ----------------------------------------------------------------------------- keyed secrets

# A keyed secret cannot occur in a line whose lower-cased text holds none of these.
_KEYED_HINTS = ("pass", "pwd", "secret", "token", "key", "auth", "cred", "cookie", "sig",
                "salt", "access", "-u ", "--user")  # fmt: skip

# A quoted value (plain or JSON-escaped quotes; an unterminated quote runs to the end of the
# line), or an unquoted one that runs to whitespace or a list separator. An HTTP auth scheme
# in front of the value stays visible.
_SCHEME = r"(?:(?:Bearer|Basic|Token|Digest|Bot|JWT|Negotiate|Api-Token|OAuth|SSWS)[ \t]+)?"
_VALUE = (
    r"(?!" + _SCHEME + _PLACEHOLDER_RE + r")"
    r"(?P<scheme>" + _SCHEME + r")"
    r"(?:(?P<q>\\*[\"'`])(?P<qv>[^\n]*?)(?P<qc>(?P=q)|(?=\n)|\Z)"
    r"|(?P<uv>(?:[^\s\"'`\\,;&)}\]]|[,;)}\]](?=[^\s\"'`,;]))+))"
)

_FLAGS = re.compile(
    # 1. Command-line flags: --password hunter2, --token=abc.
    r"(?P<flag>(?<![\w\->])--?[\w\-]*?(?:pass|pwd|secret|token|key|auth|cred)[\w\-]*)"
    r"(?P<fsep>=|[ \t]+)"
    r"(?P<fval>(?!" + _PLACEHOLDER_RE + r")(?!-)(?:\"[^\"\n]*\"|'[^'\n]*'|\S+))"
    # 2. curl -u / --user user:password (the whole credential pair goes).
    r"|(?P<uflag>(?<![\w\->])(?:-u|--user)[ \t]+)(?P<upair>(?!" + _PLACEHOLDER_RE + r")\S*:\S*)"
)
# 3. key = value, key: value, "key": "value", key := value, key => value. Matched only at
#    identifiers that contain a hint word (found in the lower-cased text), so the regex never
#    walks the whole line; _key_strength (cached) then decides.
_KEY_VALUE = re.compile(
    r"(?P<key>[A-Za-z_][\w.\-]*+)"
    # The separator is atomic: "=>" must not back off to "=" and take ">" as a value.
    r"(?P<sep>(?>(?:\\*[\"'`])?[ \t]*(?:=>|:=|=|:(?!//))[ \t]*))" + _VALUE
)
_HINT_RE = re.compile(r"pass|pwd|secret|token|key|auth|cred|cookie|sig|salt|access")
_IDENT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")

_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_STRONG_WORDS = frozenset(
    {
        "pass", "pw", "passwd", "password", "pwd", "auth", "authorization", "cookie", "cookies",
        "signature", "sig", "salt", "secret", "secrets", "creds", "credential", "credentials",
        "token", "passphrase", "apikey", "otp", "bearer",
    }
)  # fmt: skip
_STRONG_SUFFIXES = (
    "password", "passwd", "pwd", "secret", "token", "apikey", "accesskey", "accessid",
    "privatekey", "secretkey", "credential", "credentials", "passphrase", "authkey",
)  # fmt: skip
_STRONG_PAIRS = frozenset(
    {("api", "key"), ("access", "key"), ("access", "id"), ("private", "key"), ("secret", "key"),
     ("auth", "key"), ("master", "key"), ("signing", "key"), ("encryption", "key")}
)  # fmt: skip


@lru_cache(maxsize=8192)
def _key_strength(key: str) -> int:
    """Return 2 for a key that always holds a secret, 1 for a plain ``key``, 0 otherwise.

    Only the key's last dotted component and its last word count: ``db.password`` and
    ``AUTH_CLIENTSECRET`` name secrets, ``TokenService.java`` and ``AuthFilter`` do not.
    """
    last = key.strip("-\"'`\\").rsplit(".", 1)[-1]
    words = [w.lower() for w in _CAMEL.findall(last) if not w.isdigit()]
    if not words:
        return 0
    word = words[-1]
    if word in _STRONG_WORDS or word.endswith(_STRONG_SUFFIXES):
        return 2
    if len(words) > 1 and (words[-2], word) in _STRONG_PAIRS:
        return 2
    return 1 if word.endswith("key") else 0


# Values that only name a secret (shell/template variables, placeholders) are left alone,
# which keeps documentation and config templates readable; they hold nothing to leak.
_INERT_VALUE = re.compile(
    r"\$\{\{.*\}\}|\$\{[^}]*\}?|\$[\w.\-]+|\$\(.*|\{\{.*\}\}|%[sd]|\?|null|none|nil|true|false"
    r"|<[A-Za-z][^>]*>?.*|\[[\w \-]*\]",
    re.IGNORECASE,
)
# Masked example values ("ghp_xxxx…", "XXXX-XXXX", "****") follow a common convention.
_MASK_CHARS = frozenset("xX*#•")


def _is_masked(value: str) -> bool:
    """True when at least three quarters of ``value`` are mask characters (x, X, *, #)."""
    masked = sum(1 for c in value if c in _MASK_CHARS)
    return masked * 4 >= len(value) * 3


def _inert(value: str) -> bool:
    value = value.strip()
    return (
        _INERT_VALUE.fullmatch(value) is not None
        or _is_masked(value)
        or (len(value) > 1 and len(set(value)) == 1)
    )


def _inert_pair(pair: str) -> bool:
    """A ``user:password`` pair whose password part is a variable or placeholder."""
    if pair.startswith("<") and pair.endswith(">"):
        return True
    _, _, password = pair.partition(":")
    password = password.strip("\"'")
    return bool(password) and _inert(password)


def _looks_credential(value: str) -> bool:
    """Weak-key values (``key=...``) count only when they look generated, not like words.

    Namespaced cache/map keys (``stock:SKU-11554``, ``user:42:cart``) are not credentials.
    """
    if len(value) < 12 or ":" in value or _is_wordy(value):
        return False
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    if has_digit and has_alpha:
        return True
    return has_alpha and not _is_wordy(value) and value.lower() != value


# ----------------------------------------------------------------------------- patterns

_PREFIXED = (
    r"(?:gh[pousr]_|github_pat_)[A-Za-z0-9_]{16,}"
    r"|gl(?:pat|ptt|rt|dt|cbt|imt|oas|ft|soat|ffct|agent|cil)-[A-Za-z0-9_\-.]{16,}"
    r"|GR1348941[A-Za-z0-9_\-]{16,}"
    r"|xox[abposre]-[A-Za-z0-9\-]{8,}|xoxe\.xox[bp]-\d-[A-Za-z0-9]{8,}|xapp-\d-[A-Za-z0-9\-]{8,}"
    r"|(?:sk|rk|pk)_(?:live|test|prod)_[A-Za-z0-9]{8,}"
    r"|sk-(?:proj-|ant-(?:api\d\d-)?)?[A-Za-z0-9_\-]{16,}"
    r"|(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}"
    r"|AIza[0-9A-Za-z_\-]{30,}|ya29\.[0-9A-Za-z_\-]{20,}"
    r"|(?:glc_|glsa_|sntrys_|sgp_|ops_|fo1_|fm[12][a-z]?_|pplx-|hf_|npm_|pypi-|dop_v1_"
    r"|shp(?:at|ss|ca|pa)_|SG\.|ico-|dapi|sq0(?:atp|csp)-|hv[sbr]\.|EAA[A-Za-z0-9]|rdme_"
    r"|AGE-SECRET-KEY-1|ABSK|AKCp|lin_api_|ntn_|whsec_)[A-Za-z0-9_\-+/=.~]{12,}"
    r"|sha256~[A-Za-z0-9_\-]{20,}|API-[A-Z0-9]{26}"
    r"|eyJ[A-Za-z0-9_\-]{8,}(?:\.[A-Za-z0-9_\-]*){1,2}"
)
_PREFIXED_RE = re.compile(
    # A known prefix claims the rest of its token too, so no tail is left to judge later.
    r"(?<![A-Za-z0-9])(?:" + _PREFIXED + r")(?:[A-Za-z0-9_\-+/=~]|\.(?=[A-Za-z0-9]))*"
)
# Hex digests that say they are digests (image digests, checksums, commits) stay visible.
_DIGEST_LABEL = re.compile(
    r"(?i:sha(?:1|224|256|384|512)|md5|checksum|digest|commit|integrity)[ \t]*[:=@][ \t]*\"?\Z"
)

_URL_USERINFO = re.compile(
    # user:password@ in URLs and DSNs (jdbc:mysql://, postgres://, redis://, amqp://, ...).
    r"(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*://)[^\s/@:\"'<>]*:[^\s/\"'<>]*@"
)
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?"
_EMAIL = re.compile(
    r"(?<![\w.%+\->])[A-Za-z0-9._%+\-]+@" + _LABEL + r"(?:\." + _LABEL + r")*\.[A-Za-z]{2,}"
    r"(?![\w\-])"
)
_IPV4 = r"(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_IPV6 = (
    r"(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}"
    r"|(?:[0-9A-Fa-f]{1,4}:){1,7}:(?:[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{1,4}){0,5})?"
    r"|::(?:[fF]{4}:)?(?:" + _IPV4 + r"|[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{1,4}){0,6})"
)
_IP4_RE = re.compile(r"(?<![\w.>])" + _IPV4 + r"(?::\d{1,5})?(?!\w|\.\d)")
_IP6_RE = re.compile(
    r"(?<![\w:.>])(?:\[(?:" + _IPV6 + r")\](?::\d{1,5})?|(?:" + _IPV6 + r"))(?![\w:])"
)
_HOST_SUFFIXES = (".internal", ".local", ".lan", ".corp", ".intra", ".consul", ".arpa")
_HOST_RE = re.compile(
    r"ip-(?<![\w.\->]ip-)\d{1,3}-\d{1,3}-\d{1,3}-\d{1,3}(?:\.[A-Za-z0-9\-]+)*(?![\w\-]|\.\w)"
    r"|(?<![\w.\->])[A-Za-z0-9][A-Za-z0-9.\-]*"
    r"\.(?:internal|local|localdomain|lan|corp|intranet|intra|consul|home\.arpa)"
    r"(?![\w\-]|\.\w)"
)
_POD_NAME = r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*-(?=[a-z0-9]*\d)[a-z0-9]{6,10}-[a-z0-9]{5}"
_POD_RE = re.compile(r"(?<![\w.\->])" + _POD_NAME + r"(?![\w\-])")
_POD_FULL = re.compile(_POD_NAME)
_POD_KEY = re.compile(
    r"(?<![\w\->])(?P<k>pod(?:_?name)?[ \t]*[=:][ \t]*\"?)(?!" + _PLACEHOLDER_RE + r")"
    r"[a-z0-9][a-z0-9.\-]*"
)
# Lookbehinds sit after the first literal so that the engine can scan for the literal.
_PID_RE = re.compile(
    r"[pP][iI][dD](?<![\w\->][pP][iI][dD])(?P<k>[ \t]*[=:]?[ \t]*)\d+(?!\w)"
    r"|\[(?<=[\w\-.)]\[)\d{2,7}\](?=[:\s]|\Z)"
)
# Long runs of token characters: prefixed tokens, digests, pods, hosts and random strings
# live in them. Never right after a placeholder, so a second pass sees the runs the first saw.
_RUN = re.compile(
    r"(?<![A-Za-z0-9+/_\-.~])"
    + "".join(f"(?<!{p})" for p in PLACEHOLDERS)
    + r"[A-Za-z0-9+/_\-.~]{12,}={0,2}"
)

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEX = re.compile(r"[0-9a-fA-F]+")
_RUN_PIECES = re.compile(r"([./]+)")
_WORDY_TOKENS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_DIGIT_GROUPS = re.compile(r"\d+")
_VOWELS = frozenset("aeiouyAEIOUY")


def _entropy(text: str) -> float:
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in Counter(text).values())


def _is_wordy(text: str) -> bool:
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


def _is_random(piece: str) -> bool:
    """Whether a token-character string looks generated (key, token, hash), not written."""
    body = piece.rstrip("=")
    if len(body) < 16:
        return False
    has_digit = any(c.isdigit() for c in body)
    has_alpha = any(c.isalpha() for c in body)
    if not (has_digit and has_alpha):
        return False
    if _UUID.fullmatch(body.strip("-_")) or _POD_FULL.fullmatch(body) or _is_masked(body):
        return False
    if _HEX.fullmatch(body):
        return _entropy(body) >= 3.0
    if _is_wordy(body):
        return False
    return _entropy(body) >= 3.5


# ----------------------------------------------------------------------------- the redactor
