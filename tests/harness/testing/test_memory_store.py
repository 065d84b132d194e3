"""InMemoryCanonicalStore: deterministic expiry, outage simulation, clocks, state machine."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from harness.clock import SystemClock
from harness.contracts.errors import ErrorCode, RecordExpired, StoreError
from harness.contracts.invocation import (
    LEGAL_STATUS_PAIRS,
    CanonicalInvocation,
    EvidenceStatus,
    InvocationStatus,
)
from harness.contracts.raw import RawResponse
from harness.testing.clock import FakeClock
from harness.testing.memory_store import InMemoryCanonicalStore

START = datetime(2024, 5, 1, 14, 5, tzinfo=UTC)


def _record(tool_call_id: str = "call_1") -> CanonicalInvocation:
    return CanonicalInvocation(
        tool_call_id=tool_call_id,
        run_id="run-1",
        tool_name="query_mysql",
        request={"sql": "SELECT 1"},
        invocation_status=InvocationStatus.PROJECTING,
        started_at=START,
    )


async def _ready(store: InMemoryCanonicalStore, call_id: str = "call_1") -> CanonicalInvocation:
    return await store.mark_ready(
        "run-1",
        call_id,
        raw=RawResponse.from_json(b'{"rows":[]}'),
        agent_result={"rows": []},
        evidence_status=EvidenceStatus.NO_EVIDENCE,
        completed_at=START + timedelta(seconds=2),
    )


def test_record_expires_exactly_at_ttl_and_is_not_recreated() -> None:
    clock = FakeClock(START)
    store = InMemoryCanonicalStore(clock, ttl_s=60)

    async def body() -> list[Any]:
        await store.begin(_record())
        clock.advance(59.999)
        alive = (
            await store.get("run-1", "call_1"),
            await store.remaining_ttl_ms("run-1", "call_1"),
        )
        clock.advance(0.001)
        gone = (await store.get("run-1", "call_1"), await store.remaining_ttl_ms("run-1", "call_1"))
        with pytest.raises(RecordExpired) as caught:
            await _ready(store)
        after = await store.get("run-1", "call_1")
        return [alive, gone, caught.value.error_code, after]

    assert asyncio.run(body()) == [(_record(), 1), (None, None), ErrorCode.RECORD_EXPIRED, None]


def test_transition_and_reads_keep_the_remaining_ttl() -> None:
    clock = FakeClock(START)
    store = InMemoryCanonicalStore(clock, ttl_s=600)

    async def body() -> list[int | None]:
        await store.begin(_record())
        clock.advance(100)
        readings = [await store.remaining_ttl_ms("run-1", "call_1")]
        await store.get("run-1", "call_1")
        readings.append(await store.remaining_ttl_ms("run-1", "call_1"))
        await _ready(store)
        readings.append(await store.remaining_ttl_ms("run-1", "call_1"))
        clock.advance(500)
        readings.append(await store.remaining_ttl_ms("run-1", "call_1"))
        return readings

    assert asyncio.run(body()) == [500_000, 500_000, 500_000, None]


def test_fail_next_and_down_simulate_outages() -> None:
    store = InMemoryCanonicalStore(FakeClock(START))

    async def attempt() -> ErrorCode | None:
        try:
            await store.get("run-1", "call_1")
        except StoreError as exc:
            return exc.error_code
        return None

    async def body() -> list[ErrorCode | None]:
        store.fail_next(2)
        codes = [await attempt() for _ in range(3)]
        store.down = True
        codes.append(await attempt())
        store.down = False
        codes.append(await attempt())
        return codes

    failed = ErrorCode.STORE_ERROR
    assert asyncio.run(body()) == [failed, failed, None, failed, None]


def test_injected_failure_writes_nothing() -> None:
    store = InMemoryCanonicalStore(FakeClock(START))
    store.fail_next(1)

    async def body() -> CanonicalInvocation | None:
        with pytest.raises(StoreError):
            await store.begin(_record())
        return await store.get("run-1", "call_1")

    assert asyncio.run(body()) is None


def test_caller_mutation_after_write_does_not_leak_in() -> None:
    store = InMemoryCanonicalStore(FakeClock(START))
    result: dict[str, Any] = {"rows": [{"id": 1}]}

    async def body() -> CanonicalInvocation | None:
        await store.begin(_record())
        await store.mark_ready(
            "run-1",
            "call_1",
            raw=RawResponse.from_json(b'{"rows":[{"id":1}]}'),
            agent_result=result,
            evidence_status=EvidenceStatus.EVIDENCE_FOUND,
            completed_at=START,
        )
        result["rows"].append({"id": 2})
        return await store.get("run-1", "call_1")

    stored = asyncio.run(body())
    assert stored is not None and stored.agent_result == {"rows": [{"id": 1}]}
    assert stored.raw_response() == {"rows": [{"id": 1}]}


def test_fake_clock_moves_wall_and_monotonic_together() -> None:
    clock = FakeClock(START, monotonic_start_s=10.0)
    clock.advance(1.5)
    assert (clock.now(), clock.monotonic()) == (START + timedelta(seconds=1.5), 11.5)
    with pytest.raises(ValueError, match="negative"):
        clock.advance(-0.1)
    with pytest.raises(ValueError, match="timezone-aware"):
        FakeClock(datetime(2024, 5, 1))
    assert FakeClock(
        datetime(2024, 5, 1, tzinfo=timezone(timedelta(hours=8)))
    ).now().utcoffset() == (timedelta(hours=8))


def test_system_clock_is_utc_and_monotonic() -> None:
    clock = SystemClock()
    first = clock.monotonic()
    now = clock.now()
    assert (now.tzinfo, clock.monotonic() >= first) == (UTC, True)
    assert abs((datetime.now(UTC) - now).total_seconds()) < 5


# ----------------------------------------------------------------- state machine (hypothesis)

CALL_IDS = st.sampled_from(["c1", "c2", "c3"])
EVIDENCE = st.sampled_from(list(EvidenceStatus))
CODES = st.sampled_from([ErrorCode.BACKEND_ERROR, ErrorCode.CANCELLED, ErrorCode.RAW_TOO_LARGE])


class CanonicalStoreMachine(RuleBasedStateMachine):
    """Random begin/transition/expiry sequences; the store must agree with a simple model."""

    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.clock = FakeClock(START)
        self.store = InMemoryCanonicalStore(self.clock, ttl_s=30)
        # call id -> (expected record, monotonic expiry instant)
        self.model: dict[str, tuple[CanonicalInvocation, float]] = {}

    def teardown(self) -> None:
        self.loop.close()

    def _run(self, coro: Any) -> Any:
        return self.loop.run_until_complete(coro)

    def _outcome(self, coro: Any) -> CanonicalInvocation | ErrorCode | None:
        try:
            return self._run(coro)
        except StoreError as exc:
            return exc.error_code

    def _alive(self, call_id: str) -> CanonicalInvocation | None:
        entry = self.model.get(call_id)
        if entry is None or self.clock.monotonic() >= entry[1]:
            self.model.pop(call_id, None)
            return None
        return entry[0]

    @rule(call_id=CALL_IDS)
    def begin(self, call_id: str) -> None:
        expected = self._alive(call_id)
        outcome = self._outcome(self.store.begin(_record(call_id)))
        if expected is None:
            assert outcome is None
            self.model[call_id] = (_record(call_id), self.clock.monotonic() + 30)
        else:
            assert outcome is ErrorCode.DUPLICATE_TOOL_CALL_ID

    @rule(call_id=CALL_IDS, evidence=EVIDENCE)
    def mark_ready(self, call_id: str, evidence: EvidenceStatus) -> None:
        current = self._alive(call_id)
        outcome = self._outcome(
            self.store.mark_ready(
                "run-1",
                call_id,
                raw=RawResponse.from_json(b'{"n":1}'),
                agent_result={"items": []},
                evidence_status=evidence,
                completed_at=self.clock.now(),
            )
        )
        if current is None:
            assert outcome is ErrorCode.RECORD_EXPIRED
        elif (
            current.invocation_status is not InvocationStatus.PROJECTING
            or evidence is EvidenceStatus.ERROR
        ):
            assert outcome is ErrorCode.ILLEGAL_TRANSITION
        else:
            assert isinstance(outcome, CanonicalInvocation)
            assert (outcome.invocation_status, outcome.evidence_status) == (
                InvocationStatus.READY,
                evidence,
            )
            self.model[call_id] = (outcome, self.model[call_id][1])

    @rule(call_id=CALL_IDS, code=CODES)
    def mark_error(self, call_id: str, code: ErrorCode) -> None:
        current = self._alive(call_id)
        outcome = self._outcome(
            self.store.mark_error("run-1", call_id, error_code=code, completed_at=self.clock.now())
        )
        if current is None:
            assert outcome is ErrorCode.RECORD_EXPIRED
        elif current.invocation_status is not InvocationStatus.PROJECTING:
            assert outcome is ErrorCode.ILLEGAL_TRANSITION
        else:
            assert isinstance(outcome, CanonicalInvocation)
            assert (outcome.invocation_status, outcome.error_code) == (InvocationStatus.ERROR, code)
            self.model[call_id] = (outcome, self.model[call_id][1])

    @rule(seconds=st.sampled_from([0.5, 5.0, 14.0, 31.0]))
    def advance(self, seconds: float) -> None:
        self.clock.advance(seconds)

    @precondition(lambda self: bool(self.model))
    @rule()
    def store_outage_changes_nothing(self) -> None:
        call_id = next(iter(self.model))
        self.store.fail_next(1)
        assert (
            self._outcome(
                self.store.mark_error(
                    "run-1", call_id, error_code=ErrorCode.CANCELLED, completed_at=self.clock.now()
                )
            )
            is ErrorCode.STORE_ERROR
        )

    @invariant()
    def store_matches_model_and_only_legal_pairs_exist(self) -> None:
        for call_id in ("c1", "c2", "c3"):
            stored = self._run(self.store.get("run-1", call_id))
            assert stored == self._alive(call_id)
            if stored is not None:
                assert (stored.invocation_status, stored.evidence_status) in LEGAL_STATUS_PAIRS


CanonicalStoreMachine.TestCase.settings = settings(
    max_examples=60, stateful_step_count=25, deadline=None
)
test_canonical_store_state_machine = CanonicalStoreMachine.TestCase
