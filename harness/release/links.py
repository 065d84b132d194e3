"""Released text shows what it reads and links nowhere an attacker chose.

Tool data (a log line, a database value, a runbook excerpt) can carry text written by an
attacker, and the agent may quote it. :meth:`ContentPolicy.defang` rewrites every URL whose host
is not on the configured allowlist (``https://evil.example/x`` → ``hxxps://evil[.]example/x``),
so that nothing an operator reads is one click from an attacker's server; and before that shows
control characters as symbols and drops invisible ones (:func:`showable`), so that released
text cannot drive the operator's terminal (escape sequences, a carriage return that overwrites
the line) nor display other than it reads (bidirectional overrides). Every released string
passes here; what it says is judged by the text checks (:mod:`harness.textcheck`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from publicsuffixlist import PublicSuffixList

from harness.stepcheck import Allowlist
from harness.text import INVISIBLE
from harness.textcheck.rulebook import folds

__all__ = ["ContentPolicy", "is_host_name", "showable"]

# A link a reader can open: a URL with a scheme (the special schemes as browsers read them,
# with any mix of slashes and backslashes after the colon), a protocol-relative one (``//host``,
# as markdown and HTML resolve it) and a bare ``www.`` host (chat and markdown renderers link
# it). The authority ends at the first ``/``, ``\``, ``?`` or ``#``: browsers read a backslash
# as a slash, so ``https://evil.example\@corp.example/`` opens evil.example.
_URL = re.compile(
    r"(?P<scheme>\b(?:https?|ftp|wss?|file):[/\\]+|\b(?!hxxps?://|fxp://)[a-z][a-z0-9+.\-]*://"
    r"|(?<![^\s(\[\"'=<])//(?=[a-z0-9])|(?<![\w.\-/@\\])(?=www\.[a-z0-9]))"
    r"(?P<authority>(?:\[\.\]|\[[0-9a-f:.]+\]|[^\s/\\?#<>\"'`)\[\]])+)(?P<rest>[^\s<>\"'`)\]]*)",
    re.IGNORECASE,
)
# Links that run code or open content where they are clicked, and a mail link.
_SCRIPT_URI = re.compile(
    r"\b(javascript|vbscript|livescript|data(?=:[\w.+\-]+/[\w.+\-]+[;,])):", re.I
)
_MAILTO = re.compile(r"\bmailto:(?P<to>[^\s?<>\"'`)\]]+)", re.IGNORECASE)
# A Windows UNC path to a named host: opening it sends the reader's NTLM credentials there.
_UNC = re.compile(r"(?<![\w\\])\\\\(?P<host>[a-z0-9\-]+(?:\.[a-z0-9\-]+)+)(?=\\)", re.IGNORECASE)


# A bare host name (``diag.example.net``) and an IPv4 address, outside links (already
# rewritten) and mail addresses. Whether a dotted name is a host is the public-suffix list's
# call: ``spring.datasource.hikari.maximum-pool-size`` and ``java.net.UnknownHostException``
# end in no public suffix; a name whose last label is a file extension that is also a
# top-level domain (``README.md``, ``setup.py``) is read as a file name.
_HOST = re.compile(
    r"(?<![\w\-.@\[/\\:])(?:[a-z0-9](?:[a-z0-9\-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9\-]{1,62}"
    r"(?![\w\-\[]|\.[\w])",
    re.IGNORECASE,
)
_IPV4 = re.compile(
    r"(?<![\w.\[])(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}(?![\w\[]|\.\d)"
)
# What each pattern needs before it can match (a cheap test that skips the whole-text
# search): a scheme's ``:/`` or ``:\\``, a protocol-relative ``//``, a ``www.`` host; a dotted
# name's last dot between a letter or digit and a letter; a digit, a dot and a digit.
_URL_MARKS = (":/", ":\\", "//")
_HOST_DOT = re.compile(r"\.(?<=[a-z0-9]\.)(?=[a-z])", re.IGNORECASE)
_DIGIT_DOT = re.compile(r"\.(?<=\d\.)(?=\d)")
_FILE_EXTENSIONS = frozenset(
    [
        "md",
        "py",
        "sh",
        "pl",
        "rs",
        "so",
        "zip",
        "mov",
        "cs",
        "ps",
        "ts",
        "rb",
        "sql",
        "txt",
        "json",
        "yaml",
        "yml",
    ]
)
_PSL = PublicSuffixList()


def is_host_name(name: str) -> bool:
    """Whether ``name`` reads as an Internet host: it ends in a public suffix of the bundled
    list, with a label before it, and its last label is not a file extension."""
    name = name.lower().rstrip(".")
    last = name.rsplit(".", 1)[-1]
    if last in _FILE_EXTENSIONS:
        return False
    return _PSL.privatesuffix(name, accept_unknown=False) is not None


# What text shows, whatever renders it: C0 controls but tab and newline, DEL and C1 controls
# become their Control Pictures (``ESC`` → ``␛``; C1 has none: ``�``); characters that render as
# nothing (:data:`~harness.text.INVISIBLE`: bidirectional controls, which make text display in
# another order than it reads, zero-width and other invisible characters, tag characters) go:
# they hide words and links from a reader and from the link check alike.
_SHOWABLE = {
    **{code: 0x2400 + code for code in range(0x20) if chr(code) not in "\t\n"},
    0x7F: 0x2421,
    **dict.fromkeys(range(0x80, 0xA0), 0xFFFD),
    **dict.fromkeys(map(ord, INVISIBLE)),
}


def showable(text: str) -> str:
    """``text`` as it shows: control characters as symbols, invisible characters dropped."""
    return text.translate(_SHOWABLE)


@dataclass(frozen=True, kw_only=True)
class ContentPolicy:
    """What released text may link to.

    Attributes:
        allowed_url_hosts: Hosts whose URLs stay clickable: an exact host, or a domain that
            admits its subdomains (``corp.example`` admits ``wiki.corp.example``). Every other
            link is defanged: URLs of any scheme, protocol-relative and ``www.`` links, mail
            links, UNC paths to a named host; ``javascript:`` and ``data:`` links always.
        allowlist: The commands a released next step may ask for (the defaults plus the
            operator's entries, :mod:`harness.stepcheck`).
    """

    allowed_url_hosts: frozenset[str] = frozenset()
    allowlist: Allowlist = field(default_factory=Allowlist)

    def allows(self, host: str) -> bool:
        host = host.lower().rsplit("@", 1)[-1].split(":", 1)[0].rstrip(".")
        return any(host == h or host.endswith("." + h) for h in self.allowed_url_hosts)

    def defang(self, text: str) -> str:
        """``text`` made :func:`showable`, with every link outside the allowlist made
        unclickable (idempotent). Every released string passes here."""

        def rewrite(match: re.Match[str]) -> str:
            scheme, authority = match.group("scheme"), match.group("authority")
            if "[.]" in authority or self.allows(authority):
                return match.group(0)
            fanged = scheme.lower().replace("http", "hxxp").replace("ftp", "fxp")
            if fanged == scheme.lower() and "://" in fanged:
                fanged = fanged.replace("://", "[://]")  # no conventional defanged form
            return f"{fanged}{authority.replace('.', '[.]')}{match.group('rest')}"

        def mail(match: re.Match[str]) -> str:
            if self.allows(match.group("to")):
                return match.group(0)
            return "mailto[:]" + match.group("to").replace(".", "[.]")

        def unc(match: re.Match[str]) -> str:
            if self.allows(match.group("host")):
                return match.group(0)
            return "\\\\" + match.group("host").replace(".", "[.]")

        text = showable(text)
        lower = text.lower()
        # Words a pattern needs are looked for in the lower case where it shows them.
        folded = folds(text, lower)
        if any(mark in text for mark in _URL_MARKS) or "www." in lower or not folded:
            text = _URL.sub(rewrite, text)
            lower = text.lower()
        if ":" in text:
            if "script:" in lower or "data:" in lower or not folded:
                text = _SCRIPT_URI.sub(r"\1[:]", text)
            if "mailto:" in lower or not folded:
                text = _MAILTO.sub(mail, text)
        if "\\\\" in text:
            text = _UNC.sub(unc, text)

        def host(match: re.Match[str]) -> str:
            name = match.group(0)
            if not is_host_name(name) or self.allows(name):
                return name
            return name.replace(".", "[.]")

        def address(match: re.Match[str]) -> str:
            ip = match.group(0)
            return ip if self.allows(ip) else ip.replace(".", "[.]")

        if "." in text:
            if _HOST_DOT.search(text):
                text = _HOST.sub(host, text)
            if _DIGIT_DOT.search(text):
                text = _IPV4.sub(address, text)
        return text
