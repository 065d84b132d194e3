"""Catalog rows of operating systems and platforms: syslog (RFC 5424, RFC 3164 with or without a
collector's fields), journald's export format, Kubernetes' klog and events, Android's logcat,
the kernel ring buffer.

Examples are written for this catalog after RFC 5424, RFC 3164, systemd's journal export format
and klog's header documentation.
"""

from __future__ import annotations

import re

from harness.logformats._levels import LevelNotation
from harness.logformats._pieces import BSD_TIME, ISO_TIME, LEVEL_G
from harness.logformats._structured import JournaldExportGrammar, KeyedGrammar, json_fields
from harness.logformats.spec import Example, Family, LogFormatSpec, Multiline, regex

__all__ = ["SYSTEM_FORMATS"]

# A level at the start of a syslog message (``<14>… app: ERROR lost``) says more than the PRI.
_MESSAGE_LEVEL = rf"(?:{LEVEL_G}[\s:|-]+)?"

SYSLOG_5424 = LogFormatSpec(
    name="syslog-rfc5424",
    aliases=("rfc5424",),
    family=Family.SYSLOG,
    summary="RFC 5424 syslog: <pri>1 time host app procid msgid [structured data] message",
    grammar=regex(
        rf"^<(?P<pri>\d{{1,3}})>1 (?P<time>{ISO_TIME}) (?P<host>\S+) (?P<service>\S+) \S+ \S+ "
        rf"(?:-|(?:\[[^\]]*\])+) ?{_MESSAGE_LEVEL}(?P<message>.*)$",
        times=("iso",),
    ),
    examples=(
        Example(
            line="<27>1 2026-03-10T09:41:07.120Z host-a invoice-consumer 812 - - persist failed",
            time="2026-03-10T09:41:07.120000+00:00",
            level="ERROR",
            service="invoice-consumer",
            message="persist failed",
        ),
        Example(
            line="<165>1 2026-03-10T10:41:07+01:00 gw-1 proxy 2211 ID47 [exampleSDID@32473 "
            'iut="3"] WARN tunnel closed',
            time="2026-03-10T10:41:07+01:00",
            level="WARN",
            service="proxy",
            message="tunnel closed",
        ),
    ),
    rejects=("<27>Mar 10 09:41:07 host-a app: bsd, not 5424",),
)

SYSLOG = LogFormatSpec(
    name="syslog",
    aliases=("rfc3164", "bsd-syslog", "syslog-rfc3164"),
    family=Family.SYSLOG,
    summary="BSD syslog (RFC 3164) and rsyslog's file format: [<pri>]time host app[pid]: "
    "message, the time BSD (no year) or RFC 3339, behind up to five collector fields",
    grammar=regex(
        rf"^(?:\S+ ){{0,5}}?(?:<(?P<pri>\d{{1,3}})>)?(?P<time>{BSD_TIME}|{ISO_TIME}) "
        r"(?P<host>\S+) (?P<service>[^\s:\[]+)(?:\[(?P<pid>\d+)\])?: ?"
        rf"{_MESSAGE_LEVEL}(?P<message>.*)$",
        # syslogd's own notice carries no host or program.
        rf"^(?:<(?P<pri>\d{{1,3}})>)?(?P<time>{BSD_TIME}) (?P<message>--- last message repeated "
        r"\d+ times? ---)$",
        times=("bsd", "iso"),
    ),
    examples=(
        Example(
            line="<11>Mar 10 09:41:07 cron-1 thumb-cleanup[901]: cleanup failed: AccessDenied",
            time="2026-03-10T09:41:07",
            level="ERROR",
            service="thumb-cleanup",
            message="cleanup failed: AccessDenied",
        ),
        Example(
            line="Mar  3 09:41:07 db-2 postgres[77]: [WARN] checkpoints are occurring too "
            "frequently\n\tsecond line",
            time="2026-03-03T09:41:07",
            level="WARN",
            service="postgres",
            message="checkpoints are occurring too frequently\n\tsecond line",
        ),
        Example(
            line="2026-03-10T09:41:07.120+01:00 node-3 kernel: Out of memory: Killed process 4242",
            time="2026-03-10T09:41:07.120000+01:00",
            level=None,
            service="kernel",
            message="Out of memory: Killed process 4242",
        ),
        Example(
            line="- 1773133200 2026.03.10 cn7 Mar 10 09:41:07 cn7/cn7 crond[22]: job 4 started",
            time="2026-03-10T09:41:07",
            level=None,
            service="crond",
            message="job 4 started",
        ),
        Example(
            line="Mar 4 03:39:57 --- last message repeated 2 times ---",
            time="2026-03-04T03:39:57",
            level=None,
            message="--- last message repeated 2 times ---",
        ),
    ),
    rejects=("Mar 10 09:41:07 just words without a program", "Mar 10 was a good day: yes"),
)

