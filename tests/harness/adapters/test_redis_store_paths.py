"""RedisCanonicalStore paths beyond the shared contract: script cache, corrupt or replaced
records, races across client connections, and failing closed when Redis is down or hung."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import fakeredis
import pydantic_core
import pytest
import redis.asyncio as aioredis

from harness.adapters.redis_store import RedisCanonicalStore, fakeredis_store
from harness.contracts.errors import ErrorCode, RecordExpired, StoreError
from harness.contracts.invocation import CanonicalInvocation, EvidenceStatus
from harness.contracts.raw import RawResponse
from harness.store import encode_record
from harness.testing.memory_store import InMemoryCanonicalStore
from tests.store_contract import (
    REDIS_HOST,
    REDIS_PORT,
    error_of,
    error_via,
    make_record,
    ready_via,
    require_real_redis,
    unique_prefix,
)


def test_transition_survives_script_cache_flush() -> None:
    """EVALSHA falls back to loading the script (e.g. after a Redis restart)."""

    async def body() -> None:
        store = fakeredis_store(server=fakeredis.FakeServer(), prefix=unique_prefix())
        record = make_record()
        await store.begin(record)
        await store._client.script_flush()
        returned = await error_via(store, record, ErrorCode.CANCELLED)
        assert returned == error_of(record, ErrorCode.CANCELLED)

    asyncio.run(body())


def test_corrupt_record_fails_closed() -> None:
    async def body() -> None:
        store = fakeredis_store(server=fakeredis.FakeServer())
        for corrupt in (b"not json", b'{"invocation_status": "PROJECTING"}'):
            await store._client.set(store.key("run-1", "call_1"), corrupt)
            for op in (
                lambda: store.get("run-1", "call_1"),
                lambda: error_via(store, make_record(), ErrorCode.CANCELLED),
            ):
                with pytest.raises(StoreError) as caught:
                    await op()
                assert caught.value.error_code is ErrorCode.STORE_ERROR

    asyncio.run(body())


@pytest.mark.parametrize("reader", ["begun_store", "fresh_store"])
def test_replaced_record_is_expired_not_overwritten(reader: str) -> None:
    """A record that expired and was begun anew before our script ran is no longer ours."""

    async def body() -> None:
        server = fakeredis.FakeServer()
        store = fakeredis_store(server=server)
        record = make_record()
        newer = make_record(request={"query": "newer"})
        await store.begin(record)
        key = store.key("run-1", "call_1")
        if reader == "begun_store":
            # The begun bytes are remembered; the replacement happens before the transition.
            await store._client.set(
                key, encode_record(newer, max_record_bytes=1 << 20, op="t"), ex=60
            )
            racing = store
        else:
            racing = fakeredis_store(server=server)
            real_get = racing._client.get

            async def get_then_replace(key: str) -> Any:
                value = await real_get(key)
                await racing._client.set(
                    key, encode_record(newer, max_record_bytes=1 << 20, op="t"), ex=60
                )
                return value

            racing._client.get = get_then_replace  # type: ignore[method-assign,assignment]
        with pytest.raises(RecordExpired) as caught:
            await error_via(racing, record, ErrorCode.CANCELLED)
        assert caught.value.context == {"op": "mark_error", "reason": "REPLACED"}
        assert await store.get("run-1", "call_1") == newer

    asyncio.run(body())


@pytest.mark.redis
def test_concurrent_transitions_from_separate_clients_exactly_one_wins() -> None:
    require_real_redis()
    prefix = unique_prefix()
    record = make_record()
    barrier = threading.Barrier(8)
    outcomes: list[Any] = []
    lock = threading.Lock()

    def worker(index: int) -> None:
        async def body() -> None:
            client = aioredis.Redis(host=REDIS_HOST, port=REDIS_PORT)
            store = RedisCanonicalStore(client, prefix=prefix)
            try:
                await store.get("run-1", "call_1")  # open the connection before the race
                await asyncio.to_thread(barrier.wait)
                tries = [
                    ready_via(store, record, EvidenceStatus.NO_EVIDENCE)
                    if (index + i) % 2
                    else error_via(store, record, ErrorCode.DEADLINE_EXCEEDED)
                    for i in range(7)
                ]
                got = await asyncio.gather(*tries, return_exceptions=True)
            finally:
                await client.aclose()
            with lock:
                outcomes.extend(got)

        asyncio.run(body())

    async def setup_and_check(check: bool) -> Any:
        client = aioredis.Redis(host=REDIS_HOST, port=REDIS_PORT)
        store = RedisCanonicalStore(client, prefix=prefix)
        try:
            if not check:
                await store.begin(record)
                return None
            stored = await store.get("run-1", "call_1")
            await client.delete(store.key("run-1", "call_1"))
            return stored
        finally:
            await client.aclose()

    asyncio.run(setup_and_check(check=False))
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stored = asyncio.run(setup_and_check(check=True))
    winners = [o for o in outcomes if isinstance(o, CanonicalInvocation)]
    refused = [o.error_code for o in outcomes if isinstance(o, StoreError)]
    assert (len(winners), refused) == (1, [ErrorCode.ILLEGAL_TRANSITION] * 55)
    assert stored == winners[0]


# ------------------------------------------------------------------------------ store down


async def _every_op(store: Any) -> list[StoreError]:
    record = make_record()
    ops = [
        lambda: store.begin(record),
        lambda: ready_via(store, record, EvidenceStatus.EVIDENCE_FOUND),
        lambda: error_via(store, record, ErrorCode.CANCELLED),
        lambda: store.get("run-1", "call_1"),
        lambda: store.remaining_ttl_ms("run-1", "call_1"),
    ]
    errors = []
    for op in ops:
        with pytest.raises(StoreError) as caught:
            await op()
        errors.append(caught.value)
    return errors


def _assert_fail_closed(errors: list[StoreError]) -> None:
    assert [(type(e), e.error_code) for e in errors] == [(StoreError, ErrorCode.STORE_ERROR)] * 5
    for error in errors:
        # Only our own fixed words reach str(); never the driver's text (hosts, ports, errno).
        assert all(w not in str(error) for w in ("127.0.0.1", "refused", "Errno", "Timeout"))


def test_memory_store_down_fails_closed() -> None:
    store = InMemoryCanonicalStore()
    store.down = True
    _assert_fail_closed(asyncio.run(_every_op(store)))


def test_redis_on_closed_port_fails_closed_within_timeout() -> None:
    async def body() -> None:
        client = aioredis.Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.2)
        store = RedisCanonicalStore(client, op_timeout_s=0.3)
        started = time.monotonic()
        errors = await _every_op(store)
        elapsed_s = time.monotonic() - started
        await client.aclose()
        _assert_fail_closed(errors)
        # Five operations, each cut at its 0.3 s timeout; the slack absorbs a loaded 2-core
        # machine (2.0 s seen), while an operation that ignored its timeout (redis-py retrying
        # a refused connection, or waiting on the OS) would take well past it.
        assert elapsed_s < 5 * 0.3 + 3.0

    asyncio.run(body())


def test_redis_hung_server_fails_closed_within_timeout() -> None:
    """A server that accepts but never answers must not stall the run."""

    async def body() -> None:
        accepted: list[asyncio.StreamWriter] = []

        async def silent(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            accepted.append(writer)

        server = await asyncio.start_server(silent, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        client = aioredis.Redis(host="127.0.0.1", port=port, socket_timeout=30)
        store = RedisCanonicalStore(client, op_timeout_s=0.2)
        started = time.monotonic()
        errors = await _every_op(store)
        elapsed_s = time.monotonic() - started
        await client.aclose()
        for writer in accepted:
            writer.close()
        server.close()
        await server.wait_closed()
        _assert_fail_closed(errors)
        assert [e.context["cause"] for e in errors] == ["TimeoutError"] * 5
        assert 5 * 0.2 <= elapsed_s < 5 * 0.2 + 0.5

    asyncio.run(body())


def test_begun_cache_is_bounded_and_eviction_only_costs_a_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("harness.adapters.redis_store._MAX_BEGUN_CACHED", 2)

    async def body() -> None:
        store = fakeredis_store(server=fakeredis.FakeServer())
        records = [make_record(tool_call_id=f"call_{i}") for i in range(3)]
        for record in records:
            await store.begin(record)
        cached = sorted(store._begun)
        returned = [await error_via(store, r, ErrorCode.CANCELLED) for r in records]
        assert (cached, store._begun) == (
            [store.key("run-1", "call_1"), store.key("run-1", "call_2")],
            {},
        )
        assert returned == [error_of(r, ErrorCode.CANCELLED) for r in records]

    asyncio.run(body())


def test_a_raw_of_shared_parts_is_stored_as_its_compressed_frame() -> None:
    """The embedded log store's raws come uncompressed (an in-process store keeps them by
    reference); Redis gets the zstd frame, compressed off the event loop, and reads back the
    same JSON."""
    items = [pydantic_core.to_json({"n": n, "message": "m" * 300}) for n in range(40)]
    value = {"format": "embedded-jsonl/v1", "events": [pydantic_core.from_json(i) for i in items]}
    raw = RawResponse.of_parts(value, "events", items, shared=True)
    threads: list[str] = []
    fget = RawResponse.compressed.fget
    assert fget is not None

    def compressed(self: RawResponse) -> bytes:
        threads.append(threading.current_thread().name)
        return fget(self)

    async def body() -> tuple[bytes, CanonicalInvocation | None]:
        store = fakeredis_store(server=fakeredis.FakeServer(), prefix=unique_prefix())
        record = make_record()
        await store.begin(record)
        await store.mark_ready(
            record.run_id,
            record.tool_call_id,
            raw=raw,
            agent_result={"n": 40},
            evidence_status=EvidenceStatus.EVIDENCE_FOUND,
            completed_at=record.started_at,
        )
        stored = await store._client.get(store.key(record.run_id, record.tool_call_id))
        return stored, await store.get(record.run_id, record.tool_call_id)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(RawResponse, "compressed", property(compressed))
        stored, read = asyncio.run(body())
    assert threads and threads[0] != "MainThread"
    assert b"\nz" in stored and not stored.endswith(b"\nk")
    assert read is not None and read.raw is not None and read.raw.json == raw.json
