"""Secrets whose key and value are split by structure (private to :mod:`harness.redaction`).

A ``key=value`` rule sees none of these: the key names the secret in one place and the value
sits in another — a JSON or YAML ``name``/``value`` pair, a Kubernetes ``env`` entry, a JSON
Patch operation (``path`` and ``value``), a YAML block scalar (however deep under other
keys), an XML element or attribute pair, a ``Cookie`` header of many pairs, the bind
parameters an ORM logs apart from its SQL, SQL DCL and procedure calls, and the credential
flags of command-line tools. Each rule is one function ``text -> text`` behind a cheap gate in
the redactor; each only replaces the value, keeping the structure readable.
"""

from __future__ import annotations

import re

from harness.redaction._keys import key_strength
from harness.redaction._patterns import _PLACEHOLDER_RE, SECRET, _inert, _looks_credential

__all__ = [
    "CLI_WORDS",
    "FLAG_ITEM_GATE",
    "LOGIN_WORDS",
    "ORACLE_WORDS",
    "ORM_WORDS",
    "SQL_WORDS",
    "cli_credentials",
    "cookies",
    "exchange_lines",
    "flag_items",
    "login_calls",
    "name_value_pairs",
    "oracle_logins",
    "orm_binds",
    "smtp_logins",
    "sql_spans",
    "xml_values",
    "yaml_blocks",
]


def _holds_secret(name: str, value: str) -> bool:
    strength = key_strength(name)
    value = value.strip("\"'\\")
    if not value or _inert(value):
        return False
    return strength == 2 or (strength == 1 and _looks_credential(value))


# ----------------------------------------------------------------------------- YAML blocks

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
    r"(?P<v>\\?\"(?:[^\"\\\n]|\\.)*?\\?\"|'[^'\n]*'|(?!" + _PLACEHOLDER_RE + r")[^\s,}\]]+)"
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
    if re.fullmatch(_PLACEHOLDER_RE, value.strip()) or not _holds_secret(
        match.group("name"), value.strip()
    ):
        return match.group(0)
    start, end = match.span("v")
    offset = match.start()
    whole = match.group(0)
    return whole[: start - offset] + SECRET + whole[end - offset :]


def _xml_element(match: re.Match[str]) -> str:
    body = match.group("body")
    if re.fullmatch(_PLACEHOLDER_RE, body.strip()):
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
        if not value or re.fullmatch(_PLACEHOLDER_RE, value) or _inert(value):
            return found.group(0)
        return f"{found.group('name')}={SECRET}"

    return match.group("h") + _COOKIE_PAIR.sub(pair, body, count=1 if only_first else 0)


def cookies(text: str) -> str:
    """Every value of a ``Cookie`` header (or ``curl --cookie``); the first of ``Set-Cookie``."""
    return _COOKIE_HEADER.sub(_cookie_header, text)


# ----------------------------------------------------------------------------- SQL

# Gates are substring tests on the lower-cased text (a flat regex alternation is slower).
SQL_WORDS = ("select", "insert", "update", "delete", "replace", "grant", "identified",
             "password", "sp_", "user ", "role ", "login ")  # fmt: skip
_SQL_START = re.compile(
    r"(?i)\b(?:select\b(?=[\s\S]{0,4000}?\bfrom\b)|insert\s+(?:ignore\s+)?into\b"
    r"|replace\s+into\b|update\s+\S+\s+set\b|delete\s+from\b"
    r"|(?:create|alter)\s+(?:user|role|login)\b|grant\b|set\s+password\b"
    r"|(?:exec(?:ute)?|call)\s+[\w.\[\]]*(?:sp_|password|passwd|login|user)[\w.\[\]]*)"
)
_SQL_CONTINUES = re.compile(
    r"(?i)[ \t]*(?:from|where|and|or|set|values|join|left|right|inner|outer|cross|on|order"
    r"|group|having|limit|offset|union|returning|identified|with|[(),])\b"
)
# Single-quoted strings (with '' and backslash escapes; they may span lines), double-quoted
# strings where a value is expected (double quotes are identifiers in ANSI mode and often the
# JSON string around the statement), and bare numbers/hex.
_SQL_LITERAL = re.compile(
    r"'(?:[^'\\]|\\.|'')*'"
    r"|(?P<op>(?:[=<>]|\blike|\bin[^\S\n]*\(|\bvalues[^\S\n]*\(|\bthen|\belse|\bby|\bpassword"
    r"|,)[^\S\n]*)(?P<dq>\\?\")(?:[^\"\\\n]|\\[^\"])*(?P=dq)"
    r"|(?<![\w.$<>?])[-+]?(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)(?![\w.]|\.\d)",
    re.IGNORECASE,
)
_SQL_BARE_SECRET = re.compile(r"(?i)(\bidentified\s+by\s+)(?!\?|password\b)([^\s;,'\"()]+)")


