"""Picklable fakes for the Ray layer: a deps factory, a directed model and probe tools.

Everything a RunActor or a tool task uses is built in *its* process from a small picklable
factory, so test behaviour cannot be injected as live objects. It is written into the
question instead, as directives ``@key=value`` that the fakes read:

=============  ================================================================
directive      effect
=============  ================================================================
intent         the router's answer (default SYSTEM_CHAT; DIAGNOSIS runs tools)
route_s        seconds the router call takes
route_block_s  seconds the router call blocks the actor's event loop (a hung actor)
answer_s       seconds every later model call takes
answer         the system-chat reply text (default ``hello``)
barrier        N: the chat answer waits until N runs of this actor reach it
               (10 s at most) and then says ``together``, else ``alone``
tool_sleep_s   seconds every backend call blocks (interruptible by ray.cancel)
tool_raise     an ErrorCode the backend raises as a HarnessError
tool_crash     any value: the backend raises a plain exception
project_crash  any value: the projector raises a plain exception
token          names the marker files ``<token>.started|cancelled|finished`` (each holds
               ``{"pid", "node_id"}`` of the worker that wrote it)
ids            the diagnosis agent's tool_call ids are ``<ids>_1``, ``<ids>_2``, ...
cite           the draft cites this tool_call_id (e.g. one of another run) instead
=============  ================================================================
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Literal

from pydantic import BaseModel

from actors.tasks import ToolSet, ToolSetFactory
from harness.contracts.envelope import ToolPolicy
from harness.contracts.errors import ErrorCode, HarnessError
from harness.contracts.models import Component, ModelReply, ModelRequest
from harness.contracts.observation import Projection
from harness.contracts.rawcap import RawCap
from harness.diagnosis import RunDeps
from harness.testing.models import FunctionModel, draft_json, text_reply, tool_reply
from harness.testing.rig import fake_deps
from harness.testing.tools import DocsProjector, docs_raw
from harness.tools import QUERY_LOGS, QUERY_MYSQL, SEARCH_KNOWLEDGE

__all__ = [
    "DirectedModel",
    "FakeDepsFactory",
    "ProbeBackend",
    "ProbeProjector",
    "ProbeToolSetFactory",
    "directives",
]

_DIRECTIVE = re.compile(r"@(\w+)=([\w.:-]+)")
_ANALYSIS_ID = re.compile(r'"analysis_id": "([^"]+)"')
TOOLS = (SEARCH_KNOWLEDGE, QUERY_LOGS, QUERY_MYSQL)


def directives(text: str) -> dict[str, str]:
    """``@key=value`` pairs in ``text``; the first occurrence of a key wins."""
    found: dict[str, str] = {}
    for key, value in _DIRECTIVE.findall(text):
        found.setdefault(key, value)
    return found


def _task_name() -> str | None:
    """The Ray task this code runs in; None in a driver or without Ray."""
    import ray

    if not ray.is_initialized():
        return None
    context = ray.get_runtime_context()
    if context.worker.mode != ray.WORKER_MODE:
        return None  # a driver has no task (and Ray warns when asked)
    return context.get_task_name()


def _node_id() -> str | None:
    """The Ray node this code runs on; None without Ray."""
    import ray

    return ray.get_runtime_context().get_node_id() if ray.is_initialized() else None


# ---------------------------------------------------------------------- model


class _Discard(list):  # type: ignore[type-arg]
    """A request log that keeps nothing (runs in an actor are many; memory is measured)."""

    def append(self, item: Any) -> None:
        pass


@dataclass
class DirectedModel:
    """Replies computed from the directives of the run's question (see the module table)."""

    barrier_timeout_s: float = 10.0
    _barriers: dict[int, asyncio.Barrier] = field(default_factory=dict)

    def client(self) -> FunctionModel:
        return FunctionModel(self.reply, requests=_Discard())

    async def reply(self, request: ModelRequest) -> ModelReply:
        texts = [m.content or "" for m in request.messages if m.role in ("system", "user")]
        say = directives(" ".join(texts))
        if request.component is Component.ROUTER:
            await _sleep(say.get("route_s"))
            if "route_block_s" in say:
                time.sleep(float(say["route_block_s"]))  # on purpose: the whole actor hangs
            return text_reply(json.dumps({"intent": say.get("intent", "SYSTEM_CHAT")}))
        await _sleep(say.get("answer_s"))
        if request.component is Component.SYSTEM_CHAT:
            if "barrier" in say:
                return text_reply(await self._meet(int(say["barrier"])))
            return text_reply(say.get("answer", "hello"))
        if request.component is Component.DIAGNOSIS_AGENT:
            return self._diagnose(request, say)
        if request.component is Component.SEMANTIC_GUARD:
            return text_reply(json.dumps({"verdict": "SUPPORTED", "issues": []}))
        return text_reply("noted")

    async def _meet(self, parties: int) -> str:
        barrier = self._barriers.setdefault(parties, asyncio.Barrier(parties))
        try:
            await asyncio.wait_for(barrier.wait(), self.barrier_timeout_s)
        except (TimeoutError, asyncio.BrokenBarrierError):
            return "alone"
        return "together"

    @staticmethod
    def _diagnose(request: ModelRequest, say: dict[str, str]) -> ModelReply:
        tool_ids = [m.tool_call_id for m in request.messages if m.role == "tool"]
        if not tool_ids:
            probe = " ".join(f"@{k}={v}" for k, v in say.items() if k.startswith(("tool_", "tok")))
            calls: list[tuple[str, dict[str, Any]]] = [
                (SEARCH_KNOWLEDGE, {"query": f"connection pool {probe}".strip(), "top_k": 3}),
                (
                    QUERY_LOGS,
                    {
                        "start": "2026-11-02T13:00:00Z",
                        "end": "2026-11-02T15:00:00Z",
                        "services": ["checkout-api"],
                    },
                ),
                (QUERY_MYSQL, {"datasource": "shop-primary", "sql": "SELECT 1"}),
            ]
            if "ids" in say:
                return tool_reply(
                    *[(n, a, f"{say['ids']}_{i}") for i, (n, a) in enumerate(calls, 1)]
                )
            return tool_reply(*calls)
        system = next((m.content or "" for m in request.messages if m.role == "system"), "")
        match = _ANALYSIS_ID.search(system)
        conclusions = [
            {
                "id": f"c{n}",
                "kind": "OBSERVATION",
                "statement": "the connection pool is exhausted",
                "confidence": 0.8,
                "citations": [{"tool_call_id": say.get("cite", call_id), "item_ref": "doc:a#0"}],
            }
            for n, call_id in enumerate(tool_ids, start=1)
            if call_id
        ]
        return text_reply(draft_json(match.group(1) if match else "", conclusions))


