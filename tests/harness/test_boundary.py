"""ToolBoundary: every refusal path, budget edges, oversize raw/record, failures, store down.

Each test asserts the stable code, the canonical record's state and that no raw reached the
caller (the raw carries a marker that projections drop).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest

from harness.audit.records import ToolInvocationAudit
from harness.contracts.errors import ErrorCode, SqlRejected
from harness.contracts.invocation import EvidenceStatus, InvocationStatus
from harness.contracts.status import RunStatus
from harness.run.boundary import ToolBoundary, ToolBoundaryResult, ToolCallEnvelope, ToolPolicy
from harness.run.budget import Budgets, BytesKind, RunBudget
from harness.run.context import RunContext
from harness.run.control import InformationControl
from harness.testing.clock import FakeClock, until
from harness.testing.memory_store import InMemoryCanonicalStore
from harness.testing.tools import (
    DocsProjector,
    FailingBackend,
    RecordingBackend,
    SlowBackend,
    StreamingBackend,
    docs_raw,
)
from harness.tools import InlineToolExecutor, ToolRegistry, ToolSpec, default_specs
from harness.tools.arguments import SearchKnowledgeRequest

RUN_ID = "run-1"
MARKER = "RAW-ONLY-MARKER"


def _kb(query: str = "pool exhaustion", top_k: int = 5) -> str:
    return json.dumps({"query": query, "top_k": top_k})


@dataclass
class Rig:
    clock: FakeClock
    run: RunContext
    budget: RunBudget
    store: InMemoryCanonicalStore
    backend: Any
    boundary: ToolBoundary
    audit: list[ToolInvocationAudit] = field(default_factory=list)
    _n: int = 0

    def call(
        self,
        arguments: str | None = None,
        *,
        tool: str = "search_knowledge",
        call_id: str | None = None,
        run_id: str = RUN_ID,
    ) -> ToolBoundaryResult:
        self._n += 1
        env = ToolCallEnvelope(
            run_id=run_id,
            tool_call_id=call_id or f"call_{self._n}",
            tool_name=tool,
            arguments=arguments if arguments is not None else _kb(f"query {self._n}"),
        )
        return asyncio.run(self.boundary.call(env))

    def record(self, call_id: str):
        return asyncio.run(self.store.get(RUN_ID, call_id))


def _reject_sql(request: Any) -> Any:
    if "DROP" in request.sql.upper():
        raise SqlRejected(context={"reason": "NOT_SELECT"})
    return request


def make_rig(
    *,
    budgets: Budgets | None = None,
    backend: Any = None,
    projector: DocsProjector | None = None,
    policy: ToolPolicy | None = None,
    extra_specs: list[ToolSpec] = (),
    max_record_bytes: int = 1_048_576,
    threshold: int = 2,
    ttl_s: int = 600,
) -> Rig:
    clock = FakeClock(datetime(2026, 11, 2, 14, 30, tzinfo=UTC))
    run = RunContext.open(run_id=RUN_ID, now=clock.now(), timeout_s=120)
    run.start()
    budget = RunBudget(budgets or Budgets())
    store = InMemoryCanonicalStore(clock, ttl_s=ttl_s, max_record_bytes=max_record_bytes)
    backend = backend or RecordingBackend()
    specs = [s for s in default_specs(mysql_planner=_reject_sql) if s.name != "query_logs"]
    specs += list(extra_specs)
    registry = ToolRegistry.of(specs)
    projector = projector or DocsProjector()
    executor = InlineToolExecutor(
        {s.name: backend for s in specs},
        {s.name: projector for s in specs},
        project_in_thread=False,
        clock=clock,
    )
    policy = policy or ToolPolicy(
        authorized_tools=frozenset(s.name for s in specs),
        execute_timeout_s=0.2,
        no_gain_threshold=threshold,
    )
    boundary = ToolBoundary(
        run=run,
        budget=budget,
        registry=registry,
        policy=policy,
        store=store,
        executor=executor,
        clock=clock,
        control=InformationControl(no_gain_threshold=threshold),
        auto_round=True,
    )
    return Rig(clock, run, budget, store, backend, boundary, boundary.audit_rows)


def assert_no_raw(result: ToolBoundaryResult) -> None:
    assert MARKER not in result.model_dump_json()
    assert MARKER not in result.model_content()


# ---------------------------------------------------------------- success


def test_success_returns_observation_and_marks_ready() -> None:
    rig = make_rig()
    result = rig.call(call_id="c1")
    assert (result.outcome, result.error_code) == ("OBSERVATION", None)
    assert (
        result.observation is not None
        and result.observation.evidence_status is EvidenceStatus.EVIDENCE_FOUND
    )
    record = rig.record("c1")
    assert (record.invocation_status, record.evidence_status) == (
        InvocationStatus.READY,
        EvidenceStatus.EVIDENCE_FOUND,
    )
    assert record.raw_response()["internal"] == MARKER  # the raw is kept for the harness only
    assert record.agent_result == result.observation.model_dump(mode="json")
    assert_no_raw(result)
    assert rig.budget.ledger.snapshot().tool_calls == 1
    assert (rig.budget.ledger.executions, rig.budget.ledger.rejections) == (1, 0)
    assert [e.outcome for e in rig.audit] == ["OBSERVATION"]
    assert MARKER not in json.dumps([e.model_dump(mode="json") for e in rig.audit])


def test_model_content_hides_control_fields() -> None:
    rig = make_rig()
    content = json.loads(rig.call().model_content())
    for hidden in (
        "returned_count",
        "normalized_scope",
        "scope_identity",
        "consecutive_no_gain",
        "remaining_tool_calls",
        "no_gain_threshold",
    ):
        assert hidden not in json.dumps(content)


def test_empty_success_is_ready_no_evidence() -> None:
    rig = make_rig(backend=RecordingBackend(raw=docs_raw()))
    result = rig.call(call_id="c1")
    assert result.observation.evidence_status is EvidenceStatus.NO_EVIDENCE
    assert rig.record("c1").invocation_status is InvocationStatus.READY


# ---------------------------------------------------------------- protocol refusals (no budget)


@pytest.mark.parametrize(
    ("mutate", "code"),
    [
        (lambda rig: rig.run.try_finish(RunStatus.CANCELLED), ErrorCode.CANCELLED),
        (lambda rig: rig.run.try_finish(RunStatus.COMPLETED), ErrorCode.RUN_NOT_ACTIVE),
        (lambda rig: rig.run.try_finish(RunStatus.TIMED_OUT), ErrorCode.DEADLINE_EXCEEDED),
        (lambda rig: rig.clock.advance(121), ErrorCode.DEADLINE_EXCEEDED),
    ],
    ids=["cancelled", "completed", "timed_out", "deadline"],
)
def test_inactive_run_is_refused(mutate: Any, code: ErrorCode) -> None:
    rig = make_rig()
    mutate(rig)
    result = rig.call(call_id="c1")
    assert (result.outcome, result.error_code) == ("REJECTED", code)
    assert rig.record("c1") is None
    assert rig.backend.seen == []
    assert rig.budget.ledger.tool_calls == 0


def test_pending_run_is_refused() -> None:
    rig = make_rig()
    rig.run.status = RunStatus.PENDING
    assert rig.call().error_code is ErrorCode.RUN_NOT_ACTIVE


def test_run_mismatch_is_refused() -> None:
    rig = make_rig()
    result = rig.call(call_id="c1", run_id="run-other")
    assert (result.outcome, result.error_code) == ("REJECTED", ErrorCode.RUN_MISMATCH)
    assert asyncio.run(rig.store.get("run-other", "c1")) is None
    assert rig.record("c1") is None


@pytest.mark.parametrize("bad_id", ["", "a" * 65, "call 1", "call/1", "../x", "ca\nll", "émoji"])
def test_invalid_tool_call_id_is_refused(bad_id: str) -> None:
    rig = make_rig()
    result = (
        rig.call(call_id=bad_id or None)
        if bad_id
        else asyncio.run(
            rig.boundary.call(
                ToolCallEnvelope(
                    run_id=RUN_ID, tool_call_id="", tool_name="search_knowledge", arguments=_kb()
                )
            )
        )
    )
    assert (result.outcome, result.error_code) == ("REJECTED", ErrorCode.INVALID_TOOL_CALL_ID)
    assert rig.backend.seen == []


def test_longest_valid_tool_call_id_is_accepted() -> None:
    assert make_rig().call(call_id="a" * 64).outcome == "OBSERVATION"


def test_duplicate_tool_call_id_is_refused_even_after_a_rejection() -> None:
    rig = make_rig()
    assert rig.call("not json", call_id="c1").error_code is ErrorCode.INVALID_ARGUMENTS
    second = rig.call(call_id="c1")
    assert (second.outcome, second.error_code) == ("REJECTED", ErrorCode.DUPLICATE_TOOL_CALL_ID)
    assert rig.call(call_id="c2").outcome == "OBSERVATION"
    third = rig.call(call_id="c2")
    assert third.error_code is ErrorCode.DUPLICATE_TOOL_CALL_ID
    assert rig.record("c2").invocation_status is InvocationStatus.READY  # untouched


def test_unknown_or_unauthorized_tool_is_refused() -> None:
    rig = make_rig(policy=ToolPolicy(authorized_tools=frozenset({"search_knowledge"})))
    assert rig.call(tool="drop_database").error_code is ErrorCode.TOOL_NOT_AUTHORIZED
    assert (
        rig.call(json.dumps({"datasource": "x", "sql": "SELECT 1"}), tool="query_mysql").error_code
        is ErrorCode.TOOL_NOT_AUTHORIZED
    )
    assert rig.budget.ledger.tool_calls == 0 and rig.budget.ledger.rejections == 2


def test_tool_not_declared_read_only_is_refused() -> None:
    writer = ToolSpec(
        name="restart_pod", description="w", request_model=SearchKnowledgeRequest, read_only=False
    )
    rig = make_rig(extra_specs=[writer])
    result = rig.call(tool="restart_pod", call_id="c1")
    assert (result.outcome, result.error_code) == ("REJECTED", ErrorCode.TOOL_NOT_READ_ONLY)
    assert rig.backend.seen == [] and rig.record("c1") is None


@pytest.mark.parametrize(
    "arguments",
    [
        "not json",
        "[1, 2]",
        "null",
        '{"query": "x", "extra": 1}',
        '{"query": ""}',
        '{"top_k": 3}',
        '{"query": "x", "top_k": 11}',
        '{"query": "x", "top_k": "many"}',
        "[" * 5000,
    ],
)
def test_bad_arguments_are_refused(arguments: str) -> None:
    rig = make_rig()
    result = rig.call(arguments, call_id="c1")
    assert (result.outcome, result.error_code) == ("REJECTED", ErrorCode.INVALID_ARGUMENTS)
    assert rig.record("c1") is None and rig.budget.ledger.tool_calls == 0


# ---------------------------------------------------------------- budget edges


def test_total_tool_call_budget_edge() -> None:
    rig = make_rig(budgets=Budgets(max_tool_calls=3, max_tool_calls_per_tool={}))
    results = [rig.call() for _ in range(4)]
    assert [r.error_code for r in results] == [None, None, None, ErrorCode.TOOL_BUDGET_EXHAUSTED]
    assert results[3].outcome == "REJECTED"
    assert rig.budget.ledger.tool_calls == 3 and rig.budget.ledger.executions == 3


def test_per_tool_budget_edge() -> None:
    rig = make_rig(
        budgets=Budgets(max_tool_calls=10, max_tool_calls_per_tool={"search_knowledge": 2})
    )
    codes = [rig.call().error_code for _ in range(3)]
    assert codes == [None, None, ErrorCode.TOOL_BUDGET_EXHAUSTED]
    sql = rig.call(json.dumps({"datasource": "d", "sql": "SELECT 1"}), tool="query_mysql")
    assert sql.outcome == "OBSERVATION"


def test_request_bytes_per_call_edge() -> None:
    base = _kb("q")
    limit = len(base.encode()) + 10
    rig = make_rig(budgets=Budgets(max_request_bytes_per_call=limit))
    at_edge = json.dumps({"query": "q" + "x" * 10, "top_k": 5})
    over = json.dumps({"query": "q" + "x" * 11, "top_k": 5})
    assert len(at_edge.encode()) == limit and len(over.encode()) == limit + 1
    assert rig.call(at_edge).outcome == "OBSERVATION"
    result = rig.call(over, call_id="big")
    assert (result.outcome, result.error_code) == ("REJECTED", ErrorCode.REQUEST_TOO_LARGE)
    assert rig.budget.ledger.tool_calls == 1


def test_request_bytes_per_run_edge() -> None:
    one = _kb("aaaa")
    size = len(one.encode())
    rig = make_rig(budgets=Budgets(max_request_bytes_per_run=2 * size))
    assert rig.call(_kb("aaaa")).outcome == "OBSERVATION"
    assert rig.call(_kb("bbbb")).outcome == "OBSERVATION"
    result = rig.call(_kb("cccc"))
    assert (result.outcome, result.error_code) == ("REJECTED", ErrorCode.BYTES_BUDGET_EXHAUSTED)
    assert (
        rig.budget.ledger.bytes[BytesKind.REQUEST] == 2 * size and rig.budget.ledger.tool_calls == 2
    )


def _raw_size(raw: Any) -> int:
    return len(json.dumps(raw, separators=(",", ":")).encode())


def test_raw_over_limit_is_error_never_truncated() -> None:
    raw = docs_raw("a", padding=100)
    limit = _raw_size(raw)
    ok = make_rig(budgets=Budgets(max_raw_bytes_per_call=limit), backend=RecordingBackend(raw=raw))
    assert ok.call().outcome == "OBSERVATION"
    big = docs_raw("a", padding=101)
    rig = make_rig(budgets=Budgets(max_raw_bytes_per_call=limit), backend=RecordingBackend(raw=big))
    result = rig.call(call_id="c1")
    assert (result.outcome, result.error_code) == ("ERROR", ErrorCode.RAW_TOO_LARGE)
    record = rig.record("c1")
    assert (record.invocation_status, record.evidence_status, record.error_code) == (
        InvocationStatus.ERROR,
        EvidenceStatus.ERROR,
        ErrorCode.RAW_TOO_LARGE,
    )
    assert record.raw_response() is None and record.agent_result is None
    assert_no_raw(result)


def test_a_fetch_stopped_at_the_cap_ends_in_error_with_nothing_kept_or_booked() -> None:
    backend = StreamingBackend(chunks=8, chunk_bytes=1000)
    rig = make_rig(budgets=Budgets(max_raw_bytes_per_call=3500), backend=backend)
    result = rig.call(call_id="c1")
    assert (result.outcome, result.error_code) == ("ERROR", ErrorCode.RAW_TOO_LARGE)
    assert backend.read_bytes == 4000  # the backend stopped in the chunk that passed the cap
    record = rig.record("c1")
    assert (record.invocation_status, record.evidence_status, record.error_code) == (
        InvocationStatus.ERROR,
        EvidenceStatus.ERROR,
        ErrorCode.RAW_TOO_LARGE,
    )
    assert record.raw_response() is None and record.agent_result is None
    assert rig.budget.ledger.bytes[BytesKind.RAW] == 0
    [audit] = rig.boundary.audit_rows
    assert (audit.outcome, audit.error_code, audit.raw_bytes) == (
        "ERROR",
        ErrorCode.RAW_TOO_LARGE,
        None,
    )
    # The model sees the code and nothing else.
    assert json.loads(result.model_content()) == {
        "tool_call_id": "c1",
        "error_code": "RAW_TOO_LARGE",
    }
    assert_no_raw(result)


def test_the_backend_may_fill_what_the_call_may_still_book() -> None:
    raw = docs_raw("a")
    size = _raw_size(raw)
    backend = RecordingBackend(raw=raw)
    rig = make_rig(
        budgets=Budgets(max_raw_bytes_per_call=10 * size, max_raw_bytes_per_run=2 * size + 7),
        backend=backend,
    )
    assert [rig.call().outcome, rig.call().outcome] == ["OBSERVATION", "OBSERVATION"]
    assert backend.caps == [2 * size + 7, size + 7]


def test_a_fetch_stopped_by_what_the_run_has_left_is_bytes_budget_exhausted() -> None:
    rig = make_rig(
        budgets=Budgets(max_raw_bytes_per_call=10_000, max_raw_bytes_per_run=2_500),
        backend=StreamingBackend(chunks=3, chunk_bytes=1000),
    )
    result = rig.call(call_id="c1")
    assert (result.outcome, result.error_code) == ("ERROR", ErrorCode.BYTES_BUDGET_EXHAUSTED)
    assert rig.record("c1").error_code is ErrorCode.BYTES_BUDGET_EXHAUSTED
    assert rig.budget.ledger.bytes[BytesKind.RAW] == 0


def test_raw_bytes_per_run_edge() -> None:
    raw = docs_raw("a")
    size = _raw_size(raw)
    rig = make_rig(
        budgets=Budgets(max_raw_bytes_per_run=2 * size), backend=RecordingBackend(raw=raw)
    )
    assert [rig.call().error_code for _ in range(3)] == [
        None,
        None,
        ErrorCode.BYTES_BUDGET_EXHAUSTED,
    ]
    assert rig.budget.ledger.executions == 3  # the third did execute; its raw was refused


def test_projection_bytes_per_call_edge() -> None:
    probe = make_rig()
    size = len(probe.call(call_id="c1").observation.model_dump_json().encode())
    ok = make_rig(budgets=Budgets(max_projection_bytes_per_call=size))
    assert ok.call(call_id="c1").outcome == "OBSERVATION"
    rig = make_rig(budgets=Budgets(max_projection_bytes_per_call=size - 1))
    result = rig.call(call_id="c1")
    assert (result.outcome, result.error_code) == ("ERROR", ErrorCode.PROJECTION_ERROR)
    assert rig.record("c1").invocation_status is InvocationStatus.ERROR


def test_projection_bytes_per_run_edge() -> None:
    probe = make_rig()
    size = len(probe.call().observation.model_dump_json().encode())
    rig = make_rig(budgets=Budgets(max_projection_bytes_per_run=2 * size))
    # Same-length queries give same-size observations.
    codes = [rig.call(_kb(f"query {i}")).error_code for i in range(1, 4)]
    assert codes == [None, None, ErrorCode.BYTES_BUDGET_EXHAUSTED]


def test_record_over_store_limit_is_error_without_raw() -> None:
    raw = docs_raw("a", padding=5000)
    rig = make_rig(backend=RecordingBackend(raw=raw), max_record_bytes=3000)
    result = rig.call(call_id="c1")
    assert (result.outcome, result.error_code) == ("ERROR", ErrorCode.RECORD_TOO_LARGE)
    record = rig.record("c1")
    assert (record.invocation_status, record.error_code, record.raw_response()) == (
        InvocationStatus.ERROR,
        ErrorCode.RECORD_TOO_LARGE,
        None,
    )
    assert_no_raw(result)


# ---------------------------------------------------------------- execution failures


@pytest.mark.parametrize("code", [ErrorCode.BACKEND_ERROR, ErrorCode.BACKEND_TIMEOUT])
def test_backend_failure_marks_error(code: ErrorCode) -> None:
    rig = make_rig(backend=FailingBackend(code))
    result = rig.call(call_id="c1")
    assert (result.outcome, result.error_code) == ("ERROR", code)
    record = rig.record("c1")
    assert (record.invocation_status, record.evidence_status, record.error_code) == (
        InvocationStatus.ERROR,
        EvidenceStatus.ERROR,
        code,
    )
    assert rig.budget.ledger.executions == 1 and rig.budget.ledger.tool_calls == 1
    assert json.loads(result.model_content()) == {"tool_call_id": "c1", "error_code": code.value}


def test_backend_timeout_is_enforced_by_the_harness() -> None:
    slow = SlowBackend(max_wait_s=30)
    rig = make_rig(backend=slow)

    async def call_and_time_out() -> ToolBoundaryResult:
        envelope = ToolCallEnvelope(
            run_id=RUN_ID, tool_call_id="c1", tool_name="search_knowledge", arguments=_kb()
        )
        pending = asyncio.create_task(rig.boundary.call(envelope))
        try:
            await until(slow.started.is_set)
            rig.clock.advance(0.1)  # before the timeout nothing gives way
            await asyncio.sleep(0)
            assert not pending.done()
            rig.clock.advance(0.2)  # past execute_timeout_s
            return await pending
        finally:
            slow.release.set()  # the worker thread must not outlive the loop

    result = asyncio.run(call_and_time_out())
    assert (result.outcome, result.error_code) == ("ERROR", ErrorCode.BACKEND_TIMEOUT)
    assert rig.record("c1").error_code is ErrorCode.BACKEND_TIMEOUT


def test_backend_defect_is_contained() -> None:
    class Boom:
        def fetch(self, request: Any, *, max_raw_bytes: int) -> Any:
            raise ValueError(f"internal detail {MARKER}")

    rig = make_rig(backend=Boom())
    result = rig.call(call_id="c1")
    assert (result.outcome, result.error_code) == ("ERROR", ErrorCode.BACKEND_ERROR)
    assert_no_raw(result)


def test_projection_failure_marks_error_and_keeps_raw_internally() -> None:
    rig = make_rig(projector=DocsProjector(fail=True))
    result = rig.call(call_id="c1")
    assert (result.outcome, result.error_code) == ("ERROR", ErrorCode.PROJECTION_ERROR)
    record = rig.record("c1")
    assert (
        record.invocation_status is InvocationStatus.ERROR
        and record.raw_response()["internal"] == MARKER
    )
    assert_no_raw(result)


def test_run_cancelled_while_executing_discards_the_result() -> None:
    rig = make_rig()

    def cancel_then_answer(request: Any) -> Any:
        rig.run.try_finish(RunStatus.CANCELLED)
        return docs_raw("a")

    rig.backend.raw = cancel_then_answer
    result = rig.call(call_id="c1")
    assert (result.outcome, result.error_code, result.observation) == (
        "ERROR",
        ErrorCode.CANCELLED,
        None,
    )
    assert rig.record("c1").invocation_status is InvocationStatus.ERROR


# ---------------------------------------------------------------- store down


def test_store_down_at_begin_is_store_error_without_execution() -> None:
    rig = make_rig()
    rig.store.down = True
    result = rig.call(call_id="c1")
    assert (result.outcome, result.error_code) == ("ERROR", ErrorCode.STORE_ERROR)
    assert rig.backend.seen == []
    rig.store.down = False
    assert rig.record("c1") is None


def test_store_failing_at_mark_ready_is_store_error() -> None:
    rig = make_rig()

    async def broken_ready(*args: Any, **kwargs: Any) -> Any:
        rig.store.down = True
        return await type(rig.store).mark_ready(rig.store, *args, **kwargs)

    rig.store.mark_ready = broken_ready  # type: ignore[method-assign]
    result = rig.call(call_id="c1")
    assert (result.outcome, result.error_code, result.observation) == (
        "ERROR",
        ErrorCode.STORE_ERROR,
        None,
    )
    rig.store.down = False
    assert rig.record("c1").invocation_status is InvocationStatus.PROJECTING  # never citable
    assert_no_raw(result)


def test_expired_record_is_record_expired() -> None:
    class ExpiringProjector(DocsProjector):
        def project(self, tool_call_id: str, request: Any, raw: Any) -> Any:
            rig.clock.advance(2)  # past the store TTL of 1 s, within every timeout
            return super().project(tool_call_id, request, raw)

    rig = make_rig(projector=ExpiringProjector(), ttl_s=1)
    result = rig.call(call_id="c1")
    assert (result.outcome, result.error_code) == ("ERROR", ErrorCode.RECORD_EXPIRED)
    assert rig.record("c1") is None


def test_audit_rows_are_kept_for_executions_only() -> None:
    rig = make_rig()
    rig.call(call_id="c1")
    rig.call(call_id="c1")  # a duplicate id: refused, never executed, never audited
    rig.call(arguments="{not json", call_id="c2")
    assert [(r.tool_call_id, r.outcome) for r in rig.audit] == [("c1", "OBSERVATION")]


# ---------------------------------------------------------------- control: duplicates and gain


def test_exact_repeat_of_a_ready_scope_is_duplicate_scope_and_budgeted() -> None:
    rig = make_rig()
    assert rig.call(_kb("pool   Exhaustion")).outcome == "OBSERVATION"
    dup = rig.call(_kb("POOL exhaustion"), call_id="dup")
    assert (dup.outcome, dup.error_code) == ("REJECTED", ErrorCode.DUPLICATE_SCOPE)
    assert rig.record("dup") is None
    ledger = rig.budget.ledger
    assert (ledger.tool_calls, ledger.executions, ledger.rejections) == (2, 1, 1)


def test_repeat_of_an_error_scope_is_allowed() -> None:
    backend = RecordingBackend()
    rig = make_rig(backend=backend)
    calls = iter([FailingBackend().fetch, backend.fetch])

    def flaky(request: Any, *, max_raw_bytes: int) -> Any:
        return next(calls)(request, max_raw_bytes=max_raw_bytes)

    rig.backend.raw = docs_raw("a")
    rig.boundary.executor.backends["search_knowledge"] = type(
        "F", (), {"fetch": staticmethod(flaky)}
    )()
    assert rig.call(_kb("same")).error_code is ErrorCode.BACKEND_ERROR
    assert rig.call(_kb("same")).outcome == "OBSERVATION"


def test_sql_rejected_is_a_rejection_that_consumes_the_tool_budget() -> None:
    rig = make_rig()
    result = rig.call(
        json.dumps({"datasource": "d", "sql": "DROP TABLE x"}), tool="query_mysql", call_id="c1"
    )
    assert (result.outcome, result.error_code) == ("REJECTED", ErrorCode.SQL_REJECTED)
    assert rig.record("c1") is None
    assert (rig.budget.ledger.tool_calls, rig.budget.ledger.executions) == (1, 0)


def test_no_gain_rounds_require_stop_then_saturate() -> None:
    rig = make_rig(backend=RecordingBackend(raw=docs_raw("same-doc")), threshold=2)
    first = rig.call()
    assert first.control.gain is True and first.control.stop_required is False
    second = rig.call()  # different query, same document: no new identity
    assert (
        second.control.gain,
        second.control.consecutive_no_gain,
        second.control.stop_required,
    ) == (False, 1, False)
    third = rig.call()
    assert (third.control.gain, third.control.consecutive_no_gain, third.control.stop_required) == (
        False,
        2,
        True,
    )
    assert json.loads(third.model_content())["control"] == "STOP_REQUIRED"
    assert third.observation is not None
    # Exactly the observation's JSON with the control member appended, and valid JSON.
    assert json.loads(third.model_content()) == {
        **third.observation.model_dump(mode="json"),
        "control": "STOP_REQUIRED",
    }
    assert list(json.loads(third.model_content()))[-1] == "control"
    assert "control" not in json.loads(first.model_content())
    fourth = rig.call(call_id="late")
    assert (fourth.outcome, fourth.error_code) == ("REJECTED", ErrorCode.INFORMATION_SATURATED)
    assert rig.record("late") is None
    assert rig.budget.ledger.tool_calls == 4  # saturation consumes the tool-call budget


def test_no_evidence_results_are_no_gain() -> None:
    rig = make_rig(backend=RecordingBackend(raw=docs_raw()), threshold=1)
    result = rig.call()
    assert (result.control.gain, result.control.stop_required) == (False, True)


def test_new_documents_count_as_gain() -> None:
    docs = iter([docs_raw("a"), docs_raw("a", "b"), docs_raw("c")])
    rig = make_rig(backend=RecordingBackend(raw=lambda request: next(docs)), threshold=1)
    assert [rig.call().control.gain for _ in range(3)] == [True, True, True]


# ---------------------------------------------------------------- concurrency


def test_concurrent_calls_with_one_id_execute_once() -> None:
    rig = make_rig()

    async def race() -> list[ToolBoundaryResult]:
        envs = [
            ToolCallEnvelope(
                run_id=RUN_ID,
                tool_call_id="same",
                tool_name="search_knowledge",
                arguments=_kb(f"q{i}"),
            )
            for i in range(20)
        ]
        return await asyncio.gather(*(rig.boundary.call(e) for e in envs))

    results = asyncio.run(race())
    assert sorted(r.outcome for r in results) == ["OBSERVATION"] + ["REJECTED"] * 19
    assert {r.error_code for r in results if r.outcome == "REJECTED"} == {
        ErrorCode.DUPLICATE_TOOL_CALL_ID
    }
    assert len(rig.backend.seen) == 1
