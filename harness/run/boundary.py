"""ToolBoundary: the one entry through which every tool call passes (docs/architecture.md §4).

Order of checks, each failure a stable code and nothing else:

1. run active (RUN_NOT_ACTIVE / CANCELLED / DEADLINE_EXCEEDED)
2. envelope run_id equals the current run (RUN_MISMATCH)
3. tool_call_id valid (INVALID_TOOL_CALL_ID) and unused (DUPLICATE_TOOL_CALL_ID); an id is
   single-use even when its request is then rejected
4. tool authorized (TOOL_NOT_AUTHORIZED) and declared read-only (TOOL_NOT_READ_ONLY)
5. arguments parse into the typed request (REQUEST_TOO_LARGE, INVALID_ARGUMENTS)
6. reserve the tool call and the request bytes (TOOL_BUDGET_EXHAUSTED, BYTES_BUDGET_EXHAUSTED)
7. plan the request (SQL_REJECTED), then duplicate-scope and saturation checks
   (DUPLICATE_SCOPE, INFORMATION_SATURATED)
8. take a slot of the executor's shared pool, waiting no longer than the run may (a run that
   ends while the call queues ends it with the run's code, as a rejection)
9. begin the canonical record as PROJECTING
10. execute with a timeout counted from the slot, not from the queue (BACKEND_ERROR,
    BACKEND_TIMEOUT); the backend counts the bytes it reads and stops past what the call may
    still book (RAW_TOO_LARGE, or BYTES_BUDGET_EXHAUSTED when the run's remainder was the
    smaller limit)
11. reserve the raw bytes (RAW_TOO_LARGE: raw is never silently truncated)
12. project (PROJECTION_ERROR), give the slot back, number the projection's hosts, pods and IPs
    with the run's pseudonyms (``<HOST#n>``) and reserve the projection bytes
13. mark READY (RECORD_TOO_LARGE, STORE_ERROR, RECORD_EXPIRED) and return the observation
14. trace TOOL_INVOCATION (with the time the call queued for its slot) and keep the
    metadata-only audit row (the run stores it)

Steps 1–8 are *rejections*: no canonical record, no execution. Protocol refusals (1–5) consume
no budget; from step 6 on the tool-call budget is consumed, so a model that loops on
duplicates or refused SQL runs out. After step 9 every failure moves the record to ERROR where
the store allows it. The caller never sees raw data or exception text.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal, TypeVar

from pydantic import BaseModel, ValidationError

from harness.admission import SlotLease
from harness.audit.records import ToolInvocationAudit
from harness.contracts.envelope import Outcome, ToolBoundaryResult, ToolCallEnvelope, ToolPolicy
from harness.contracts.errors import (
    BackendError,
    ErrorCode,
    HarnessError,
    ProjectionError,
    ProtocolError,
    RawTooLarge,
    RunInactive,
    StoreError,
)
from harness.contracts.ids import is_tool_call_id, loggable_id
from harness.contracts.invocation import CanonicalInvocation, EvidenceStatus, InvocationStatus
from harness.contracts.observation import AgentObservation, ControlView, Projection
from harness.contracts.raw import RawResponse
from harness.ports import CanonicalStore, Clock, ToolExecutor
from harness.redaction import Pseudonyms
from harness.run.budget import BytesKind, RunBudget
from harness.run.context import RunContext
from harness.run.control import InformationControl
from harness.tools import ToolRegistry, ToolSpec, scope_identity
from harness.trace import ToolInvocation, ToolRequestRejected, TraceRecorder

__all__ = ["ToolBoundary"]

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass
class _Call:
    """Mutable facts gathered while one call passes the boundary."""

    envelope: ToolCallEnvelope
    spec: ToolSpec | None = None
    scope_id: str | None = None
    normalized_scope: str | None = None
    request_bytes: int | None = None
    raw_bytes: int | None = None
    projection_bytes: int | None = None
    returned_count: int | None = None
    new_identities: int = 0
    queue_wait_ms: float = 0.0


class ToolBoundary:
    """Runs one tool call through every check of the sequence above.

    Args:
        run: The run this boundary belongs to.
        budget: The run's budget (ledger is the single source of consumption figures).
        registry: Known tools.
        policy: Authorisation and timeouts.
        store: Canonical store (Redis in production).
        executor: Runs backends and projectors (Ray tasks or inline).
        clock: Time source.
        control: Duplicate and gain control; one per run.
        auto_round: Close an information-gain round after every call (CLI and tool-plane use;
            the agent loop closes rounds itself).
    """

    def __init__(
        self,
        *,
        run: RunContext,
        budget: RunBudget,
        registry: ToolRegistry,
        policy: ToolPolicy,
        store: CanonicalStore,
        executor: ToolExecutor,
        clock: Clock,
        control: InformationControl | None = None,
        auto_round: bool = False,
        trace: TraceRecorder | None = None,
    ) -> None:
        self.run = run
        self.budget = budget
        self.registry = registry
        self.policy = policy
        self.store = store
        self.executor = executor
        self.clock = clock
        self.control = control or InformationControl(no_gain_threshold=policy.no_gain_threshold)
        self.auto_round = auto_round
        self.trace = trace
        self.audit_rows: list[ToolInvocationAudit] = []
        """Metadata of every call that entered execution, for the run's durable record."""
        self.pseudonyms = Pseudonyms()
        """The run's numbering of hosts, pods and IPs (one table per boundary, so per run)."""

    # ------------------------------------------------------------------ public

    async def call(self, envelope: ToolCallEnvelope) -> ToolBoundaryResult:
        """Run one tool call; never raises for anything a model could cause."""
        call = _Call(envelope=envelope)
        try:
            request, plan = self._admit(call)
        except HarnessError as err:
            return self._reject(call, err.error_code)
        t0 = self.clock.monotonic()
        try:
            lease = await self._take_slot(call, t0)
        except HarnessError as err:  # the run ended while the call waited for a slot
            assert call.scope_id is not None
            self.control.settle(call.scope_id, ready=False)
            return self._reject(call, err.error_code)
        try:
            return await self._execute(call, request, plan, lease, t0)
        finally:
            lease.release()

    def _reject(self, call: _Call, code: ErrorCode) -> ToolBoundaryResult:
        self.budget.count_rejection(code)
        log.info(
            "tool call rejected id=%s tool=%s code=%s",
            loggable_id(call.envelope.tool_call_id),
            call.spec.name if call.spec else "-",
            code.value,
        )
        self._trace_rejection(call, code)
        return self._result(call, "REJECTED", code)

    # ------------------------------------------------------------------ steps 1-7

    def _admit(self, call: _Call) -> tuple[BaseModel, BaseModel]:
        env = call.envelope
        self.run.ensure_active(self.clock.now())
        if env.run_id != self.run.run_id:
            raise ProtocolError(ErrorCode.RUN_MISMATCH)
        if not is_tool_call_id(env.tool_call_id):
            raise ProtocolError(ErrorCode.INVALID_TOOL_CALL_ID)
        if env.tool_call_id in self.run.used_tool_call_ids:
            raise ProtocolError(ErrorCode.DUPLICATE_TOOL_CALL_ID)
        self.run.used_tool_call_ids.add(env.tool_call_id)

        spec = self.registry.get(env.tool_name)
        if spec is None or env.tool_name not in self.policy.authorized_tools:
            raise ProtocolError(ErrorCode.TOOL_NOT_AUTHORIZED)
        call.spec = spec
        if not spec.read_only:
            raise ProtocolError(ErrorCode.TOOL_NOT_READ_ONLY)

        request_bytes = len(env.arguments.encode())
        if request_bytes > self.budget.budgets.max_request_bytes_per_call:
            raise ProtocolError(ErrorCode.REQUEST_TOO_LARGE)
        request = _parse_arguments(spec, env.arguments)

        self.budget.check_tool_call(spec.name)
        self.budget.check_bytes(BytesKind.REQUEST, request_bytes)
        self.budget.reserve_tool_call(spec.name)
        self.budget.reserve_bytes(BytesKind.REQUEST, request_bytes)
        call.request_bytes = request_bytes

        plan = spec.plan(request)
        call.normalized_scope = spec.normalized_scope(plan)
        call.scope_id = scope_identity(call.normalized_scope)
        self.control.admit(call.scope_id)
        return request, plan

    # ------------------------------------------------------------------ step 8

    async def _take_slot(self, call: _Call, t0: float) -> SlotLease:
        """A slot of the executor's pool, waited for no longer than the run lasts.

        Raises:
            RunInactive: The run was cancelled or hit its deadline while the call queued;
                nothing was taken from the pool.
        """
        slots = self.executor.slots
        lease = slots.try_acquire()
        if lease is not None:
            return lease
        try:
            remaining_s = (self.run.deadline - self.clock.now()).total_seconds()
            lease = await self.clock.wait_for(slots.acquire(), remaining_s)
        except TimeoutError:  # the wait lasted until the run's deadline
            code = self.run.inactive_code(self.clock.now()) or ErrorCode.DEADLINE_EXCEEDED
            raise RunInactive(code, "run ended while the call queued") from None
        except asyncio.CancelledError:
            # The run ended (cancel or deadline) while queued: no record, nothing executed.
            assert call.scope_id is not None
            self.control.settle(call.scope_id, ready=False)
            raise
        call.queue_wait_ms = round((self.clock.monotonic() - t0) * 1000, 3)
        try:
            self.run.ensure_active(self.clock.now())
        except HarnessError:
            lease.release()
            raise
        return lease

    # ------------------------------------------------------------------ steps 9-14

    async def _execute(
        self, call: _Call, request: BaseModel, plan: BaseModel, lease: SlotLease, t0: float
    ) -> ToolBoundaryResult:
        assert call.spec is not None and call.scope_id is not None
        env, spec = call.envelope, call.spec
        started = self.clock.now()
        record = CanonicalInvocation(
            tool_call_id=env.tool_call_id,
            run_id=self.run.run_id,
            tool_name=spec.name,
            request={
                "arguments": request.model_dump(mode="json"),
                "plan": None if plan is request else plan.model_dump(mode="json"),
            },
            invocation_status=InvocationStatus.PROJECTING,
            started_at=started,
        )
        try:
            await self.store.begin(record)
        except StoreError as err:
            self.control.settle(call.scope_id, ready=False)
            if err.error_code is ErrorCode.DUPLICATE_TOOL_CALL_ID:
                return self._reject(call, err.error_code)
            return await self._finish_error(call, err.error_code, t0, begun=False)
        self.budget.count_execution()

        raw: RawResponse | None = None
        max_raw_bytes = self.budget.remaining_raw_bytes()
        try:
            raw = await self._fetch(call, plan, max_raw_bytes)
            self.run.ensure_active(self.clock.now())
            raw_bytes = raw.size
            call.raw_bytes = raw_bytes
            try:
                self.budget.reserve_bytes(BytesKind.RAW, raw_bytes)
            except HarnessError:
                raw = None  # over the limit: the raw is never stored, never truncated
                raise
            projection: Projection = await self._bounded(
                self.executor.project(
                    spec.name, env.tool_call_id, plan, raw, self.policy.project_timeout_s
                ),
                self.policy.project_timeout_s,
                lambda: ProjectionError(ErrorCode.PROJECTION_ERROR, "timed out"),
            )
            lease.release()  # the tool work is done; what is left is this run's bookkeeping
            self.run.ensure_active(self.clock.now())
            observation = projection.resolved(self.pseudonyms)
            agent_result = observation.model_dump(mode="json")
            projection_bytes = len(observation.model_dump_json().encode())
            call.projection_bytes = projection_bytes
            self.budget.reserve_bytes(BytesKind.PROJECTION, projection_bytes)
            await self.store.mark_ready(
                self.run.run_id,
                env.tool_call_id,
                raw=raw,
                agent_result=agent_result,
                evidence_status=observation.evidence_status,
                completed_at=self.clock.now(),
            )
        except HarnessError as err:
            code = err.error_code
            if code is ErrorCode.RECORD_TOO_LARGE:
                raw = None
            return await self._finish_error(call, code, t0, begun=True, raw=raw)
        except asyncio.CancelledError:
            # The run ended (cancel or deadline) mid-call: the record must not stay PROJECTING.
            code = self.run.inactive_code(self.clock.now()) or ErrorCode.CANCELLED
            self.control.settle(call.scope_id, ready=False)
            await asyncio.shield(self._mark_error(env.tool_call_id, code, None))
            raise
        except Exception:  # a defect in a backend or projector: contain it, never leak it
            log.exception(
                "tool call failed unexpectedly id=%s tool=%s",
                loggable_id(env.tool_call_id),
                spec.name,
            )
            return await self._finish_error(call, ErrorCode.PROJECTION_ERROR, t0, begun=True)

        new = self.control.settle(
            call.scope_id,
            ready=True,
            evidence_status=observation.evidence_status,
            identities=projection.facts.evidence_identities,
        )
        call.new_identities = new
        call.returned_count = projection.facts.returned_count
        result = self._result(call, "OBSERVATION", None, observation=observation)
        self._audit(call, result, t0)
        return result

    async def _fetch(self, call: _Call, plan: BaseModel, max_raw_bytes: int) -> RawResponse:
        """Execute the backend, which stops reading once it passed ``max_raw_bytes``.

        Raises:
            BudgetExhausted: The fetch stopped at the cap: RAW_TOO_LARGE when the cap was the
                call's own limit, BYTES_BUDGET_EXHAUSTED when it was what the run had left
                (the codes the booking of a raw that size gives).
            HarnessError: What the executor raised otherwise.
        """
        assert call.spec is not None
        try:
            return await self._bounded(
                self.executor.execute(
                    call.spec.name,
                    plan,
                    self.policy.execute_timeout_s,
                    tool_call_id=call.envelope.tool_call_id,
                    max_raw_bytes=max_raw_bytes,
                ),
                self.policy.execute_timeout_s,
                lambda: BackendError(ErrorCode.BACKEND_TIMEOUT, "timed out"),
            )
        except RawTooLarge:
            # Nothing was booked or kept; one byte past the cap tells which limit it was.
            self.budget.check_bytes(BytesKind.RAW, max_raw_bytes + 1)
            raise

    async def _bounded(
        self, awaitable: Awaitable[T], timeout_s: float, on_timeout: Callable[[], HarnessError]
    ) -> T:
        """Enforce a timeout even when the executor ignores its own (one second of grace).

        Called once the slot is held: like the executor's own, this bound counts the tool's
        work, never the wait for capacity.
        """
        try:
            return await self.clock.wait_for(awaitable, timeout_s + 1.0)
        except TimeoutError:
            raise on_timeout() from None

    async def _finish_error(
        self,
        call: _Call,
        code: ErrorCode,
        t0: float,
        *,
        begun: bool,
        raw: RawResponse | None = None,
    ) -> ToolBoundaryResult:
        env = call.envelope
        if begun:
            if call.scope_id is not None:
                self.control.settle(call.scope_id, ready=False)
            await self._mark_error(env.tool_call_id, code, raw)
        result = self._result(call, "ERROR", code)
        log.info(
            "tool call error id=%s tool=%s code=%s",
            loggable_id(env.tool_call_id),
            call.spec.name if call.spec else "-",
            code.value,
        )
        self._audit(call, result, t0)
        return result

    async def _mark_error(
        self, tool_call_id: str, code: ErrorCode, raw: RawResponse | None
    ) -> None:
        """PROJECTING → ERROR, keeping the raw when it fits; dropping it when it does not."""
        for kept in (raw, None) if raw is not None else (None,):
            try:
                await self.store.mark_error(
                    self.run.run_id,
                    tool_call_id,
                    error_code=code,
                    completed_at=self.clock.now(),
                    raw=kept,
                )
                return
            except StoreError as err:
                # The record stays PROJECTING (or is gone); either way it can never be cited.
                log.warning(
                    "could not mark ERROR id=%s code=%s store=%s",
                    loggable_id(tool_call_id),
                    code.value,
                    err.error_code.value,
                )
                if err.error_code is not ErrorCode.RECORD_TOO_LARGE:
                    return

    # ------------------------------------------------------------------ views

    def _result(
        self,
        call: _Call,
        outcome: Outcome,
        code: ErrorCode | None,
        observation: AgentObservation | None = None,
    ) -> ToolBoundaryResult:
        env = call.envelope
        tool_name = call.spec.name if call.spec else env.tool_name[:64]
        round_outcome = None
        if self.auto_round and outcome == "OBSERVATION":
            round_outcome = self.control.close_round()
        control = ControlView(
            tool_call_id=env.tool_call_id,
            tool_name=tool_name,
            evidence_status=observation.evidence_status
            if observation
            else (EvidenceStatus.ERROR if outcome == "ERROR" else None),
            returned_count=call.returned_count,
            normalized_scope=call.normalized_scope,
            scope_identity=call.scope_id,
            new_evidence_identities=call.new_identities,
            gain=round_outcome.gain if round_outcome else None,
            consecutive_no_gain=self.control.consecutive_no_gain,
            no_gain_threshold=self.control.no_gain_threshold,
            stop_required=self.control.stop_required,
            remaining_tool_calls=self.budget.remaining_tool_calls(),
            remaining_bytes=self.budget.remaining_projection_bytes(),
            truncated=getattr(observation, "truncated", None),
        )
        return ToolBoundaryResult(
            tool_call_id=env.tool_call_id,
            tool_name=tool_name,
            outcome=outcome,
            error_code=code,
            observation=observation,
            control=control,
        )

    def _trace_rejection(self, call: _Call, code: ErrorCode) -> None:
        if self.trace is not None:
            self.trace.record(
                ToolRequestRejected(
                    tool_call_id=loggable_id(call.envelope.tool_call_id),
                    tool_name=call.spec.name if call.spec else "-",
                    error_code=code,
                )
            )

    def _audit(self, call: _Call, result: ToolBoundaryResult, t0: float) -> None:
        assert result.outcome != "REJECTED", "rejections are traced, never audited"
        latency_ms = round((self.clock.monotonic() - t0) * 1000, 3)
        outcome: Literal["OBSERVATION", "ERROR"] = (
            "OBSERVATION" if result.outcome == "OBSERVATION" else "ERROR"
        )
        if self.trace is not None:
            self.trace.record(
                ToolInvocation(
                    tool_call_id=call.envelope.tool_call_id,
                    tool_name=result.tool_name,
                    outcome=outcome,
                    error_code=result.error_code,
                    evidence_status=result.control.evidence_status,
                    latency_ms=latency_ms,
                    queue_wait_ms=call.queue_wait_ms,
                )
            )
        self.audit_rows.append(
            ToolInvocationAudit(
                run_id=self.run.run_id,
                tool_call_id=call.envelope.tool_call_id,
                tool_name=result.tool_name,
                outcome=outcome,
                evidence_status=result.control.evidence_status,
                error_code=result.error_code,
                latency_ms=latency_ms,
                request_bytes=call.request_bytes,
                raw_bytes=call.raw_bytes,
                projection_bytes=call.projection_bytes,
            )
        )


def _parse_arguments(spec: ToolSpec, arguments: str) -> BaseModel:
    try:
        payload = json.loads(arguments)
    except (ValueError, RecursionError):
        raise ProtocolError(ErrorCode.INVALID_ARGUMENTS, "arguments are not JSON") from None
    if not isinstance(payload, dict):
        raise ProtocolError(ErrorCode.INVALID_ARGUMENTS, "arguments are not an object")
    try:
        return spec.request_model.model_validate(payload)
    except ValidationError:
        raise ProtocolError(
            ErrorCode.INVALID_ARGUMENTS, "arguments do not fit the request"
        ) from None
