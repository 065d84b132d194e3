"""Tuning and result types of the template miner, and the generic masks.

The masks and value shapes for addresses, ids and host names are built from the shared table
of value shapes (:mod:`harness.text.shapes`), which redaction builds on as well.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from harness.text.shapes import HEX_ID, HOST_NAME, IPV4, IPV6, MAC, USER_AT_HOST, UUID

__all__ = [
    "DEFAULT_DELIMITERS",
    "DEFAULT_MASKS",
    "EMAIL_SHAPE",
    "FILE_EXTENSIONS",
    "FILE_SHAPE",
    "HEX_LETTERS_SHAPE",
    "HEX_LITERAL_MASK",
    "HOST_SHAPE",
    "IPV4_MASK",
    "IPV6_MASK",
    "LONG_HEX_MASK",
    "MAC_MASK",
    "NUMBER_MASK",
    "PATH_SHAPE",
    "URL_SHAPE",
    "UUID_MASK",
    "VALUE_SHAPES",
    "WILDCARD",
    "WINDOWS_PATH_SHAPE",
    "MinedTemplate",
    "MinerConfig",
    "template_id_of",
]

WILDCARD = "<*>"

# Patterns for values that are variable in any log. Order matters: the alternation tries them
# left to right, so the most specific shapes (UUIDs, IPs) come before bare numbers. In the
# lookarounds a wildcard's ``<`` and ``>`` count as word characters, so that masking a masked
# text changes nothing.
# UUIDs, and GUIDs as Windows prints them (in braces: the braces belong to the value).
UUID_MASK = rf"(?<![>\w])\{{?{UUID.pattern}\}}?(?![<\w])"
# IPv6, full or compressed, or in brackets; a port after the brackets is masked on its own,
# as after IPv4 addresses and host names. An address ends where no word character or colon
# follows, so a clock time (``12:30:45``) is none.
IPV6_MASK = rf"(?<![>\w:.])(?:\[(?:{IPV6.pattern})\]|(?:{IPV6.pattern})(?![<\w:]))"
# IPv4. A port is masked on its own as a number, so ``10.0.0.1:5432``, ``[::1]:5432`` and
# ``db-3:5432`` tokenise alike (``<*> : <*>``) and can share a template.
IPV4_MASK = rf"(?<![>\w.]){IPV4.pattern}(?![<\w.])"
# MAC addresses (``00:1a:2b:3c:4d:5e``, ``00-1A-2B-3C-4D-5E``): a colon would otherwise cut
# one into six tokens, some of them words (``aa``).
MAC_MASK = rf"(?<![>\w:-]){MAC.pattern}(?![<\w:-])"
HEX_LITERAL_MASK = r"(?<![>\w])0[xX][0-9a-fA-F]+(?![<\w])"
# Long hex ids (block ids, hashes, session ids) holding both a digit and a letter.
LONG_HEX_MASK = rf"(?<![>\w]){HEX_ID.pattern}(?![<\w])"
# Numbers as whole words: integers, decimals, dotted versions, signed values, optionally with
# a unit of time, size or frequency (3000ms, 1.5s, 64KB, 50Hz).
NUMBER_MASK = (
    r"(?<![>\w.])[-+]?\d+(?:[.,]\d+)*"
    r"(?:ns|us|µs|ms|s|sec|secs|m|min|mins|h|hrs|d|[kKMGT]i?[bB]?|bytes|B|Hz|kHz|MHz|GHz)?"
    r"(?![<\w])"
)
DEFAULT_MASKS: tuple[str, ...] = (
    UUID_MASK,
    MAC_MASK,
    IPV6_MASK,
    IPV4_MASK,
    HEX_LITERAL_MASK,
    LONG_HEX_MASK,
    NUMBER_MASK,
)

# Shapes of whole tokens that name one thing among many, and so are variable wherever they
# occur (with ``MinerConfig.value_tokens``). Unlike a mask they keep their text in a template
# until two lines disagree, so a path or a URL that never changes stays readable
# (``GET /api/v1/cart``); digits inside them are masked first.

# URLs of any scheme (``https://``, ``hdfs://``, ``s3://``): host, port, path and query.
URL_SHAPE = r"[A-Za-z][A-Za-z0-9+.-]*://\S*"
# Windows paths, drive-letter or UNC (``C:\Users\…``, ``\\server\share\…``).
WINDOWS_PATH_SHAPE = r"(?:[A-Za-z]:\\|\\\\[\w.$-])\S*"
# Unix paths: absolute (``/var/log/app.log``, ``~/x``, ``./x``) or relative with at least two
# slashes (``src/main/Foo.java``); one slash between words (``read/write``, ``HTTP/1.1``,
# ``rx/tx``) is not a path.
PATH_SHAPE = r"(?:~|\.{1,2})?(?:/[^/\s]+)+/?|[^/\s]+(?:/[^/\s]+){2,}/?"
# Email addresses and ``user@host`` with or without a domain (``alice@bastion``).
EMAIL_SHAPE = USER_AT_HOST.pattern
# Host names by the shape of a DNS name: dot-separated labels ending in a top-level domain
# (``alpha.prod.example.org``, ``db.cluster.internal``). Requiring the last label to be a
# domain keeps dotted identifiers constant: Java packages and classes start with one
# (``org.apache.Foo``) and end in a name, configuration keys end in a word (``os.name``).
HOST_SHAPE = HOST_NAME.pattern
# File names by their extension (``chrome.exe``, ``libssl.so``, ``report.pdf``): a file is one
# among many. Dotted names with other endings (``rpc.statd``, ``os.name``) are not files.
FILE_EXTENSIONS = (
    "exe|dll|sys|msi|bat|cmd|ps1|sh|bash|py|pyc|rb|pl|php|js|mjs|ts|jsx|tsx|java|class|jar|"
    "war|ear|so|dylib|cpp|hpp|go|rs|log|txt|csv|tsv|json|xml|yaml|yml|toml|ini|cfg|conf|"
    "properties|env|pem|crt|cer|key|pfx|p12|html|htm|css|md|pdf|docx?|xlsx?|pptx?|png|jpe?g|"
    "gif|svg|bmp|ico|mp3|mp4|wav|avi|mov|zip|gz|tgz|tar|bz2|xz|7z|rar|iso|img|apk|ipa|deb|"
    "rpm|db|sqlite|parquet|avro|bin|dat|tmp|bak|pid|sock"
)
FILE_SHAPE = rf"[\w-][\w.-]*\.(?i:{FILE_EXTENSIONS})"
# Sixteen and more hex letters are a register or an address (``ffffffffffffffff``): no word
# is that long in only the letters a to f.
HEX_LETTERS_SHAPE = r"[a-fA-F]{16,}"
VALUE_SHAPES: tuple[str, ...] = (
    URL_SHAPE,
    WINDOWS_PATH_SHAPE,
    PATH_SHAPE,
    EMAIL_SHAPE,
    HOST_SHAPE,
    FILE_SHAPE,
    HEX_LETTERS_SHAPE,
)

# Characters that separate tokens besides whitespace; they become tokens of their own so that
# ``user=root`` and ``port:22`` compare position by position.
DEFAULT_DELIMITERS = "=:,;()[]{}\"'|"


@dataclass(frozen=True, kw_only=True)
class MinerConfig:
    """Tuning of the template miner. The defaults are generic, not fitted to one log source.

    Attributes:
        similarity_threshold: Minimum share of a template's constant tokens a line must equal to
            join that template's cluster.
        depth: Depth of the parse tree, counting the root and the token-count layer; ``depth - 2``
            leading tokens route a line to its leaf.
        max_children: Fan-out limit per internal node; overflowing tokens share a wildcard branch.
        max_clusters_per_leaf: Clusters kept per leaf before new lines are forced into the best one.
        extra_masks: Additional regular expressions whose matches become ``<*>``.
        delimiters: Characters split off as tokens of their own (besides whitespace).
        mask_digit_tokens: Treat any token that still holds a digit as variable; it keeps its
            text in the template until two lines disagree on it.
        value_tokens: Treat tokens in the shapes and places of values as variable in the same
            way: paths, URLs, host names, emails and ``user@host``, file names and long
            hex-letter runs (``VALUE_SHAPES``), a name joined by ``-`` or ``.`` before
            ``:port``, the value of an attached ``key=value`` or ``key:value`` pair,
            a quoted string (one token, however many words; not a key before ``:`` nor a
            logfmt ``msg=`` text), a boolean, ``null`` or a calendar word, and a unit after a
            number (which joins the number's token).
        merge_templates: After mining, split a cluster at a position that only ever held two
            constant words over many distinct lines (two events taken for one:
            ``passed``/``failed``; the clusters a merge joins pool that evidence), then merge
            the clusters of one event together: equal constant skeletons once variables are
            dropped (an empty or repeated variable changes the token count, not the event),
            a cluster another of the same shape covers, siblings (see
            ``min_distinct_words``), free text after a ``key:`` that differs in as many
            places, and words that fill another template's variable (names of varying
            length). A message's first word is never taken for a value by these passes
            (only its shape makes it one) unless it is a tag naming the emitter
            (``nginx[812]:``, ``unit.service:``, ``(root)``).
        min_distinct_words: Distinct words at one position of otherwise equal templates that
            make the position a variable and merge the templates into one; 0 turns this pass
            off.
    """

    similarity_threshold: float = 0.7
    depth: int = 4
    max_children: int = 100
    max_clusters_per_leaf: int = 1000
    extra_masks: tuple[str, ...] = ()
    delimiters: str = DEFAULT_DELIMITERS
    mask_digit_tokens: bool = True
    value_tokens: bool = True
    merge_templates: bool = True
    min_distinct_words: int = 3


@dataclass(frozen=True, kw_only=True)
class MinedTemplate:
    """A template and its stable id.

    Attributes:
        template_id: Short hash of ``template``; equal texts give equal ids in any process.
        template: The template text with ``<*>`` for variable parts.
    """

    template_id: str
    template: str


def template_id_of(template: str) -> str:
    """Return the stable id of a template text (12 hex digits of its SHA-1)."""
    return hashlib.sha1(template.encode("utf-8"), usedforsecurity=False).hexdigest()[:12]


def template_of_text(text: str) -> MinedTemplate:
    """Return the :class:`MinedTemplate` of a template text."""
    return MinedTemplate(template_id=template_id_of(text), template=text)
