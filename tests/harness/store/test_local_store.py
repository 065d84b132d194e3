"""LocalCanonicalStore beyond the shared contract (tests/store_contract.py): its memory stays
bounded by what one TTL holds, even for records nobody reads again."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pydantic_core

from harness.contracts.invocation import CanonicalInvocation, EvidenceStatus, InvocationStatus
from harness.contracts.raw import _UNSET, RawResponse
from harness.store import LocalCanonicalStore
from harness.testing.clock import FakeClock

START = datetime(2024, 5, 1, 14, 5, tzinfo=UTC)


def _record(run_id: str, tool_call_id: str = "call_1") -> CanonicalInvocation:
    return CanonicalInvocation(
        tool_call_id=tool_call_id,
        run_id=run_id,
        tool_name="query_mysql",
        request={"sql": "SELECT 1"},
        invocation_status=InvocationStatus.PROJECTING,
        started_at=START,
    )


def test_begin_drops_the_records_whose_ttl_ended_and_keeps_the_live_ones() -> None:
    clock = FakeClock(START)
    store = LocalCanonicalStore(clock, ttl_s=60)

    async def body() -> tuple[list[int], list[bool]]:
        sizes = []
        for minute_run in ("run-a", "run-b"):
            for call in range(3):
                await store.begin(_record(minute_run, f"call_{call}"))
            sizes.append(len(store))
            clock.advance(40)
        # run-a's records were begun 80 s ago: the next begin drops them, unread.
        await store.begin(_record("run-c", "call_0"))
        sizes.append(len(store))
        alive = [await store.get(r, "call_0") is not None for r in ("run-a", "run-b", "run-c")]
        return sizes, alive

    sizes, alive = asyncio.run(body())
    assert (sizes, alive) == ([3, 6, 4], [False, True, True])


def test_a_record_begun_again_after_expiry_expires_after_the_older_ones() -> None:
    clock = FakeClock(START)
    store = LocalCanonicalStore(clock, ttl_s=60)

    async def body() -> list[bool]:
        await store.begin(_record("run-a"))
        clock.advance(30)
        await store.begin(_record("run-b"))
        clock.advance(31)  # run-a expired, run-b has 29 s left
        await store.begin(_record("run-a"))  # the same key again, now the newest
        clock.advance(30)  # run-b expired, run-a (again) has 30 s left
        await store.begin(_record("run-c"))
        return [await store.get(r, "call_1") is not None for r in ("run-a", "run-b", "run-c")]

    assert asyncio.run(body()) == [True, False, True]


def test_a_log_raw_of_shared_event_json_is_kept_by_reference_not_compressed() -> None:
    """The embedded log store keeps each event's JSON; a record of its result holds those
    bytes by reference (no 5 ms compression of a multi-megabyte result per query), and a
    reader's raw is its own object, so nothing it derives is kept by the store."""
    items = [pydantic_core.to_json({"n": n, "message": "m" * 200}) for n in range(50)]
    value = {"format": "embedded-jsonl/v1", "events": [pydantic_core.from_json(i) for i in items]}
    raw = RawResponse.of_parts(value, "events", items, shared=True)
    store = LocalCanonicalStore(FakeClock(START), ttl_s=60)

    async def body() -> tuple[CanonicalInvocation | None, CanonicalInvocation | None]:
        record = _record("run-a")
        await store.begin(record)
        await store.mark_ready(
            "run-a",
            "call_1",
            raw=raw,
            agent_result={"n": 50},
            evidence_status=EvidenceStatus.EVIDENCE_FOUND,
            completed_at=START,
        )
        return await store.get("run-a", "call_1"), await store.get("run-a", "call_1")

    first, second = asyncio.run(body())
    assert first is not None and second is not None
    assert first.raw is not None and second.raw is not None
    assert raw._compressed is None
    assert first.raw is not second.raw and first.raw.json == raw.json
    (entry,) = store._entries.values()
    assert entry.beside is not None and entry.beside._json is None
    assert entry.beside._value is _UNSET  # the backend's value is not kept
