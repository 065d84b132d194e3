"""Secrets whose key and value are split by structure (private to :mod:`harness.redaction`).

A ``key=value`` rule sees none of these: the key names the secret in one place and the value
sits in another — a private key's block, a JSON or YAML ``name``/``value`` pair, a Kubernetes
``env`` entry, a JSON Patch operation (``path`` and ``value``), a YAML block scalar (however deep
under other keys), an XML element or attribute pair, a ``Cookie`` header of many pairs, a flag
and its value as list items, an OAuth callback's code, a credential file's line, a secret set
in code. Each rule is one function ``text -> text``; each only replaces the value, keeping the
structure readable.
"""

from __future__ import annotations

import re

from harness.redaction._keys import key_strength
from harness.redaction._placeholders import PLACEHOLDER_RE, SECRET
from harness.redaction._values import inert, looks_credential

__all__ = [
    "BUNDLER_GATE",
    "CODE_GATE",
    "FLAG_ITEM_GATE",
    "LOGIN_WORDS",
    "OAUTH_GATE",
    "PGPASS_GATE",
    "YAML_BLOCK_GATE",
    "bundler_credentials",
    "code_assignments",
    "cookies",
    "flag_items",
    "login_calls",
    "name_value_pairs",
    "oauth_codes",
    "pgpass_lines",
    "private_keys",
    "xml_values",
    "yaml_blocks",
]

# ----------------------------------------------------------------------------- private keys

# A private key body spans lines; the END line may be missing in a truncated log record, in
# which case everything up to the end of the text is the key.
# SSH2 (RFC 4716, ``---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----``) and PuTTY ``.ppk`` files
# (``PuTTY-User-Key-File-2:`` up to ``Private-MAC:``) are private keys too.
PRIVATE_KEY = re.compile(
    r"-{4,5} ?BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)? ?-{4,5}"
    r"(?:.*?-{4,5} ?END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)? ?-{4,5}|.*\Z)"
    r"|PuTTY-User-Key-File-\d+:(?:.*?Private-MAC:[^\n]*|.*\Z)",
    re.DOTALL,
)


def private_keys(text: str) -> str:
    """A private key's block (PEM, SSH2, PuTTY), up to its end or the end of the text."""
    return PRIVATE_KEY.sub(SECRET, text)


# ----------------------------------------------------------------------------- YAML blocks


def _holds_secret(name: str, value: str) -> bool:
    strength = key_strength(name)
    value = value.strip("\"'\\")
    if not value or inert(value):
        return False
    return strength == 2 or (strength == 1 and looks_credential(value))


# A key whose value starts on the next line: the line ends after its separator (a cheap test
# before the block pattern).
YAML_BLOCK_GATE = re.compile(r"(?::|=>?)[ \t]*(?:\\[ \t]*)?(?:[|>][+\-]?\d*[ \t]*)?(?:#[^\n]*)?\n")

# ``password: |`` / ``>-`` block scalars, and a plain value on the following, deeper lines;
# the same after ``=`` (an INI or properties value continued on the next line) and after a
# shell's line continuation (``DB_PASSWORD=\\``).
_YAML_BLOCK = re.compile(
    r"(?m)^(?P<head>(?P<indent>[ \t]*)(?:-[ \t]+|(?:export|set|setx|declare[ \t]+-x)[ \t]+)?"
    r"[\"']?(?P<key>[^\s:=\"'\\]+)[\"']?[ \t]*"
    r"(?::|=>?|:=)[ \t]*(?:\\[ \t]*)?(?:[|>][+\-]?\d*[ \t]*)?(?:#[^\n]*)?)\n"
    r"(?P<body>(?:(?P=indent)[ \t]+\S[^\n]*(?:\n|\Z)|[ \t]*\n(?=(?P=indent)[ \t]+\S))+)"
)


