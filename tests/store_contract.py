"""Shared helpers for the canonical-store tests: records, real-Redis gating, store factories."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import fakeredis
import pytest
import redis
import redis.asyncio as aioredis

from harness.adapters.redis_store import RedisCanonicalStore, fakeredis_store
from harness.contracts.errors import ErrorCode
from harness.contracts.invocation import CanonicalInvocation, EvidenceStatus, InvocationStatus
from harness.contracts.raw import RawResponse
from harness.store import LocalCanonicalStore
from harness.testing.clock import FakeClock
from harness.testing.memory_store import InMemoryCanonicalStore

__all__ = [
    "COMPLETED_AT",
    "RAW",
    "REDIS_HOST",
    "REDIS_PORT",
    "RESULT",
    "STARTED_AT",
    "StoreFactory",
    "error_of",
    "error_via",
    "make_record",
    "ready_of",
    "ready_via",
    "require_real_redis",
    "unique_prefix",
]

REDIS_HOST = "127.0.0.1"
REDIS_PORT = 6379
STARTED_AT = datetime(2024, 5, 1, 14, 5, 7, 123456, tzinfo=UTC)
COMPLETED_AT = datetime(2024, 5, 1, 14, 5, 9, 654321, tzinfo=UTC)

RAW = {"streams": [{"line": "ERROR pool exhausted", "ts": "2024-05-01T14:05:03Z"}]}
RESULT = {"items": [{"ref": "tpl:1", "template": "ERROR pool exhausted", "count": 3}]}


async def ready_via(store: Any, record: CanonicalInvocation, evidence: EvidenceStatus) -> Any:
    """PROJECTING → READY with the standard RAW/RESULT payload."""
    return await store.mark_ready(
        record.run_id,
        record.tool_call_id,
        raw=RawResponse.of(RAW),
        agent_result=RESULT,
        evidence_status=evidence,
        completed_at=COMPLETED_AT,
    )


async def error_via(store: Any, record: CanonicalInvocation, code: ErrorCode) -> Any:
    """PROJECTING → ERROR with ``code``; raw left as it was."""
    return await store.mark_error(
        record.run_id, record.tool_call_id, error_code=code, completed_at=COMPLETED_AT
    )


def ready_of(record: CanonicalInvocation, evidence: EvidenceStatus) -> CanonicalInvocation:
    """The record ``ready_via`` must produce (built independently of any store)."""
    return record.model_copy(
        update={
            "invocation_status": InvocationStatus.READY,
            "evidence_status": evidence,
            "raw": RawResponse.of(RAW),
            "agent_result": RESULT,
            "completed_at": COMPLETED_AT,
        }
    )


def error_of(record: CanonicalInvocation, code: ErrorCode) -> CanonicalInvocation:
    """The record ``error_via`` must produce (built independently of any store)."""
    return record.model_copy(
        update={
            "invocation_status": InvocationStatus.ERROR,
            "evidence_status": EvidenceStatus.ERROR,
            "error_code": code,
            "completed_at": COMPLETED_AT,
        }
    )


def require_real_redis() -> None:
    """Skip when Redis is unreachable, but fail under CI=true (services must be there)."""
    client = redis.Redis(host=REDIS_HOST, port=REDIS_PORT, socket_connect_timeout=0.5)
    try:
        client.ping()
    except redis.RedisError:
        if os.environ.get("CI") == "true":
            pytest.fail(f"real Redis at {REDIS_HOST}:{REDIS_PORT} is unreachable under CI=true")
        pytest.skip(f"real Redis at {REDIS_HOST}:{REDIS_PORT} is unreachable")
    finally:
        client.close()


def unique_prefix() -> str:
    """A key prefix no other test (or engineer) shares."""
    return f"dhtest:{uuid.uuid4().hex}"


def make_record(
    run_id: str = "run-1", tool_call_id: str = "call_1", **overrides: Any
) -> CanonicalInvocation:
    """A PROJECTING record as ToolBoundary would begin it."""
    fields: dict[str, Any] = {
        "tool_call_id": tool_call_id,
        "run_id": run_id,
        "tool_name": "query_logs",
        "request": {"service": "checkout-api", "query": "status=500", "limit": 200},
        "invocation_status": InvocationStatus.PROJECTING,
        "started_at": STARTED_AT,
    }
    fields.update(overrides)
    return CanonicalInvocation(**fields)


class StoreFactory:
    """Builds stores of one kind inside a test's event loop and cleans up after it.

    ``kind`` is ``memory`` (the testing store, FakeClock), ``local`` (the embedded default,
    FakeClock), ``fakeredis`` or ``redis`` (real server). Each factory
    uses its own key prefix; redis clients are closed and the prefix's keys deleted in ``run``.
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.prefix = unique_prefix()
        self.clock = FakeClock(STARTED_AT)
        # One fake server per factory, so stores from one factory share data like real Redis.
        self.fake_server = fakeredis.FakeServer()
        self._clients: list[Any] = []

    def __call__(self, **kwargs: Any) -> Any:
        """Return a new store of this factory's kind; kwargs go to its constructor."""
        if self.kind == "memory":
            return InMemoryCanonicalStore(self.clock, **kwargs)
        if self.kind == "local":
            return LocalCanonicalStore(self.clock, **kwargs)
        if self.kind == "fakeredis":
            store = fakeredis_store(server=self.fake_server, prefix=self.prefix, **kwargs)
        else:
            client = aioredis.Redis(host=REDIS_HOST, port=REDIS_PORT)
            store = RedisCanonicalStore(client, prefix=self.prefix, **kwargs)
        self._clients.append(store._client)
        return store

    def run(self, body: Callable[[], Awaitable[None]]) -> None:
        """Run ``body`` in a fresh event loop, then delete this prefix's keys and close clients."""

        async def wrapper() -> None:
            try:
                await body()
            finally:
                for client in self._clients:
                    async for key in client.scan_iter(match=f"{self.prefix}:*"):
                        await client.delete(key)
                    await client.aclose()
                self._clients.clear()

        asyncio.run(wrapper())
