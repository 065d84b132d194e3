"""Progress of a run as the HTTP stream shows it: the snapshot projects the timeline (its
sequence number, the tool calls with status and evidence), watchers wake when the timeline
grows, a version-1 snapshot still parses, and a caller's limits only lower the budgets."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from harness.contracts.errors import ErrorCode
from harness.contracts.ingress import RunLimits, RunRequest
from harness.contracts.status import RunStatus
from harness.diagnosis import DiagnosisRun
from harness.run.snapshot import RunPhase, RunSnapshot, ToolProgress
from harness.testing.clock import FakeClock
from harness.testing.models import ScriptedModel, draft_json, text_reply, tool_reply
from harness.testing.rig import fake_deps
from harness.trace import Routed, RunStarted, TraceRecorder

KB = {"query": "connection pool", "top_k": 3}


def _route(intent: str) -> Any:
    return text_reply(json.dumps({"intent": intent}))


def test_the_snapshot_lists_each_tool_call_with_its_status_and_evidence() -> None:
    model = ScriptedModel(
        [
            _route("DIAGNOSIS"),
            tool_reply(("search_knowledge", KB, "call_1"), ("nope", {}, "call_2")),
            text_reply(draft_json("an-1")),
            text_reply(json.dumps({"verdict": "SUPPORTED", "issues": []})),
        ]
    )
    run = DiagnosisRun(
        RunRequest(question="why?", analysis_id="an-1"), fake_deps(model), run_id="run-p"
    )
    asyncio.run(run.execute())
    snapshot = run.snapshot()
    assert snapshot.sequence_no == len(run.trace.events)
    assert snapshot.tools == [
        ToolProgress(
            tool_call_id="call_2",
            tool_name="-",
            status="REJECTED",
            error_code=ErrorCode.TOOL_NOT_AUTHORIZED,
        ),
        ToolProgress(
            tool_call_id="call_1",
            tool_name="search_knowledge",
            status="READY",
            evidence_status="EVIDENCE_FOUND",
        ),
    ]  # in the order they finished: the refusal comes before any execution


def test_a_watcher_wakes_when_the_timeline_grows() -> None:
    async def scenario() -> list[int]:
        trace = TraceRecorder(run_id="run-w", clock=FakeClock())
        woke: list[int] = []

        async def watch() -> None:
            await trace.wait_beyond(0)
            woke.append(len(trace.events))
            await trace.wait_beyond(1)
            woke.append(len(trace.events))

        watcher = asyncio.create_task(watch())
        await asyncio.sleep(0)
        assert woke == []
        trace.record(RunStarted(status=RunStatus.RUNNING))
        await asyncio.sleep(0)
        trace.record(Routed(intent="SYSTEM_CHAT"))
        await asyncio.wait_for(watcher, 1)
        await trace.wait_beyond(1)  # already past: returns at once
        return woke

    assert asyncio.run(scenario()) == [1, 2]


def test_a_version_1_snapshot_still_parses() -> None:
    v1 = {
        "schema_version": 1,
        "run_id": "run-1",
        "status": "RUNNING",
        "phase": "INVESTIGATING",
        "intent": "DIAGNOSIS",
        "result_kind": None,
        "tool_calls": 2,
        "executions": 2,
        "rejections": 0,
        "model_calls": 3,
        "total_tokens": 900,
        "dropped_late": 0,
        "dropped_finishes": 0,
    }
    snapshot = RunSnapshot.model_validate(v1)
    assert (snapshot.schema_version, snapshot.phase, snapshot.tools, snapshot.sequence_no) == (
        1,
        RunPhase.INVESTIGATING,
        None,
        None,
    )


def test_a_callers_limits_lower_the_budgets_and_never_raise_them() -> None:
    deps = fake_deps(ScriptedModel([]))
    lowered = DiagnosisRun(
        RunRequest(question="q", limits=RunLimits(max_tool_calls=2, max_model_calls=500)), deps
    )
    assert (lowered.budget.budgets.max_tool_calls, lowered.budget.budgets.max_model_calls) == (
        2,
        deps.budgets.max_model_calls,
    )
    assert DiagnosisRun(RunRequest(question="q"), deps).budget.budgets == deps.budgets