def _yaml_block(match: re.Match[str]) -> str:
    if key_strength(match.group("key")) != 2:
        # A block under another key (``db:`` over ``password: >-``) holds its own blocks.
        return match.group("head") + "\n" + yaml_blocks(match.group("body"))
    body = match.group("body")
    end = "\n" if body.endswith("\n") else ""
    return f"{match.group('head')}\n{match.group('indent')}  {SECRET}{end}"


def yaml_blocks(text: str) -> str:
    """``password: |`` (or ``>-``) followed by indented lines: the whole block goes."""
    return _YAML_BLOCK.sub(_yaml_block, text)


# ----------------------------------------------------------------------------- name/value

_NV_NAME = (
    r"(?<![\w\-])(?P<nq>\\?[\"']?)(?:name|key|Name|Key|NAME|KEY|ParameterKey|parameter|param"
    r"|field|variable|var|env|property|header|path)(?P=nq)[^\S\n]*[:=][^\S\n]*\\?[\"']?"
    r"(?P<name>[^\"'\s,}{\\]+)"
)

_NV_VALUE = (
    r"(?<![\w\-])(?P<vh>(?P<vq>\\?[\"']?)(?:value|Value|VALUE|ParameterValue|val|default)(?P=vq)"
    r"[^\S\n]*[:=][^\S\n]*)"
    r"(?P<v>\\?\"(?:[^\"\\\n]|\\.)*?\\?\"|'[^'\n]*'|(?!" + PLACEHOLDER_RE + r")[^\s,}\]]+)"
)

_NV_GAP = r"(?P<mid>(?:(?![\"']?(?:name|key|Name|Key|path)[\"']?[^\S\n]*[:=])[^{}\[\]]){0,160}?)"

_NAME_THEN_VALUE = re.compile(_NV_NAME + _NV_GAP + _NV_VALUE)

_VALUE_THEN_NAME = re.compile(_NV_VALUE + _NV_GAP + _NV_NAME)


def _secret_value(value: str) -> str:
    """The value with its content replaced, quotes kept."""
    for quote in ('\\"', '"', "'"):
        if len(value) >= 2 * len(quote) and value.startswith(quote) and value.endswith(quote):
            return quote + SECRET + quote
    return SECRET


def _name_value(match: re.Match[str]) -> str:
    if not _holds_secret(match.group("name"), match.group("v")):
        return match.group(0)
    start, end = match.span("v")
    whole = match.group(0)
    offset = match.start()
    return whole[: start - offset] + _secret_value(match.group("v")) + whole[end - offset :]


def name_value_pairs(text: str) -> str:
    """``{"name": "DB_PASSWORD", "value": "..."}``, ``- name: X`` / ``value: Y``, either order;
    also a JSON Patch operation, whose ``path`` names what its ``value`` sets."""
    text = _NAME_THEN_VALUE.sub(_name_value, text)
    return _VALUE_THEN_NAME.sub(_name_value, text)


# ----------------------------------------------------------------------------- XML

_XML_ELEMENT = re.compile(
    r"<(?P<tag>(?:[\w.\-]+:)?(?P<local>[\w.\-]+))(?P<attrs>(?:\s[^<>]*?)?)>"
    r"(?P<body>(?:<!\[CDATA\[.*?\]\]>|[^<])+)</(?P=tag)\s*>",
    re.DOTALL,
)

_XML_NAME_ATTR = re.compile(r"\b(?:name|key|id)\s*=\s*([\"'])(?P<name>[^\"']+)\1")

_XML_VALUE_ATTR = re.compile(
    r"<[\w.:\-]+\s[^<>]*?\b(?:name|key|id)\s*=\s*(?P<q>[\"'])(?P<name>[^\"']+)(?P=q)[^<>]*?"
    r"\bvalue\s*=\s*(?P<vq>[\"'])(?P<v>[^\"']*)(?P=vq)"
)