async def _sleep(seconds: str | None) -> None:
    if seconds:
        await asyncio.sleep(float(seconds))


# ---------------------------------------------------------------------- tools


@dataclass
class ProbeBackend:
    """Returns ``docs_raw("a")`` plus where it ran; obeys the ``tool_*`` directives
    (``tool_read_bytes=N``: count N bytes read against the call's cap first)."""

    marker_dir: str | None = None
    calls: int = 0

    def fetch(self, request: BaseModel, *, max_raw_bytes: int) -> Any:
        self.calls += 1
        say = directives(str(getattr(request, "query", "") or ""))
        if "tool_raise" in say:
            raise HarnessError(ErrorCode(say["tool_raise"]), "probe", {"reason": "probe"})
        if "tool_read_bytes" in say:
            # A fetch that streams this many bytes, counted as a real backend counts them.
            RawCap(max_raw_bytes).charge(int(say["tool_read_bytes"]))
        if "tool_crash" in say:
            raise RuntimeError("probe crash with text that must not leave the worker")
        if "tool_sleep_s" in say:
            self._block(float(say["tool_sleep_s"]), say.get("token", "probe"))
        return {
            **docs_raw("a"),
            "task_name": _task_name(),
            "pid": os.getpid(),
            "calls": self.calls,
        }

    def _block(self, seconds: float, token: str) -> None:
        self._mark(token, "started")
        until = time.monotonic() + seconds
        try:
            while time.monotonic() < until:
                time.sleep(0.01)  # short sleeps: ray.cancel's KeyboardInterrupt lands at once
        except KeyboardInterrupt:
            self._mark(token, "cancelled")
            raise
        self._mark(token, "finished")

    def _mark(self, token: str, event: str) -> None:
        if self.marker_dir:
            where = {"pid": os.getpid(), "node_id": _node_id()}
            Path(self.marker_dir, f"{token}.{event}").write_text(json.dumps(where))