JOURNALD_EXPORT = LogFormatSpec(
    name="journald-export",
    aliases=("journald",),
    family=Family.SYSLOG,
    summary="journalctl -o export: KEY=value lines per entry, entries split by a blank line",
    grammar=JournaldExportGrammar(),
    multiline=Multiline.BLOCK,
    body=re.compile(r"^[A-Z0-9_]+="),
    examples=(
        Example(
            line="__CURSOR=s=739ad463348b4ceca5a9e69c95a3c93f;i=4ece7;b=6c7c6013\n"
            "__REALTIME_TIMESTAMP=1773135667120000\nPRIORITY=3\n_SYSTEMD_UNIT=payment-api.service\n"
            "MESSAGE=payment capture failed: upstream 503",
            time="2026-03-10T09:41:07.120000+00:00",
            level="ERROR",
            service="payment-api",
            message="payment capture failed: upstream 503",
        ),
    ),
    rejects=("MESSAGE=no cursor first",),
)

KLOG = LogFormatSpec(
    name="klog",
    aliases=("glog",),
    family=Family.PLATFORM,
    summary="Kubernetes klog / glog: Lmmdd hh:mm:ss.uuuuuu threadid file:line] message",
    grammar=regex(
        r"^(?P<level>[IWEF])(?P<time>\d{4} \d{2}:\d{2}:\d{2}\.\d+)\s+(?P<pid>\d+) "
        r"(?P<source>[^\s\]]+)\] ?(?P<message>.*)$",
        times=("klog",),
        level=LevelNotation.LETTER,
    ),
    examples=(
        Example(
            line='E0310 09:41:07.120311    4242 pod_workers.go:1298] "Error syncing pod, skipping" '
            'pod="payments/payment-api-7b8d5f9c6-k3m7r"',
            time="2026-03-10T09:41:07.120311",
            level="ERROR",
            message='"Error syncing pod, skipping" pod="payments/payment-api-7b8d5f9c6-k3m7r"',
        ),
    ),
    rejects=("I think 0310 is a date",),
)

LOGCAT = LogFormatSpec(
    name="logcat",
    family=Family.PLATFORM,
    summary="Android logcat threadtime: MM-DD time pid tid L tag: message",
    grammar=regex(
        r"^(?P<time>\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3})\s+\d+\s+\d+ (?P<level>[VDIWEFA]) "
        r"(?P<tag>[^:]*?):\s(?P<message>.*)$",
        times=("month-day",),
        level=LevelNotation.LETTER,
    ),
    examples=(
        Example(
            line="03-10 09:41:07.120  1795  2066 W ActivityManager: Slow operation: 92ms",
            time="2026-03-10T09:41:07.120000",
            level="WARN",
            message="Slow operation: 92ms",
        ),
    ),
)

DMESG = LogFormatSpec(
    name="dmesg",
    aliases=("kernel",),
    family=Family.PLATFORM,
    summary="the kernel ring buffer: seconds since boot in brackets (no wall-clock time)",
    grammar=regex(r"^\[\s*(?P<uptime>\d+\.\d+)\]\s?(?P<message>.*)$"),
    examples=(
        Example(
            line="[  12.345678] usb 1-1: new high-speed USB device",
            time=None,
            level=None,
            message="usb 1-1: new high-speed USB device",
        ),
    ),
)

KUBERNETES_EVENT = LogFormatSpec(
    name="kubernetes-event",
    aliases=("k8s-event",),
    family=Family.PLATFORM,
    summary="Kubernetes events as JSON lines: the involved object is the service, the type "
    "(Normal, Warning) the level",
    grammar=KeyedGrammar(
        json_fields,
        require=("involvedObject.name",),
        service_keys=("involvedObject.name",),
        level_keys=("type",),
        message_keys=("message", "reason"),
        time_keys=("lastTimestamp", "eventTime", "firstTimestamp", "metadata.creationTimestamp"),
    ),
    multiline=Multiline.NONE,
    examples=(
        Example(
            line='{"kind": "Event", "type": "Warning", "reason": "BackOff", "message": "Back-off '
            'restarting failed container", "involvedObject": {"kind": "Pod", "name": '
            '"payment-api-7b8d5f9c6-k3m7r"}, "lastTimestamp": "2026-03-10T09:41:07Z"}',
            time="2026-03-10T09:41:07+00:00",
            level="WARN",
            service="payment-api-7b8d5f9c6-k3m7r",
            message="Back-off restarting failed container kind=Event reason=BackOff "
            "involvedObject.kind=Pod",
        ),
    ),
    rejects=('{"ts": "2026-03-10T09:41:07Z", "msg": "no involved object"}',),
)

SYSTEM_FORMATS = (
    KUBERNETES_EVENT,
    JOURNALD_EXPORT,
    SYSLOG_5424,
    SYSLOG,
    LOGCAT,
    KLOG,
    DMESG,
)
"""The rows of this module, from the most to the least specific."""
