"""One CanonicalStore contract, run against the local (embedded) store, the testing store,
fakeredis and real Redis."""

from __future__ import annotations

import asyncio
import pickle
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from harness.contracts.errors import ErrorCode, RecordExpired, StoreError
from harness.contracts.invocation import CanonicalInvocation, EvidenceStatus
from harness.contracts.raw import RawResponse
from harness.ports import CanonicalStore
from harness.store import check_ttl_covers
from tests.store_contract import (
    COMPLETED_AT,
    RESULT,
    StoreFactory,
    error_of,
    error_via,
    make_record,
    ready_of,
    ready_via,
    require_real_redis,
)


@pytest.fixture(
    params=["local", "memory", "fakeredis", pytest.param("redis", marks=pytest.mark.redis)]
)
def stores(request: pytest.FixtureRequest) -> StoreFactory:
    if request.param == "redis":
        require_real_redis()
    return StoreFactory(request.param)


def test_stores_implement_the_port(stores: StoreFactory) -> None:
    async def body() -> None:
        assert isinstance(stores(), CanonicalStore)

    stores.run(body)


def test_begin_creates_projecting_record(stores: StoreFactory) -> None:
    async def body() -> None:
        store = stores()
        record = make_record()
        await store.begin(record)
        assert await store.get("run-1", "call_1") == record
        assert await store.get("run-1", "call_2") is None
        assert await store.get("run-2", "call_1") is None

    stores.run(body)


def test_begin_twice_is_duplicate_and_keeps_first(stores: StoreFactory) -> None:
    async def body() -> None:
        store = stores()
        first = make_record()
        await store.begin(first)
        with pytest.raises(StoreError) as caught:
            await store.begin(make_record(request={"query": "other"}))
        assert caught.value.error_code is ErrorCode.DUPLICATE_TOOL_CALL_ID
        assert await store.get("run-1", "call_1") == first

    stores.run(body)


def test_begin_refuses_a_terminal_record(stores: StoreFactory) -> None:
    async def body() -> None:
        store = stores()
        with pytest.raises(StoreError) as caught:
            await store.begin(ready_of(make_record(), EvidenceStatus.EVIDENCE_FOUND))
        assert caught.value.error_code is ErrorCode.ILLEGAL_TRANSITION
        assert await store.get("run-1", "call_1") is None

    stores.run(body)


@pytest.mark.parametrize("evidence", [EvidenceStatus.EVIDENCE_FOUND, EvidenceStatus.NO_EVIDENCE])
def test_projecting_to_ready_round_trips(stores: StoreFactory, evidence: EvidenceStatus) -> None:
    async def body() -> None:
        store = stores()
        record = make_record()
        await store.begin(record)
        returned = await ready_via(store, record, evidence)
        expected = ready_of(record, evidence)
        assert (returned, await store.get("run-1", "call_1")) == (expected, expected)

    stores.run(body)


def test_projecting_to_error_round_trips(stores: StoreFactory) -> None:
    async def body() -> None:
        store = stores()
        record = make_record()
        await store.begin(record)
        returned = await error_via(store, record, ErrorCode.BACKEND_TIMEOUT)
        expected = error_of(record, ErrorCode.BACKEND_TIMEOUT)
        assert (returned, await store.get("run-1", "call_1")) == (expected, expected)

    stores.run(body)


def test_round_trip_keeps_timezones_and_unicode(stores: StoreFactory) -> None:
    async def body() -> None:
        store = stores()
        plus_two = timezone(timedelta(hours=2))
        record = make_record(
            started_at=datetime(2024, 5, 1, 16, 5, 7, 1, tzinfo=plus_two),
            request={"query": "grüße ∑ 🚨", "nested": [1, 2.5, None, True, {"k": "v"}]},
        )
        await store.begin(record)
        stored = await store.get("run-1", "call_1")
        assert stored == record
        assert stored.started_at.utcoffset() == timedelta(hours=2)

    stores.run(body)


