"""Header detection with the shared catalog: each format is recognised from a file's first lines
and its header split off."""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from harness.logformats import CATALOG
from harness.logmining import DetectedFormat, detect_format
from tests.backtracking import finishes
from tests.fixtures.logmining import generate_headers
from tests.fixtures.logmining.generate import SYSTEMS, VALIDATION, build

# (format, lines of a file of that format, the message of its first line)
SHAPES = [
    (
        "json",
        [
            json.dumps({"ts": "2026-03-10T09:41:07Z", "level": "info", "msg": f"job {n} done"})
            for n in range(5)
        ],
        "job 0 done",
    ),
    (
        "logfmt",
        [f'ts=2026-03-10T09:41:07Z level=info msg="job {n} done" took=3ms' for n in range(5)],
        "job 0 done took=3ms",
    ),
    (
        "syslog-rfc5424",
        [
            f"<134>1 2026-03-10T09:41:07.120Z gw-1 proxy 2211 - - tunnel {n} closed"
            for n in range(5)
        ],
        "tunnel 0 closed",
    ),
    (
        "syslog",
        [f"Mar 10 09:41:0{n} node-3 sshd[2211]: session {n} opened" for n in range(5)],
        "session 0 opened",
    ),
    (
        "spring-boot",
        [
            f"2026-03-10T09:41:07.120+01:00  INFO 2211 --- [  worker-{n}] c.e.sched.Jobs   : "
            f"job {n} done"
            for n in range(5)
        ],
        "job 0 done",
    ),
    (
        "log4j",
        [f"2026-03-10 09:41:07,120 INFO [main] org.example.Foo: step {n} done" for n in range(5)],
        "step 0 done",
    ),
    (
        "log4j",
        [
            f"2026-03-10 09:41:07,120 - WARN  [Worker[{n}]:Quorum$Listener@42] - peer {n} lost"
            for n in range(5)
        ],
        "peer 0 lost",
    ),
    (
        "compact",
        [f"260310 094107 {n} INFO dfs.DataNode$Responder: block {n} stored" for n in range(5)],
        "block 0 stored",
    ),
    (
        "logcat",
        [f"03-10 09:41:07.120  1795  2066 I ActivityManager: start proc {n}" for n in range(5)],
        "start proc 0",
    ),
    (
        "apache-error",
        [f"[Tue Mar 10 09:41:07 2026] [error] client {n} denied" for n in range(5)],
        "client 0 denied",
    ),
    (
        "iso",
        [f"2026-03-10T09:41:07.120Z [WARN] disk {n} slow" for n in range(5)],
        "disk 0 slow",
    ),
    (
        "iso",
        [f"2026-03-10 09:41:07.120 Warning  Update: patch {n} staged" for n in range(5)],
        "Update: patch 0 staged",
    ),
    (
        "dmesg",
        [f"[   12.3456{n}] usb 1-{n}: new device" for n in range(5)],
        "usb 1-0: new device",
    ),
    ("level", [f"[error] request {n} failed" for n in range(5)], "request 0 failed"),
    (
        "syslog",
        [
            f"- 177313320{n} 2026.03.10 cn7 Mar 10 09:41:0{n} cn7/cn7 crond[22{n}]: job {n}"
            for n in range(5)
        ],
        "job 0",
    ),
    (
        "klog",
        [f"E0310 09:41:07.120311   4242 reconciler.go:21{n}] sync {n} failed" for n in range(5)],
        "sync 0 failed",
    ),
    (
        "fields",
        [f"26/03/10 09:41:0{n} WARN storage.BlockManager: block {n} lost" for n in range(5)],
        "block 0 lost",
    ),
    (
        "fields",
        [
            f"- 177313320{n} 2026.03.10 R02-M1-N0 2026-03-10-09.41.0{n}.120311 R02-M1-N0 RAS "
            f"KERNEL FATAL parity error {n} corrected"
            for n in range(5)
        ],
        "parity error 0 corrected",
    ),
    (
        "fields",
        [
            f"api.log.1.2026-03-10_09:00:00 2026-03-10 09:41:0{n}.120 4242 INFO svc.api.wsgi "
            f"[req-{n}a2 - - -] GET /v2/servers {n}"
            for n in range(5)
        ],
        "GET /v2/servers 0",
    ),
    (
        "nginx-error",
        [f"2026/03/10 09:41:0{n} [error] 4242#4242: open() failed ({n})" for n in range(5)],
        "open() failed (0)",
    ),
    (
        "pipes",
        [f"20260310-09:41:0{n}:120|Step_Sensor|3000231{n}|onStep {n}" for n in range(5)],
        "onStep 0",
    ),
    (
        "bracketed",
        [f"[03.10 09:41:0{n}] app.exe *64 - host-{n}:443 open" for n in range(5)],
        "host-0:443 open",
    ),
]


