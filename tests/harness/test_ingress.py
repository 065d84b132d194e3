"""What a caller may ask for, at every entry point (HTTP, CLI, evaluation): a question with
something visible in it, a "now" every log system can query around, counts that are counts."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from harness.contracts.ingress import LATEST_AS_OF_YEAR, RunRequest


@pytest.mark.parametrize(
    "question",
    ["\u200b", " \u200b\u200c\u200d ", "\ufeff\u2060", "\u202e\u2066\u2069", "\U000e0041"],
)
def test_a_question_with_nothing_visible_is_refused(question: str) -> None:
    with pytest.raises(ValidationError, match="no visible character"):
        RunRequest(question=question)


@pytest.mark.parametrize(
    "as_of",
    [
        datetime(1, 1, 1, tzinfo=UTC),
        datetime(1969, 12, 31, 23, 59, tzinfo=UTC),
        datetime(LATEST_AS_OF_YEAR + 1, 1, 1, tzinfo=UTC),
        datetime(9999, 12, 31, tzinfo=UTC),
    ],
)
def test_a_now_outside_the_years_log_systems_keep_time_in_is_refused(as_of: datetime) -> None:
    with pytest.raises(ValidationError, match="as_of must lie"):
        RunRequest(question="why?", as_of=as_of)


def test_the_span_admits_its_edges_and_a_question_with_one_visible_character() -> None:
    for as_of in (
        datetime(1970, 1, 1, tzinfo=UTC),
        datetime(LATEST_AS_OF_YEAR, 12, 31, tzinfo=UTC),
    ):
        assert RunRequest(question="\u200bwhy?", as_of=as_of).as_of == as_of


@pytest.mark.parametrize("count", [1.5, True, "5", b"5"])
def test_a_count_that_is_no_integer_is_refused(count: object) -> None:
    with pytest.raises(ValidationError):
        RunRequest(question="why?", limits={"max_tool_calls": count})  # type: ignore[arg-type]