# A name element and the value element beside it (Hadoop/Hive ``<name>``/``<value>``, web.xml
# ``<param-name>``/``<param-value>``, plist ``<key>``/``<string>``, AWS ``<Name>``/``<Value>``),
# with at most a few other elements between them (``<Type>SecureString</Type>``).
_XML_SIBLINGS = re.compile(
    r"<(?P<nt>(?:[\w\-]+:)?(?i:name|key|param-name|parameter-?name|parameter-?key"
    r"|env-entry-name|property-name))>[ \t\r\n]*(?P<name>[^<>]{1,200}?)[ \t\r\n]*</(?P=nt)>"
    r"(?P<mid>(?:[ \t\r\n]*<(?P<other>[\w.:\-]+)[^<>/]*>[^<>]{0,200}</(?P=other)>){0,3}"
    r"[ \t\r\n]*)"
    r"<(?P<vt>(?:[\w\-]+:)?(?i:value|param-value|parameter-?value|env-entry-value"
    r"|property-value|string|data))>(?P<v>(?:<!\[CDATA\[.*?\]\]>|[^<])+)</(?P=vt)>",
    re.DOTALL,
)


def _xml_sibling(match: re.Match[str]) -> str:
    value = match.group("v")
    if re.fullmatch(PLACEHOLDER_RE, value.strip()) or not _holds_secret(
        match.group("name"), value.strip()
    ):
        return match.group(0)
    start, end = match.span("v")
    offset = match.start()
    whole = match.group(0)
    return whole[: start - offset] + SECRET + whole[end - offset :]


def _xml_element(match: re.Match[str]) -> str:
    body = match.group("body")
    if re.fullmatch(PLACEHOLDER_RE, body.strip()):
        return match.group(0)
    named = _XML_NAME_ATTR.search(match.group("attrs"))
    name = named.group("name") if named else match.group("local")
    if not _holds_secret(name, body):
        return match.group(0)
    return f"<{match.group('tag')}{match.group('attrs')}>{SECRET}</{match.group('tag')}>"


def _xml_value(match: re.Match[str]) -> str:
    if not _holds_secret(match.group("name"), match.group("v")):
        return match.group(0)
    start, end = match.span("v")
    offset = match.start()
    whole = match.group(0)
    return whole[: start - offset] + SECRET + whole[end - offset :]


def xml_values(text: str) -> str:
    """``<password>x</password>``, ``<entry key="password">x</entry>``, ``value="x"`` pairs,
    and a value element whose sibling name element names a secret."""
    if "</" in text:
        # Siblings first: a name element judged on its own could hide the name it holds.
        text = _XML_SIBLINGS.sub(_xml_sibling, text)
        text = _XML_ELEMENT.sub(_xml_element, text)
    if "value" in text:
        text = _XML_VALUE_ATTR.sub(_xml_value, text)
    return text


# ----------------------------------------------------------------------------- cookies

_COOKIE_HEADER = re.compile(
    r"(?i)(?P<h>(?<![\w\-])(?P<set>set-)?cookies?\\?[\"']?[^\S\n]*[:=][^\S\n]*\\?[\"']?"
    r"|--cookie[^\S\n]*[= ][^\S\n]*[\"']?|(?<=curl)[^\n]*?[^\S\n]-b[^\S\n]+[\"']?)"
    r"(?P<body>[^\n\"'\\]*)"
)

# A name starts where a name can (not inside one) and is taken whole: tried from every
# character of a long run, the run cost time quadratic in its length.
_COOKIE_PAIR = re.compile(r"(?<![^=;,\s])(?P<name>[^=;,\s]++)[^\S\n]*=[^\S\n]*(?P<v>[^;\n]*)")


def _cookie_header(match: re.Match[str]) -> str:
    body = match.group("body")
    only_first = match.group("set") is not None

    def pair(found: re.Match[str]) -> str:
        value = found.group("v").strip()
        if not value or re.fullmatch(PLACEHOLDER_RE, value) or inert(value):
            return found.group(0)
        return f"{found.group('name')}={SECRET}"

    return match.group("h") + _COOKIE_PAIR.sub(pair, body, count=1 if only_first else 0)


def cookies(text: str) -> str:
    """Every value of a ``Cookie`` header (or ``curl --cookie``); the first of ``Set-Cookie``."""
    return _COOKIE_HEADER.sub(_cookie_header, text)


