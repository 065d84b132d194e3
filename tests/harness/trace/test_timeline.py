"""The timeline of a run: the demo's whole sequence, and gap-free numbers under concurrency."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

from harness.adapters.embedded import build_run_deps, build_tool_plane
from harness.contracts.ingress import RunRequest
from harness.diagnosis import DiagnosisRun
from harness.embedded.demo import INCIDENT_QUESTION, WINDOW_END
from harness.settings import Settings
from harness.testing.models import ScriptedModel, draft_json, text_reply, tool_reply
from harness.testing.rig import fake_deps
from harness.testing.tools import docs_raw
from harness.trace import ToolInvocation

_SHOWN = (
    "component",
    "component_round",
    "attempt",
    "outcome",
    "step_no",
    "tool_calls",
    "intent",
    "verdict",
    "result_kind",
    "status",
)


def _shape(events: list[Any]) -> list[Any]:
    """Each event as (category, type, its key details); a turn's tool calls as a sorted set
    (they run concurrently, so they may finish in any order)."""
    out: list[Any] = []
    for event in events:
        if isinstance(event.details, ToolInvocation):
            item = (event.details.tool_name, event.details.outcome)
            if out and isinstance(out[-1], list):
                out[-1] = sorted([*out[-1], item])
            else:
                out.append([item])
            continue
        body = event.details.model_dump(mode="json")
        out.append(
            (event.category.value, event.event_type, {k: body[k] for k in _SHOWN if k in body})
        )
    return out


def test_the_demo_run_yields_the_expected_timeline() -> None:
    settings = Settings()
    deps = build_run_deps(settings, plane=build_tool_plane(settings))
    run = DiagnosisRun(RunRequest(question=INCIDENT_QUESTION, as_of=WINDOW_END), deps)
    result = asyncio.run(run.execute())
    assert result.kind == "DiagnosisReport"
    usage = "MODEL_TOKEN_USAGE"
    assert _shape(run.trace.events) == [
        ("RUN", "RUN_STARTED", {"status": "RUNNING"}),
        ("ROUTING", usage, {"component": "ROUTER", "component_round": 1, "attempt": 1, "tool_calls": 0}),
        ("ROUTING", "ROUTING_ATTEMPT", {"attempt": 1, "outcome": "OK"}),
        ("ROUTING", "ROUTED", {"intent": "DIAGNOSIS"}),
        ("AGENT", usage, {"component": "DIAGNOSIS_AGENT", "component_round": 1, "attempt": 1, "tool_calls": 2}),
        ("AGENT", "AGENT_STEP", {"step_no": 1, "outcome": "TOOL_CALLS", "tool_calls": 2}),
        [("query_logs", "OBSERVATION"), ("search_knowledge", "OBSERVATION")],
        ("AGENT", usage, {"component": "DIAGNOSIS_AGENT", "component_round": 2, "attempt": 1, "tool_calls": 5}),
        ("AGENT", "AGENT_STEP", {"step_no": 2, "outcome": "TOOL_CALLS", "tool_calls": 5}),
        # Every cause table the catalog lists (changes, deploys, flags), the failed orders, and
        # every service's warnings around the onset.
        [("query_logs", "OBSERVATION")] + [("query_mysql", "OBSERVATION")] * 4,
        ("AGENT", usage, {"component": "DIAGNOSIS_AGENT", "component_round": 3, "attempt": 1, "tool_calls": 1}),
        ("AGENT", "AGENT_STEP", {"step_no": 3, "outcome": "TOOL_CALLS", "tool_calls": 1}),
        [("search_knowledge", "OBSERVATION")],
        ("AGENT", usage, {"component": "DIAGNOSIS_AGENT", "component_round": 4, "attempt": 1, "tool_calls": 0}),
        ("AGENT", "AGENT_STEP", {"step_no": 4, "outcome": "DRAFT", "tool_calls": 0}),
        ("EVIDENCE", "EVIDENCE_CHECK", {"attempt": 1, "outcome": "OK"}),
        ("SEMANTIC", usage, {"component": "SEMANTIC_GUARD", "component_round": 1, "attempt": 1, "tool_calls": 0}),
        ("SEMANTIC", "SEMANTIC_CHECK", {"verdict": "SUPPORTED"}),
        ("RELEASE", "RELEASE_DECISION", {"result_kind": "DiagnosisReport"}),
        ("RUN", "RUN_FINISHED", {"status": "COMPLETED", "result_kind": "DiagnosisReport"}),
    ]  # fmt: skip
    numbers = [e.sequence_no for e in run.trace.events]
    assert numbers == list(range(1, len(numbers) + 1))
    # The durable record carries the same timeline and one audit row per execution.
    assert run.record is not None and run.record.trace == run.trace.events
    assert [r.tool_name for r in run.record.tool_invocations].count("query_mysql") == 4
    assert [s.step_no for s in run.record.agent_steps] == [1, 2, 3, 4]


class _Gate:
    """A backend whose calls block until the test releases them, in any order it likes."""

    def __init__(self, names: list[str]) -> None:
        self.events = {n: threading.Event() for n in names}
        self.started: list[str] = []

    def fetch(self, request: Any, *, max_raw_bytes: int) -> Any:
        name = request.query
        self.started.append(name)
        self.events[name].wait(10)
        return docs_raw(name)


def test_concurrent_calls_finish_in_any_order_with_gap_free_sequence_numbers() -> None:
    names = ["q1", "q2", "q3", "q4"]
    gate = _Gate(names)
    calls = [("search_knowledge", {"query": n}, f"c_{n}") for n in names]
    model = ScriptedModel(
        [
            text_reply(json.dumps({"intent": "DIAGNOSIS"})),
            tool_reply(*calls),
            text_reply(draft_json("an-1")),
        ]
    )
    deps = fake_deps(model, backends={"search_knowledge": gate})
    run = DiagnosisRun(RunRequest(question="why?", analysis_id="an-1"), deps, run_id="run-c")

    async def main() -> Any:
        pending = asyncio.create_task(run.execute())
        while len(gate.started) < len(names):  # every call is in flight at once
            await asyncio.sleep(0.001)
        for name in reversed(names):  # finish them in the reverse of the model's order
            gate.events[name].set()
            while not any(
                isinstance(e.details, ToolInvocation) and e.details.tool_call_id == f"c_{name}"
                for e in run.trace.events
            ):
                await asyncio.sleep(0.001)
        return await pending

    try:
        asyncio.run(main())
    finally:
        for event in gate.events.values():
            event.set()
    invocations = [e.details for e in run.trace.events if isinstance(e.details, ToolInvocation)]
    assert [d.tool_call_id for d in invocations] == [f"c_{n}" for n in reversed(names)]
    numbers = [e.sequence_no for e in run.trace.events]
    assert numbers == list(range(1, len(numbers) + 1))
    # The model still reads the tool messages in its own order.
    draft_turn = model.requests[2]
    assert [m.tool_call_id for m in draft_turn.messages if m.role == "tool"] == [
        f"c_{n}" for n in names
    ]
