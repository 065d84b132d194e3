"""The rule tables, walked: each rule matches and decides its examples, matches none of its
look-alikes, and has an example for every spelling it holds."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from harness.textcheck import dangerous_command, injection
from harness.textcheck.readings import readings, surface
from harness.textcheck.rulebook import RuleBook, TextRule, alternatives, anchors_of
from harness.textcheck.tables import COMMAND_RULES, INJECTION_RULES

_VOCABULARY = RuleBook(INJECTION_RULES).words


@dataclass(frozen=True)
class _Table:
    """A table with the check that applies it and the readings that check judges."""

    name: str
    rules: tuple[TextRule, ...]
    check: Callable[[str], str | None]
    read: Callable[[str], tuple[str, ...]]


TABLES = (
    _Table("injection", INJECTION_RULES, injection, lambda text: readings(text, _VOCABULARY)),
    _Table("commands", COMMAND_RULES, dangerous_command, surface),
)
# Each rule once (the pipe-to-shell rules are in both tables), with the tables that hold it.
RULES = tuple({rule.id: rule for table in TABLES for rule in table.rules}.values())
HOLDERS = {rule.id: [table for table in TABLES if rule in table.rules] for rule in RULES}
EXAMPLES = [(rule, text) for rule in RULES for text in rule.examples]
LOOKALIKES = [(rule, text) for rule in RULES for text in rule.lookalikes]


def _ids(cases: list[tuple[TextRule, str]]) -> list[str]:
    return [f"{rule.id}:{number}" for number, (rule, _) in enumerate(cases)]


def _deciding_rule(table: _Table, text: str) -> TextRule | None:
    """The rule a table's check decides ``text`` by, found the slow way: every rule, in
    order, on each reading until one matches (no anchors, no filters)."""
    for reading in table.read(text):
        for rule in table.rules:
            if rule.regex.search(reading):
                return rule
    return None


@pytest.mark.parametrize("rule", RULES, ids=[rule.id for rule in RULES])
def test_every_rule_is_named_described_and_has_examples_and_lookalikes(rule: TextRule) -> None:
    assert re.fullmatch(r"[a-z]+(-[a-z]+)*\.[a-z0-9]+(-[a-z0-9]+)*", rule.id)
    assert rule.id.split(".")[0] == rule.category.lower().replace("_", "-")
    assert rule.description and "\n" not in rule.description
    assert rule.examples, "a rule without an example"
    assert rule.lookalikes, "a rule without a look-alike"


def test_rule_ids_are_unique() -> None:
    distinct = {id(rule): rule for table in TABLES for rule in table.rules}
    ids = Counter(rule.id for rule in distinct.values())
    assert [rule_id for rule_id, count in ids.items() if count > 1] == []


@pytest.mark.parametrize("rule", RULES, ids=[rule.id for rule in RULES])
def test_every_spelling_of_a_rule_has_an_example(rule: TextRule) -> None:
    # A rule's top-level alternatives are spellings of one meaning: each must be exercised,
    # or the rule hides a pattern no example needs.
    unmatched = [
        source
        for source in alternatives(rule.pattern)
        if not any(re.search(source, text, re.IGNORECASE) for text in rule.examples)
    ]
    assert unmatched == []


@pytest.mark.parametrize(("rule", "text"), EXAMPLES, ids=_ids(EXAMPLES))
def test_each_example_is_matched_and_decided_by_its_rule(rule: TextRule, text: str) -> None:
    assert rule.regex.search(text), "the rule's own pattern misses its example"
    for table in HOLDERS[rule.id]:
        assert _deciding_rule(table, text) is rule, table.name
        assert table.check(text) == rule.category, table.name


@pytest.mark.parametrize(("rule", "text"), LOOKALIKES, ids=_ids(LOOKALIKES))
def test_no_lookalike_is_matched_by_its_rule_nor_flagged(rule: TextRule, text: str) -> None:
    assert rule.regex.search(text) is None
    # A look-alike shares the rule's words: it passes the rule's keyword gate, so it is the
    # pattern that tells it apart.
    anchors = {anchor for source in alternatives(rule.pattern) for anchor in _anchors(source)}
    assert any(anchor in text.lower() for anchor in anchors), sorted(anchors)
    for table in HOLDERS[rule.id]:
        assert table.check(text) is None, table.name


def _anchors(source: str) -> frozenset[str]:
    return anchors_of(source, re.IGNORECASE) or frozenset()


@pytest.mark.parametrize("table", TABLES, ids=[table.name for table in TABLES])
def test_every_class_has_several_examples(table: _Table) -> None:
    examples = Counter(rule.category for rule in table.rules for _ in rule.examples)
    assert min(examples.values()) >= 4, examples
