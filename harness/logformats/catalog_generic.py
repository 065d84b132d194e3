"""Catalog rows of structured lines (JSON, logfmt) and of generic text headers: the layouts many
programs share (an ISO time and a level word, header fields up to a level, pipes, a bracketed
time, a level alone) that no specific row names.

The generic rows are the header shapes the template miner was measured with (its fixture
systems); they come after every specific row, so a file is read by the most specific format
that fits it nearly as well as any.
"""

from __future__ import annotations

from harness.logformats._levels import LevelNotation
from harness.logformats._pieces import CLOCK, FIELD, ISO_TIME, LEVEL_G, LOGGER
from harness.logformats._structured import KeyedGrammar, json_fields, logfmt_fields
from harness.logformats.spec import Example, Family, LogFormatSpec, Multiline, regex

__all__ = ["GENERIC_FORMATS", "STRUCTURED_FORMATS"]

BUNYAN = LogFormatSpec(
    name="bunyan",
    family=Family.STRUCTURED,
    summary="node-bunyan JSON lines: the logger's name is the service, levels 10-60",
    grammar=KeyedGrammar(
        json_fields, require=("v", "hostname", "pid", "name"), service_keys=("name",)
    ),
    multiline=Multiline.NONE,
    examples=(
        Example(
            line='{"name": "payment-api", "hostname": "pod-1", "pid": 7, "level": 50, "msg": '
            '"capture failed", "time": "2026-03-10T09:41:07.120Z", "v": 0}',
            time="2026-03-10T09:41:07.120000+00:00",
            level="ERROR",
            service="payment-api",
            message="capture failed hostname=pod-1 pid=7 v=0",
        ),
    ),
    rejects=('{"time": "2026-03-10T09:41:07Z", "msg": "no bunyan core fields"}',),
)

JSON = LogFormatSpec(
    name="json",
    aliases=("jsonl", "ndjson", "pino", "structlog", "ecs", "slog-json", "zap", "journald-json"),
    family=Family.STRUCTURED,
    summary="JSON lines with any common time, level, message and service keys (pino, structlog, "
    "ECS, slog, zap, Serilog CLEF, journalctl -o json, GELF)",
    grammar=KeyedGrammar(json_fields),
    multiline=Multiline.NONE,
    examples=(
        Example(
            line='{"level": 40, "time": 1773135667120, "pid": 7, "msg": "slow query", "ms": 812}',
            time="2026-03-10T09:41:07.120000+00:00",
            level="WARN",
            message="slow query pid=7 ms=812",
        ),
        Example(
            line='{"@timestamp": "2026-03-10T09:41:07.120Z", "log": {"level": "error"}, '
            '"service": {"name": "billing-api"}, "message": "upstream closed"}',
            time="2026-03-10T09:41:07.120000+00:00",
            level="ERROR",
            service="billing-api",
            message="upstream closed",
        ),
        Example(
            line='{"__REALTIME_TIMESTAMP": "1773135667120000", "PRIORITY": "4", '
            '"SYSLOG_IDENTIFIER": "kubelet", "MESSAGE": "eviction threshold met"}',
            time="2026-03-10T09:41:07.120000+00:00",
            level="WARN",
            service="kubelet",
            message="eviction threshold met",
        ),
        Example(
            line='{"event": "order placed", "level": "info", "timestamp": "2026-03-10T09:41:07Z",'
            ' "order_id": 42}',
            time="2026-03-10T09:41:07+00:00",
            level="INFO",
            message="order placed order_id=42",
        ),
    ),
    rejects=('["not", "an", "object"]', "{not json}"),
)

LOGFMT = LogFormatSpec(
    name="logfmt",
    aliases=("slog-text", "slog", "go-kit"),
    family=Family.STRUCTURED,
    summary="logfmt key=value lines (Go slog's text handler, go-kit, Heroku): the message key "
    "and a time or level key",
    grammar=KeyedGrammar(logfmt_fields, needs_level_or_time=True),
    multiline=Multiline.NONE,
    examples=(
        Example(
            line='time=2026-03-10T09:41:07.120+01:00 level=ERROR msg="payment failed" '
            "service=payment-api err=timeout",
            time="2026-03-10T09:41:07.120000+01:00",
            level="ERROR",
            service="payment-api",
            message="payment failed err=timeout",
        ),
    ),
    rejects=("user=alice logged in from somewhere", "a=b"),
)

ISO_LETTER = LogFormatSpec(
    name="iso-letter",
    family=Family.GENERIC,
    summary="a bracketed ISO time, a one-letter level and a program: [time] L program: message",
    grammar=regex(
        rf"^\[(?P<time>{ISO_TIME})\] (?P<level>[TDIWEF]) (?P<service>[\w.-]+)(?:\[\d+\])?: "
        r"(?P<message>.*)$",
        times=("iso",),
        level=LevelNotation.LETTER,
    ),
    examples=(
        Example(
            line="[2026-03-10T09:41:07.120Z] E santad: decision=DENY|path=/usr/bin/x",
            time="2026-03-10T09:41:07.120000+00:00",
            level="ERROR",
            service="santad",
            message="decision=DENY|path=/usr/bin/x",
        ),
    ),
)

