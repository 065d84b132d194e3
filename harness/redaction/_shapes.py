"""The shapes of values that identify a machine or a person (private to
:mod:`harness.redaction`): IPv4 and IPv6 addresses, UUIDs, MAC addresses, e-mail addresses
(with the DNS label they use), internal host-name suffixes and hex ids.

They are gathered here, under one name each, so that redaction and log mining can later share
one table of shapes; the patterns are those redaction has always used.
"""

from __future__ import annotations

import re

__all__ = [
    "CISCO_MAC_ADDRESS",
    "DNS_LABEL",
    "EMAIL_ADDRESS",
    "HEX",
    "INTERNAL_HOST_SUFFIX",
    "INTERNAL_HOST_SUFFIXES",
    "IPV4",
    "IPV4_ADDRESS",
    "IPV4_GATE",
    "IPV6",
    "IPV6_ADDRESS",
    "IPV6_GATE",
    "MAC_ADDRESS",
    "UUID",
]

# ----------------------------------------------------------------------------- IP addresses

_OCTET = r"(?:25[0-5]|2[0-4]\d|[01]?\d?\d)"  # leading zeros included: 010.000.003.017
# An IPv4 address (a pattern to compose), and an IPv6 address in any of its spellings.
IPV4 = r"(?:" + _OCTET + r"\.){3}" + _OCTET

_H16 = r"[0-9A-Fa-f]{1,4}"
IPV6 = (
    # IPv4-embedded forms first (::ffff:10.0.0.1, 64:ff9b::10.0.0.1, 0:0:0:0:0:ffff:1.2.3.4).
    r"(?:"
    + _H16
    + r":){6}"
    + IPV4
    + r"|(?:"
    + _H16
    + r"(?::"
    + _H16
    + r"){0,4})?::(?:"
    + _H16
    + r":){0,4}"
    + IPV4
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
IPV4_GATE = re.compile(r"\.(?<=\d\.)\d{1,3}\.\d{1,3}\.\d")

IPV6_GATE = re.compile(r"::|:(?<=[0-9A-Fa-f]:)[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:")

# An address as a token of its own (not inside a version or a longer dotted number), with
# its port; an IPv6 address may be bracketed with a port after it.
IPV4_ADDRESS = re.compile(r"(?<![\w.>])" + IPV4 + r"(?::\d{1,5})?(?!\w|\.\d)")

IPV6_ADDRESS = re.compile(
    r"(?<![\w:.>])(?:\[(?:" + IPV6 + r")\](?::\d{1,5})?|(?:" + IPV6 + r"))(?![\w:])"
)

# ----------------------------------------------------------------------------- MAC addresses

# Six pairs of hex digits between colons or dashes, and Cisco's three dotted quads; the
# separator comes first so that the engine scans for it (the lookbehind checks the first pair).
MAC_ADDRESS = re.compile(
    r"[:\-](?<=(?<![\w:\-.])[0-9A-Fa-f]{2}[:\-])[0-9A-Fa-f]{2}[:\-][0-9A-Fa-f]{2}[:\-]"
    r"[0-9A-Fa-f]{2}[:\-][0-9A-Fa-f]{2}[:\-][0-9A-Fa-f]{2}(?![\w:\-.])"
)
CISCO_MAC_ADDRESS = re.compile(
    r"\.(?<=(?<![\w.])[0-9A-Fa-f]{4}\.)[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}(?![\w.])"
)

# ----------------------------------------------------------------------------- e-mail, hosts

# One label of a DNS name.
DNS_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?"

# The last label starts with a letter and may hold digits and dashes, so an address glued to
# what follows (``a.b@c.dexoxb-1-token``) is still taken whole; a quoted local part counts.
EMAIL_ADDRESS = re.compile(
    r"(?:(?<![\w.%+\->])[A-Za-z0-9._%+\-]+|\"[^\"\n@]{1,64}\")@(?:" + DNS_LABEL + r"\.)+"
    r"[A-Za-z](?:[A-Za-z0-9\-]*[A-Za-z0-9])?(?![\w\-])"
)

# Substrings of every internal suffix below (a cheap test before the pattern).
INTERNAL_HOST_SUFFIXES = (
    ".internal", ".local", ".lan", ".corp", ".intra", ".consul", ".arpa", ".priv"
)  # fmt: skip

# Internal names, in any case and with any number of labels: found by the suffix (a literal
# the engine scans for), then taken back over the name's characters.
INTERNAL_HOST_SUFFIX = re.compile(
    r"\.(?i:internal|local|localdomain|lan|corp|intranet|intra|consul|home\.arpa|priv|private)"
    r"(?![\w\-]|\.\w)"
)

# ----------------------------------------------------------------------------- ids

UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")

# A run of hex digits (a digest, a commit, a trace id).
HEX = re.compile(r"[0-9a-fA-F]+")
