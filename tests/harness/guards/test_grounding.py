"""Grounding: every spelling of a claim is checked, and only an exact value grounds it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.guards.grounding import (
    EvidenceIndex,
    ItemValues,
    claims,
    shares_subject,
    ungrounded_tokens,
)

ROW = (
    "config_key=spring.datasource.hikari.maximum-pool-size | old_value=40 | new_value=4 | "
    "changed_at=2026-11-02 14:04:12 | ticket=CHG-4821 | changed_by=deploy-bot"
)
TEMPLATE = (
    "HikariPool-<*> - Connection is not available, request timed out after <*>ms. | count 1990 "
    "| level WARN | services checkout-api | first seen 2026-11-02T14:05:10Z | last seen "
    "2026-11-02T14:59:55Z"
)
EVIDENCE = EvidenceIndex([ROW, TEMPLATE])


@pytest.mark.parametrize(
    "statement",
    [
        "CHG-4821 lowered spring.datasource.hikari.maximum-pool-size from 40 to 4",
        "chg-4821 changed it",  # ids are case-insensitive
        "СНG-4821 changed it",  # Cyrillic С and Н fold to Latin
        "C\u200bHG-4821 changed it",  # a zero-width space changes nothing
        "1,990 warnings",  # thousands separator
        "1\u202f990 warnings",  # narrow no-break space as separator
        "pool cut from forty to four",  # spelled-out numbers
        "changed 40 -> 4",
        "changed 40 → 4",
        "first timeout at 14:05:10, change at 14:04",
        "first timeout at 2:05 pm",
        "on 2026-11-02",
        "on 2026/11/02",
        "on 2 November 2026",
        "on November 2, 2026",
    ],
)
def test_grounded_spellings(statement: str) -> None:
    assert ungrounded_tokens(statement, EVIDENCE) == [], claims(statement)


@pytest.mark.parametrize(
    ("statement", "ungrounded"),
    [
        ("CHG-482 changed it", ["chg-482"]),  # a prefix of the real id
        ("CHG-48210 changed it", ["chg-48210"]),
        ("СНG-9999 changed it", ["chg-9999"]),  # look-alikes cannot hide a forged id
        ("pool changed from 40 to 8", ["8"]),  # a single digit in a change is checked
        ("pool changed from forty to eight", ["8"]),
        ("pool set to 8", ["8"]),
        ("40 → 9", ["9"]),
        ("1,999 warnings", ["1,999"]),
        ("1407 warnings", ["1407"]),  # not grounded by 40 or by 1990
        ("requests timed out after 250ms", ["250ms"]),  # the unit does not hide the number
        ("requests timed out after 30 s", ["30 s"]),
        ("first timeout at 14:06", ["14:06"]),
        ("first timeout at 3:05 pm", ["3:05 pm"]),
        ("on 2026-11-03", ["2026-11-03"]),
        ("on 3 November 2026", ["3 november 2026"]),
        ("errors in DB_DEADLOCK_ERROR", ["db_deadlock_error"]),
        (
            "spring.datasource.hikari.idle-timeout was changed",
            ["spring.datasource.hikari.idle-timeout"],
        ),
    ],
)
def test_ungrounded_claims_are_caught(statement: str, ungrounded: list[str]) -> None:
    assert [t.lower() for t in ungrounded_tokens(statement, EVIDENCE)] == ungrounded


@given(st.integers(min_value=10, max_value=10**7).filter(lambda n: n not in {40, 1990, 4821}))
def test_a_number_absent_from_the_evidence_is_never_grounded(number: int) -> None:
    evidence = EvidenceIndex([ROW])  # no 4-digit runs but 4821 and the date/time parts
    statement = f"{number:,} requests failed"
    digits = str(number)
    present = digits in {"2026", "11", "14", "12", "4821", "40"}
    assert (ungrounded_tokens(statement, evidence) == []) is present


@given(st.from_regex(r"[A-Z]{2,4}-[0-9]{2,6}", fullmatch=True))
def test_a_ticket_is_grounded_only_by_itself(ticket: str) -> None:
    grounded = ungrounded_tokens(f"{ticket} caused it", EVIDENCE) == []
    assert grounded is (ticket.lower() == "chg-4821")


@pytest.mark.parametrize(
    ("statement", "item", "shared"),
    [
        ("CHG-4821 on checkout-api lowered the pool", ROW, True),
        ("checkout-api ran out of connections", TEMPLATE, True),  # the service
        ("connections not available, requests timed out", TEMPLATE, True),  # the wording
        ("the disk filled up on the database host", TEMPLATE, False),
        ("the disk filled up on the database host", ROW, False),
        ("40 and 4 are involved", ROW, False),  # numbers alone never tie a subject
    ],
)
def test_subject_sharing(statement: str, item: str, shared: bool) -> None:
    assert shares_subject(statement, item) is shared


@pytest.mark.parametrize(
    ("items", "statement"),
    [
        (["pool exhausted at 2:05", "pm the pool recovered"], "exhausted at 2:05 pm"),
        (["retries ended on the 2", "November 2026 release notes"], "it failed on 2 November 2026"),
    ],
)
def test_a_value_never_spans_two_items(items: list[str], statement: str) -> None:
    """Each item is read on its own: what ends one item and starts the next is no claim's
    value (joined, the two items would read ``2:05 pm`` and ``2 November 2026``)."""
    assert ungrounded_tokens(statement, EvidenceIndex(items)) != []
    assert ungrounded_tokens(statement, EvidenceIndex([" ".join(items)])) == []


def test_a_memo_reads_each_item_once_and_changes_no_answer() -> None:
    memo: dict[str, ItemValues] = {}
    statements = ["CHG-4821 lowered the pool from 40 to 4", "1,990 timeouts at 14:05:10"]
    for statement in statements:
        for texts in ([ROW], [TEMPLATE], [ROW, TEMPLATE], [TEMPLATE, ROW]):
            with_memo = ungrounded_tokens(statement, EvidenceIndex(texts, memo))
            assert with_memo == ungrounded_tokens(statement, EvidenceIndex(texts))
    assert set(memo) == {ROW, TEMPLATE}
    assert shares_subject(statements[0], ROW, memo) is shares_subject(statements[0], ROW)


@pytest.mark.parametrize(
    ("statement", "expected"),
    [
        # A date and a time cover their digits: no number claims 2026, 11, 14 or 05 again.
        ("2026-11-02T14:05:00Z", [("date", "2026-11-02"), ("time", "14:05:00")]),
        ("at 2:05 pm", [("time", "14:05")]),
        # Values that touch (no gap) or sit side by side are each claimed.
        (
            "from 1,200 to 3,400 at 14:05 on 2026-11-02 (p99 450 ms)",
            [
                ("number", "1200"),
                ("number", "3400"),
                ("time", "14:05"),
                ("date", "2026-11-02"),
                ("number", "450"),
            ],
        ),
        ("14:05 2026-11-02 99", [("time", "14:05"), ("date", "2026-11-02"), ("number", "99")]),
        ("", []),
    ],
)
def test_a_more_specific_claim_covers_the_values_inside_it(
    statement: str, expected: list[tuple[str, str]]
) -> None:
    assert [(c.kind, c.value) for c in claims(statement)] == expected


def test_every_value_of_a_statement_at_the_length_cap_is_claimed_in_order() -> None:
    statement = " ".join(f"{10 + i} ms" for i in range(150))  # ~1,000 characters, the cap
    assert [c.value for c in claims(statement)] == [str(10 + i) for i in range(150)]
