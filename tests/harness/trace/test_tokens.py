"""Token reconciliation: per-call provider usage, unavailable counted, never estimated."""

from __future__ import annotations

import asyncio
import json

from harness.contracts.ingress import RunRequest
from harness.contracts.models import Component
from harness.diagnosis import DiagnosisRun
from harness.testing.models import ScriptedModel, draft_json, text_reply, tool_reply, usage
from harness.testing.rig import fake_deps
from harness.trace import AgentStep, ModelTokenUsage, RunFinished

CITE = {
    "id": "c1",
    "kind": "OBSERVATION",
    "statement": "the pool is exhausted",
    "confidence": 0.7,
    "citations": [{"tool_call_id": "k1", "item_ref": "doc:a#0"}],
}


def _mixed_run() -> DiagnosisRun:
    router = ScriptedModel([text_reply(json.dumps({"intent": "DIAGNOSIS"}))])
    # The agent's provider reports no usage at all; the judge's reports a different size.
    agent = ScriptedModel(
        [
            tool_reply(("search_knowledge", {"query": "pool"}, "k1"), with_usage=False),
            text_reply(draft_json("an-1", [CITE]), with_usage=False),
        ]
    )
    judge = ScriptedModel([text_reply(json.dumps({"verdict": "SUPPORTED", "issues": []}))])
    judge.steps[0] = judge.steps[0].model_copy(update={"usage": usage(300, 7)})
    models = dict.fromkeys(Component, agent)
    models[Component.ROUTER] = router
    models[Component.SEMANTIC_GUARD] = judge
    run = DiagnosisRun(
        RunRequest(question="why?", analysis_id="an-1"), fake_deps(models), run_id="run-mix"
    )
    asyncio.run(run.execute())
    return run


def test_a_run_mixing_providers_with_and_without_usage_reconciles_exactly() -> None:
    run = _mixed_run()
    events = [e.details for e in run.trace.events]
    calls = [d for d in events if isinstance(d, ModelTokenUsage)]
    assert [(c.component, c.component_round, c.usage is not None) for c in calls] == [
        (Component.ROUTER, 1, True),
        (Component.DIAGNOSIS_AGENT, 1, False),
        (Component.DIAGNOSIS_AGENT, 2, False),
        (Component.SEMANTIC_GUARD, 1, True),
    ]
    (finished,) = [d for d in events if isinstance(d, RunFinished)]
    reported = [c.usage for c in calls if c.usage is not None]
    assert finished.ledger.input_tokens == sum(u.input_tokens for u in reported) == 400
    assert finished.ledger.output_tokens == sum(u.output_tokens for u in reported) == 27
    assert finished.ledger.total_tokens == sum(u.total_tokens for u in reported) == 427
    assert finished.unavailable_usage == 2
    assert finished.tokens_reconciled is False  # unavailable usage is never estimated
    assert [(m.component, m.usage) for m in finished.model_calls] == [
        (c.component, c.usage) for c in calls
    ]
    # Agent steps carry the agent's own per-turn total, or None when it was unavailable.
    steps = [d for d in events if isinstance(d, AgentStep)]
    assert [(s.step_no, s.token_count) for s in steps] == [(1, None), (2, None)]
    assert run.record is not None
    assert [s.token_count for s in run.record.agent_steps] == [None, None]
    assert run.record.run.usage_unavailable == 2 and not run.record.run.tokens_reconciled


def test_a_run_whose_providers_all_report_usage_is_reconciled() -> None:
    model = ScriptedModel(
        [
            text_reply(json.dumps({"intent": "DIAGNOSIS"})),
            tool_reply(("search_knowledge", {"query": "pool"}, "k1")),
            text_reply(draft_json("an-1", [CITE])),
            text_reply(json.dumps({"verdict": "SUPPORTED", "issues": []})),
        ]
    )
    run = DiagnosisRun(
        RunRequest(question="why?", analysis_id="an-1"), fake_deps(model), run_id="run-all"
    )
    asyncio.run(run.execute())
    (finished,) = [e.details for e in run.trace.events if isinstance(e.details, RunFinished)]
    assert (finished.unavailable_usage, finished.tokens_reconciled) == (0, True)
    assert finished.ledger.total_tokens == 4 * 120
    steps = [e.details for e in run.trace.events if isinstance(e.details, AgentStep)]
    assert [s.token_count for s in steps] == [120, 120]
