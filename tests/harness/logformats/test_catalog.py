"""The catalog walked: every row reads its own examples, claims none of its look-alikes, and is
the format detection picks for a file of its examples."""

from __future__ import annotations

from datetime import datetime

import pytest

from harness.logformats import (
    CATALOG,
    Example,
    LogEvent,
    LogFormatSpec,
    ReadOptions,
    choose_format,
    detect,
    format_named,
    read_events,
)

# Year-less examples take the year of this reference (they are all written before it).
REFERENCE = datetime(2026, 6, 30)
EXAMPLES = [(spec, example) for spec in CATALOG for example in spec.examples]
REJECTS = [(spec, line) for spec in CATALOG for line in spec.rejects]


def written(event: LogEvent) -> str | None:
    """The event's time as an example writes it: the wall clock, with the line's own offset."""
    if event.time is None:
        return None
    if event.zone.value == "line":
        return event.time.isoformat()
    return event.time.replace(tzinfo=None).isoformat()


@pytest.mark.parametrize(("spec", "example"), EXAMPLES, ids=lambda v: getattr(v, "name", ""))
def test_each_row_reads_its_examples(spec: LogFormatSpec, example: Example) -> None:
    events = list(read_events(example.line.split("\n"), spec, ReadOptions(reference=REFERENCE)))
    assert [(written(e), e.level, e.service, e.message, e.format) for e in events] == [
        (example.time, example.level, example.service, example.message, spec.name)
    ]
    directives = [
        line for line in example.line.split("\n") if spec.comment and line.startswith(spec.comment)
    ]
    assert events[0].lines == len(example.line.split("\n")) - len(directives)


@pytest.mark.parametrize(("spec", "line"), REJECTS, ids=lambda v: getattr(v, "name", ""))
def test_no_row_claims_its_look_alikes(spec: LogFormatSpec, line: str) -> None:
    assert spec.parse(line, REFERENCE) is None


def test_every_row_has_examples_and_a_unique_name() -> None:
    assert all(spec.examples for spec in CATALOG)
    names = [name for spec in CATALOG for name in (spec.name, *spec.aliases)]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("spec", CATALOG, ids=lambda s: s.name)
def test_a_file_of_a_rows_examples_is_detected_as_that_row(spec: LogFormatSpec) -> None:
    lines = [line for example in spec.examples for line in example.line.split("\n")]
    assert detect(lines).format is spec


def test_formats_are_chosen_by_name_alias_or_pattern() -> None:
    assert choose_format("auto") is None
    assert choose_format("nginx-access") is format_named("access-log")
    assert choose_format("JSONL") is format_named("json")
    header = choose_format("<Date> <Time> <Level> <Component>: <Content>")
    assert header is not None
    parsed = header.parse("2026-03-10 09:41:07 WARN Disk: 91% full", REFERENCE)
    assert parsed is not None
    assert (parsed.time and parsed.time.wall, parsed.level, parsed.message) == (
        datetime(2026, 3, 10, 9, 41, 7),
        "WARN",
        "91% full",
    )
    with pytest.raises(ValueError, match="unknown log format"):
        choose_format("csv")
