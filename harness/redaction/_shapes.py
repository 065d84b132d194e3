"""The shapes of values that identify a machine or a person, as redaction finds them (private
to :mod:`harness.redaction`): IPv4 and IPv6 addresses, UUIDs, MAC addresses, e-mail addresses,
internal host names.

Each is built from the shared table of value shapes (:mod:`harness.text.shapes`), which the
log miner builds its masks from as well, with the boundaries a line of text needs here (an
address is a token of its own, with its port) and, for IP addresses, the check beyond the look
that a redactor must make: an address whose octets exceed 255 (``999.1.1.1``, a version) is
not an address.
"""

from __future__ import annotations

import re

from harness.text.shapes import (
    DNS_LABEL,
    EMAIL,
    INTERNAL_DOMAINS,
    IPV4,
    IPV6,
    MAC,
    UUID,
    ipv4_octets_valid,
)

__all__ = [
    "CISCO_MAC_ADDRESS",
    "DNS_LABEL",
    "EMAIL_ADDRESS",
    "HEX",
    "INTERNAL_HOST_SUFFIX",
    "INTERNAL_HOST_SUFFIXES",
    "IPV4_GATE",
    "IPV6_GATE",
    "MAC_ADDRESS",
    "UUID_VALUE",
    "ipv4_addresses",
    "ipv6_addresses",
]

# ----------------------------------------------------------------------------- IP addresses

# Cheap gates: a literal first, so that the engine scans for it.
IPV4_GATE = re.compile(r"\.(?<=\d\.)\d{1,3}\.\d{1,3}\.\d")

IPV6_GATE = re.compile(r"::|:(?<=[0-9A-Fa-f]:)[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:")

# An address as a token of its own (not inside a version or a longer dotted number), with
# its port; an IPv6 address may be bracketed with a port after it.
_IPV4_ADDRESS = re.compile(r"(?<![\w.>])" + IPV4.pattern + r"(?::\d{1,5})?(?!\w|\.\d)")

_IPV6_ADDRESS = re.compile(
    r"(?<![\w:.>])(?:\[(?:" + IPV6.pattern + r")\](?::\d{1,5})?|(?:" + IPV6.pattern + r"))"
    r"(?![\w:])"
)


def ipv4_addresses(text: str, placeholder: str) -> str:
    """Every IPv4 address of ``text`` (with its port) as ``placeholder``; a dotted quad whose
    octets exceed 255 is left as it is."""
    return _IPV4_ADDRESS.sub(lambda m: placeholder if ipv4_octets_valid(m[0]) else m[0], text)


def ipv6_addresses(text: str, placeholder: str) -> str:
    """Every IPv6 address of ``text`` (bracketed with its port, or bare) as ``placeholder``; one
    whose embedded IPv4 tail is no address is left as it is."""
    return _IPV6_ADDRESS.sub(lambda m: placeholder if ipv4_octets_valid(m[0]) else m[0], text)


# ----------------------------------------------------------------------------- MAC addresses

# Six pairs of hex digits between colons or dashes, as a token of its own.
MAC_ADDRESS = re.compile(r"(?<![\w:\-.])" + MAC.pattern + r"(?![\w:\-.])")
# Cisco's three dotted quads; the separator comes first so that the engine scans for it (the
# lookbehind checks the first quad).
CISCO_MAC_ADDRESS = re.compile(
    r"\.(?<=(?<![\w.])[0-9A-Fa-f]{4}\.)[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}(?![\w.])"
)

# ----------------------------------------------------------------------------- e-mail, hosts

# An address as a token of its own; an unquoted local part must not go on a word before it
# (a quoted one may). The last label starts with a letter and may hold digits and dashes, so an
# address glued to what follows (``a.b@c.dexoxb-1-token``) is still taken whole.
EMAIL_ADDRESS = re.compile(r"(?:(?<![\w.%+\->])(?!\")|(?=\"))(?:" + EMAIL.pattern + r")(?![\w\-])")

# Internal names, in any case and with any number of labels: found by the suffix (a literal
# the engine scans for), then taken back over the name's characters.
INTERNAL_HOST_SUFFIX = re.compile(
    r"\.(?i:" + "|".join(re.escape(d) for d in INTERNAL_DOMAINS) + r")(?![\w\-]|\.\w)"
)


def _gate_suffixes(domains: tuple[str, ...]) -> tuple[str, ...]:
    """Substrings one of which every internal name holds (``.local`` for ``.localdomain``)."""
    endings = sorted({"." + d.rsplit(".", 1)[-1] for d in domains}, key=len)
    kept: list[str] = []
    for ending in endings:
        if not any(ending.startswith(k) for k in kept):
            kept.append(ending)
    return tuple(kept)


# A cheap test before the pattern: every internal suffix holds one of these (lower case).
INTERNAL_HOST_SUFFIXES = _gate_suffixes(INTERNAL_DOMAINS)

# ----------------------------------------------------------------------------- ids

UUID_VALUE = re.compile(UUID.pattern)

# A run of hex digits (a digest, a commit, a trace id): a test of a run's alphabet, not a shape
# of a value of its own.
HEX = re.compile(r"[0-9a-fA-F]+")
