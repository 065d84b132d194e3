"""The redaction table, walked: every rule against its own examples and look-alikes.

A rule without an example it must change fails here, and so does an example its rule no
longer decides as declared: the rule alone (its gate and its rewrite) must change each of its
examples, writing its placeholder, and leave each of its look-alikes as it was.
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from harness.redaction import PLACEHOLDERS, redact
from harness.redaction.rules import ENGINE, RULES

_BY_ID = {rule.id: rule for rule in RULES}
_EXAMPLES = [(rule.id, text) for rule in RULES for text in rule.examples]
_LOOKALIKES = [(rule.id, text) for rule in RULES for text in rule.lookalikes]


def test_rule_ids_are_unique_stable_names() -> None:
    ids = [rule.id for rule in RULES]
    assert sorted(i for i in set(ids) if ids.count(i) > 1) == []
    assert [i for i in ids if not re.fullmatch(r"[a-z0-9]+(?:[-.][a-z0-9]+)*", i)] == []


def test_every_rule_has_an_example_and_a_lookalike() -> None:
    assert [rule.id for rule in RULES if not rule.examples] == []
    assert [rule.id for rule in RULES if not rule.lookalikes] == []


def test_every_rule_writes_a_placeholder() -> None:
    assert [rule.id for rule in RULES if rule.replacement not in (*PLACEHOLDERS, "?")] == []


@pytest.mark.parametrize(("rule_id", "text"), _EXAMPLES)
def test_a_rule_alone_changes_each_of_its_examples(rule_id: str, text: str) -> None:
    rule = _BY_ID[rule_id]
    assert rule.gate.admits(text)
    assert rule.replacement in rule.apply(text)


@pytest.mark.parametrize(("rule_id", "text"), _LOOKALIKES)
def test_a_rule_alone_leaves_each_of_its_lookalikes(rule_id: str, text: str) -> None:
    assert _BY_ID[rule_id].apply(text) == text


@pytest.mark.parametrize(("rule_id", "text"), _EXAMPLES)
def test_the_redactor_changes_every_example_for_good(rule_id: str, text: str) -> None:
    once = redact(text)
    assert once != text
    assert redact(once) == once


def test_a_rule_that_no_longer_decides_its_example_is_caught() -> None:
    # The walk above must be able to fail: the same row with a rewrite that changes nothing.
    inert = replace(_BY_ID["email"], rewrite=str)
    assert [text for text in inert.examples if inert.apply(text) != text] == []


def test_the_engine_runs_the_table_in_order() -> None:
    comments = re.findall(r"^    # (\S+)$", ENGINE.source, re.MULTILINE)
    assert comments == [rule.id for rule in RULES]
    assert ENGINE.rules == RULES


def test_the_rules_that_span_lines() -> None:
    assert [rule.id for rule in RULES if rule.spans_lines] == [
        "private-key",
        "sql-literal",
        "yaml-block",
        "name-value",
        "split-line-value",
        "xml-value",
        "flag-item",
        "smtp-login",
    ]
