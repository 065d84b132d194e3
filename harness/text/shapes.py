"""The table of value shapes: what an address, an id or a host name looks like, written once.

Redaction replaces these values (a host, an IP, an e-mail address must not reach the model)
and the log miner makes them the variable parts of a template (one host among many): both
build their patterns from this table, each adding the boundaries its own text needs (a
redacted line has placeholders, a masked line ``<*>``; a port may follow an address). A shape
is the look of a value and nothing more, so every shape treats the ten digits alike: the
miner caches how a content is masked by its digits' positions, not their values. A reader
that must be sure a value is real checks it beyond its look (:func:`ipv4_octets_valid`), as
redaction checks a card number's Luhn digit.

Each shape is a named row with the values it must match whole and the look-alikes it must
not (``tests/harness/text/test_value_shapes.py`` walks them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "DNS_LABEL",
    "EMAIL",
    "HEX_ID",
    "HOST_NAME",
    "INTERNAL_DOMAINS",
    "IPV4",
    "IPV6",
    "MAC",
    "PUBLIC_DOMAINS",
    "SHAPES",
    "USER_AT_HOST",
    "UUID",
    "Shape",
    "ipv4_octets_valid",
]


@dataclass(frozen=True, kw_only=True)
class Shape:
    """One value shape.

    Attributes:
        name: The shape's stable name.
        pattern: The value alone, without boundaries (no lookarounds at its ends, no named
            groups, so that patterns combine into one alternation).
        description: What the shape names and what it leaves out, in a sentence.
        examples: Values the pattern must match whole.
        lookalikes: Near-misses it must not match whole.
    """

    name: str
    pattern: str
    description: str
    examples: tuple[str, ...]
    lookalikes: tuple[str, ...]


_HEX = "[0-9A-Fa-f]"
_H16 = f"{_HEX}{{1,4}}"
_IPV4 = r"(?:\d{1,3}\.){3}\d{1,3}"

UUID = Shape(
    name="uuid",
    pattern=f"{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}",
    description="A UUID or GUID in its canonical 8-4-4-4-12 hex form.",
    examples=("123e4567-e89b-12d3-a456-426614174000", "6F9619FF-8B86-D011-B42D-00C04FC964FF"),
    lookalikes=("123e4567-e89b-12d3-a456-42661417400", "123e4567e89b12d3a456426614174000"),
)
IPV4 = Shape(
    name="ipv4",
    pattern=_IPV4,
    description=(
        "A dotted-quad IPv4 address by its look (one to three digits, four times): "
        "999.1.1.1 has the look; ipv4_octets_valid tells a real address."
    ),
    examples=("10.0.3.17", "192.168.1.254", "010.000.003.017", "999.1.1.1"),
    lookalikes=("10.0.3", "1.2.3.4.5", "1234.1.1.1", "v1.2.3.4"),
)
IPV6 = Shape(
    name="ipv6",
    pattern=(
        # IPv4-embedded forms first (::ffff:10.0.0.1, 64:ff9b::10.0.0.1).
        f"(?:{_H16}:){{6}}{_IPV4}"
        f"|(?:{_H16}(?::{_H16}){{0,4}})?::(?:{_H16}:){{0,4}}{_IPV4}"
        f"|(?:{_H16}:){{7}}{_H16}"
        f"|(?:{_H16}:){{1,7}}:(?:{_H16}(?::{_H16}){{0,5}})?"
        f"|::(?:{_H16}(?::{_H16}){{0,6}})"
    ),
    description=(
        "An IPv6 address, full or compressed (fe80::, ::1), with an embedded IPv4 tail; a "
        "reader adds the brackets and the port of its own text."
    ),
    examples=(
        "2001:db8:85a3:0:0:8a2e:370:7334",
        "2001:db8::8a2e:370:7334",
        "fe80::",
        "::1",
        "::ffff:10.0.0.1",
        "64:ff9b::10.0.0.1",
    ),
    lookalikes=("2001:db8", "12:30:45", "::", "a:b"),
)
MAC = Shape(
    name="mac",
    pattern=f"{_HEX}{{2}}(?:[:-]{_HEX}{{2}}){{5}}",
    description=(
        "A MAC address: six hex pairs joined by colons or dashes (a reader that needs one "
        "separator throughout says so with a backreference of its own)."
    ),
    examples=("00:1a:2b:3c:4d:5e", "00-1A-2B-3C-4D-5E"),
    lookalikes=("00:1a:2b:3c:4d", "00:1a:2b:3c:4d:5e:6f", "12:30:45.123"),
)
DNS_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?"
EMAIL = Shape(
    name="email",
    pattern=(
        r"(?:[A-Za-z0-9._%+\-]+|\"[^\"\n@]{1,64}\")@(?:" + DNS_LABEL + r"\.)+"
        r"[A-Za-z](?:[A-Za-z0-9\-]*[A-Za-z0-9])?"
    ),
    description=(
        "An e-mail address: a local part (plain or quoted) at a domain of two or more labels "
        "whose last label starts with a letter."
    ),
    examples=("alice@example.com", "first.last+tag@mail.corp.example", '"a b"@example.org'),
    lookalikes=("alice@bastion", "@example.com", "alice@10.0.0.1", "alice@example"),
)
USER_AT_HOST = Shape(
    name="user-at-host",
    pattern=r"[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*",
    description=(
        "A login at a host, with or without a domain (alice@bastion, deploy@10.0.0.5), e-mail "
        "addresses among them: one value among many in a log."
    ),
    examples=("alice@bastion", "deploy@10.0.0.5", "alice@example.com"),
    lookalikes=("@bastion", "alice@", "alice@.example", "alice bastion"),
)
# Domains that name a private network: internal names that identify a machine.
INTERNAL_DOMAINS: tuple[str, ...] = (
    "internal", "local", "localdomain", "lan", "corp", "intranet", "intra", "consul",
    "home.arpa", "priv", "private",
)  # fmt: skip
# Top-level domains a host name ends in. Country codes are many and short; those that are
# English words or common name endings (in, is, it, at, no, be, id, me, to, so, my) are left
# out, and any country code counts after a generic second level (cuhk.edu.hk, bbc.co.uk).
PUBLIC_DOMAINS: tuple[str, ...] = (
    "com", "net", "org", "edu", "gov", "mil", "io", "us", "uk", "de", "fr", "nl", "jp", "cn",
    "ru", "eu", "info", "biz", "au", "ca", "hk", "br", "kr", "tw", "sg", "ch", "se", "es", "pl",
    "dk", "fi", "nz", "za", "ie", "il", "mx", "ar", "cz", "pt", "gr", "hu", "ro", "tr", "ua",
    "vn", "th",
)  # fmt: skip
# The miner's top-level list, as it has always been: the public domains and the internal
# ones a DNS name ends in (``arpa`` whole, for reverse-lookup names).
_HOST_ENDINGS = "|".join(
    (*PUBLIC_DOMAINS, "local", "localdomain", "internal", "intranet", "lan", "corp", "arpa")
)
HOST_NAME = Shape(
    name="host-name",
    pattern=(
        r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+"
        rf"(?i:{_HOST_ENDINGS}|(?:com|net|org|edu|gov|ac|co)\.[a-z]{{2}})\.?"
    ),
    description=(
        "A DNS host name: dot-separated labels ending in a known top-level or internal domain, "
        "so that Java packages (org.apache.Foo) and property keys (os.name) are not hosts."
    ),
    examples=("alpha.prod.example.org", "db.cluster.internal", "cuhk.edu.hk", "bbc.co.uk"),
    lookalikes=("org.apache.Foo", "os.name", "user.home", "org.springframework.cloud"),
)
HEX_ID = Shape(
    name="hex-id",
    pattern=r"(?=[0-9a-fA-F]*\d)(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{8,}",
    description=(
        "A generated hex id (a block id, a hash, a session id): eight or more hex digits "
        "holding both a digit and a letter, so that numbers and words (deadbeef, 12345678) "
        "are left alone."
    ),
    examples=("3f2a9c1e", "b7e23ec29af22b0b4e41da31e868d57226121c84"),
    lookalikes=("12345678", "deadbeef", "3f2a9c1", "3f2a9c1g"),
)

SHAPES: tuple[Shape, ...] = (UUID, IPV4, IPV6, MAC, EMAIL, USER_AT_HOST, HOST_NAME, HEX_ID)
"""Every shape, by name in :attr:`Shape.name`."""

_DOTTED_QUAD = re.compile(r"(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})")


def ipv4_octets_valid(address: str) -> bool:
    """Whether every octet of the dotted quad in ``address`` (an IPv4 address, or an IPv6 one
    with an embedded IPv4 tail, a port or brackets around it or not) is in 0-255; True when
    it holds no dotted quad."""
    quad = _DOTTED_QUAD.search(address)
    return quad is None or all(int(octet) <= 255 for octet in quad.groups())