# ----------------------------------------------------------------------------- OAuth codes

# An OAuth authorization code is a credential until it is exchanged: whoever reads it from a
# callback URL can trade it for tokens. ``code`` names one only in a URL that is an OAuth
# callback: beside ``state=``, or under a path that names the flow.
OAUTH_GATE = re.compile(r"(?i)[?&]code=")

_OAUTH_URL = re.compile(
    r"(?i)(?P<h>(?:(?:/[^\s?#]*(?:callback|oauth|authorize|redirect|signin|sso|login)[^\s?#]*"
    r"\?(?:[^\s#]*?&)?)|(?<=[?&]state=)[^\s&#]+&(?:[^\s#]*?&)?|(?=\?code=[^\s&#]+[^\s#]*"
    r"&state=)\?)code=)(?P<v>(?!" + PLACEHOLDER_RE + r")[^\s&#\"']+)"
)


def _oauth(match: re.Match[str]) -> str:
    if inert(match.group("v")):
        return match.group(0)
    return match.group("h") + SECRET


def oauth_codes(text: str) -> str:
    """``/oauth/callback?code=X&state=…``: the authorization code goes, the rest stays."""
    return _OAUTH_URL.sub(_oauth, text)


# ----------------------------------------------------------------------------- credential files

# Lines of files that hold a password by position, not by key: Bundler's per-host credentials
# (``BUNDLE_GEMS__EXAMPLE__COM=user:X``: a host spelled with ``__`` for dots) and PostgreSQL's
# ``.pgpass`` (``host:port:database:user:X``, each of the first four possibly ``*``), a whole
# line of its own.
BUNDLER_GATE = re.compile(r"BUNDLE_\w+__")
PGPASS_GATE = re.compile(r"^[^\s:]+:(?:\d+|\*):[^\s:]+:[^\s:]+:\S")

_BUNDLER = re.compile(
    r"(?P<h>\bBUNDLE_[A-Z0-9_]*[A-Z0-9]__[A-Z0-9_]+=(?P<q>[\"']?)[^\s:\"']+:)(?P<v>[^\s\"']+)"
)
_PGPASS = re.compile(r"(?P<h>^[^\s:]+:(?:\d{1,5}|\*):[^\s:]+:[^\s:]+:)(?P<v>\S+)$", re.MULTILINE)


def _credential_file(match: re.Match[str]) -> str:
    if inert(match.group("v")) or re.fullmatch(PLACEHOLDER_RE, match.group("v")):
        return match.group(0)
    return match.group("h") + SECRET


def bundler_credentials(text: str) -> str:
    """``BUNDLE_GEMS__EXAMPLE__COM=user:X``: Bundler's per-host credentials."""
    return _BUNDLER.sub(_credential_file, text)


def pgpass_lines(text: str) -> str:
    """A ``.pgpass`` line ``db:5432:shop:app:X``: the password by position."""
    return _PGPASS.sub(_credential_file, text)


# ----------------------------------------------------------------------------- code

# A secret set in code, as a config snippet or a debug log shows it: a call whose first string
# argument names the secret and whose second is its value (``props.put("password", "X")``,
# ``System.setProperty("…keyStorePassword", "X")``, PHP's ``define('DB_PASSWORD', 'X')``,
# ``os.Setenv("DB_PASS", "X")``), an item assignment (``os.environ["API_TOKEN"] = "X"``) and a
# setter named for it (``setPassword("X")``).
CODE_GATE = re.compile(r"[(\[]\s*[\"']")

_STRING = r"(?P<q>[\"'])(?P<v>(?!" + PLACEHOLDER_RE + r")[^\"'\n]*)(?P=q)"

# The pair ``("key", "X")`` and the item ``["key"] = "X"``: a quoted key, then the value.
_CODE = re.compile(
    r"(?P<h>[(\[]\s*(?P<kq>[\"'])(?P<k>[^\"'\n]{1,80})(?P=kq)\s*(?:,|\]\s*=)\s*)" + _STRING
)

