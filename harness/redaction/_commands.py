"""Credentials as commands and protocol traces carry them (private to :mod:`harness.redaction`).

The password flags of known tools (``mysql -pX``, ``sshpass -p X``, ``docker login -p X``, a
password piped to ``--password-stdin``), Oracle's ``user/password@service``, and what a
server's command trace shows: Redis ``"AUTH" "X"``, IMAP ``a1 LOGIN bob X``, SASL
``AUTH PLAIN <base64>`` and SMTP's ``AUTH LOGIN`` exchange over lines.
"""

from __future__ import annotations

import re

from harness.redaction._placeholders import PLACEHOLDER_RE, SECRET
from harness.redaction._values import inert

__all__ = [
    "CLI_WORDS",
    "ORACLE_WORDS",
    "PROGRAMS",
    "PROTOCOL_GATE",
    "cli_credentials",
    "exchange_lines",
    "oracle_logins",
    "protocol_credentials",
    "smtp_logins",
]

# ----------------------------------------------------------------------------- command lines

# The programs below in the lower-cased text (a cheap gate before :data:`PROGRAMS`).
CLI_WORDS = ("mysql", "mariadb", "sshpass", "redis-cli", "ldap", "smbclient", "sqlcmd", "bcp",
             "osql", "isql", "openssl", "7z", "rar", "zip", "mongo", "htpasswd", "login",
             "stdin", "sudo", "curl")  # fmt: skip

_VALUE = r"(?P<q>[\"']?)(?P<v>(?!" + PLACEHOLDER_RE + r")[^\s\"']+)(?P=q)"

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
    if inert(value):
        return match.group(0)
    quote = match.group("q")
    return match.group("f") + quote + SECRET + quote


# The programs of the rules above (a gate: without one of them, no rule applies).
PROGRAMS = re.compile(
    r"(?i)(?<![\w\-])(?:mysql\w*|mariadb\w*|sshpass|redis-cli|ldap\w+|smbclient|sqlcmd|bcp"
    r"|osql|isql|openssl|7za?|unrar|rar|unzip|zip|mongo\w*|htpasswd|login|curl|sudo)(?![\w\-])"
    r"|--(?:password-)?stdin\b"
)


def cli_credentials(text: str) -> str:
    """Passwords given to known tools on their command line (``mysql -pX``, ``sshpass -p X``,
    ``docker login -p X``, ``echo X | docker login --password-stdin``, ``curl -uuser:X``)."""
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

_ORACLE_PASSWORD = r"(?P<pw>(?!" + PLACEHOLDER_RE + r")[^\s/@\"']+)"

_ORACLE_KEYWORD = re.compile(
    r"(?P<h>jdbc:oracle:\w+:|(?<![\w\-])(?i:conn(?:ect)?|userid|target|auxiliary|catalog)"
    r"[^\S\n]*=?[^\S\n]*)" + _ORACLE_USER + _ORACLE_PASSWORD + r"(?=@)"
)

_ORACLE_TOOL = re.compile(
    r"(?P<h>(?<![\w\-])(?i:sqlplus|expdp|impdp|sqlldr|rman|dgmgrl|exp|imp)"
    r"(?:[^\S\n]+-\w+)*[^\S\n]+)" + _ORACLE_USER + _ORACLE_PASSWORD + r"(?=@|[\"']?(?:\s|\Z))"
)


def _oracle_login(match: re.Match[str]) -> str:
    if inert(match.group("pw")):
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
            if inert(secret.strip('"')):
                return match.group(0)
            quoted = secret.startswith('"') and secret.endswith('"') and len(secret) > 1
            masked = f'"{SECRET}"' if quoted else SECRET
            return match.group(head) + masked + (match.group(tail) if tail else "")
    return match.group(0)


# What the pattern's three forms need: AUTH or LOGIN, or a quoted "auth" in any case (a gate).
PROTOCOL_GATE = re.compile(r'AUTH|LOGIN|"(?i:auth)"')


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
