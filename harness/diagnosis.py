"""DiagnosisRun: one run from request to exactly one released result.

Thin orchestration: route, then the path for the intent, then release. Deadline and cancel
are enforced here with the event loop's timer and task cancellation — never trusted to the
model. ``_finish`` is the only way out and goes through ``RunContext.try_finish``: the first
terminal outcome is released; anything later (a completion racing a cancel, a late reply) is
dropped and counted.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from harness.agent.answers import answer_knowledge, answer_out_of_scope, answer_system_chat
from harness.agent.caller import ComponentSettings, ModelCaller
from harness.agent.loop import DiagnosisAgent
from harness.agent.router import route
from harness.boundary import ToolBoundary, ToolPolicy
from harness.budget import Budgets, RunBudget
from harness.control import InformationControl
from harness.errors import ErrorCode, HarnessError
from harness.models import Component, ModelClient
from harness.ports import AuditSink, CanonicalStore, Clock, ToolExecutor
from harness.release import Cancelled, ReleasedResult, StableFailure, TimedOut
from harness.release_policy import ReleasePolicy
from harness.retry import RetryPolicy
from harness.run import RunContext, RunStatus
from harness.tools import ToolRegistry
from harness.trace import TraceCategory, TraceRecorder, TraceSink

__all__ = ["DiagnosisRun", "RunDeps", "RunRequest"]

log = logging.getLogger(__name__)


class RunRequest(BaseModel):
    """What a caller asks for (HTTP body, CLI, offline evaluation)."""

    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True)

    question: str = Field(min_length=1, max_length=4000, description="The operator's question.")
    session_id: str | None = Field(default=None, max_length=64)
    owner: str = Field(
        default="anonymous", max_length=128, description="Principal that owns the run."
    )
    analysis_id: str | None = Field(default=None, max_length=64)
    as_of: datetime | None = Field(
        default=None, description="'Now' for the investigation; default: the clock."
    )
    deadline_s: float | None = Field(
        default=None, gt=0, le=3600, description="Run deadline; default: deployment's."
    )


@dataclass(kw_only=True)
class RunDeps:
    """Everything a run is built from; shared by the runs of one process."""

    models: Mapping[Component, ModelClient]
    registry: ToolRegistry
    store: CanonicalStore
    executor: ToolExecutor
    clock: Clock
    policy: ToolPolicy = field(default_factory=ToolPolicy)
    budgets: Budgets = field(default_factory=Budgets)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    component_settings: Mapping[Component, ComponentSettings] = field(default_factory=dict)
    datasource: str = "shop-primary"
    default_deadline_s: float = 120.0
    audit: AuditSink | None = None
    trace_sink: TraceSink | None = None
    release: ReleasePolicy | None = None


class DiagnosisRun:
    """Owns one run's context, budget, boundary and model caller."""

    def __init__(self, request: RunRequest, deps: RunDeps, *, run_id: str | None = None) -> None:
        self.request = request
        self.deps = deps
        now = deps.clock.now()
        run_id = run_id or f"run-{uuid.uuid4().hex[:20]}"
        self.run = RunContext.open(
            run_id=run_id,
            now=now,
            timeout_s=request.deadline_s or deps.default_deadline_s,
            session_id=request.session_id or "",
            owner=request.owner,
            analysis_id=request.analysis_id or f"an-{run_id.removeprefix('run-')}",
        )
        self.budget = RunBudget(deps.budgets)
        self.trace = TraceRecorder(run_id=run_id, clock=deps.clock, sink=deps.trace_sink)
        self.boundary = ToolBoundary(
            run=self.run,
            budget=self.budget,
            registry=deps.registry,
            policy=deps.policy,
            store=deps.store,
            executor=deps.executor,
            clock=deps.clock,
            control=InformationControl(no_gain_threshold=deps.policy.no_gain_threshold),
            audit=deps.audit,
            trace=self.trace,
        )
        self.caller = ModelCaller(
            models=deps.models,
            budget=self.budget,
            run=self.run,
            clock=deps.clock,
            retry=deps.retry,
            settings=deps.component_settings,
            trace=self.trace,
        )
        self.release_policy = deps.release or ReleasePolicy(store=deps.store)
        self.result: ReleasedResult | None = None
        self.intent: str | None = None
        self.phase = "PENDING"
        self._done: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def run_id(self) -> str:
        return self.run.run_id

    # ------------------------------------------------------------------ lifecycle

    async def execute(self) -> ReleasedResult:
        """Run to the first terminal outcome and return what was released."""
        loop = asyncio.get_running_loop()
        self._done = asyncio.Event()
        self.run.start()
        self.trace.record(TraceCategory.RUN, "RUN_STARTED", {"status": self.run.status.value})
        remaining_s = (self.run.deadline - self.deps.clock.now()).total_seconds()
        timer = loop.call_later(max(0.0, remaining_s), self._on_deadline)
        self._task = asyncio.create_task(self._body(), name=f"run:{self.run_id}")
        try:
            await self._done.wait()
        finally:
            timer.cancel()
            if not self._task.done():
                self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        assert self.result is not None
        self._record_finish()
        await self.trace.flush()
        return self.result

    def _record_finish(self) -> None:
        ledger = self.budget.ledger
        self.trace.record(
            TraceCategory.RUN,
            "RUN_FINISHED",
            {
                "status": self.run.status.value,
                "result_type": self.result.type if self.result is not None else None,
                "ledger": ledger.snapshot(),
                "usage": ledger.model_usage,
                "unavailable_usage": ledger.usage_unavailable,
                "tokens_reconciled": self.budget.tokens_reconciled(),
                "dropped_late": self.run.dropped_late,
                "dropped_finishes": self.run.dropped_finishes,
            },
        )

    def cancel(self) -> bool:
        """Cancel the run; True when this call decided its terminal state."""
        return self._end(RunStatus.CANCELLED, Cancelled(run_id=self.run_id))

    def fail(self, code: ErrorCode) -> bool:
        """End the run as FAILED from outside (e.g. its host is shutting down)."""
        return self._end(RunStatus.FAILED, StableFailure(run_id=self.run_id, error_code=code))

    def _end(self, status: RunStatus, result: ReleasedResult) -> bool:
        won = self._finish(status, result)
        if self._task is not None and not self._task.done():
            self._task.cancel()
        return won

    def _on_deadline(self) -> None:
        if (
            self._finish(RunStatus.TIMED_OUT, TimedOut(run_id=self.run_id))
            and self._task is not None
        ):
            self._task.cancel()

    def _finish(self, status: RunStatus, result: ReleasedResult) -> bool:
        if not self.run.try_finish(status, getattr(result, "error_code", None)):
            return False
        self.result = result
        self.phase = "DONE"
        if self._done is not None:
            self._done.set()
        return True

    # ------------------------------------------------------------------ the run itself

    async def _body(self) -> None:
        try:
            result = await self._route_and_answer()
        except asyncio.CancelledError:
            raise
        except HarnessError as err:
            if self.run.terminal:
                return  # the run already ended; this is the late echo of that
            if err.error_code is ErrorCode.DEADLINE_EXCEEDED:
                self._finish(RunStatus.TIMED_OUT, TimedOut(run_id=self.run_id))
            else:
                self._finish(
                    RunStatus.FAILED, StableFailure(run_id=self.run_id, error_code=err.error_code)
                )
            return
        except Exception:
            log.exception("run failed unexpectedly run_id=%s", self.run_id)
            self._finish(
                RunStatus.FAILED,
                StableFailure(run_id=self.run_id, error_code=ErrorCode.INTERNAL_ERROR),
            )
            return
        if not self._finish(RunStatus.COMPLETED, result):
            self.run.drop_late()

    async def _route_and_answer(self) -> ReleasedResult:
        question = self.request.question
        self.phase = "ROUTING"
        self.intent = await route(self.caller, question)
        self.trace.record(TraceCategory.ROUTING, "ROUTED", {"intent": self.intent})
        if self.intent == "DIAGNOSIS":
            self.phase = "INVESTIGATING"
            agent = DiagnosisAgent(
                caller=self.caller, boundary=self.boundary, datasource=self.deps.datasource
            )
            outcome = await agent.run(question, as_of=self.request.as_of or self.deps.clock.now())
            self.phase = "RELEASING"
            return await self.release_policy.release(self, outcome)
        self.phase = "ANSWERING"
        if self.intent == "KNOWLEDGE_QA":
            return await answer_knowledge(self.caller, self.boundary, question)
        if self.intent == "SYSTEM_CHAT":
            return await answer_system_chat(self.caller, self.boundary, question)
        return answer_out_of_scope(self.boundary)

    # ------------------------------------------------------------------ views

    def snapshot(self) -> dict[str, Any]:
        """Progress for status endpoints and the dashboard: ids, phase, figures; no content."""
        ledger = self.budget.ledger.snapshot()
        return {
            "run_id": self.run_id,
            "status": self.run.status.value,
            "phase": self.phase,
            "intent": self.intent,
            "result_type": self.result.type if self.result is not None else None,
            "tool_calls": ledger["tool_calls"],
            "executions": ledger["executions"],
            "rejections": ledger["rejections"],
            "model_calls": ledger["model_calls"],
            "total_tokens": ledger["total_tokens"],
            "dropped_late": self.run.dropped_late,
            "dropped_finishes": self.run.dropped_finishes,
        }