_FIRST_SECOND = [
    ("ready", "error"),
    ("error", "ready"),
    ("ready", "ready"),
    ("error", "error"),
]


@pytest.mark.parametrize(("first", "second"), _FIRST_SECOND)
def test_terminal_records_refuse_every_transition(
    stores: StoreFactory, first: str, second: str
) -> None:
    async def apply(store: Any, record: CanonicalInvocation, op: str) -> Any:
        if op == "ready":
            return await ready_via(store, record, EvidenceStatus.NO_EVIDENCE)
        return await error_via(store, record, ErrorCode.PROJECTION_ERROR)

    async def body() -> None:
        store = stores()
        record = make_record()
        await store.begin(record)
        terminal = await apply(store, record, first)
        ttl_before = await store.remaining_ttl_ms("run-1", "call_1")
        with pytest.raises(StoreError) as caught:
            await apply(store, record, second)
        assert caught.value.error_code is ErrorCode.ILLEGAL_TRANSITION
        assert await store.get("run-1", "call_1") == terminal
        assert 0 < await store.remaining_ttl_ms("run-1", "call_1") <= ttl_before

    stores.run(body)


def test_ready_with_error_evidence_is_illegal(stores: StoreFactory) -> None:
    async def body() -> None:
        store = stores()
        record = make_record()
        await store.begin(record)
        with pytest.raises(StoreError) as caught:
            await ready_via(store, record, EvidenceStatus.ERROR)
        assert caught.value.error_code is ErrorCode.ILLEGAL_TRANSITION
        assert await store.get("run-1", "call_1") == record

    stores.run(body)


@pytest.mark.parametrize("op", ["ready", "error"])
def test_transition_of_missing_record_is_expired_and_not_recreated(
    stores: StoreFactory, op: str
) -> None:
    async def body() -> None:
        store = stores()
        record = make_record()
        with pytest.raises(RecordExpired) as caught:
            if op == "ready":
                await ready_via(store, record, EvidenceStatus.EVIDENCE_FOUND)
            else:
                await error_via(store, record, ErrorCode.CANCELLED)
        assert caught.value.error_code is ErrorCode.RECORD_EXPIRED
        assert await store.get("run-1", "call_1") is None
        assert await store.remaining_ttl_ms("run-1", "call_1") is None

    stores.run(body)


def test_record_size_limit_is_inclusive(stores: StoreFactory) -> None:
    async def body() -> None:
        record = make_record()
        size = len(record.model_dump_json(exclude={"raw"}).encode())
        tight = stores(max_record_bytes=size - 1)
        with pytest.raises(StoreError) as caught:
            await tight.begin(record)
        assert caught.value.error_code is ErrorCode.RECORD_TOO_LARGE
        assert caught.value.context == {
            "op": "begin",
            "record_bytes": size,
            "max_record_bytes": size - 1,
        }
        assert await tight.get("run-1", "call_1") is None
        exact = stores(max_record_bytes=size)
        await exact.begin(record)
        assert await exact.get("run-1", "call_1") == record

    stores.run(body)


def test_oversize_successor_leaves_record_projecting(stores: StoreFactory) -> None:
    async def body() -> None:
        store = stores(max_record_bytes=4096)
        record = make_record()
        await store.begin(record)
        with pytest.raises(StoreError) as caught:
            await store.mark_ready(
                "run-1",
                "call_1",
                raw=RawResponse.of({"lines": ["x" * 100] * 50}),
                agent_result=RESULT,
                evidence_status=EvidenceStatus.EVIDENCE_FOUND,
                completed_at=COMPLETED_AT,
            )
        assert caught.value.error_code is ErrorCode.RECORD_TOO_LARGE
        assert await store.get("run-1", "call_1") == record
        # The caller then records the failure itself, which is small and fits.
        marked = await error_via(store, record, ErrorCode.RECORD_TOO_LARGE)
        assert marked == error_of(record, ErrorCode.RECORD_TOO_LARGE)

    stores.run(body)