def _open_quote(span: str) -> bool:
    """Whether a single-quoted literal is still open at the end of ``span``."""
    stripped = re.sub(r"\\.|''", "", span)
    return stripped.count("'") % 2 == 1


def _sql_span_end(text: str, start: int) -> int:
    end = text.find("\n", start)
    lines = 0
    while end != -1 and lines < 50:
        nxt = end + 1
        if _open_quote(text[start:end]) or _SQL_CONTINUES.match(text, nxt):
            following = text.find("\n", nxt)
            end = following
            lines += 1
            continue
        return end
    return len(text)


def _literals(span: str) -> str:
    values_at = span.lower().find("values")

    def literal(found: re.Match[str]) -> str:
        op = found.group("op")
        if op is None:
            return "?"
        if op.strip() == "," and (values_at < 0 or found.start() < values_at):
            return found.group(0)
        return op + "?"

    span = _SQL_LITERAL.sub(literal, span)
    return _SQL_BARE_SECRET.sub(lambda m: m.group(1) + SECRET, span)


def sql_spans(text: str) -> str:
    """Literals of SQL statements (DML, DCL, password procedures), over lines when needed."""
    out: list[str] = []
    last = 0
    for found in _SQL_START.finditer(text):
        start = found.start()
        if start < last:
            continue
        end = _sql_span_end(text, start)
        out.append(text[last:start])
        out.append(_literals(text[start:end]))
        last = end
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


# ----------------------------------------------------------------------------- ORM binds

ORM_WORDS = ("binding parameter", "extracted value", "Parameters:", "Row:", "parameter value",
             '[["', "args=(", "params=(")  # fmt: skip
_HIBERNATE = re.compile(
    r"(?i)(?P<h>(?:binding parameter|extracted value)\b[^\n]*?[\])][^\S\n]*(?:-|<-)[^\S\n]*\[)"
    r"(?P<v>[^\n]*)(?P<t>\])"
)
_MYBATIS = re.compile(r"(?P<h>(?:==>|<==)[^\S\n]*(?P<kind>Parameters|Row):)(?P<v>[^\n]*)")
# A value runs from a comma to its ``(Type)``, which ends it; tried only where a value starts
# (blanks taken whole), a line of blanks cost time cubic in its length.
_MYBATIS_PARAM = re.compile(r"(?:^|(?<=,))[^\S\n]*+(?P<v>[^,\n]*)\((?P<t>\w+)\)(?=,|\s*$)")
_SPRING = re.compile(r"(?i)(?P<h>parameter value \[)(?P<v>[^\]\n]*)(?P<t>\])")
# Every run of blanks is taken whole (possessive) and the bare value ends at its last
# non-blank: three quantifiers that could each take the same blanks made a line of blanks
# after ``[["name",`` cost time cubic in its length.
_RAILS = re.compile(
    r"(?P<h>\[[^\S\n]*+\"[\w.]+\",[^\S\n]*+)"
    r"(?P<v>\"(?:[^\"\\\n]|\\.)*\"|(?:[^\]\s]|[^\S\n]++(?=[^\]\s]))*+)(?P<t>[^\S\n]*+\])"
)
_PY_ARGS = re.compile(r"(?P<h>\b(?:args|params)=\()(?P<v>[^\n]*)(?P<t>\))")


