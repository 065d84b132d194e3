"""The loader's log formats: JSON lines and text headers detected, fields read, nothing invented."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from harness.backends.log_formats import (
    LogFormat,
    LogRecord,
    detect_format,
    parse_json_line,
    parse_lines,
    parse_text_header,
)

T = datetime(2026, 3, 10, 9, 41, 7, 120000, tzinfo=UTC)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("2026-03-10T09:41:07.120Z ERROR consumer failed", LogRecord(ts=T, message="consumer failed", level="ERROR")),
        ("2026-03-10 09:41:07,120 [warn] lag rising", LogRecord(ts=T, message="lag rising", level="WARN")),
        ("[2026-03-10 09:41:07.120] level=info started", LogRecord(ts=T, message="started", level="INFO")),
        ("2026-03-10T10:41:07.120+01:00 WARNING: slow", LogRecord(ts=T, message="slow", level="WARN")),
        ("2026-03-10T09:41:07.120123456Z CRITICAL | disk", LogRecord(ts=T.replace(microsecond=120123), message="disk", level="FATAL")),
        # Prose that merely starts with a level-like word is not a level.
        ("2026-03-10 09:41:07.120 Error while reading", LogRecord(ts=T, message="Error while reading")),
        ("<27>1 2026-03-10T09:41:07.120Z host-a invoice-consumer 812 - - persist failed",
         LogRecord(ts=T, message="persist failed", level="ERROR", service="invoice-consumer")),
        ("<30>Mar 10 09:41:07 host-a rabbitmq[77]: connection closed",
         LogRecord(ts=T.replace(microsecond=0), message="connection closed", level="INFO", service="rabbitmq")),
    ],
)  # fmt: skip
def test_text_headers(line: str, expected: LogRecord) -> None:
    assert parse_text_header(line, year=2026) == expected


@pytest.mark.parametrize("line", ["\tat com.x.Y(Y.java:1)", "Caused by: boom", "", "10 09:41 x"])
def test_lines_without_a_header_are_not_records(line: str) -> None:
    assert parse_text_header(line, year=2026) is None


def test_json_fields_are_read_by_their_usual_names_and_the_rest_kept_in_the_message() -> None:
    line = (
        '{"@timestamp": "2026-03-10T09:41:07.120Z", "log": {"level": "warning"}, '
        '"service": {"name": "billing-api"}, "msg": "slow query", "elapsed_ms": 812, '
        '"error": "line 1\\nline 2"}'
    )
    assert parse_json_line(line) == LogRecord(
        ts=T,
        message="slow query elapsed_ms=812\nerror:\nline 1\nline 2",
        level="WARN",
        service="billing-api",
    )


@pytest.mark.parametrize(
    ("stamp", "level", "expected_level"),
    [(1773135667.12, 50, "ERROR"), (1773135667120, 30, "INFO"), (1773135667120000000, 40, "WARN")],
)
def test_epoch_times_and_pino_levels(stamp: float, level: int, expected_level: str) -> None:
    record = parse_json_line(f'{{"time": {stamp}, "level": {level}, "msg": "m"}}')
    assert record is not None
    assert (record.ts.replace(microsecond=0), record.level) == (
        T.replace(microsecond=0),
        expected_level,
    )


@pytest.mark.parametrize("line", ['{"msg": "no time"}', "[1, 2]", "not json", '{"ts": "soon"}'])
def test_json_lines_without_a_readable_time_are_not_records(line: str) -> None:
    assert parse_json_line(line) is None


def test_detection_needs_a_majority_of_objects_or_one_text_header() -> None:
    assert detect_format(['{"ts": 1}', '{"ts": 2}', "trailing junk"]) is LogFormat.JSONL
    assert detect_format(["banner", "2026-03-10T09:41:07Z INFO up"]) is LogFormat.TEXT
    assert detect_format(["just prose", "more prose"]) is None
    assert detect_format([]) is None


def test_continuation_lines_join_the_event_before_them() -> None:
    lines = [
        "orphan before any header",
        "2026-03-10T09:41:07.120Z ERROR persist failed",
        "java.sql.SQLSyntaxErrorException: Unknown column 'tax_region'",
        "\tat com.billing.Repo.save(Repo.java:42)",
        "",
        "2026-03-10T09:41:08Z INFO next",
    ]
    assert list(parse_lines(lines, LogFormat.TEXT, year=2026)) == [
        "orphan before any header",
        LogRecord(
            ts=T,
            message="persist failed\njava.sql.SQLSyntaxErrorException: Unknown column "
            "'tax_region'\n\tat com.billing.Repo.save(Repo.java:42)",
            level="ERROR",
        ),
        LogRecord(ts=datetime(2026, 3, 10, 9, 41, 8, tzinfo=UTC), message="next", level="INFO"),
    ]