@dataclass
class ProbeProjector:
    """DocsProjector whose document titles say which task projected them."""

    def project(self, tool_call_id: str, request: BaseModel, raw: Any) -> Projection:
        if "project_crash" in directives(str(getattr(request, "query", "") or "")):
            raise RuntimeError("probe projector crash with text that must not leave the worker")
        name = _task_name() or "inline"
        docs = [{**d, "title": name} for d in raw.get("docs", [])] if isinstance(raw, dict) else []
        # The RAG-shaped observation needs a query; logs and SQL requests may not have one.
        scope = SimpleNamespace(query=str(getattr(request, "query", None) or "probe"), top_k=5)
        return DocsProjector().project(tool_call_id, scope, {**raw, "docs": docs})  # type: ignore[arg-type]


@dataclass(frozen=True)
class ProbeToolSetFactory:
    """Picklable tool set factory: a ProbeBackend and a ProbeProjector for every tool."""

    marker_dir: str | None = None

    def __call__(self) -> ToolSet:
        backend, projector = ProbeBackend(self.marker_dir), ProbeProjector()
        return ToolSet(
            backends={name: backend for name in TOOLS},
            projectors={name: projector for name in TOOLS},
        )


# ---------------------------------------------------------------------- deps


@dataclass(frozen=True)
class FakeDepsFactory:
    """Picklable deps factory: ``fake_deps`` with a DirectedModel and probe tools.

    Args:
        tool_execution: Probe tools inline in the actor, or as Ray tasks.
        tool_set_factory: The tasks' tool set (default: probe tools).
        deadline_s: Default run deadline.
        execute_timeout_s: Backend timeout (BACKEND_TIMEOUT after it).
        audit_url: Audit the runs into this database through the node's writer actor
            (``actors.deps.audit_sink``); None keeps no audit.
        tool_task_resources: Custom Ray resources each tool task requires (as the
            ``HARNESS_TOOL_TASK_RESOURCES`` setting gives the embedded deps).
        tool_slots: Tool calls the actor runs at once (``HARNESS_TOOL_SLOTS``); None = the
            executor's default.
    """

    tool_execution: Literal["inline", "ray"] = "inline"
    tool_set_factory: ToolSetFactory | None = None
    deadline_s: float = 30.0
    execute_timeout_s: float = 2.0
    audit_url: str | None = None
    tool_task_resources: tuple[tuple[str, float], ...] = ()
    tool_slots: int | None = None

    def __call__(self) -> RunDeps:
        tool_set_factory = self.tool_set_factory or ProbeToolSetFactory()
        tools = tool_set_factory()
        deps = fake_deps(
            DirectedModel().client(),
            backends=tools.backends,
            projectors=tools.projectors,
            deadline_s=self.deadline_s,
            policy=ToolPolicy(
                authorized_tools=frozenset(TOOLS),
                execute_timeout_s=self.execute_timeout_s,
                project_timeout_s=2.0,
            ),
        )
        if self.tool_execution == "ray":
            from actors.factory import tool_tasks
            from actors.tool_executor import RayToolExecutor

            tasks = tool_tasks(resources=self.tool_task_resources)
            deps.executor = RayToolExecutor(tool_set_factory, tasks=tasks, slots=self.tool_slots)
        if self.audit_url is not None:
            from actors.deps import audit_sink
            from harness.settings import Settings

            deps.audit = audit_sink(Settings(audit_url=self.audit_url, audit_flush_interval_s=0.2))
        return deps