# A setter's call is matched on its own pass: ``setProperty("…Password", "X")`` is a pair.
_SETTER = re.compile(r"(?P<h>\bset(?P<k>[A-Z]\w{2,60})\(\s*)" + _STRING + r"(?=\s*[),])")

_FORMAT = re.compile(r"%[-+ 0#]*\d*[sdifr]|\{\d*\}")


def _code(match: re.Match[str]) -> str:
    secret = match.group("v")
    if (
        key_strength(match.group("k")) != 2
        or not secret
        or inert(secret)
        or _FORMAT.search(secret)  # a log call's message: log.info("password", "%s …")
    ):
        return match.group(0)
    mark = match.group("q")
    return match.group("h") + mark + SECRET + mark


def code_assignments(text: str) -> str:
    """``props.put("password", "X")``, ``os.environ["API_TOKEN"] = "X"``, ``setPassword("X")``."""
    return _SETTER.sub(_code, _CODE.sub(_code, text))


# Words of the login calls below, in the lower-cased text (a gate).
LOGIN_WORDS = ("login", "log_in", "signin", "sign_in", "auth", "credentials", "bind")

# A call that takes a user and a password by position: ``smtp.login("app", "X")``,
# ``client.auth('app', 'X')``, ``HTTPBasicAuth("app", "X")``, ``ldap.simple_bind_s(dn, "X")``.
_LOGIN_CALL = re.compile(
    r"(?P<h>(?<![\w$])(?i:log_?in|sign_?in|auth|authenticate|basic_?auth|digest_?auth|"
    r"http_?basic_?auth|http_?digest_?auth|proxy_?auth|with_?credentials|credentials|"
    r"simple_?bind(?:_s)?|plain_?auth)\(\s*(?P<uq>[\"'])[^\"'\n]{0,200}(?P=uq)\s*,\s*)" + _STRING
)


def _login_call(match: re.Match[str]) -> str:
    secret = match.group("v")
    if not secret or inert(secret) or _FORMAT.search(secret):
        return match.group(0)
    mark = match.group("q")
    return match.group("h") + mark + SECRET + mark


def login_calls(text: str) -> str:
    """The password argument of a login call: ``login("app", "X")``, ``auth('app', 'X')``."""
    return _LOGIN_CALL.sub(_login_call, text)


# ----------------------------------------------------------------------------- flag items

# A secret's command-line flag as one item of a list and its value as the next: a container's
# ``args: [--db-password, X]``, a YAML block list (``- --password`` then ``- X``), a JSON
# array over lines (``"--token",`` then ``"X"``). The per-line flag rule sees only
# ``--flag value`` and ``--flag=value``.
# A dash where a flag can start (as ``_FLAG_ITEM`` has it), its name taken whole: from every
# dash of ``a-a-a-…`` the search used to run to the end of the run, quadratic in its length.
FLAG_ITEM_GATE = re.compile(r"(?<![\w\-])-[\w.\-]*+[\"']?[ \t]*(?:,|\n[ \t]*-[ \t])")

_FLAG_ITEM = re.compile(
    r"(?P<h>(?P<kq>[\"']?)(?P<flag>(?<![\w\-])--?[A-Za-z][\w.\-]*)(?P=kq)[ \t]*"
    r"(?:,[ \t\r\n]*|\n[ \t]*-[ \t]+))"
    r"(?P<v>\"[^\"\n]*\"|'[^'\n]*'|(?!-)(?!" + PLACEHOLDER_RE + r")[^\s,\])}#\"']+)"
)


def _flag_item(match: re.Match[str]) -> str:
    value = match.group("v")
    if key_strength(match.group("flag")) != 2 or inert(value.strip("\"'")):
        return match.group(0)
    return match.group("h") + _secret_value(value)


def flag_items(text: str) -> str:
    """``[--db-password, X]``, ``- --password`` / ``- X`` and ``"--token",`` / ``"X"``."""
    return _FLAG_ITEM.sub(_flag_item, text)