@pytest.mark.parametrize(("name", "lines", "message"), SHAPES, ids=lambda v: str(v)[:24])
def test_each_header_format_is_detected_and_split_off(
    name: str, lines: list[str], message: str
) -> None:
    detected = detect_format(lines)
    assert (detected.name, detected.share, detected.split(lines[0])) == (name, 1.0, message)


def test_lines_without_a_header_are_mined_whole() -> None:
    lines = ["disk 91% full on sda1", "disk 97% full on sdb2", "restart requested by ops"]
    detected = detect_format(lines)
    assert detected == DetectedFormat(format=None, share=0.0)
    assert [detected.split(line) for line in lines] == lines


def test_a_capitalised_word_after_the_time_is_a_level_only_in_a_padded_column() -> None:
    prose = [f"2026-03-10T09:41:0{n}Z Error while reading block {n}" for n in range(3)]
    column = [f"2026-03-10 09:41:0{n}, Info    CBS  Loaded stack {n}" for n in range(3)]
    assert detect_format(prose).split(prose[0]) == "Error while reading block 0"
    assert detect_format(column).split(column[0]) == "CBS  Loaded stack 0"


def test_a_shape_needs_most_sampled_lines() -> None:
    headed = [f"2026-03-10T09:41:0{n}Z ERROR job {n} failed" for n in range(2)]
    assert detect_format([*headed, "plain", "text", "lines"]).name == "none"
    assert detect_format([*headed, "plain"]).name == "iso"


def test_lines_that_do_not_fit_the_shape_stay_whole() -> None:
    lines = [
        "2026-03-10 09:41:07,120 ERROR [main] org.example.Foo: request failed",
        "java.lang.IllegalStateException: closed",
        "\tat org.example.Foo.run(Foo.java:42)",
        "2026-03-10 09:41:08,001 INFO [main] org.example.Foo: retrying",
    ]
    detected = detect_format(lines)
    assert detected.name == "log4j"
    assert [detected.split(line) for line in lines] == [
        "request failed",
        "java.lang.IllegalStateException: closed",
        "\tat org.example.Foo.run(Foo.java:42)",
        "retrying",
    ]


def test_json_and_logfmt_keep_other_fields_after_the_message() -> None:
    line = json.dumps({"time": 1773135667, "severity": "WARN", "message": "slow", "ms": 812})
    assert detect_format([line]).split(line) == "slow ms=812"
    pair = 'time="2026-03-10 09:41:07" lvl=warn msg="cache \\"hot\\" miss" key=user:7'
    assert detect_format([pair]).split(pair) == 'cache "hot" miss key=user:7'


def test_the_most_specific_shape_wins_when_it_fits_nearly_as_many_lines() -> None:
    # Every log4j line is also an ISO line; the log4j shape strips the thread and logger too.
    lines = [f"2026-03-10 09:41:07,120 INFO [main] org.example.Foo: step {n}" for n in range(9)]
    lines.append("2026-03-10 09:41:08,000 INFO started")
    assert detect_format(lines).name == "log4j"


@pytest.mark.parametrize("name", [*SYSTEMS, *VALIDATION])
def test_detection_recovers_every_fixture_message(name: str) -> None:
    lines = build(name)
    detected = detect_format(line.raw for line in lines)
    assert detected.share == 1.0
    assert [detected.split(line.raw) for line in lines] == [line.content for line in lines]


@pytest.mark.parametrize("name", [*generate_headers.HEADERS_TUNING, "compute", "cluster"])
def test_detection_recovers_the_header_fixture_messages(name: str) -> None:
    lines = generate_headers.build(name)
    detected = detect_format(line.raw for line in lines)
    assert detected.share == 1.0
    assert [detected.split(line.raw) for line in lines] == [line.content for line in lines]


def test_fields_before_a_level_need_a_time_of_day_and_no_lower_case_words() -> None:
    # Prose with a level word in it, a word before the fields.
    for lines in (
        [f"user alice{n} said ERROR twice at 09:41:0{n}" for n in range(5)],
        [f"retry 3 of 5 at 09:41:0{n} WARN budget low" for n in range(5)],
    ):
        assert detect_format(lines).name == "none", lines[0]


# Lines built to make a backtracking pattern try every way of splitting them: a logger of
# ``a$a$…``, long digit runs, many digit-bearing fields before no level, long pipe chains.
_HOSTILE = [
    "2026-03-10 09:41:07 INFO " + "a$" * 40 + "a$ x",
    "2026-03-10 09:41:07,120 INFO [main] " + "a$" * 40 + "a$ x",
    "1" * 20000 + " " + "a1" * 5000,
    "[" + "1:00:00 " * 3000,
    "09:41:07 " * 3000,
    "12:00:00" + "|a" * 10000,
    "I0310 09:41:07.1 " + "1" * 20000,
]


def _split_all(line: str) -> None:
    for spec in CATALOG:
        spec.parse(line, datetime(2026, 3, 10))


def test_no_format_backtracks_on_hostile_lines() -> None:
    # Each pattern must refuse or split these in time linear in their length.
    finishes("tests.harness.logmining.test_headers:_split_all", _HOSTILE)