def _mybatis(match: re.Match[str]) -> str:
    values = match.group("v")
    if match.group("kind") == "Row":
        items = [item for item in values.split(",")]
        return match.group("h") + ",".join(" ?" if item.strip() else item for item in items)
    return match.group("h") + _MYBATIS_PARAM.sub(lambda p: f" ?({p.group('t')})", values)


def orm_binds(text: str) -> str:
    """Bind values ORMs log beside their SQL: Hibernate, MyBatis, Spring JDBC, Rails, Django."""
    if "[" in text:
        text = _HIBERNATE.sub(lambda m: m.group("h") + "?" + m.group("t"), text)
        text = _SPRING.sub(lambda m: m.group("h") + "?" + m.group("t"), text)
        if '[["' in text:
            head, _, tail = text.partition('[["')
            tail = _RAILS.sub(lambda m: m.group("h") + "?" + m.group("t"), '["' + tail)
            text = head + "[" + tail
    if "==>" in text or "<==" in text:
        text = _MYBATIS.sub(_mybatis, text)
    if "=(" in text:
        text = _PY_ARGS.sub(
            lambda m: m.group("h") + _SQL_LITERAL.sub("?", m.group("v")) + ")", text
        )
    return text


# ----------------------------------------------------------------------------- command lines

CLI_WORDS = ("mysql", "mariadb", "sshpass", "redis-cli", "ldap", "smbclient", "sqlcmd", "bcp",
             "osql", "isql", "openssl", "7z", "rar", "zip", "mongo", "htpasswd", "login",
             "stdin", "sudo", "curl")  # fmt: skip
_VALUE = r"(?P<q>[\"']?)(?P<v>(?!" + _PLACEHOLDER_RE + r")[^\s\"']+)(?P=q)"
_CLI_RULES: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = tuple(
    (re.compile(program, re.IGNORECASE), re.compile(flag))
    for program, flag in (
        (r"\b(?:mysql\w*|mariadb\w*)\b", r"(?<=\s)(?P<f>-p)(?!\s)" + _VALUE),
        (r"\bsshpass\b", r"(?<=\s)(?P<f>-p[^\S\n]*)" + _VALUE),
        (r"\bredis-cli\b", r"(?<=\s)(?P<f>-a[^\S\n]+)" + _VALUE),
        (r"\bldap\w+\b", r"(?<=\s)(?P<f>-w[^\S\n]*)" + _VALUE),
        (r"\bsmbclient\b", r"(?<=\s)(?P<f>-U[^\S\n]*[^\s%]+%)" + _VALUE),
        (r"\b(?:sqlcmd|bcp|osql|isql)\b", r"(?<=\s)(?P<f>-P[^\S\n]*)" + _VALUE),
        (r"\bopenssl\b", r"(?P<f>(?:-pass(?:in|out)?[^\S\n]+(?:pass|env):|(?<=\s)-[kK][^\S\n]+))"
         + _VALUE),
        (r"\b(?:7za?|rar|unrar)\b", r"(?<=\s)(?P<f>-h?p)(?!\s)" + _VALUE),
        (r"\b(?:zip|unzip)\b", r"(?<=\s)(?P<f>-P[^\S\n]+)" + _VALUE),
        (r"\bmongo\w*\b", r"(?<=\s)(?P<f>-p[^\S\n]+)" + _VALUE),
        (r"\bhtpasswd\b", r"(?P<f>-b\w*[^\S\n]+\S+[^\S\n]+\S+[^\S\n]+)" + _VALUE),
        # A registry or platform login (docker, podman, oc, cf, helm, az, ...): ``-p`` after
        # the ``login`` subcommand, in the same command.
        (r"\blogin\b", r"(?P<f>\blogin(?:[^\S\n]+[^\s|;&]+)*?[^\S\n]+-p(?:[^\S\n]+|=))"
         + _VALUE),
        # A password piped to a command that reads it from standard input.
        (r"--password-stdin|--stdin\b|\bsudo\b[^\n]*[^\S\n]-S\b",
         r"(?P<f>(?<![\w\-])(?:echo|printf)[^\S\n]+(?:-\w+[^\S\n]+|[\"']?%s(?:\\n)?[\"']?[^\S\n]+)*)"
         + _VALUE + r"(?=[^\S\n]*\|)"),
        # curl's user and password glued to the flag: ``-ubob:X`` (the pair goes, as with -u).
        (r"\bcurl\b", r"(?<=\s)(?P<f>-u)(?P<q>[\"']?)(?P<v>[^\s\"':\-][^\s\"':]*:[^\s\"']+)"
         r"(?P=q)"),
    )
)  # fmt: skip


