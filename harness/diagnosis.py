"""DiagnosisRun: one run from request to exactly one released result.

Thin orchestration: route, then the path for the intent, then release. Deadline and cancel
are enforced here — the deadline as a timer on the injected clock, cancel by task
cancellation — never trusted to the model. ``_finish`` is the only way out and goes through
``RunContext.try_finish``: the first terminal outcome is released; anything later (a
completion racing a cancel, a late reply) is dropped and counted.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import Literal

from harness.agent import (
    AgentAnswer,
    ComponentSettings,
    DiagnosisAgent,
    ModelCaller,
    RepairRound,
    answer_knowledge,
    answer_out_of_scope,
    answer_system_chat,
    route,
)
from harness.audit.reasoning import ReasoningCipher, seal_reasoning
from harness.audit.records import AgentStepAudit, AuditSink, RunAudit, RunRecord
from harness.contracts.catalog import AnswerTrigger, WorldCatalog
from harness.contracts.envelope import ToolPolicy
from harness.contracts.errors import ErrorCode, HarnessError
from harness.contracts.ids import new_run_id
from harness.contracts.ingress import RunLimits, RunRequest
from harness.contracts.intent import Intent
from harness.contracts.models import Component, FailureReason, ModelClient
from harness.contracts.results import Answer, Cancelled, ReleasedResult, StableFailure, TimedOut
from harness.guards.semantic import SemanticGuard
from harness.ports import CanonicalStore, Clock, ToolExecutor
from harness.release import ContentPolicy, ReleaseContext, ReleasePolicy
from harness.run.boundary import ToolBoundary
from harness.run.budget import Budgets, RunBudget
from harness.run.context import RunContext
from harness.run.control import InformationControl
from harness.run.retry import RetryPolicy
from harness.run.snapshot import RunPhase, RunSnapshot, tool_progress
from harness.tools import ToolRegistry
from harness.trace import (
    AgentStep,
    ModelCallUsage,
    Rerouted,
    Routed,
    RunFinished,
    RunStarted,
    TraceRecorder,
)

__all__ = ["UNCITED_ANSWER", "DiagnosisRun", "RunDeps"]

UNCITED_ANSWER = (
    "No runbook passage backs an answer to this question, so none is given: answers here come "
    "from the runbooks with their sources. To investigate the current state of a system, ask "
    "a diagnosis question, e.g. 'Why does my-service return HTTP 500 since 14:05?'"
)
"""Released instead of a knowledge answer that cites nothing (harness-written, never the
model's)."""

log = logging.getLogger(__name__)


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
    datasource: str = "default"
    """The logical datasource the agent is told to query (the deployment's; the tool plane's)."""
    catalog: WorldCatalog = field(default_factory=WorldCatalog)
    """What the world knows: told to the router, and bounding chat and knowledge answers."""
    default_deadline_s: float = 120.0
    audit: AuditSink | None = None
    """Where each run's durable record goes (a batching writer in production)."""
    cipher: ReasoningCipher | None = None
    """Seals provider reasoning; without one, reasoning text is never stored."""
    reasoning_retention: timedelta = timedelta(days=30)
    release: ReleasePolicy | None = None
    content: ContentPolicy = field(default_factory=ContentPolicy)


class DiagnosisRun:
    """Owns one run's context, budget, boundary and model caller."""

    def __init__(self, request: RunRequest, deps: RunDeps, *, run_id: str | None = None) -> None:
        self.request = request
        self.deps = deps
        run_id = run_id or new_run_id()
        self.run = RunContext.open(
            run_id=run_id,
            now=deps.clock.now(),
            timeout_s=request.deadline_s or deps.default_deadline_s,
            session_id=request.session_id or "",
            owner=request.owner,
            analysis_id=request.analysis_id or f"an-{run_id.removeprefix('run-')}",
        )
        self.as_of = request.as_of or self.run.created_at
        """'Now' of the investigation: the request's, else when the run opened."""
        self.budget = RunBudget(_capped(deps.budgets, request.limits))
        self.trace = TraceRecorder(run_id=run_id, clock=deps.clock)
        self.boundary = ToolBoundary(
            run=self.run,
            budget=self.budget,
            registry=deps.registry,
            policy=deps.policy,
            store=deps.store,
            executor=deps.executor,
            clock=deps.clock,
            control=InformationControl(no_gain_threshold=deps.policy.no_gain_threshold),
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
            as_of=self.as_of,
            datasource=deps.datasource,
        )
        self.release_policy = deps.release or ReleasePolicy(store=deps.store, content=deps.content)
        self.result: ReleasedResult | None = None
        self.record: RunRecord | None = None
        """The run's durable record, once it has ended."""
        self.audit_failures = 0
        self.intent: Intent | None = None
        self.phase = RunPhase.PENDING
        self._done: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def run_id(self) -> str:
        return self.run.run_id

    # ------------------------------------------------------------------ lifecycle

    async def execute(self) -> ReleasedResult:
        """Run to the first terminal outcome and return what was released."""
        self._done = asyncio.Event()
        self._started_s = self.deps.clock.monotonic()
        self.run.start()
        self.trace.record(RunStarted(status=self.run.status))
        remaining_s = (self.run.deadline - self.deps.clock.now()).total_seconds()
        timer = self.deps.clock.call_later(remaining_s, self._on_deadline)
        self._task = asyncio.create_task(self._body(), name=f"run:{self.run_id}")
        try:
            await self._done.wait()
        finally:
            timer.cancel()
            if not self._task.done():
                self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        assert self.result is not None
        self._record_finish(self.result)
        self.record = self._durable_record(self.result)
        await self._store(self.record)
        return self.result

    def _record_finish(self, result: ReleasedResult) -> None:
        ledger = self.budget.ledger
        self.trace.record(
            RunFinished(
                status=self.run.status,
                result_kind=result.kind,
                ledger=ledger.snapshot(),
                model_calls=[
                    ModelCallUsage(component=c.component, model=c.model[:128], usage=c.usage)
                    for c in ledger.model_usage
                ],
                unavailable_usage=ledger.usage_unavailable,
                tokens_reconciled=self.budget.tokens_reconciled(),
                dropped_late=self.run.dropped_late,
                dropped_finishes=self.run.dropped_finishes,
            )
        )

    def _durable_record(self, result: ReleasedResult) -> RunRecord:
        """Everything this run leaves behind: metadata, the timeline, sealed reasoning."""
        now = self.deps.clock.now()
        ledger = self.budget.ledger
        run = RunAudit(
            run_id=self.run_id,
            session_id=self.run.session_id,
            owner=self.run.owner,
            analysis_id=self.run.analysis_id,
            intent=self.intent,
            status=self.run.status,
            result_kind=result.kind,
            failure_stage=getattr(result, "failure_stage", None),
            error_code=result.error_code if isinstance(result, StableFailure) else None,
            created_at=self.run.created_at,
            finished_at=now,
            duration_ms=round((self.deps.clock.monotonic() - self._started_s) * 1000, 3),
            ledger=ledger.snapshot(),
            usage_unavailable=ledger.usage_unavailable,
            tokens_reconciled=self.budget.tokens_reconciled(),
        )
        steps = [
            AgentStepAudit(
                run_id=self.run_id,
                step_no=e.details.step_no,
                token_count=e.details.token_count,
                latency_ms=e.details.latency_ms,
                tool_calls=e.details.tool_calls,
                outcome=e.details.outcome,
            )
            for e in self.trace.events
            if isinstance(e.details, AgentStep)
        ]
        notes = self.caller.reasoning
        cipher = self.deps.cipher
        if cipher is None:
            # Without a cipher reasoning text is never stored, not even for a moment: only the
            # "unavailable" rows are kept, and those need no encryption.
            notes, cipher = [n for n in notes if not n.text], _NO_CIPHER
        reasoning = seal_reasoning(
            notes,
            run_id=self.run_id,
            session_id=self.run.session_id,
            owner=self.run.owner,
            cipher=cipher,
            now=now,
            retention=self.deps.reasoning_retention,
        )
        return RunRecord(
            run=run,
            tool_invocations=list(self.boundary.audit_rows),
            agent_steps=steps,
            trace=list(self.trace.events),
            reasoning=reasoning,
        )

    async def _store(self, record: RunRecord) -> None:
        """Hand the record to the audit; a failure is counted and logged, never raised."""
        if self.deps.audit is None:
            return
        try:
            await self.deps.audit.record(record)
        except Exception as exc:  # best effort by design: the released result stands
            self.audit_failures += 1
            log.warning("audit record failed run_id=%s error=%s", self.run_id, type(exc).__name__)

    def cancel(self) -> bool:
        """Cancel the run; True when this call decided its terminal state."""
        return self._end(Cancelled(run_id=self.run_id))

    def fail(self, code: ErrorCode) -> bool:
        """End the run as FAILED from outside (e.g. its host is shutting down)."""
        return self._end(StableFailure(run_id=self.run_id, error_code=code))

    def _end(self, result: ReleasedResult) -> bool:
        won = self._finish(result)
        if self._task is not None and not self._task.done():
            self._task.cancel()
        return won

    def _on_deadline(self) -> None:
        self._end(TimedOut(run_id=self.run_id))

    def _finish(self, result: ReleasedResult) -> bool:
        code = result.error_code if isinstance(result, StableFailure) else None
        if not self.run.try_finish(result.run_status, code):
            return False
        self.result = result
        self.phase = RunPhase.DONE
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
                self._finish(TimedOut(run_id=self.run_id))
            else:
                self._finish(_stable_failure(self.run_id, err))
            return
        except Exception:
            log.exception("run failed unexpectedly run_id=%s", self.run_id)
            self._finish(StableFailure(run_id=self.run_id, error_code=ErrorCode.INTERNAL_ERROR))
            return
        if not self._finish(result):
            self.run.drop_late()

    async def _route_and_answer(self) -> ReleasedResult:
        question = self.request.question
        catalog = self.deps.catalog
        self.phase = RunPhase.ROUTING
        self.intent = await route(self.caller, question, catalog=catalog.summary())
        self.trace.record(Routed(intent=self.intent))
        chat = self.intent in (Intent.SYSTEM_CHAT, Intent.KNOWLEDGE_QA)
        named = catalog.named_in(question) if self.intent is Intent.SYSTEM_CHAT else ()
        if named:
            # A chat about a service, host or table of the world is a question about its
            # state, whatever the router said: only the diagnosis path may answer it from
            # evidence. (A knowledge question may name one: its answer is held to its
            # runbook sources below.)
            return await self._reroute("QUESTION_NAMES_CATALOG", len(named))
        if self.intent is Intent.DIAGNOSIS:
            return await self._diagnose()
        self.phase = RunPhase.ANSWERING
        if self.intent is Intent.KNOWLEDGE_QA:
            answer = await answer_knowledge(self.caller, self.boundary, question)
        elif self.intent is Intent.SYSTEM_CHAT:
            answer = await answer_system_chat(self.caller, question)
        else:
            answer = answer_out_of_scope()
        if chat:
            trigger = catalog.unfit_answer(
                knowledge=answer.intent is Intent.KNOWLEDGE_QA,
                text=answer.text,
                citations=answer.citations,
                sources=answer.sources,
            )
            if trigger == "ANSWER_NAMES_CATALOG":
                return await self._reroute(trigger, len(catalog.named_in(answer.text)))
            if trigger is not None:
                self._rerouted(trigger, "FALLBACK", 0)
                return self.release_policy.answer(
                    self.run_id, intent=answer.intent, text=UNCITED_ANSWER
                )
        return self._released_answer(answer)

    async def _reroute(self, trigger: AnswerTrigger, items: int) -> ReleasedResult:
        """Diagnosis instead of the route chosen: once per run (the diagnosis path releases
        no Answer, so it cannot come back here)."""
        self._rerouted(trigger, "DIAGNOSIS", items)
        # The run's intent is the path it took; the router's choice stays in the trace.
        self.intent = Intent.DIAGNOSIS
        return await self._diagnose()

    def _rerouted(
        self, trigger: AnswerTrigger, to: Literal["DIAGNOSIS", "FALLBACK"], items: int
    ) -> None:
        assert self.intent is not None
        self.trace.record(
            Rerouted(from_intent=self.intent, to=to, trigger=trigger, catalog_items=items)
        )

    async def _diagnose(self) -> ReleasedResult:
        self.phase = RunPhase.INVESTIGATING
        agent = DiagnosisAgent(
            caller=self.caller, boundary=self.boundary, datasource=self.deps.datasource
        )
        outcome = await agent.run(self.request.question, as_of=self.as_of)
        self.phase = RunPhase.RELEASING
        repair = RepairRound(caller=self.caller, messages=outcome.messages, trace=self.trace)
        return await self.release_policy.release(self._release_context(repair), outcome.draft)

    def _release_context(self, repair: RepairRound) -> ReleaseContext:
        return ReleaseContext(
            run_id=self.run_id,
            analysis_id=self.run.analysis_id,
            question=self.request.question,
            trace=self.trace,
            judge=SemanticGuard(self.caller),
            repair=repair,
        )

    def _released_answer(self, answer: AgentAnswer) -> Answer:
        return self.release_policy.answer(
            self.run_id, intent=answer.intent, text=answer.text, citations=answer.citations
        )

    # ------------------------------------------------------------------ views

    def snapshot(self) -> RunSnapshot:
        """Progress for status endpoints and the dashboard: ids, phase, figures; no content."""
        ledger = self.budget.ledger
        return RunSnapshot(
            run_id=self.run_id,
            status=self.run.status,
            phase=self.phase,
            intent=self.intent,
            result_kind=self.result.kind if self.result is not None else None,
            tool_calls=ledger.tool_calls,
            executions=ledger.executions,
            rejections=ledger.rejections,
            model_calls=ledger.model_calls,
            total_tokens=ledger.total_tokens,
            dropped_late=self.run.dropped_late,
            dropped_finishes=self.run.dropped_finishes,
            sequence_no=len(self.trace.events),
            tools=tool_progress(self.trace.events),
        )


def _stable_failure(run_id: str, err: HarnessError) -> StableFailure:
    """The released failure: the code, and the failing component and reason where a model
    call failed (named by the step that saw it; see ``harness.agent.caller.blame``)."""
    component = err.context.get("component")
    reason = err.context.get("reason")
    return StableFailure(
        run_id=run_id,
        error_code=err.error_code,
        component=Component(component) if component in _COMPONENTS else None,
        reason=FailureReason(reason) if reason in _REASONS else None,
    )


_COMPONENTS = frozenset(c.value for c in Component)
_REASONS = frozenset(r.value for r in FailureReason)


def _capped(budgets: Budgets, limits: RunLimits | None) -> Budgets:
    """The deployment's budgets, lowered (never raised) by the caller's limits."""
    if limits is None:
        return budgets
    lowered = {
        name: min(getattr(budgets, name), value)
        for name, value in limits.model_dump(exclude_none=True).items()
    }
    return replace(budgets, **lowered) if lowered else budgets


class _NoCipher:
    """Stands in when no cipher is configured: only unavailable notes reach it, so it never
    encrypts anything."""

    def encrypt(self, plaintext: bytes) -> tuple[str, bytes]:
        raise AssertionError("reasoning text without a cipher is dropped before sealing")

    def decrypt(self, key_id: str, ciphertext: bytes) -> bytes:
        raise AssertionError("nothing was encrypted")


_NO_CIPHER = _NoCipher()
