"""Patterns and predicates of the redactor (private to :mod:`harness.redaction`).

Each class of sensitive value is one precompiled regex or a small predicate; the order in
which :class:`harness.redaction.Redactor` applies them is what keeps redaction idempotent.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from harness.text import INVISIBLE_CLASS, is_invisible

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
# SSH2 (RFC 4716, ``---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----``) and PuTTY ``.ppk`` files
# (``PuTTY-User-Key-File-2:`` up to ``Private-MAC:``) are private keys too.
_PEM = re.compile(
    r"-{4,5} ?BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)? ?-{4,5}"
    r"(?:.*?-{4,5} ?END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)? ?-{4,5}|.*\Z)"
    r"|PuTTY-User-Key-File-\d+:(?:.*?Private-MAC:[^\n]*|.*\Z)",
    re.DOTALL,
)

# ----------------------------------------------------------------------------- keyed secrets

# Horizontal space, Unicode spaces (NBSP, ideographic space) and invisible characters.
_HS = r"(?:[^\S\n]|[" + INVISIBLE_CLASS + r"])"

# A quoted value (plain or JSON-escaped quotes; an unterminated quote runs to the end of the
# line), or an unquoted one that runs to whitespace or a list separator. An HTTP auth scheme
# in front of the value stays visible. An unquoted value goes on over what only *may* end it:
# a ``&`` not followed by the next ``key=`` (``password=ab&Cd9``), a backslash escape that is
# not a JSON quote or control escape (``ab\Cd``, Java's ``ab\=cd``), and a quote glued
# between two of its characters (``ab"Cd``); a value never runs to a later pair's key.
_SCHEME = (
    r"(?:(?i:Bearer|Basic|Token|Digest|Bot|JWT|Negotiate|Api-Token|OAuth|SSWS|NTLM|Kerberos|"
    r"ApiKey|Api-Key|SharedKey|SharedAccessSignature|GenieKey|SSO-Key|Splunk|HMAC|Hawk|DPoP|"
    r"AWS4-HMAC-SHA256)[ \t]+|!!?[A-Za-z][\w\-]*[ \t]+)?"  # and a YAML tag: ``!!str X``
)
_VALUE = (
    r"(?!" + _SCHEME + _PLACEHOLDER_RE + r")"
    r"(?P<scheme>" + _SCHEME + r")"
    r"(?:(?P<q>\\*[\"'`])(?P<qv>[^\n]*?)(?P<qc>(?P=q)|(?=\n)|\Z)"
    r"|(?P<uv>(?:[^\s\"'`\\,;&)}\]]|[,;)}\]](?=[^\s\"'`,;])|&(?![\w.\-\[\]%]*=|amp;|&)"
    r"|\\[^\s\"'`\\nrtu]|(?<=[^\W_])[\"'](?=[^\W_]))+))"
)

_FLAGS = re.compile(
    # 1. Command-line flags: --password hunter2, --token=abc.
    # (The lookbehinds sit after the first "-" so that the engine scans for it.)
    r"(?P<flag>-(?<![\w\->]-)-?[\w\-]*?(?:pass|pwd|secret|token|key|auth|cred|cookie)[\w\-]*)"
    r"(?P<fsep>=|[ \t]+)"
    r"(?P<fval>(?!" + _PLACEHOLDER_RE + r")(?!-)(?:\"[^\"\n]*\"|'[^'\n]*'|\S+))"
    # 2. curl -u / --user user:password (the whole credential pair goes).
    r"|(?P<uflag>-(?<![\w\->]-)(?:u|-user)(?:[ \t]+|=))(?P<upair>(?!"
    + _PLACEHOLDER_RE
    + r")\S*:\S*)"
)
# 3. key = value, key: value, "key": "value", key := value, key => value, key<TAB>value, with
#    full-width ``：``/``＝`` and any Unicode space. Matched only at identifiers that hold a hint
#    word (found in the key skeleton of the text), so the regex never walks the whole line.
_KEY_CHARS = r"(?:[\w.\-$@%]|[" + INVISIBLE_CLASS + r"])"
_KEY_VALUE = re.compile(
    r"(?P<key>[^\W\d]" + _KEY_CHARS + r"*+)"
    # The separator is atomic: "=>" must not back off to "=" and take ">" as a value. A key
    # may be closed by a quote or a bracket: PHP's ``[password] => X`` (``print_r``), a form's
    # ``user[password]=X``.
    r"(?P<sep>(?>(?:\\*[\"'`]|\])?"
    + _HS
    + r"*(?:=>|:=|[=＝]|[:：](?!//))"
    + _HS
    + r"*|\t+))"
    + _VALUE
)
# A key in prose: "the password was X", "requirepass X", "with credentials X", and the same
# with a quoted X ("with password 'X'", ``requirepass "X"``; up to 200 characters on one line).
_PROSE_KEY = re.compile(
    r"(?P<key>[^\W\d]" + _KEY_CHARS + r"*+)"
    r"(?P<sep>" + _HS + r"+(?:(?:temporary|temporaire|provisoire|temporal|temporanea|initial"
    r"|new|nouveau|neues|nuevo|nueva|nova|nuova)" + _HS + r"+)?"
    r"(?:(?:is|was|are|were|set to|changed to|reset to|is now|now|became"
    r"|est|ist|war|es|era|lautet|lauten|é|è|to|是|为|は|が|:|—|–)[:：]?" + _HS + r"+)?)"
    r"(?:(?P<q>[\"'`])(?P<qv>[^\"'`\n]{1,200})(?P=q)"
    r"|(?P<uv>(?!" + _PLACEHOLDER_RE + r")[^\s\"'`,;]+))",
    re.IGNORECASE,
)
# The same in languages written without spaces: ``密码是X``, ``新密码为X``, ``パスワードはXです``,
# ``비밀번호는 X``. The key ends where its word ends, a particle may follow, and the value is the
# run of ASCII characters after it.
_CJK_PROSE = re.compile(
    r"(?P<key>密码|密碼|口令|密钥|秘钥|令牌|パスワード|暗証番号|トークン|비밀번호|암호|토큰)"
    r"(?P<sep>(?:[是为為はがも]|는|은|이|가)?[:：]?" + _HS + r"*)"
    r"(?P<v>(?!" + _PLACEHOLDER_RE + r")[!-~]+)"
)
# English prose that puts words between the key and its value (``password for bob changed to
# X``, ``token for svc-deploy is X``) or the value before the key (``use X as the password``).
_PROSE_WORD_KEY = r"(?:password|passwd|passphrase|passcode|token|secret|api[ _\-]?key|pin)"
_PROSE_FOR = re.compile(
    r"(?i)(?P<head>(?<![\w\-])" + _PROSE_WORD_KEY + r"s?[ \t]+for[ \t]+"
    r"(?:(?:the|user|account|service|role)[ \t]+)?[^\s\"'`,;]+[ \t]+"
    r"(?:(?:has|have|been|was|is|now|changed|set|reset|updated)[ \t]+){0,3}(?:is|to)[:]?[ \t]+)"
    r"(?P<v>(?!" + _PLACEHOLDER_RE + r")[^\s\"'`,;]+)"
)
_PROSE_AS = re.compile(
    r"(?i)(?P<head>(?<![\w\-])use[ \t]+)(?P<v>(?!" + _PLACEHOLDER_RE + r")[^\s\"'`,;]+)"
    r"(?P<tail>[ \t]+as[ \t]+(?:(?:the|your|a|an|new|temporary|initial)[ \t]+)*"
    + _PROSE_WORD_KEY
    + r")\b"
)
_PROSE_STOP = frozenset(
    {"for", "from", "to", "at", "on", "in", "by", "with", "via", "as", "and", "or", "not",
     "user", "username", "login", "host", "the", "a", "an", "of", "if", "is", "was"}
)  # fmt: skip
# Words that continue an unquoted passphrase (``passphrase=correct horse battery staple``).
_PASSPHRASE_WORD = re.compile(r" +(?P<w>[^\s=:;,&|\"'<>(){}\[\]]+)(?![=:\w])")
_PREVIOUS_WORDS = re.compile(r"(?:([^\W\d]+)[ \t]+)?([^\W\d]+)[ \t]+\Z")
_IDENT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")


def _is_key_char(char: str) -> bool:
    return char.isalnum() or char in "_.-$@%" or is_invisible(char)


# Values that only name a secret (shell/template variables, placeholders) are left alone,
# which keeps documentation and config templates readable; they hold nothing to leak. What is
# inside the braces must itself read as a name (``${DB_PASS}``, ``{{ .Values.db.password }}``,
# ``<your-token>``): ``{{Sup3rS3cret}}`` is a secret in braces, and a shell default
# (``${DB_PASS:-hunter2}``) is judged as a value of its own.
_TEMPLATE = re.compile(
    r"\$\{\{(?P<a>.*)\}\}|\{\{(?P<b>.*)\}\}|\$\{(?P<c>[^}:=?+\-]*)(?:(?P<op>:?[-=?+])(?P<d>[^}]*))?\}?"
    r"|\$\((?P<e>.*)\)?|%\((?P<f>[^)]*)\)[sd]|<(?P<g>[^>]*)>?|\[(?P<h>[^\]]*)\]|\{(?P<i>[^{}]*)\}"
    r"|\$(?P<j>[\w.\-]+)",
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


def _is_masked(value: str) -> bool:
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


def _inert(value: str) -> bool:
    value = value.strip()
    if (
        value.lower() in _INERT_WORDS
        or _is_masked(value)
        or (len(value) > 1 and len(set(value)) == 1)
    ):
        return True
    template = _TEMPLATE.fullmatch(value)
    if template is None:
        return False
    if template.group("e") is not None:
        return True  # a command substitution: its output, not its text, is the value
    inner = next(g for g in template.groups() if g is not None)
    if template.group("j") is not None:
        # A bare ``$name`` is a variable as shells and configs spell one (``$DB_PASS``,
        # ``$password``, ``$dbPassword``, ``$1``); ``$Summer2024`` is a password with a "$".
        return _SHELL_NAME.fullmatch(inner) is not None
    if template.group("op") is not None:
        default = template.group("d") or ""
        # ``${X:?message}`` and ``${X:+alt}`` carry no default; ``${X:-v}`` and ``${X:=v}`` do.
        return _reads_as_name(inner) and (
            template.group("op")[-1] in "?+" or not default or _inert(default)
        )
    return _reads_as_name(inner)


def _inert_pair(pair: str) -> bool:
    """A ``user:password`` pair whose password part is a variable or placeholder."""
    if pair.startswith("<") and pair.endswith(">"):
        return True
    _, _, password = pair.partition(":")
    password = password.strip("\"'")
    return bool(password) and _inert(password)


# An object store or file path under a weak key (``object_key=uploads/2024/a1b2.png``, S3's
# ``Key: orders/2024/part-0001.parquet``): path segments and a file extension. A base64 key
# has slashes too, but no extension after a dot.
_OBJECT_PATH = re.compile(r"/?(?:[\w.\-=]+/)+[\w\-=]+(?:\.[A-Za-z][A-Za-z0-9]{0,6})+/?")


def _looks_credential(value: str) -> bool:
    """Weak-key values (``key=...``) count only when they look generated, not like words.

    Namespaced cache/map keys (``stock:SKU-11554``, ``user:42:cart``) are not credentials.
    """
    if len(value) < 12 or ":" in value or _is_wordy(value) or _OBJECT_PATH.fullmatch(value):
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
# A hex run labelled as a digest or an identifier (a commit, a trace or span, a request or
# event id, a job or container): evidence, not a secret. Header-style labels may spell their
# words apart with ``.``, ``-`` or ``_`` (``trace.id``, ``x-amz-request-id``, ``X-B3-TraceId``);
# git's own messages and deploy labels name a commit in prose (``Checking out``,
# ``HEAD is now at``, ``release=app@``, ``+git.``), Sleuth's ``[app,trace,span]`` by place, and
# a container runtime's URL (``containerd://<id>``, the run starting at ``//``) by its scheme.
_DIGEST_LABEL = re.compile(
    # Every label starts a word (a lookbehind the engine checks before any scan), so the search
    # over the characters before a run stays linear.
    r"(?i:(?<![\w.\-])(?:(?:[\w\-]*[_.\-])?(?:sha(?:1|224|256|384|512)?|md5|checksum|digest"
    r"|integrity|revision|rev|etag|b3|git[_.\-]?sha|commit(?:[_.\-]?(?:id|sha|hash))?|x-amz-id-2"
    r"|x-amz-cf-id|cf-ray|trace|span|parent|request|req|event|correlation|job|build|container"
    r"|image|message|msg)(?:[_.\-]?id)?[\"']?(?:[ \t]*[:=@][ \t]*[\"']?|[ \t]+)"
    r"|checking out[ \t]+|checkout(?:[ \t]+-\w+)*[ \t]+|head is now at[ \t]+|merge[ \t]+"
    r"|cherry-pick(?:[ \t]+-\w+)*[ \t]+|revert[ \t]+|release[ \t]*=[ \t]*[\w.\-]+@"
    r"|(?:image|tag)[ \t]*[=:][ \t]*[\w.\-/]+:|(?:containerd|docker|cri-o|crio|podman|rkt):)"
    r"|\+git\.|\[[\w.\-]+,(?:[0-9a-f]{16,32},)?)\Z"
)
# Labels that only ever hold a digest or a request's id, whatever its encoding: a base64 MD5,
# an npm/SRI integrity hash, a multipart ETag, Cloudflare's ray id with its colo.
DIGEST_ONLY_LABEL = re.compile(
    r"(?i:(?<![\w.\-])(?:content-md5|integrity|etag|checksum|x-amz-request-id|x-amz-id-2|cf-ray"
    r"|x-request-id|x-correlation-id|request-id)[\"']?(?:[ \t]*[:=][ \t]*[\"']?))\Z"
)
DIGEST_VALUE = re.compile(
    r"(?:sha(?:1|256|384|512)-)?[A-Za-z0-9+/_]{8,}={0,2}(?:-(?:\d{1,5}|[A-Z]{3}))?"
)
# A W3C traceparent: version, trace id, parent span id, flags.
_TRACEPARENT = re.compile(r"[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}")
# Identifiers whose shape names them, wherever they stand: AWS resource ids (``i-``, ``sg-``,
# ``vpc-``, ... and 8 or 17 hex digits), Stripe object ids (``ch_``, ``cus_``, ``pi_``, ...;
# its secrets, ``sk_``/``rk_``/``whsec_``, are not among them), an X-Ray trace id, a B3 header
# and a Cloud Trace context. They name a resource; knowing one grants nothing.
_KNOWN_ID = re.compile(
    r"(?:i|sg|vpc|subnet|eni|vol|snap|ami|rtb|igw|eigw|nat|acl|vpce|pcx|tgw|tgw-attach|dopt"
    r"|eipalloc|eipassoc|lt|fs|fsmt|vgw|cgw|elb|r|sir|sfr|fleet|h|pl)-(?:[0-9a-f]{8}|[0-9a-f]{17})"
    r"|(?:ch|cus|pi|pm|in|ii|il|sub|si|evt|txn|re|pyr|po|tr|price|prod|acct|seti|cs|src|card|ba"
    r"|cbtxn|dp|du|fee|file|link|plink|plan|coupon|promo|sku|or|py|iv|ipi|qt|rcpt|sub_sched"
    r"|setatt|trr|cn|bpc|cuss)_(?:(?:test|live)_)?[A-Za-z0-9]{8,66}"
    r"|1-[0-9a-f]{8}-[0-9a-f]{24}|[0-9a-f]{16}(?:[0-9a-f]{16})?-[0-9a-f]{16}(?:-[01d](?:-[0-9a-f]{16})?)?"
    r"|[0-9a-f]{16,32}/\d+"
)
# A run labelled as an identifier by a name ending in ``id`` (``request_id=``, ``"_id": "``,
# ``InstanceId=``, ``Container ID: docker://``): the label and separator before the run.
_ID_LABEL = re.compile(
    r"(?<![\w.\-])(?P<label>(?:[A-Za-z_][\w.\-]*[ \t])?(?:(?i:ids?)|[\w.\-]*[_.\-](?i:ids?)"
    r"|[\w.\-]*[a-z0-9](?:Id|ID)s?|(?i:uuid|guid|ulid|ksuid|nanoid|objectid|oid)))"
    r"[\"']?(?:[ \t]*[:=][ \t]*[\"']?(?:[a-z\-]+:)?|[ \t]+)\Z"
)
# The shapes of generated identifiers: hex (Mongo ObjectIds, container ids after ``docker://``),
# ULIDs, base32 ids, KSUIDs (27 base62 characters) and nanoids (21). A random run of any other
# length under an ``*_id`` label is judged as any run (detect-secrets' ``foreign_key_id``).
_ID_SHAPE = re.compile(
    r"(?://)?(?:[0-9a-fA-F]{8,64}|[0-7][0-9A-HJKMNP-TV-Z]{25}|[0-9a-hjkmnp-tv-z]{26}"
    r"|[a-z2-7]{26}|[0-9A-Za-z]{27}|[A-Za-z0-9_\-]{21})"
)

_URL_USERINFO = re.compile(
    # user:password@ in URLs and DSNs (jdbc:mysql://, postgres://, redis://, amqp://, ...).
    r"(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*://)[^\s/@:\"'<>]*:[^\s/\"'<>]*@"
)
# user:password@ without a scheme: Go DSNs (``user:pass@tcp(host:3306)/db``, ``@unix(...)``,
# ``@/db``) and ``user:pass@host``. The password runs to the last ``@`` of the token.
_USERINFO = re.compile(
    r"(?<![\w.\-:/@%+~])(?!(?:mailto|sip|sips|tel|xmpp|urn|cid|mid|news|jdbc):)"
    r"(?P<user>[\w.\-%~+]{1,64}):(?P<pw>(?!" + _PLACEHOLDER_RE + r"@)[^\s/\"'<>]+)@(?=[\w\[(/])"
)
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?"
# The last label starts with a letter and may hold digits and dashes, so an address glued to
# what follows (``a.b@c.dexoxb-1-token``) is still taken whole; a quoted local part counts.
_EMAIL = re.compile(
    r"(?:(?<![\w.%+\->])[A-Za-z0-9._%+\-]+|\"[^\"\n@]{1,64}\")@(?:" + _LABEL + r"\.)+"
    r"[A-Za-z](?:[A-Za-z0-9\-]*[A-Za-z0-9])?(?![\w\-])"
)
# An address written out so that harvesters miss it: ``alice [at] example [dot] com``,
# ``alice(at)example.com``, ``alice AT example DOT com``. With brackets the words are marks
# enough; written bare, ``at`` and ``dot`` are words of prose (``look at this dot product``),
# so every separator must be ``dot`` and the last label a common top-level domain.
_AT = r"\s*[\[({<]\s*(?i:at)\s*[\])}>]\s*"
_DOT = r"(?:\s*[\[({<]\s*(?i:dot)\s*[\])}>]\s*|\.)"
_TOP_LEVEL = r"(?i:com|net|org|edu|gov|io|co|uk|de|fr|nl|info|biz|me|dev|app|ai)"
_SPELLED_EMAIL = re.compile(
    r"(?<![\w.%+\-])[A-Za-z0-9._%+\-]+(?:"
    + _AT
    + r"(?:"
    + _LABEL
    + _DOT
    + r")+[A-Za-z]{2,}|\s+(?i:at)\s+(?:"
    + _LABEL
    + r"\s+(?i:dot)\s+)+"
    + _TOP_LEVEL
    + r")(?![\w\-])"
)
SPELLED_EMAIL_GATE = re.compile(r"[\[({<]\s*at\s*[\])}>]|\sdot\s", re.IGNORECASE)
_PCT_EMAIL = re.compile(
    r"(?<![\w.%+\-])[\w.+\-]+%40(?:" + _LABEL + r"\.)+[A-Za-z][A-Za-z0-9\-]*(?![\w\-])"
)
# ``pass%77ord=...``: a key written with percent escapes is judged decoded. A key starts where
# no key character precedes it: started after every ``-`` of ``a-a-a-…``, the search was
# quadratic in the run's length.
_PCT_KEY = re.compile(
    r"(?<![\w.\-%])(?P<key>[\w.\-]*+%[0-9A-Fa-f]{2}[\w.\-%]*)(?P<sep>=)"
    r"(?P<v>(?!" + _PLACEHOLDER_RE + r")[^\s&;,\"'<>]+)"
)
_OCTET = r"(?:25[0-5]|2[0-4]\d|[01]?\d?\d)"  # leading zeros included: 010.000.003.017
_IPV4 = r"(?:" + _OCTET + r"\.){3}" + _OCTET
_H16 = r"[0-9A-Fa-f]{1,4}"
_IPV6 = (
    # IPv4-embedded forms first (::ffff:10.0.0.1, 64:ff9b::10.0.0.1, 0:0:0:0:0:ffff:1.2.3.4).
    r"(?:"
    + _H16
    + r":){6}"
    + _IPV4
    + r"|(?:"
    + _H16
    + r"(?::"
    + _H16
    + r"){0,4})?::(?:"
    + _H16
    + r":){0,4}"
    + _IPV4
    + r"|(?:"
    + _H16
    + r":){7}"
    + _H16
    + r"|(?:"
    + _H16
    + r":){1,7}:(?:"
    + _H16
    + r"(?::"
    + _H16
    + r"){0,5})?"
    + r"|::(?:"
    + _H16
    + r"(?::"
    + _H16
    + r"){0,6})"
)
# Cheap gates: a literal first, so that the engine scans for it.
_IP4_GATE = re.compile(r"\.(?<=\d\.)\d{1,3}\.\d{1,3}\.\d")
_IP6_GATE = re.compile(r"::|:(?<=[0-9A-Fa-f]:)[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:")
_IP4_RE = re.compile(r"(?<![\w.>])" + _IPV4 + r"(?::\d{1,5})?(?!\w|\.\d)")
_IP6_RE = re.compile(
    r"(?<![\w:.>])(?:\[(?:" + _IPV6 + r")\](?::\d{1,5})?|(?:" + _IPV6 + r"))(?![\w:])"
)
_HOST_SUFFIXES = (".internal", ".local", ".lan", ".corp", ".intra", ".consul", ".arpa", ".priv")
_DASHED_IP = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
# Cloud hostnames that spell an IP: ip-10-0-3-17, ec2-54-12-34-56.compute-1.amazonaws.com,
# 10-0-3-20.nip.io.
_CLOUD_HOST_RE = re.compile(
    r"(?<![\w.\->])(?:[A-Za-z][A-Za-z0-9]*-)?(?:"
    + _DASHED_IP
    + r"-){3}"
    + _DASHED_IP
    + r"(?:\.[A-Za-z0-9\-]+)*(?![\w\-]|\.\w)"
)
_DASHED_GATE = re.compile(r"-(?<=\d-)\d{1,3}-\d{1,3}-\d")
# Internal names, in any case and with any number of labels: found by the suffix (a literal
# the engine scans for), then taken back over the name's characters.
_HOST_SUFFIX_RE = re.compile(
    r"\.(?i:internal|local|localdomain|lan|corp|intranet|intra|consul|home\.arpa|priv|private)"
    r"(?![\w\-]|\.\w)"
)
_HOST_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-")
_POD_NAME = r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*-(?=[a-z0-9]*\d)[a-z0-9]{6,10}-[a-z0-9]{5}"
_POD_RE = re.compile(r"(?<![\w.\->])" + _POD_NAME + r"(?![\w\-])")
_POD_FULL = re.compile(_POD_NAME)
# DaemonSet (and bare ReplicaSet) pods: a name and Kubernetes' 5-character random suffix,
# drawn from consonants and the digits 2, 4-9; one digit at least, so words stay.
_DS_POD_RE = re.compile(
    r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*-(?=[a-z]*[2456789])[bcdfghjklmnpqrstvwxz2456789]{5}"
)
_DS_SUFFIX = re.compile(r"-(?=[a-z]*[2456789])[bcdfghjklmnpqrstvwxz2456789]{5}(?![\w\-])")
_POD_KEY = re.compile(
    r"(?i)(?<![\w\->])(?P<k>pods?(?:[_.\-]?name)?\\?[\"']?"
    r"(?P<sep>[^\S\n]*[=:/][^\S\n]*|[^\S\n]+)\\?[\"']?)(?!" + _PLACEHOLDER_RE + r")"
    r"(?P<name>[a-z0-9][a-z0-9.\-]*[a-z0-9]|[a-z0-9])"
)
_STATEFUL_NAME = re.compile(r"[a-z][a-z0-9\-]*-\d+")
# Lookbehinds sit after the first literal so that the engine can scan for the literal.
_PID_RE = re.compile(
    r"[pP][iI][dD](?<![\w\->][pP][iI][dD])(?P<k>[ \t]*[=:]?[ \t]*)\d+(?!\w)"
    r"|\[(?<=[\w\-.)]\[)\d{2,7}\](?=[:\s]|\Z)"
)
# Long runs of token characters: prefixed tokens, digests, pods, hosts and random strings
# live in them, also right after a placeholder (``<EMAIL>/ghp_…``).
_RUN = re.compile(r"(?<![A-Za-z0-9+/_\-.~])[A-Za-z0-9+/_\-.~]{12,}={0,2}")
# A mask with token characters glued to its end: the token went on past what a rule masked
# (Atlassian's ``ATATT3x…=1A2B3C4D``: a run ends at its ``=`` and the checksum after it is
# too short to be a run of its own). The rest of the token goes with it.
GLUED_TAIL = re.compile(re.escape(SECRET) + r"[A-Za-z0-9][A-Za-z0-9+/_\-.~=]*")

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


# A resource name as clusters and clouds generate them: lower-case words and short hashes
# joined by ``-`` (``gke-prod-default-pool-1a2b3c4d-xk9z``, a ReplicaSet's
# ``checkout-api-7d9f8b6c5d``, a kubelet's ``<pod>_<namespace>``). What a diagnosis names.
_RESOURCE_NAME = re.compile(r"[a-z][a-z0-9]*(?:[\-_][a-z0-9]+)+")
_SEGMENT = re.compile(r"[\-_]")


def _is_resource_name(body: str) -> bool:
    if not _RESOURCE_NAME.fullmatch(body):
        return False
    segments = _SEGMENT.split(body)
    words = sum(segment.isalpha() and len(segment) >= 3 for segment in segments)
    return words >= 2 and all(len(segment) <= 12 for segment in segments)


# A ULID: 26 characters of Crockford's base32, the first ten a time in milliseconds. One
# whose time falls in this century's likely span is an identifier (an order, an event), not a
# secret: a random run of those characters has a time there about once in a thousand.
_ULID = re.compile(r"[0-7][0-9A-HJKMNP-TV-Z]{25}")
_CROCKFORD = {c: i for i, c in enumerate("0123456789ABCDEFGHJKMNPQRSTVWXYZ")}
_ULID_SPAN_MS = (1_420_070_400_000, 2_208_988_800_000)  # 2015-01-01 to 2040-01-01


def _is_ulid(body: str) -> bool:
    upper = body.upper()
    if not _ULID.fullmatch(upper):
        return False
    ms = 0
    for char in upper[:10]:
        ms = ms * 32 + _CROCKFORD[char]
    return _ULID_SPAN_MS[0] <= ms <= _ULID_SPAN_MS[1]


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
    if _is_resource_name(body) or _is_ulid(body):
        return False
    if _HEX.fullmatch(body):
        return _entropy(body) >= 3.0
    if _is_wordy(body):
        return False
    return _entropy(body) >= 3.5


# ----------------------------------------------------------------------------- the redactor


# ----------------------------------------------------------------------------- wrapped values

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
