"""AuditWriter: flush on size, interval and close; a slow or failing store never blocks a
record; overflow drops the oldest; one retry, then drop; every loss counted. Fake clock only."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from harness.audit.records import RunRecord, drain_sink
from harness.audit.writer import (
    AuditWriter,
    AuditWriterEvent,
    AuditWriterPolicy,
    AuditWriterStats,
    DropReason,
    record_rows,
)
from harness.contracts.ingress import RunRequest
from harness.diagnosis import DiagnosisRun
from harness.testing.clock import FakeClock, until
from harness.testing.memory_audit import InMemoryAuditStore
from harness.testing.models import ScriptedModel, draft_json, text_reply, tool_reply
from harness.testing.records import run_record
from harness.testing.rig import fake_deps

ROWS = 48  # one run_record: 1 run + 5 tools + 4 steps + 30 events + 8 reasoning rows


def records(n: int, start: int = 0) -> list[RunRecord]:
    clock = FakeClock()
    return [run_record(f"run-{i}", at=clock.now()) for i in range(start, start + n)]


def ids(store: InMemoryAuditStore) -> list[str]:
    return [r.run.run_id for r in store.records]


def drops(reason: DropReason, n: int) -> tuple[dict[DropReason, int], dict[DropReason, int]]:
    zero = dict.fromkeys(DropReason, 0)
    return {**zero, reason: n}, {**zero, reason: n * ROWS}


def no_drops() -> tuple[dict[DropReason, int], dict[DropReason, int]]:
    return dict.fromkeys(DropReason, 0), dict.fromkeys(DropReason, 0)


def scenario(
    body: Callable[[AuditWriter, InMemoryAuditStore, FakeClock], Awaitable[None]],
    **policy: Any,
) -> AuditWriterStats:
    async def main() -> AuditWriterStats:
        clock = FakeClock()
        store = InMemoryAuditStore(clock)
        writer = AuditWriter(store, clock, AuditWriterPolicy(**policy))
        await body(writer, store, clock)
        return writer.stats()

    return asyncio.run(main())


def test_record_rows_counts_every_table() -> None:
    assert record_rows(records(1)[0]) == ROWS


def test_a_full_batch_is_written_at_once_without_waiting_for_the_interval() -> None:
    async def body(writer: AuditWriter, store: InMemoryAuditStore, clock: FakeClock) -> None:
        for record in records(3):
            await writer.record(record)
        await until(lambda: len(store.batches) == 1)
        assert ids(store) == ["run-0", "run-1"]  # one batch of 96 rows; run-2 waits
        clock.advance(0.99)
        await until(lambda: True)
        assert len(store.batches) == 1
        clock.advance(0.01)
        await until(lambda: len(store.batches) == 2)

    stats = scenario(body, batch_rows=2 * ROWS, flush_interval_s=1.0)
    assert stats == AuditWriterStats(
        accepted_records=3,
        written_records=3,
        written_rows=3 * ROWS,
        flushes=2,
        failed_flushes=0,
        dropped_records=no_drops()[0],
        dropped_rows=no_drops()[1],
        queued_records=0,
        queued_rows=0,
        last_error=None,
    )


def test_the_interval_flushes_everything_queued_in_batches() -> None:
    async def body(writer: AuditWriter, store: InMemoryAuditStore, clock: FakeClock) -> None:
        for record in records(5):
            writer.offer(record)
        await until(lambda: True)
        assert store.batches == []
        clock.advance(1.0)
        await until(lambda: len(store.records) == 5)
        assert [len(b) for b in store.batches] == [3, 2]

    scenario(body, batch_rows=3 * ROWS + 1, flush_interval_s=1.0, max_queued_rows=10_000)


def test_close_writes_what_is_queued_and_refuses_later_records() -> None:
    async def body(writer: AuditWriter, store: InMemoryAuditStore, clock: FakeClock) -> None:
        first, late = records(2)
        await writer.record(first)
        await writer.close()
        assert ids(store) == ["run-0"]
        await writer.record(late)
        await writer.close()  # idempotent
        assert clock.pending_timers == 0

    stats = scenario(body)
    assert (stats.written_records, stats.accepted_records) == (1, 1)
    assert (stats.dropped_records, stats.dropped_rows) == drops(DropReason.CLOSED, 1)


def test_drain_writes_what_is_queued_without_waiting_for_the_interval_and_keeps_accepting() -> None:
    async def body(writer: AuditWriter, store: InMemoryAuditStore, clock: FakeClock) -> None:
        first, later = records(2)
        await writer.record(first)
        assert await drain_sink(writer, timeout_s=5.0) == 0
        assert ids(store) == ["run-0"]
        await writer.record(later)  # a drain is no close: the writer goes on
        assert await writer.drain(5.0) == 0
        assert ids(store) == ["run-0", "run-1"]

    stats = scenario(body, flush_interval_s=60.0)
    assert (stats.written_records, stats.accepted_records) == (2, 2)


def test_a_drain_that_times_out_counts_the_records_still_queued() -> None:
    async def body(writer: AuditWriter, store: InMemoryAuditStore, clock: FakeClock) -> None:
        store.hold()
        for record in records(3):
            await writer.record(record)
        draining = asyncio.ensure_future(writer.drain(2.0))
        await until(lambda: store.waiting == 1)
        clock.advance(2.0)
        assert await draining == 3  # the batch held in the store's write counts too
        store.release()
        assert await writer.drain(2.0) == 0
        assert ids(store) == ["run-0", "run-1", "run-2"]

    scenario(body, flush_interval_s=60.0)


def test_a_hung_store_never_blocks_record_and_records_keep_queuing() -> None:
    async def body(writer: AuditWriter, store: InMemoryAuditStore, clock: FakeClock) -> None:
        store.hold()
        batch = records(40)
        for record in batch[:2]:
            await writer.record(record)
        await until(lambda: store.waiting == 1)
        for record in batch[2:]:
            # record() completes in one step: no await point reaches the store.
            step = writer.record(record).__await__()
            with pytest.raises(StopIteration):
                next(step)
        assert writer.stats().queued_records == 38
        assert store.attempts == 1  # one flush at a time, however much is queued
        store.release()
        await writer.flush()
        assert ids(store) == [r.run.run_id for r in batch]

    stats = scenario(body, batch_rows=2 * ROWS)
    assert stats.written_records == 40 and stats.dropped_records == no_drops()[0]


def test_overflow_drops_the_oldest_queued_records_first() -> None:
    async def body(writer: AuditWriter, store: InMemoryAuditStore, clock: FakeClock) -> None:
        store.hold()
        batch = records(7)
        for record in batch[:2]:
            writer.offer(record)
        await until(lambda: store.waiting == 1)  # run-0 and run-1 are in flight
        for record in batch[2:]:
            writer.offer(record)  # the queue holds 4 records: run-6 pushes run-2 out
        assert writer.stats().queued_records == 4
        store.release()
        await writer.flush()
        assert ids(store) == ["run-0", "run-1", "run-3", "run-4", "run-5", "run-6"]

    stats = scenario(body, batch_rows=2 * ROWS, max_queued_rows=4 * ROWS)
    assert (stats.dropped_records, stats.dropped_rows) == drops(DropReason.OVERFLOW, 1)


def test_a_record_larger_than_the_queue_is_dropped_alone() -> None:
    async def body(writer: AuditWriter, store: InMemoryAuditStore, clock: FakeClock) -> None:
        clock_now = FakeClock().now()
        writer.offer(records(1)[0])
        writer.offer(run_record("run-huge", at=clock_now, events=200))
        await writer.close()
        assert ids(store) == ["run-0"]

    stats = scenario(body, batch_rows=ROWS, max_queued_rows=100)
    assert stats.dropped_records[DropReason.OVERFLOW] == 1


def test_a_failed_batch_is_retried_once_at_the_next_interval_then_dropped() -> None:
    async def body(writer: AuditWriter, store: InMemoryAuditStore, clock: FakeClock) -> None:
        store.failing = True
        writer.offer(records(1)[0])
        clock.advance(1.0)
        await until(lambda: store.attempts == 1)
        await until(lambda: writer.stats().queued_records == 1)  # kept for one retry
        clock.advance(0.5)
        await until(lambda: True)
        assert store.attempts == 1  # not hammered before the next interval
        clock.advance(0.5)
        await until(lambda: writer.stats().queued_records == 0)
        assert store.attempts == 2
        # The database is back: new records are written again.
        store.failing = False
        writer.offer(records(1, start=1)[0])
        clock.advance(1.0)
        await until(lambda: len(store.records) == 1)
        assert ids(store) == ["run-1"]

    stats = scenario(body, flush_interval_s=1.0)
    assert (stats.failed_flushes, stats.written_records, stats.last_error) == (2, 1, "StoreDown")
    assert (stats.dropped_records, stats.dropped_rows) == drops(DropReason.FAILED, 1)


def test_a_batch_that_fails_once_is_written_on_the_retry_in_order() -> None:
    async def body(writer: AuditWriter, store: InMemoryAuditStore, clock: FakeClock) -> None:
        store.failing = True
        writer.offer(records(1)[0])
        clock.advance(1.0)
        await until(lambda: store.attempts == 1)
        store.failing = False
        writer.offer(records(1, start=1)[0])
        clock.advance(1.0)
        await until(lambda: len(store.records) == 2)
        assert ids(store) == ["run-0", "run-1"]

    stats = scenario(body)
    assert (stats.failed_flushes, stats.written_records) == (1, 2)
    assert stats.dropped_records == no_drops()[0]


def test_close_gives_up_after_its_timeout_and_counts_what_it_could_not_write() -> None:
    async def body(writer: AuditWriter, store: InMemoryAuditStore, clock: FakeClock) -> None:
        store.hold()
        for record in records(3):
            writer.offer(record)
        closing = asyncio.create_task(writer.close())
        await until(lambda: store.waiting == 1)
        clock.advance(5.0)
        await closing
        assert store.records == []

    stats = scenario(body, close_timeout_s=5.0)
    assert (stats.dropped_records, stats.dropped_rows) == drops(DropReason.CLOSED, 3)


def test_the_listener_sees_writes_failures_and_drops_and_may_fail_itself() -> None:
    seen: list[AuditWriterEvent] = []

    def listener(event: AuditWriterEvent) -> None:
        seen.append(event)
        raise RuntimeError("metrics backend down")

    async def main() -> None:
        clock = FakeClock()
        store = InMemoryAuditStore(clock)
        writer = AuditWriter(store, clock, AuditWriterPolicy(max_attempts=1), listener=listener)
        store.failing = True
        writer.offer(records(1)[0])
        await writer.flush()
        store.failing = False
        writer.offer(records(1, start=1)[0])
        await writer.flush()

    asyncio.run(main())
    assert seen == [
        AuditWriterEvent(kind="FLUSH_FAILED", records=1, rows=ROWS, error="StoreDown"),
        AuditWriterEvent(kind="DROPPED", records=1, rows=ROWS, reason=DropReason.FAILED),
        AuditWriterEvent(kind="WRITTEN", records=1, rows=ROWS),
    ]


@pytest.mark.parametrize(
    "policy",
    [
        {"batch_rows": 0},
        {"batch_rows": 10, "max_queued_rows": 5},
        {"flush_interval_s": 0},
        {"max_attempts": 0},
    ],
)
def test_policy_refuses_nonsense(policy: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        AuditWriterPolicy(**policy)


# ---------------------------------------------------------------- runs do not depend on it


def _diagnosis(audit: AuditWriter | None, clock: FakeClock) -> DiagnosisRun:
    kb = {"query": "connection pool", "top_k": 3}
    citation = {"tool_call_id": "k1", "item_ref": "doc:a#0"}
    conclusion = {
        "id": "c1",
        "kind": "OBSERVATION",
        "statement": "pool exhausted",
        "confidence": 0.7,
        "citations": [citation],
    }
    model = ScriptedModel(
        [
            text_reply(json.dumps({"intent": "DIAGNOSIS"})),
            tool_reply(("search_knowledge", kb, "k1")),
            text_reply(draft_json("an-1", [conclusion])),
            text_reply(json.dumps({"verdict": "SUPPORTED", "issues": []})),
        ]
    )
    deps = dataclasses.replace(fake_deps(model, clock=clock), audit=audit)
    return DiagnosisRun(
        RunRequest(question="Why 500 since 14:05?", analysis_id="an-1"), deps, run_id="run-q"
    )


def test_a_run_releases_the_same_result_whether_the_audit_is_hung_failing_or_absent() -> None:
    async def main() -> list[Any]:
        clock = FakeClock()
        plain = await _diagnosis(None, clock).execute()
        hung_store, failing_store = InMemoryAuditStore(clock), InMemoryAuditStore(clock)
        hung_store.hold()
        failing_store.failing = True
        results = [plain]
        for store in (hung_store, failing_store):
            writer = AuditWriter(store, clock, AuditWriterPolicy(batch_rows=1))
            run = _diagnosis(writer, clock)
            started = clock.monotonic()
            results.append(await run.execute())
            assert clock.monotonic() == started  # the run never waited on the fake clock
            assert run.audit_failures == 0
            if store is hung_store:
                await until(lambda: hung_store.waiting == 1)  # its write still hangs
            hung_store.release()
            await writer.close()
        assert failing_store.records == [] and len(hung_store.records) == 1
        return results

    plain, hung, failing = asyncio.run(main())
    assert plain == hung == failing
