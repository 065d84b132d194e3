"""Peers side by side: one scripted diagnosis through pydantic-ai, the Agents SDK and the harness.

Prints a readable table and, as its last line, one JSON object with the same figures.

The workload is one script, played by each framework's own scripted-model fake: five model
turns that call six tools between them (two in the first turn, one in each of the next four),
every tool answering ~8 KB, then a sixth model call with the final answer. The tools are the
harness's two read-only shapes, ``query_logs`` and ``search_knowledge`` (three calls each), and
the answer is the same DiagnosisDraft JSON everywhere.

- **pydantic-ai**: ``pydantic_ai.models.function.FunctionModel`` computes each reply from the
  messages so far; the tools are plain functions returning the backend's ~8 KB JSON text.
- **openai-agents**: ``agents.testing.ScriptedModel`` plays the same steps; tracing is off
  (``set_tracing_disabled`` and ``RunConfig(tracing_disabled=True)``); the tools are
  ``function_tool`` functions.
- **harness**: ``DiagnosisRun`` on :func:`harness.testing.fake_deps` with a
  ``harness.testing.FunctionModel``, the in-memory canonical store, trivial backends (the same
  ~8 KB raw) and trivial projectors (a logs projector here and ``harness.testing.DocsProjector``;
  8–10 KB observations). On top of the peers' work it routes (one router model call), passes
  every call through ToolBoundary (typed arguments, budgets, duplicate scope, information
  gain), writes six canonical records (begin, READY), projects, runs EvidenceGuard (every
  citation read back from the store, grounding), the content checks and a scripted
  SemanticGuard (one more model call), and releases a DiagnosisReport.

All three play the script through an in-process fake model: no provider SDK runs (for the
harness's openai adapter see ``bench_run_plane.py``). Every model reply is built when the
framework asks for it, except the Agents SDK's, whose ScriptedModel takes its steps up front
(one model per run, built before the timer starts).

Figures are CPU milliseconds per run (``time.process_time``, all threads of this process),
runs in sequence on one event loop. ``--rounds`` times over the three frameworks in turn:
``--warmup`` untimed runs, then ``--batches`` timed batches of ``--runs`` runs; the figure is
the median of all batches' CPU per run. After the warm-up and after every batch the last run
is checked (six tool calls of ~8 KB, the final answer; for the harness a DiagnosisReport and
six READY canonical records), so a figure never comes from runs that failed early. Usage:
``python benchmarks/bench_peers.py [--runs 30] [--batches 3] [--rounds 3]``.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic import BaseModel

from harness.contracts.ingress import RunRequest
from harness.contracts.invocation import EvidenceStatus, InvocationStatus
from harness.contracts.models import Component, ModelReply, ModelRequest
from harness.contracts.observation import (
    LogEvent,
    LogsObservation,
    LogsScope,
    LogTemplate,
    Projection,
    ProjectionFacts,
)
from harness.contracts.results import DiagnosisReport
from harness.diagnosis import DiagnosisRun
from harness.testing import DocsProjector, FunctionModel, fake_deps, text_reply, tool_reply

GOAL_RATIO = 1.5
QUESTION = "Why does checkout-api return HTTP 500 since 14:05?"
ANALYSIS_ID = "an-bench-peers"
OUTPUT_BYTES = 8 * 1024
_KEPT_EVENTS = 12
_T0 = datetime(2026, 3, 2, 14, 0, tzinfo=UTC)

# ---------------------------------------------------------------- the one script


@dataclass(frozen=True)
class Call:
    tool: str
    arguments: dict[str, Any]
    call_id: str


def _logs(call_id: str, query: str) -> Call:
    arguments = {
        "start": "2026-03-02T13:50:00Z",
        "end": "2026-03-02T14:30:00Z",
        "services": ["checkout-api"],
        "query": query,
    }
    return Call("query_logs", arguments, call_id)


def _kb(call_id: str, query: str) -> Call:
    return Call("search_knowledge", {"query": query, "top_k": 5}, call_id)


# Five model turns; six tool calls spread over them; then the final answer.
TURNS: tuple[tuple[Call, ...], ...] = (
    (_logs("call_1", "db_pool_timeout"), _kb("call_2", "connection pool exhausted")),
    (_logs("call_3", "HTTP 500"),),
    (_kb("call_4", "pool size change"),),
    (_logs("call_5", "CHG-4821"),),
    (_kb("call_6", "rollback a configuration change"),),
)
CALLS = tuple(call for turn in TURNS for call in turn)
TOOL_NAMES = ("query_logs", "search_knowledge")


def _tpl_ref(call_id: str, n: int) -> str:
    """The log template ref of group ``n`` of a call (the trivial projector's)."""
    return f"tpl:{hashlib.sha1(f'{call_id}:{n}'.encode()).hexdigest()[:12]}"


def _conclusion(n: int, kind: str, statement: str, *refs: tuple[str, str]) -> dict[str, Any]:
    return {
        "id": f"c{n}",
        "kind": kind,
        "statement": statement,
        "confidence": 0.8,
        "citations": [{"tool_call_id": cid, "item_ref": ref} for cid, ref in refs],
    }


def _draft() -> str:
    """The final answer: a DiagnosisDraft citing every tool call of the script."""
    conclusions = [
        _conclusion(
            1,
            "ROOT_CAUSE",
            "checkout-api fails with db_pool_timeout because its connection pool is exhausted",
            ("call_1", _tpl_ref("call_1", 0)),
            ("call_2", "doc:call_2-0#0"),
        ),
        _conclusion(
            2,
            "OBSERVATION",
            "checkout-api answers HTTP 500 while the pool is exhausted",
            ("call_3", _tpl_ref("call_3", 0)),
        ),
        _conclusion(
            3,
            "CONTRIBUTING_FACTOR",
            "the change CHG-4821 lowered the pool size of checkout-api",
            ("call_5", _tpl_ref("call_5", 0)),
            ("call_4", "doc:call_4-0#0"),
        ),
    ]
    steps = [
        {
            "text": "Roll back the configuration change and restart the pool",
            "citations": [{"tool_call_id": "call_6", "item_ref": "doc:call_6-0#0"}],
        }
    ]
    return json.dumps(
        {
            "analysis_id": ANALYSIS_ID,
            "summary": "checkout-api exhausted its connection pool after a configuration change.",
            "conclusions": conclusions,
            "next_steps": steps,
            "limitations": [],
        }
    )


FINAL_ANSWER = _draft()

# ---------------------------------------------------------------- trivial backends (~8 KB each)

_LOG_LINES = (
    "db_pool_timeout: connection pool exhausted on checkout-api after {ms} ms (request {n})",
    "HTTP 500 on POST /checkout from checkout-api: pool exhausted (request {n})",
    "CHG-4821 applied: pool size of checkout-api lowered, {n} connections in use",
)
_DOCS = {
    "call_2": "Connection pool exhausted: checkout-api fails with db_pool_timeout when its pool is exhausted.",
    "call_4": "Pool size change: the change CHG-4821 lowered the pool size of checkout-api.",
    "call_6": "Rollback: roll back the configuration change and restart the pool of the service.",
}


def _fill(items: list[dict[str, Any]], make: Callable[[int], dict[str, Any]]) -> None:
    """Append items until the JSON text of the list reaches ~OUTPUT_BYTES."""
    size = 2
    while size < OUTPUT_BYTES:
        item = make(len(items))
        items.append(item)
        size += len(json.dumps(item)) + 2


def logs_raw(call_id: str) -> dict[str, Any]:
    line = _LOG_LINES[int(call_id.removeprefix("call_")) // 2 % len(_LOG_LINES)]
    events: list[dict[str, Any]] = []
    _fill(
        events,
        lambda n: {
            "ts": (_T0 + timedelta(seconds=5 * n)).isoformat(),
            "service": "checkout-api",
            "level": "ERROR",
            "template": n // 2,
            "message": line.format(ms=2500 + n, n=f"{call_id}-{n}"),
        },
    )
    return {"call_id": call_id, "events": events}


def knowledge_raw(call_id: str) -> dict[str, Any]:
    docs: list[dict[str, Any]] = []
    _fill(
        docs,
        lambda n: {
            "doc_id": f"{call_id}-{n}",
            "title": f"Runbook {call_id}-{n}",
            "text": f"{_DOCS[call_id]} Section {n}: " + "see the service dashboard. " * 8,
        },
    )
    return {"docs": docs}


def tool_output(call_id: str, tool: str) -> str:
    """What a peer's tool returns: the backend's ~8 KB JSON text."""
    raw = logs_raw(call_id) if tool == "query_logs" else knowledge_raw(call_id)
    return json.dumps(raw)


# ---------------------------------------------------------------- the three frameworks


@dataclass(frozen=True)
class Framework:
    """How to play the script once in one framework, and how to check that it was played."""

    name: str
    run_one: Callable[[], Awaitable[Any]]
    check: Callable[[Any], Awaitable[None]]
    """Raises unless the run called the six tools and ended with the final answer."""
    prepare: Callable[[int], None] = lambda n: None
    """Untimed set-up for the next ``n`` runs."""


def on_pydantic_ai() -> Framework:
    from pydantic_ai import Agent, Tool
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import FunctionModel

    boundaries = _turn_boundaries()

    def play(messages: list[Any], info: Any) -> ModelResponse:
        returned = sum(
            isinstance(part, ToolReturnPart) for message in messages for part in message.parts
        )
        turn = boundaries.get(returned)
        if turn is None:
            return ModelResponse(parts=[TextPart(FINAL_ANSWER)])
        return ModelResponse(
            parts=[ToolCallPart(c.tool, dict(c.arguments), c.call_id) for c in TURNS[turn]]
        )

    def query_logs(start: str, end: str, services: list[str], query: str | None = None) -> str:
        """Search the logs."""
        return tool_output(_call_id("query_logs", query), "query_logs")

    def search_knowledge(query: str, top_k: int = 5) -> str:
        """Search the runbooks."""
        return tool_output(_call_id("search_knowledge", query), "search_knowledge")

    agent = Agent(
        FunctionModel(play),
        tools=[Tool(query_logs, takes_ctx=False), Tool(search_knowledge, takes_ctx=False)],
    )

    async def check(result: Any) -> None:
        calls = [
            part
            for message in result.all_messages()
            for part in message.parts
            if isinstance(part, ToolReturnPart)
        ]
        assert len(calls) == len(CALLS), f"pydantic-ai ran {len(calls)} tool calls"
        assert all(len(str(p.content)) >= OUTPUT_BYTES for p in calls)
        assert result.output == FINAL_ANSWER

    return Framework("pydantic-ai", lambda: agent.run(QUESTION), check)


def on_openai_agents() -> Framework:
    from agents import Agent, RunConfig, Runner, function_tool, set_tracing_disabled
    from agents.testing import ScriptedModel, assistant_message, function_call

    set_tracing_disabled(True)

    @function_tool
    def query_logs(start: str, end: str, services: list[str], query: str | None = None) -> str:
        """Search the logs."""
        return tool_output(_call_id("query_logs", query), "query_logs")

    @function_tool
    def search_knowledge(query: str, top_k: int = 5) -> str:
        """Search the runbooks."""
        return tool_output(_call_id("search_knowledge", query), "search_knowledge")

    steps = [
        [function_call(c.tool, c.arguments, call_id=c.call_id) for c in turn] for turn in TURNS
    ] + [[assistant_message(FINAL_ANSWER)]]
    agent = Agent(
        name="diagnosis",
        instructions="Diagnose the incident.",
        tools=[query_logs, search_knowledge],
    )
    models: list[Any] = []

    def prepare(n: int) -> None:
        """One fresh scripted model per run, built before the timer starts."""
        models[:] = [ScriptedModel(steps) for _ in range(n)]

    async def run_one() -> Any:
        model = models.pop()
        result = await Runner.run(
            agent, QUESTION, run_config=RunConfig(model=model, tracing_disabled=True)
        )
        model.assert_complete()
        return result

    async def check(result: Any) -> None:
        outputs = [i for i in result.new_items if type(i).__name__ == "ToolCallOutputItem"]
        assert len(outputs) == len(CALLS), f"openai-agents ran {len(outputs)} tool calls"
        assert all(len(str(i.output)) >= OUTPUT_BYTES for i in outputs)
        assert result.final_output == FINAL_ANSWER

    return Framework("openai-agents", run_one, check, prepare)


# ---------------------------------------------------------------- the harness


class TrivialBackend:
    """Answers every call of the script with its ~8 KB raw (a ToolBackend)."""

    def __init__(self, tool: str) -> None:
        self.tool = tool

    def fetch(self, request: BaseModel, *, max_raw_bytes: int) -> Any:
        call_id = _call_id(self.tool, getattr(request, "query", None))
        return logs_raw(call_id) if self.tool == "query_logs" else knowledge_raw(call_id)


class TrivialLogsProjector:
    """Raw events → a LogsObservation: one template per pair of events, the first events kept."""

    def project(self, tool_call_id: str, request: Any, raw: Any) -> Projection:
        events = raw["events"]
        groups: dict[int, list[dict[str, Any]]] = {}
        for event in events:
            groups.setdefault(event["template"], []).append(event)
        call = raw["call_id"]
        templates = [
            LogTemplate(
                ref=_tpl_ref(call, n),
                template=members[0]["message"],
                count=len(members),
                services=["checkout-api"],
                level="ERROR",
                first_seen=members[0]["ts"],
                last_seen=members[-1]["ts"],
            )
            for n, members in groups.items()
        ]
        observation = LogsObservation(
            tool_call_id=tool_call_id,
            evidence_status=EvidenceStatus.EVIDENCE_FOUND,
            scope=LogsScope(
                start=request.start, end=request.end, services=request.services, query=request.query
            ),
            actual_start=events[0]["ts"],
            actual_end=events[-1]["ts"],
            templates=templates,
            events=[
                LogEvent(
                    ref=f"evt:{n}",
                    ts=e["ts"],
                    service=e["service"],
                    level=e["level"],
                    template_ref=_tpl_ref(call, e["template"]),
                    message=e["message"],
                )
                for n, e in enumerate(events[:_KEPT_EVENTS])
            ],
            truncated=len(events) > _KEPT_EVENTS,
        )
        facts = ProjectionFacts(
            returned_count=len(events), evidence_identities=frozenset(t.ref for t in templates)
        )
        return Projection(observation=observation, facts=facts)


def on_harness(observation_bytes: list[int]) -> Framework:
    """The harness; each check writes the sizes of the observations into ``observation_bytes``."""
    boundaries = _turn_boundaries()

    def play(request: ModelRequest) -> ModelReply:
        # Each reply is built when asked for, as pydantic-ai's FunctionModel builds its own.
        if request.component is Component.ROUTER:
            return text_reply(json.dumps({"intent": "DIAGNOSIS"}))
        if request.component is Component.SEMANTIC_GUARD:
            return text_reply(json.dumps({"verdict": "SUPPORTED", "issues": []}))
        turn = boundaries.get(sum(m.role == "tool" for m in request.messages))
        if turn is None:
            return text_reply(FINAL_ANSWER)
        return tool_reply(*((c.tool, c.arguments, c.call_id) for c in TURNS[turn]))

    model = FunctionModel(play)
    deps = fake_deps(
        model,
        backends={name: TrivialBackend(name) for name in TOOL_NAMES},
        projectors={"query_logs": TrivialLogsProjector(), "search_knowledge": DocsProjector()},
    )

    async def run_one() -> Any:
        model.requests.clear()  # the fake records requests; keep one run's worth
        return await DiagnosisRun(
            RunRequest(question=QUESTION, analysis_id=ANALYSIS_ID, as_of=_T0 + timedelta(hours=1)),
            deps,
        ).execute()

    async def check(result: Any) -> None:
        assert isinstance(result, DiagnosisReport), f"harness released {result.kind}"
        for call in CALLS:  # the canonical records of the run, READY
            record = await deps.store.get(result.run_id, call.call_id)
            assert record is not None and record.invocation_status is InvocationStatus.READY
        agent_calls = [r for r in model.requests if r.component is Component.DIAGNOSIS_AGENT]
        assert len(agent_calls) == len(TURNS) + 1
        tool_messages = [m for m in agent_calls[-1].messages if m.role == "tool"]
        assert len(tool_messages) == len(CALLS)
        assert all(len(m.content) >= OUTPUT_BYTES * 0.9 for m in tool_messages)
        observation_bytes[:] = [len(m.content.encode()) for m in tool_messages]

    return Framework("harness", run_one, check)


# ---------------------------------------------------------------- measuring


def _turn_boundaries() -> dict[int, int]:
    """Tool results seen so far → the turn to play next."""
    boundaries, seen = {}, 0
    for n, turn in enumerate(TURNS):
        boundaries[seen] = n
        seen += len(turn)
    return boundaries


def _call_id(tool: str, query: str | None) -> str:
    for call in CALLS:
        if call.tool == tool and call.arguments.get("query") == query:
            return call.call_id
    raise KeyError((tool, query))


async def _measure(framework: Framework, args: argparse.Namespace) -> list[float]:
    """CPU ms per run of each timed batch (after the warm-up runs)."""
    framework.prepare(args.warmup)
    for _ in range(args.warmup):
        result = await framework.run_one()
    await framework.check(result)
    samples = []
    for _ in range(args.batches):
        framework.prepare(args.runs)
        started = time.process_time()
        for _ in range(args.runs):
            result = await framework.run_one()
        samples.append((time.process_time() - started) * 1000 / args.runs)
        await framework.check(result)
    return samples


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    import agents
    import pydantic_ai

    observation_bytes: list[int] = []
    frameworks = [on_pydantic_ai(), on_openai_agents(), on_harness(observation_bytes)]
    samples: dict[str, list[float]] = {f.name: [] for f in frameworks}
    # Interleave the frameworks round by round, so that a change of load on the machine lands
    # on all three rather than on one.
    for _ in range(args.rounds):
        for framework in frameworks:
            samples[framework.name] += await _measure(framework, args)
    medians = {name: round(statistics.median(s), 2) for name, s in samples.items()}
    faster_peer = min(("pydantic-ai", "openai-agents"), key=lambda n: medians[n])
    ratios = {name: round(m / medians[faster_peer], 2) for name, m in medians.items()}
    return {
        "workload": {
            "model_turns_with_tools": len(TURNS),
            "tool_calls": len(CALLS),
            "final_answer_calls": 1,
            "tool_output_bytes": [len(tool_output(c.call_id, c.tool)) for c in CALLS],
            "harness_observation_bytes": observation_bytes,
            "harness_extra_model_calls": ["router", "semantic_guard"],
        },
        "versions": {
            "pydantic-ai": pydantic_ai.__version__,
            "openai-agents": agents.__version__,
        },
        "agents_model": "agents.testing.ScriptedModel",
        "runs_per_batch": args.runs,
        "batches": args.batches * args.rounds,
        "warmup": args.warmup,
        "cpu_ms_per_run": medians,
        "cpu_ms_per_run_samples": {n: [round(x, 2) for x in s] for n, s in samples.items()},
        "faster_peer": faster_peer,
        "ratio_to_faster_peer": ratios,
        "goal_ratio": GOAL_RATIO,
        "meets_goal": ratios["harness"] <= GOAL_RATIO,
    }


def _print_table(figures: dict[str, Any]) -> None:
    w = figures["workload"]
    print(
        f"Peers benchmark — {w['model_turns_with_tools']} model turns with {w['tool_calls']} tool "
        f"calls (~{statistics.median(w['tool_output_bytes']) / 1024:.1f} KB each), then the final "
        "answer; the harness also routes and judges (2 more model calls)"
    )
    print(
        f"pydantic-ai {figures['versions']['pydantic-ai']} (FunctionModel); openai-agents "
        f"{figures['versions']['openai-agents']} ({figures['agents_model']}, tracing off)"
    )
    print(
        f"CPU per run: median of {figures['batches']} batches of {figures['runs_per_batch']} "
        f"runs (time.process_time), after {figures['warmup']} warm-up runs"
    )
    print(f"{'framework':<16}{'CPU ms/run':>12}{'ratio':>8}   samples")
    for name, ms in figures["cpu_ms_per_run"].items():
        print(
            f"{name:<16}{ms:>12.2f}{figures['ratio_to_faster_peer'][name]:>7.2f}x"
            f"   {figures['cpu_ms_per_run_samples'][name]}"
        )
    verdict = "meets" if figures["meets_goal"] else "misses"
    print(
        f"harness / {figures['faster_peer']} = {figures['ratio_to_faster_peer']['harness']}x "
        f"({verdict} the <= {figures['goal_ratio']:g}x goal)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30, help="runs per timed batch")
    parser.add_argument("--batches", type=int, default=3, help="batches per round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds over the three frameworks")
    parser.add_argument("--warmup", type=int, default=5, help="untimed runs before each round")
    args = parser.parse_args()
    figures = asyncio.run(_main(args))
    _print_table(figures)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
