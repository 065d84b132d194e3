"""Where a workload runs: IP addresses, host names, pods and process ids (private to
:mod:`harness.redaction`).
"""

from __future__ import annotations

import re

from harness.redaction._placeholders import HOST, IP, PID, PLACEHOLDER_RE, POD
from harness.redaction._shapes import INTERNAL_HOST_SUFFIX
from harness.redaction._shapes import ipv4_addresses as _ipv4
from harness.redaction._shapes import ipv6_addresses as _ipv6

__all__ = [
    "DASHED_GATE",
    "POD_NAME",
    "POD_NAME_RE",
    "POD_TOKEN",
    "cloud_hosts",
    "daemonset_pods",
    "internal_hosts",
    "ipv4_addresses",
    "ipv6_addresses",
    "pids",
    "pod_keys",
]

# An IPv4 octet as a host name spells it, between dashes (no leading zeros).
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
# A cheap test for such a name: a literal first, so that the engine scans for it.
DASHED_GATE = re.compile(r"-(?<=\d-)\d{1,3}-\d{1,3}-\d")

# The characters of a host name, walked back from its internal suffix to its first label.
_HOST_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-")

# A Deployment's pod: the ReplicaSet's name (a pod template hash of 6-10 characters with a
# digit) and the pod's 5-character suffix (``checkout-api-7d9f8b6c5-x2kqp``); as a token of its
# own, and as a whole string.
POD_NAME = r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*-(?=[a-z0-9]*\d)[a-z0-9]{6,10}-[a-z0-9]{5}"

POD_TOKEN = re.compile(r"(?<![\w.\->])" + POD_NAME + r"(?![\w\-])")
POD_NAME_RE = re.compile(POD_NAME)

# DaemonSet (and bare ReplicaSet) pods: a name and Kubernetes' 5-character random suffix,
# drawn from consonants and the digits 2, 4-9; one digit at least, so words stay.
_DS_POD_RE = re.compile(
    r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*-(?=[a-z]*[2456789])[bcdfghjklmnpqrstvwxz2456789]{5}"
)

# The suffix alone, a literal first: found first, then taken back over the name.
_DS_SUFFIX = re.compile(r"-(?=[a-z]*[2456789])[bcdfghjklmnpqrstvwxz2456789]{5}(?![\w\-])")

# A pod named by its key (``pod=``, ``pod_name:``, ``pods "x"``, ``pod/x``).
_POD_KEY = re.compile(
    r"(?i)(?<![\w\->])(?P<k>pods?(?:[_.\-]?name)?\\?[\"']?"
    r"(?P<sep>[^\S\n]*[=:/][^\S\n]*|[^\S\n]+)\\?[\"']?)(?!" + PLACEHOLDER_RE + r")"
    r"(?P<name>[a-z0-9][a-z0-9.\-]*[a-z0-9]|[a-z0-9])"
)

# A StatefulSet's pod: its set's name and an ordinal (``payments-0``).
_STATEFUL_NAME = re.compile(r"[a-z][a-z0-9\-]*-\d+")

# A process id under its key (``pid=123``, ``PID 77``) or in a syslog tag (``sshd[1234]:``).
# Lookbehinds sit after the first literal so that the engine can scan for the literal.
_PID_RE = re.compile(
    r"[pP][iI][dD](?<![\w\->][pP][iI][dD])(?P<k>[ \t]*[=:]?[ \t]*)\d+(?!\w)"
    r"|\[(?<=[\w\-.)]\[)\d{2,7}\](?=[:\s]|\Z)"
)


def cloud_hosts(text: str) -> str:
    """Cloud host names that spell an IP (``ip-10-0-3-17``, ``10-0-3-20.nip.io``)."""
    return _CLOUD_HOST_RE.sub(HOST, text)


def internal_hosts(text: str) -> str:
    """Internal host names: found by their suffix, then taken back to their first label."""
    out: list[str] = []
    last = 0
    for found in INTERNAL_HOST_SUFFIX.finditer(text):
        start = found.start()
        if start < last:
            continue
        while start > last and text[start - 1] in _HOST_CHARS:
            start -= 1
        while start < found.start() and not text[start].isalnum():
            start += 1
        if start == found.start() or (start > 0 and text[start - 1] in "_>"):
            continue
        out.append(text[last:start])
        out.append(_host(text[start : found.end()]))
        last = found.end()
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


def _host(name: str) -> str:
    # Kubernetes service names (``inventory-service.shop.svc.cluster.local``) name a service,
    # not a machine, and are what a diagnosis needs to see; a StatefulSet pod's own name in
    # front of one (``web-0.nginx.shop.svc.cluster.local``) does not.
    if name.lower().endswith(".svc.cluster.local"):
        first, _, rest = name.partition(".")
        if rest.count(".") >= 4 and _STATEFUL_NAME.fullmatch(first):
            return f"{POD}.{rest}"
        return name
    return HOST


def ipv6_addresses(text: str) -> str:
    """IPv6 addresses, with their port when bracketed."""
    return _ipv6(text, IP)


def ipv4_addresses(text: str) -> str:
    """IPv4 addresses, with their port."""
    return _ipv4(text, IP)


def pids(text: str) -> str:
    """``pid=123``, ``pid 123``, ``sshd[1234]:``."""
    return _PID_RE.sub(_pid, text)


def _pid(match: re.Match[str]) -> str:
    key = match.group("k")
    return match.group(0)[:3] + key + PID if key is not None else f"[{PID}]"


def pod_keys(text: str) -> str:
    """A pod named by its key: ``pod=payments-0``, ``pods "kafka-broker-2"``."""
    return _POD_KEY.sub(_pod_key, text)


def _pod_key(match: re.Match[str]) -> str:
    name = match.group("name")
    if not match.group("sep").strip() and not (
        _STATEFUL_NAME.fullmatch(name) or POD_TOKEN.fullmatch(name) or _DS_POD_RE.fullmatch(name)
    ):
        return match.group(0)
    return match.group("k") + POD


def daemonset_pods(text: str) -> str:
    """DaemonSet pods (``fluentd-x7k2p``): found by the random suffix, then the name."""
    out: list[str] = []
    last = 0
    for found in _DS_SUFFIX.finditer(text):
        start = found.start()
        if start < last:
            continue
        while start > last and (
            text[start - 1].islower() or text[start - 1].isdigit() or text[start - 1] == "-"
        ):
            start -= 1
        candidate = text[start : found.end()]
        if not text[start : start + 1].isalpha() or not _DS_POD_RE.fullmatch(candidate):
            continue
        if start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_.>/"):
            continue
        out.append(text[last:start])
        out.append(POD)
        last = found.end()
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)
