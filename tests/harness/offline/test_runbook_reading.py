"""How the offline model reads runbooks: sections, affirmed causes, and conditions on actions."""

from __future__ import annotations

import pytest

from harness.contracts.observation import EvidenceBlock, RelevanceLevel
from harness.embedded.offline.conditions import CONDITION_RULES, ConditionRule, conditions
from harness.embedded.offline.runbooks import Section, library, split_sections


@pytest.mark.parametrize("rule", CONDITION_RULES, ids=lambda r: r.name)
def test_every_condition_rule_reads_its_examples_and_leaves_its_look_alikes(
    rule: ConditionRule,
) -> None:
    assert rule.examples and rule.look_alikes
    for sentence, (action, subject) in rule.examples:
        (found,) = conditions([sentence])
        assert (found.action, found.subject, found.prohibits) == (action, subject, rule.prohibits)
    for sentence in rule.look_alikes:
        assert conditions([sentence]) == [], sentence


def test_headings_and_labels_cut_an_excerpt_into_sections() -> None:
    excerpt = (
        "## Symptoms - payout batches fail ## Why it happens The certificate expired. "
        "## Remediation - Renew it. Verification: none"
    )
    assert [s for s, _ in split_sections(excerpt)] == [
        Section.SYMPTOM,
        Section.CAUSE,
        Section.REMEDY,
    ]
    labelled = "Symptom: report-worker logs ENOSPC. Cause: the spool volume fills up. Remediation: - Lower it."
    assert [s for s, _ in split_sections(labelled)] == [
        Section.SYMPTOM,
        Section.CAUSE,
        Section.REMEDY,
    ]


def block(ref: str, excerpt: str) -> EvidenceBlock:
    return EvidenceBlock(
        ref=ref, doc_id="rb", title="Pool exhaustion", excerpt=excerpt,
        relevance_level=RelevanceLevel.HIGH,
    )  # fmt: skip


def test_a_cause_clause_that_rules_a_kind_out_never_speaks_of_it() -> None:
    (runbook,) = library(
        [("k", block("doc:rb#1", "## Why it happens The failures start after the change, "
                                 "without a deploy; a restart is not the cause."))]
    )  # fmt: skip
    assert runbook.cause_speaks_of(frozenset({"change", "deploy", "restart"})) == {"change"}


def test_excerpts_of_one_document_from_several_searches_are_one_runbook() -> None:
    found = library(
        [
            ("k1", block("doc:rb#0", "## Symptoms - Connection is not available")),
            ("k2", block("doc:rb#4", "## Remediation - Revert the change in config-service.")),
            ("k2", block("doc:rb#0", "## Symptoms - Connection is not available")),
        ]
    )
    assert [(r.doc_id, [b.ref for _, b in r.blocks]) for r in found] == [
        ("rb", ["doc:rb#0", "doc:rb#4"])
    ]
    assert [s for _, _, s in found[0].remedies()] == ["Revert the change in config-service."]


def test_a_condition_says_what_its_action_is_done_to() -> None:
    found = conditions(
        [
            "Roll back the consumer only if the lag is normal.",
            "Roll back only if lag is normal.",
            "Do not roll back search-indexer or its flags while vault is sealed.",
        ]
    )
    assert [c.target for c in found] == ["the consumer", "", "search-indexer or its flags"]