def test_ttl_set_at_begin_and_not_renewed(stores: StoreFactory) -> None:
    async def body() -> None:
        store = stores(ttl_s=120)
        record = make_record()
        await store.begin(record)
        readings = [await store.remaining_ttl_ms("run-1", "call_1")]
        for _ in range(3):
            await store.get("run-1", "call_1")
            readings.append(await store.remaining_ttl_ms("run-1", "call_1"))
        await ready_via(store, record, EvidenceStatus.EVIDENCE_FOUND)
        readings.append(await store.remaining_ttl_ms("run-1", "call_1"))
        assert readings[-1] > 0
        assert readings == sorted(readings, reverse=True)
        assert readings[0] <= 120_000

    stores.run(body)


@pytest.mark.parametrize("racer", ["same_store", "fresh_store"])
def test_concurrent_transitions_exactly_one_wins(stores: StoreFactory, racer: str) -> None:
    """50 mixed READY/ERROR transitions of one record: exactly one wins.

    ``same_store`` races through the store that began the record (a Redis store then skips the
    read); ``fresh_store`` through another store on the same data, which must read first.
    """

    async def body() -> None:
        store = stores()
        record = make_record()
        await store.begin(record)
        racing = store
        if racer == "fresh_store" and stores.kind not in ("memory", "local"):
            racing = stores()
            # Without this, each transition tends to finish before the next one reads, and
            # only the Python-side check would be exercised. Holding every reader until all
            # 50 have read PROJECTING makes the Lua script's compare-and-set decide the race.
            read_all = asyncio.Barrier(50)
            real_get = racing._client.get

            async def get_then_wait(key: str) -> Any:
                value = await real_get(key)
                await read_all.wait()
                return value

            racing._client.get = get_then_wait
        attempts = [
            ready_via(racing, record, EvidenceStatus.EVIDENCE_FOUND)
            if i % 2
            else error_via(racing, record, ErrorCode.CANCELLED)
            for i in range(50)
        ]
        outcomes = await asyncio.wait_for(asyncio.gather(*attempts, return_exceptions=True), 10)
        winners = [o for o in outcomes if isinstance(o, CanonicalInvocation)]
        refused = [o.error_code for o in outcomes if isinstance(o, StoreError)]
        assert (len(winners), refused) == (1, [ErrorCode.ILLEGAL_TRANSITION] * 49)
        assert await store.get("run-1", "call_1") == winners[0]

    stores.run(body)


def test_store_errors_survive_pickling(stores: StoreFactory) -> None:
    raised: list[StoreError] = []

    async def body() -> None:
        store = stores()
        record = make_record()
        for attempt in (
            lambda: ready_via(store, record, EvidenceStatus.EVIDENCE_FOUND),  # missing: expired
            lambda: store.begin(record),
            lambda: store.begin(record),  # duplicate
            lambda: error_via(store, record, ErrorCode.CANCELLED),
            lambda: error_via(store, record, ErrorCode.CANCELLED),  # illegal
        ):
            try:
                await attempt()
            except StoreError as exc:
                raised.append(exc)

    stores.run(body)

    def shape(exc: StoreError) -> tuple[Any, ...]:
        return (type(exc), exc.args, exc.error_code, exc.message, exc.context, exc.retryable)

    assert [e.error_code for e in raised] == [
        ErrorCode.RECORD_EXPIRED,
        ErrorCode.DUPLICATE_TOOL_CALL_ID,
        ErrorCode.ILLEGAL_TRANSITION,
    ]
    assert type(raised[0]) is RecordExpired
    assert [shape(pickle.loads(pickle.dumps(e))) for e in raised] == [shape(e) for e in raised]


def test_ttl_must_cover_the_longest_deadline(stores: StoreFactory) -> None:
    async def body() -> None:
        store = stores(ttl_s=3600)
        check_ttl_covers(store.ttl_s, deadline_s=3000, margin_s=599)
        with pytest.raises(ValueError, match="must exceed"):
            check_ttl_covers(store.ttl_s, deadline_s=3000, margin_s=600)

    stores.run(body)