COMPACT = LogFormatSpec(
    name="compact",
    family=Family.GENERIC,
    summary="a date and time in digits only (081109 203615, 20260310-094107), an optional pid, "
    "a level and an optional qualified logger with a colon (HDFS, Hadoop)",
    grammar=regex(
        r"^(?P<time>\d{6,8}[ T-]\d{2}:?\d{2}:?\d{2}(?:[.,:]\d+)?)(?:\s+\d+)?\s+"
        rf"{LEVEL_G}\s+(?:{LOGGER}:\s+)?(?P<message>.*)$",
        times=("compact",),
    ),
    examples=(
        Example(
            line="260310 094107 148 WARN dfs.DataNode$PacketResponder: block 7 lost",
            time="2026-03-10T09:41:07",
            level="WARN",
            message="block 7 lost",
        ),
    ),
)

ISO = LogFormatSpec(
    name="iso",
    aliases=("text",),
    family=Family.GENERIC,
    summary="an ISO 8601 time (optionally bracketed or followed by a comma), then an optional "
    "level word (ERROR, [warn], level=info; Warning in a padded column)",
    grammar=regex(
        rf"^\[?(?P<time>{ISO_TIME})\]?,?\s+(?:{LEVEL_G}[\s:|-]*)?(?P<message>.*)$",
        times=("iso",),
    ),
    examples=(
        Example(
            line="2026-03-10T09:41:07.120Z ERROR persist failed\n\tat com.x.Repo.save(Repo.java:1)",
            time="2026-03-10T09:41:07.120000+00:00",
            level="ERROR",
            message="persist failed\n\tat com.x.Repo.save(Repo.java:1)",
        ),
        Example(
            line="2026-03-10 09:41:07.120 Error while reading block 7",
            time="2026-03-10T09:41:07.120000",
            level=None,
            message="Error while reading block 7",
        ),
        Example(
            line="[2026-03-10 09:41:07,120] level=warn lag rising",
            time="2026-03-10T09:41:07.120000",
            level="WARN",
            message="lag rising",
        ),
    ),
    rejects=("10 09:41 x", "\tat com.x.Y(Y.java:1)"),
)

FIELDS = LogFormatSpec(
    name="fields",
    family=Family.GENERIC,
    summary="up to eight header fields (dates, times, nodes, pids, capitals) holding a time of "
    "day, ending at a level word; then a pid or a qualified logger and its context",
    grammar=regex(
        rf"^(?=(?:\S+\s+){{0,7}}\S*{CLOCK})(?:{FIELD}\s+){{1,8}}?{LEVEL_G}\s+"
        rf"(?:\d+(?:#\d+)?:\s+|(?:{LOGGER}(?::\s+|\s+(?=\[)))?(?:\[[^\]]*\]\s+)?)"
        r"(?P<message>.*)$"
    ),
    examples=(
        Example(
            line="26/03/10 09:41:07 WARN storage.BlockManager: block 3 lost",
            time=None,
            level="WARN",
            message="block 3 lost",
        ),
    ),
    rejects=("user alice said ERROR twice at 09:41:07", "retry 3 of 5 at 09:41:07 WARN low"),
)

PIPES = LogFormatSpec(
    name="pipes",
    family=Family.GENERIC,
    summary="|-separated fields, the first holding a time: 20260310-09:41:07:123|Name|42|message",
    grammar=regex(rf"^[^|\s]*{CLOCK}[^|\s]*\|(?:[^|\s]*\|){{0,3}}(?P<message>.*)$"),
    examples=(
        Example(
            line="20260310-09:41:07:120|Step_Sensor|30002312|onStep 3",
            time=None,
            level=None,
            message="onStep 3",
        ),
    ),
)

BRACKETED = LogFormatSpec(
    name="bracketed",
    family=Family.GENERIC,
    summary="a time of day in brackets, then an optional program before a dash",
    grammar=regex(
        rf"^\[[^\]\n]{{0,30}}{CLOCK}[^\]\n]{{0,12}}\]\s+(?:[\w.-]+(?: \*\d+)? - )?"
        r"(?P<message>.*)$"
    ),
    examples=(
        Example(
            line="[03.10 09:41:07] app.exe *64 - host-1:443 open",
            time=None,
            level=None,
            message="host-1:443 open",
        ),
    ),
)

LEVEL_ONLY = LogFormatSpec(
    name="level",
    family=Family.GENERIC,
    summary="a line that starts with a level word alone ([error] …, WARN: …)",
    grammar=regex(rf"^{LEVEL_G}[\s:|-]*(?P<message>.*)$"),
    examples=(
        Example(
            line="[error] request 7 failed", time=None, level="ERROR", message="request 7 failed"
        ),
    ),
    rejects=("Error while reading",),
)

STRUCTURED_FORMATS = (BUNYAN, JSON, LOGFMT)
"""Structured rows, from the most to the least specific."""

GENERIC_FORMATS = (ISO_LETTER, COMPACT, ISO, FIELDS, PIPES, BRACKETED, LEVEL_ONLY)
"""Generic text rows, from the most to the least specific."""