def _cli_flag(match: re.Match[str]) -> str:
    value = match.group("v")
    if _inert(value):
        return match.group(0)
    quote = match.group("q")
    return match.group("f") + quote + SECRET + quote


_PROGRAMS = re.compile(
    r"(?i)(?<![\w\-])(?:mysql\w*|mariadb\w*|sshpass|redis-cli|ldap\w+|smbclient|sqlcmd|bcp"
    r"|osql|isql|openssl|7za?|unrar|rar|unzip|zip|mongo\w*|htpasswd|login|curl|sudo)(?![\w\-])"
    r"|--(?:password-)?stdin\b"
)


def cli_credentials(text: str) -> str:
    """Passwords given to known tools on their command line (``mysql -pX``, ``sshpass -p X``,
    ``docker login -p X``, ``echo X | docker login --password-stdin``, ``curl -uuser:X``)."""
    if " -" not in text or _PROGRAMS.search(text) is None:
        return text
    for program, flag in _CLI_RULES:
        if program.search(text):
            text = flag.sub(_cli_flag, text)
    return text


# ----------------------------------------------------------------------------- Oracle logins

# Oracle spells a login ``user/password@service``: in its JDBC URLs, on the command line of
# its tools, and in ``CONNECT`` / ``userid=`` / RMAN ``target``. After a keyword the service is
# required (``connect to api/v1`` is prose); a tool's own first argument needs none.
ORACLE_WORDS = ("oracle", "sqlplus", "expdp", "impdp", "sqlldr", "rman", "dgmgrl", "conn",
                "userid", "target", "catalog", "auxiliary", "exp ", "imp ")  # fmt: skip
_ORACLE_USER = r"(?P<q>[\"']?)(?P<user>[A-Za-z_][\w$#.]{0,127})/"
_ORACLE_PASSWORD = r"(?P<pw>(?!" + _PLACEHOLDER_RE + r")[^\s/@\"']+)"
_ORACLE_KEYWORD = re.compile(
    r"(?P<h>jdbc:oracle:\w+:|(?<![\w\-])(?i:conn(?:ect)?|userid|target|auxiliary|catalog)"
    r"[^\S\n]*=?[^\S\n]*)" + _ORACLE_USER + _ORACLE_PASSWORD + r"(?=@)"
)
_ORACLE_TOOL = re.compile(
    r"(?P<h>(?<![\w\-])(?i:sqlplus|expdp|impdp|sqlldr|rman|dgmgrl|exp|imp)"
    r"(?:[^\S\n]+-\w+)*[^\S\n]+)" + _ORACLE_USER + _ORACLE_PASSWORD + r"(?=@|[\"']?(?:\s|\Z))"
)


def _oracle_login(match: re.Match[str]) -> str:
    if _inert(match.group("pw")):
        return match.group(0)
    return match.group("h") + match.group("q") + match.group("user") + "/" + SECRET


def oracle_logins(text: str) -> str:
    """``jdbc:oracle:thin:scott/X@//db``, ``sqlplus system/X@ORCL``, ``connect u/X@db``."""
    text = _ORACLE_KEYWORD.sub(_oracle_login, text)
    return _ORACLE_TOOL.sub(_oracle_login, text)


# ----------------------------------------------------------------------------- protocol traces

