"""Real Redis: the TTL is set once at begin, decays across reads and transitions, and expires.

TTL is measured with PTTL across short real intervals (the only sleeps here measure decay or
wait out a 1 s TTL; together they stay under 2 s).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
import redis
import redis.asyncio as aioredis

from harness.adapters.redis_store import RedisCanonicalStore
from harness.contracts.errors import ErrorCode, RecordExpired
from harness.contracts.invocation import EvidenceStatus
from harness.contracts.raw import RawResponse
from tests.store_contract import (
    REDIS_HOST,
    REDIS_PORT,
    make_record,
    require_real_redis,
    unique_prefix,
)

pytestmark = pytest.mark.redis

DONE_AT = datetime(2024, 5, 1, 14, 6, tzinfo=UTC)


@pytest.fixture
def prefix() -> Iterator[str]:
    require_real_redis()
    prefix = unique_prefix()
    yield prefix
    client = redis.Redis(host=REDIS_HOST, port=REDIS_PORT)
    for key in client.scan_iter(match=f"{prefix}:*"):
        client.delete(key)
    client.close()


def test_ttl_never_renewed_by_reads_or_transition(prefix: str) -> None:
    ttl_s = 30

    async def body() -> None:
        client = aioredis.Redis(host=REDIS_HOST, port=REDIS_PORT)
        store = RedisCanonicalStore(client, prefix=prefix, ttl_s=ttl_s)
        key = store.key("run-1", "call_1")
        try:
            await store.begin(make_record())
            readings: list[int] = [await client.pttl(key)]
            await asyncio.sleep(0.6)  # measure decay over a real interval
            for _ in range(3):
                assert await store.get("run-1", "call_1") is not None
                readings.append(await client.pttl(key))
            await store.mark_ready(
                "run-1",
                "call_1",
                raw=RawResponse.from_json(b'{"lines":[]}'),
                agent_result={"items": []},
                evidence_status=EvidenceStatus.NO_EVIDENCE,
                completed_at=DONE_AT,
            )
            readings.append(await client.pttl(key))
            via_store = await store.remaining_ttl_ms("run-1", "call_1")
            assert via_store is not None
            readings.append(via_store)
        finally:
            await client.aclose()

        assert readings == sorted(readings, reverse=True), readings
        assert ttl_s * 1000 - 200 < readings[0] <= ttl_s * 1000
        # A renewal on read or transition would put the TTL back near 30 000 ms.
        assert readings[-1] <= ttl_s * 1000 - 550, readings

    asyncio.run(body())


def test_expired_record_reads_none_and_is_never_recreated(prefix: str) -> None:
    async def body() -> None:
        client = aioredis.Redis(host=REDIS_HOST, port=REDIS_PORT)
        store = RedisCanonicalStore(client, prefix=prefix, ttl_s=1)
        key = store.key("run-1", "call_1")
        try:
            await store.begin(make_record())
            remaining_ms = await store.remaining_ttl_ms("run-1", "call_1")
            assert remaining_ms is not None and 0 < remaining_ms <= 1000
            await asyncio.sleep(remaining_ms / 1000 + 0.05)  # let the measured TTL run out
            assert await store.get("run-1", "call_1") is None
            with pytest.raises(RecordExpired) as ready_refused:
                await store.mark_ready(
                    "run-1",
                    "call_1",
                    raw=RawResponse.from_json(b"{}"),
                    agent_result={},
                    evidence_status=EvidenceStatus.EVIDENCE_FOUND,
                    completed_at=DONE_AT,
                )
            with pytest.raises(RecordExpired) as error_refused:
                await store.mark_error(
                    "run-1", "call_1", error_code=ErrorCode.DEADLINE_EXCEEDED, completed_at=DONE_AT
                )
            codes = (ready_refused.value.error_code, error_refused.value.error_code)
            assert codes == (ErrorCode.RECORD_EXPIRED, ErrorCode.RECORD_EXPIRED)
            assert (await client.exists(key), await store.remaining_ttl_ms("run-1", "call_1")) == (
                0,
                None,
            )
        finally:
            await client.aclose()

    asyncio.run(body())
