"""Long runs of token characters: known token prefixes, digests and identifiers, and the judge
of randomness (private to :mod:`harness.redaction`).

A run (``[A-Za-z0-9+/_\\-.~]{12,}``) may be a prefixed token (``ghp_…``, ``AKIA…``, a JWT), a
random secret, or an identifier a diagnosis needs: a digest or commit under its label, a trace
id, an AWS resource id, a ULID, a pod or resource name, a path. Each run is judged once (cached)
and, when it would change, looked at in its context (its label) before it goes.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import lru_cache

from harness.redaction._hosts import POD_NAME_RE, POD_TOKEN
from harness.redaction._keys import key_strength
from harness.redaction._placeholders import POD, SECRET
from harness.redaction._shapes import HEX, UUID_VALUE
from harness.redaction._values import is_masked, is_wordy

__all__ = ["glued_tails", "token_runs"]

# Tokens that a known prefix names (GitHub, GitLab, Slack, Stripe, OpenAI and Anthropic, AWS
# access keys, Google, SendGrid, Vault, JWTs, ...): secrets wherever they stand.
_PREFIXED = (
    r"(?:gh[pousr]_|github_pat_)[A-Za-z0-9_]{16,}"
    r"|gl(?:pat|ptt|rt|dt|cbt|imt|oas|ft|soat|ffct|agent|cil)-[A-Za-z0-9_\-.]{16,}"
    r"|GR1348941[A-Za-z0-9_\-]{16,}"
    # Slack. A legacy ``xoxo-`` token goes on with its team number; ``xoxo-`` before a word
    # is the word "xoxo" (``2018-xoxo-indieweb.jpg``).
    r"|xox[abpsre]-[A-Za-z0-9\-]{8,}|xoxo-\d[A-Za-z0-9\-]{7,}"
    r"|xoxe\.xox[bp]-\d-[A-Za-z0-9]{8,}|xapp-\d-[A-Za-z0-9\-]{8,}"
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
    r"|integrity|revision|rev|version|etag|b3|git[_.\-]?sha|commit(?:[_.\-]?(?:id|sha|hash))?|x-amz-id-2"
    r"|x-amz-cf-id|cf-ray|trace|span|parent|request|req|event|correlation|job|build|container"
    r"|image|message|msg)(?:[_.\-]?id)?[\"']?(?:[ \t]*[:=@][ \t]*[\"']?|[ \t]+)"
    r"|checking out[ \t]+|checkout(?:[ \t]+-\w+)*[ \t]+|head is now at[ \t]+|merge[ \t]+"
    r"|cherry-pick(?:[ \t]+-\w+)*[ \t]+|revert[ \t]+|release[ \t]*=[ \t]*[\w.\-]+@"
    r"|(?:image|tag)[ \t]*[=:][ \t]*[\w.\-/]+:|(?:containerd|docker|cri-o|crio|podman|rkt):)"
    r"|\+git\.|\[[\w.\-]+,(?:[0-9a-f]{16,32},)?)\Z"
)

# Labels that only ever hold a digest or a request's id, whatever its encoding: a base64 MD5,
# an npm/SRI integrity hash, a multipart ETag, Cloudflare's ray id with its colo.
_DIGEST_ONLY_LABEL = re.compile(
    r"(?i:(?<![\w.\-])(?:content-md5|integrity|etag|checksum|x-amz-request-id|x-amz-id-2|cf-ray"
    r"|x-request-id|x-correlation-id|request-id)[\"']?(?:[ \t]*[:=][ \t]*[\"']?))\Z"
)

# A digest's value in any encoding (hex, base64, SRI's ``sha512-…``, a multipart ETag's ``-12``).
_DIGEST_VALUE = re.compile(
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

# Long runs of token characters: prefixed tokens, digests, pods, hosts and random strings
# live in them, also right after a placeholder (``<EMAIL>/ghp_…``).
_RUN = re.compile(r"(?<![A-Za-z0-9+/_\-.~])[A-Za-z0-9+/_\-.~]{12,}={0,2}")

# A mask with token characters glued to its end: the token went on past what a rule masked
# (Atlassian's ``ATATT3x…=1A2B3C4D``: a run ends at its ``=`` and the checksum after it is
# too short to be a run of its own). The rest of the token goes with it.
_GLUED_TAIL = re.compile(re.escape(SECRET) + r"[A-Za-z0-9][A-Za-z0-9+/_\-.~=]*")

# The pieces of a run between its dots and slashes, judged one by one.
_RUN_PIECES = re.compile(r"([./]+)")


def token_runs(text: str) -> str:
    """Every run of token characters, judged (see the module docstring)."""
    return _RUN.sub(_run, text)


def glued_tails(text: str) -> str:
    """Token characters glued to the end of a ``<SECRET>`` go with it."""
    return _GLUED_TAIL.sub(SECRET, text)


def _prefixed(match: re.Match[str]) -> str:
    return match.group(0) if is_masked(match.group(0)) else SECRET


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
    if HEX.fullmatch(hex_run) and _DIGEST_LABEL.search(match.string, max(0, start - 48), start):
        return run
    if (
        _DIGEST_VALUE.fullmatch(run)
        and not _PREFIXED_RE.match(run)
        and _DIGEST_ONLY_LABEL.search(match.string, max(0, start - 32), start)
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
            and HEX.fullmatch(parts[index])
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
        run = POD_TOKEN.sub(POD, run)
    return run


def _entropy(text: str) -> float:
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in Counter(text).values())


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


# A written name behind a number or a version (a migration's file name, a dated report):
# Rails' ``20240101120000_create_users``, Django's ``0042_rotate_api_keys``, Flyway's
# ``V2__add_token_column``, Alembic's ``a1b2c3d4e5f6_add_token``. Words joined by ``_``/``-``
# after one leading number, version or short revision; the words make up most of the name.
_NUMBERED_NAME = re.compile(
    r"(?:[vVrR]?\d+(?:[._]\d+)*|[0-9a-f]{12})_{1,2}(?P<words>[a-z][a-z0-9]*(?:[_\-][a-z0-9]+)+)"
)


def _is_numbered_name(body: str) -> bool:
    match = _NUMBERED_NAME.fullmatch(body)
    if match is None:
        return False
    words = [w for w in re.split(r"[_\-]", match.group("words")) if w.isalpha() and len(w) >= 2]
    return len(words) >= 2 and sum(map(len, words)) * 2 >= len(match.group("words"))


def _is_random(piece: str) -> bool:
    """Whether a token-character string looks generated (key, token, hash), not written."""
    body = piece.rstrip("=")
    if len(body) < 16:
        return False
    has_digit = any(c.isdigit() for c in body)
    has_alpha = any(c.isalpha() for c in body)
    if not (has_digit and has_alpha):
        return False
    if UUID_VALUE.fullmatch(body.strip("-_")) or POD_NAME_RE.fullmatch(body) or is_masked(body):
        return False
    if _is_resource_name(body) or _is_ulid(body) or _is_numbered_name(body):
        return False
    if HEX.fullmatch(body):
        return _entropy(body) >= 3.0
    if is_wordy(body):
        return False
    return _entropy(body) >= 3.5
