"""The step tables walked: every entry decides its examples and none of its look-alikes."""

from __future__ import annotations

import pytest

from harness.stepcheck import (
    ARGUMENT_HAZARDS,
    COMMAND_ALLOWLIST,
    PROSE_RULES,
    Allowlist,
    CommandRule,
    HazardRule,
    ProseRule,
)

ALLOWLIST = Allowlist()


def _cases(rules: tuple[object, ...], field: str) -> list[tuple[object, str]]:
    return [(rule, text) for rule in rules for text in getattr(rule, field)]


def _id(value: object) -> str:
    return getattr(value, "name", str(value)[:40])


@pytest.mark.parametrize(("rule", "command"), _cases(COMMAND_ALLOWLIST, "examples"), ids=_id)
def test_each_allowlisted_command_releases_its_examples(rule: CommandRule, command: str) -> None:
    verdict = ALLOWLIST.classify_command(command)
    assert (verdict.outcome, verdict.reason) == (rule.effect, rule.name)


@pytest.mark.parametrize(("rule", "command"), _cases(COMMAND_ALLOWLIST, "lookalikes"), ids=_id)
def test_no_allowlisted_command_releases_its_lookalikes(rule: CommandRule, command: str) -> None:
    verdict = ALLOWLIST.classify_command(command)
    assert verdict.reason != rule.name
    assert verdict.outcome == "WITHHELD" or verdict.outcome != rule.effect


@pytest.mark.parametrize(("rule", "command"), _cases(ARGUMENT_HAZARDS, "examples"), ids=_id)
def test_each_argument_hazard_withholds_its_examples(rule: HazardRule, command: str) -> None:
    assert ALLOWLIST.classify_command(command).reason == rule.name


@pytest.mark.parametrize(("rule", "command"), _cases(ARGUMENT_HAZARDS, "lookalikes"), ids=_id)
def test_no_argument_hazard_withholds_its_lookalikes(rule: HazardRule, command: str) -> None:
    assert ALLOWLIST.classify_command(command).reason != rule.name


@pytest.mark.parametrize(("rule", "text"), _cases(PROSE_RULES, "examples"), ids=_id)
def test_each_prose_rule_decides_its_examples(rule: ProseRule, text: str) -> None:
    verdict = ALLOWLIST.classify_step(text)
    assert (verdict.outcome, verdict.reason) == (rule.outcome, rule.name)


@pytest.mark.parametrize(("rule", "text"), _cases(PROSE_RULES, "lookalikes"), ids=_id)
def test_no_prose_rule_decides_its_lookalikes(rule: ProseRule, text: str) -> None:
    assert ALLOWLIST.classify_step(text).reason != rule.name


def test_every_entry_has_examples_and_a_unique_name() -> None:
    for table in (COMMAND_ALLOWLIST, ARGUMENT_HAZARDS, PROSE_RULES):
        names = [rule.name for rule in table]
        assert len(names) == len(set(names))
        assert all(rule.examples for rule in table)