# Credentials as a server's command trace shows them: Redis MONITOR (``"AUTH" "X"`` and
# ``"AUTH" "user" "X"``), IMAP's tagged ``a001 LOGIN user X`` (at the start of a line or after a
# client marker ``C:`` or ``>``), SASL's ``AUTH PLAIN <base64>``
# (the user and password, base64-encoded). The words are upper case in every protocol.
PROTOCOL_WORDS = ("AUTH", "LOGIN")
_PROTOCOL = re.compile(
    r"(?P<h>(?i:\"auth\")(?:[^\S\n]+\"[^\"\n]*\")?[^\S\n]+\")(?P<v>[^\"\n]+)(?P<t>\")"
    r"|(?P<h2>(?<![\w\-])AUTH[^\S\n]+PLAIN[^\S\n]+)(?P<v2>[A-Za-z0-9+/]{8,}={0,2})"
    r"|(?P<h3>(?:^|(?<=C:[^\S\n])|(?<=>[^\S\n]))[A-Za-z]?\d{1,6}[^\S\n]+LOGIN[^\S\n]+"
    r"(?:\"[^\"\n]*\"|\S+)[^\S\n]+)(?P<v3>\"[^\"\n]*\"|\S+)(?=[^\S\n]*$)",
    re.MULTILINE,
)


def _protocol(match: re.Match[str]) -> str:
    for head, value, tail in (("h", "v", "t"), ("h2", "v2", None), ("h3", "v3", None)):
        if match.group(head) is not None:
            secret = match.group(value)
            if _inert(secret.strip('"')):
                return match.group(0)
            quoted = secret.startswith('"') and secret.endswith('"') and len(secret) > 1
            masked = f'"{SECRET}"' if quoted else SECRET
            return match.group(head) + masked + (match.group(tail) if tail else "")
    return match.group(0)


def protocol_credentials(text: str) -> str:
    """Passwords in a protocol trace: Redis ``"AUTH" "X"``, IMAP ``a1 LOGIN bob X``, SASL
    ``AUTH PLAIN <base64>``."""
    return _PROTOCOL.sub(_protocol, text)


# SMTP ``AUTH LOGIN`` sends the user and then the password base64-encoded, each on a line of
# its own after the server's ``334`` challenge (``send: 'aHVudGVyMg==\\r\\n'`` in smtplib's
# debug output); the user may ride on the command line itself.
# The end of a line as protocol traces write it: an escaped CRLF, a closing quote, spaces.
_TRACE_EOL = r"(?:\\r\\n|\\r|\\n)?[\"']?[^\S\n]*$"
_AUTH_LOGIN = re.compile(
    r"(?i)(?<![\w\-])auth[^\S\n]+login"
    r"(?:[^\S\n]+(?P<user>[A-Za-z0-9+/]{2,}={0,2})(?=" + _TRACE_EOL + r")|(?=" + _TRACE_EOL + r"))"
)
_SMTP_REPLY = re.compile(r"(?<![\w.])334(?:[^\S\n]|$)|\breply:")
# A client's answer: one base64 token on its line, behind a trace's prefix (``C:``,
# ``send: '``), never the word inside a placeholder such as ``<SECRET>``.
_SMTP_ANSWER = re.compile(
    r"^[^\S\n]*(?:[A-Za-z]{1,8}:[^\S\n]*)?(?:b?[\"'])?(?P<t>[A-Za-z0-9+/]{4,}={0,2})" + _TRACE_EOL
)
# How many lines after ``AUTH LOGIN`` the exchange may take (challenges and the two answers).
_AUTH_LOGIN_SPAN = 6


def exchange_lines(line: str) -> int:
    """How many of the lines after ``line`` may belong to it: an SMTP ``AUTH LOGIN`` command's
    challenges and answers (:func:`smtp_logins` reads them together); 0 for any other line."""
    return _AUTH_LOGIN_SPAN if _AUTH_LOGIN.search(line) else 0


def smtp_logins(text: str) -> str:
    """The base64 password line of an SMTP ``AUTH LOGIN`` exchange, over lines."""
    lines = text.split("\n")
    for index, line in enumerate(lines):
        found = _AUTH_LOGIN.search(line)
        if found is None:
            continue
        answers = 1 if found.group("user") else 2  # the client's lines to come; the last: password
        for later in range(index + 1, min(len(lines), index + 1 + _AUTH_LOGIN_SPAN)):
            if _SMTP_REPLY.search(lines[later]):
                continue
            answer = _SMTP_ANSWER.match(lines[later])
            if answer is None:
                break
            answers -= 1
            if answers == 0:
                row = lines[later]
                lines[later] = row[: answer.start("t")] + SECRET + row[answer.end("t") :]
                break
    return "\n".join(lines)


