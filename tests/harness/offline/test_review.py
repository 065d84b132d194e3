"""The offline judge (SemanticGuard) checks what a reviewer would, on the verified snapshot."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from harness.contracts.draft import Citation, Conclusion, ConclusionKind, DiagnosisDraft, NextStep
from tests.harness.offline.conversations import Logs, World, rows, runbook

WORLD = World(question="Why does quote-engine fail since 11:10?",
              as_of=datetime(2026, 9, 14, 12, 0, tzinfo=UTC))  # fmt: skip
SYMPTOM = "rates fetch from ratefeed failed: connection refused; quotes stale"
LOGS = (
    Logs("c_logs", "2026-09-14T10:00:00Z", "2026-09-14T12:00:00Z", ["quote-engine"])
    .add("tpl:s", SYMPTOM, count=300, level="ERROR", first="2026-09-14T11:10:04Z",
         last="2026-09-14T11:59:00Z", services=["quote-engine"])
    .observation()
)  # fmt: skip
PROBES = rows("c_probe", "main.probes", [
    {"id": 1, "target": "ratefeed", "state": "DOWN", "probed_at": "2026-09-14 11:08:00"},
])  # fmt: skip
DEPLOYS = rows("c_dep", "main.deploys", [
    {"id": 7, "service": "quote-engine", "version": "4.2.0", "deployed_by": "ci",
     "deployed_at": "2026-09-14 11:09:00"},
    {"id": 8, "service": "billing-ui", "version": "3.0.0", "deployed_by": "ci",
     "deployed_at": "2026-09-14 11:05:00"},
])  # fmt: skip
KB = runbook(
    "c_kb", "rb-rates", "quote-engine: rates fetch failed",
    "## Symptom quote-engine logs rates fetch from ratefeed failed: connection refused.",
    "## Cause ratefeed is down.",
    "## Remediation - Restart ratefeed. - Roll back quote-engine only if ratefeed is healthy.",
)  # fmt: skip
RECORDS: dict[str, Any] = {"c_logs": LOGS, "c_probe": PROBES, "c_dep": DEPLOYS, "c_kb": KB}


def cite(*pairs: tuple[str, str]) -> list[Citation]:
    return [Citation(tool_call_id=c, item_ref=r) for c, r in pairs]


def draft(statement: str, citations: list[Citation], *steps: NextStep) -> DiagnosisDraft:
    return DiagnosisDraft(
        analysis_id="an-1",
        summary="s",
        conclusions=[
            Conclusion(id="c1", kind=ConclusionKind.ROOT_CAUSE, statement=statement,
                       confidence=0.9, citations=citations)
        ],
        next_steps=list(steps),
    )  # fmt: skip


def verdict(d: DiagnosisDraft, records: dict[str, Any] = RECORDS) -> dict[str, Any]:
    return WORLD.judge(d, records)


def test_a_cause_the_symptom_names_is_supported() -> None:
    root = draft(
        "Probe target ratefeed: state DOWN at 2026-09-14 11:08:00 UTC; the symptom names ratefeed.",
        cite(("c_probe", "row:0"), ("c_logs", "tpl:s"), ("c_kb", "doc:rb-rates#1")),
    )
    assert verdict(root) == {"verdict": "SUPPORTED", "issues": []}


def test_one_item_links_a_cause_to_nothing() -> None:
    alone = draft("Probe target ratefeed: state DOWN.", cite(("c_probe", "row:0")))
    assert verdict(alone) == {
        "verdict": "UNSUPPORTED",
        "issues": [
            {"conclusion_id": "c1",
             "reason": "the cause is linked to no symptom by the evidence it cites"},
        ],
    }  # fmt: skip


def test_a_change_of_another_service_the_symptom_does_not_name_is_not_linked() -> None:
    unrelated = draft(
        "Deploy 3.0.0 on billing-ui by ci caused the failures.",
        cite(("c_dep", "row:1"), ("c_logs", "tpl:s")),
    )
    assert verdict(unrelated)["issues"] == [
        {
            "conclusion_id": "c1",
            "reason": "the cited evidence does not link the cause to the symptom",
        }
    ]


def test_a_deploy_whose_rollback_the_cited_runbook_conditions_on_a_false_fact_is_refused() -> None:
    herring = draft(
        "Deploy 4.2.0 on quote-engine by ci at 11:09 caused the failures; roll it back.",
        cite(("c_dep", "row:0"), ("c_logs", "tpl:s"), ("c_kb", "doc:rb-rates#2")),
    )
    assert verdict(herring)["issues"] == [
        {
            "conclusion_id": "c1",
            "reason": "the runbook 'quote-engine: rates fetch failed' makes rolling back "
            "conditional on the ratefeed being normal, and the evidence shows it is not",
        }
    ]
    # The same claim where the evidence holds nothing against the condition is linked (the
    # deploy is on the failing service) and stands.
    calm = LOGS.model_copy(
        update={"templates": [LOGS.templates[0].model_copy(update={"template": "quotes stale"})]}
    )
    assert verdict(herring, {**RECORDS, "c_logs": calm})["verdict"] == "SUPPORTED"


def test_names_and_figures_must_stand_in_the_cited_evidence() -> None:
    renamed = draft(
        "Probe target ratefeed-eu: state DOWN at 2026-09-14 11:08:00 UTC.",
        cite(("c_probe", "row:0"), ("c_logs", "tpl:s")),
    )
    assert verdict(renamed)["issues"] == [
        {"conclusion_id": "c1", "reason": "names not in the evidence: ratefeed-eu"}
    ]
    # Hyphenated prose and the names of the question claim nothing of the world.
    worded = draft(
        "Probe target ratefeed: state DOWN; a roll-back of quote-engine would not help.",
        cite(("c_probe", "row:0"), ("c_logs", "tpl:s")),
    )
    assert verdict(worded)["verdict"] == "SUPPORTED"
    refigured = draft(
        "Probe target ratefeed: state DOWN at 11:07 UTC.",
        cite(("c_probe", "row:0"), ("c_logs", "tpl:s")),
    )
    assert verdict(refigured)["issues"] == [
        {"conclusion_id": "c1", "reason": "figures not in the evidence: 11:07"}
    ]


def test_a_step_may_not_say_a_runbook_prescribes_what_its_excerpt_does_not_say() -> None:
    root_citations = cite(("c_probe", "row:0"), ("c_logs", "tpl:s"), ("c_kb", "doc:rb-rates#0"))
    statement = "Probe target ratefeed: state DOWN; the symptom names ratefeed."
    invented = NextStep(
        text="Revert deploy 4.2.0, as 'quote-engine: rates fetch failed' prescribes.",
        citations=cite(("c_kb", "doc:rb-rates#0")),
    )
    said = NextStep(
        text="Restart ratefeed, as 'quote-engine: rates fetch failed' prescribes.",
        citations=cite(("c_kb", "doc:rb-rates#2")),
    )
    assert verdict(draft(statement, root_citations, invented))["issues"] == [
        {"conclusion_id": "next_step:1",
         "reason": "the step says a runbook prescribes what its cited excerpt does not say"},
    ]  # fmt: skip
    assert verdict(draft(statement, root_citations, said))["verdict"] == "SUPPORTED"
    # The remedy excerpt says to roll back only while ratefeed is healthy, and it is down.
    conditional = NextStep(
        text="Revert deploy 4.2.0, as 'quote-engine: rates fetch failed' prescribes.",
        citations=cite(("c_kb", "doc:rb-rates#2")),
    )
    assert verdict(draft(statement, root_citations, conditional))["verdict"] == "UNSUPPORTED"