# ----------------------------------------------------------------------------- OAuth codes

# An OAuth authorization code is a credential until it is exchanged: whoever reads it from a
# callback URL can trade it for tokens. ``code`` names one only in a URL that is an OAuth
# callback: beside ``state=``, or under a path that names the flow.
OAUTH_GATE = re.compile(r"(?i)[?&]code=")
_OAUTH_URL = re.compile(
    r"(?i)(?P<h>(?:(?:/[^\s?#]*(?:callback|oauth|authorize|redirect|signin|sso|login)[^\s?#]*"
    r"\?(?:[^\s#]*?&)?)|(?<=[?&]state=)[^\s&#]+&(?:[^\s#]*?&)?|(?=\?code=[^\s&#]+[^\s#]*"
    r"&state=)\?)code=)(?P<v>(?!" + _PLACEHOLDER_RE + r")[^\s&#\"']+)"
)


def _oauth(match: re.Match[str]) -> str:
    if _inert(match.group("v")):
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
CREDENTIAL_FILE_GATE = re.compile(r"BUNDLE_\w+__|^[^\s:]+:(?:\d+|\*):[^\s:]+:[^\s:]+:\S", re.M)
_CREDENTIAL_FILE = re.compile(
    r"(?P<h>\bBUNDLE_[A-Z0-9_]*[A-Z0-9]__[A-Z0-9_]+=(?P<q>[\"']?)[^\s:\"']+:)(?P<v>[^\s\"']+)"
    r"|(?P<h2>^[^\s:]+:(?:\d{1,5}|\*):[^\s:]+:[^\s:]+:)(?P<v2>\S+)$",
    re.MULTILINE,
)


def _credential_file(match: re.Match[str]) -> str:
    head, value = ("h", "v") if match.group("h") is not None else ("h2", "v2")
    if _inert(match.group(value)) or re.fullmatch(_PLACEHOLDER_RE, match.group(value)):
        return match.group(0)
    return match.group(head) + SECRET


def credential_files(text: str) -> str:
    """``BUNDLE_GEMS__EXAMPLE__COM=user:X`` and a ``.pgpass`` line ``db:5432:shop:app:X``."""
    return _CREDENTIAL_FILE.sub(_credential_file, text)


# ----------------------------------------------------------------------------- code

# A secret set in code, as a config snippet or a debug log shows it: a call whose first string
# argument names the secret and whose second is its value (``props.put("password", "X")``,
# ``System.setProperty("…keyStorePassword", "X")``, PHP's ``define('DB_PASSWORD', 'X')``,
# ``os.Setenv("DB_PASS", "X")``), an item assignment (``os.environ["API_TOKEN"] = "X"``) and a
# setter named for it (``setPassword("X")``).
CODE_GATE = re.compile(r"[(\[]\s*[\"']")
_STRING = r"(?P<q>[\"'])(?P<v>(?!" + _PLACEHOLDER_RE + r")[^\"'\n]*)(?P=q)"
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
        or _inert(secret)
        or _FORMAT.search(secret)  # a log call's message: log.info("password", "%s …")
    ):
        return match.group(0)
    mark = match.group("q")
    return match.group("h") + mark + SECRET + mark


def code_assignments(text: str) -> str:
    """``props.put("password", "X")``, ``os.environ["API_TOKEN"] = "X"``, ``setPassword("X")``."""
    return _SETTER.sub(_code, _CODE.sub(_code, text))


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
    if not secret or _inert(secret) or _FORMAT.search(secret):
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
    r"(?P<v>\"[^\"\n]*\"|'[^'\n]*'|(?!-)(?!" + _PLACEHOLDER_RE + r")[^\s,\])}#\"']+)"
)


def _flag_item(match: re.Match[str]) -> str:
    value = match.group("v")
    if key_strength(match.group("flag")) != 2 or _inert(value.strip("\"'")):
        return match.group(0)
    return match.group("h") + _secret_value(value)


def flag_items(text: str) -> str:
    """``[--db-password, X]``, ``- --password`` / ``- X`` and ``"--token",`` / ``"X"``."""
    return _FLAG_ITEM.sub(_flag_item, text)
