"""Many runs on one actor share one store client: operations beyond the pool size wait for a
connection instead of failing (redis-py's default pool refuses the 101st with
MaxConnectionsError, which a run would see as STORE_ERROR)."""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter

import pytest

from harness.adapters.redis_store import RedisCanonicalStore, fakeredis_store, redis_client
from harness.contracts.ingress import RunRequest
from harness.contracts.invocation import EvidenceStatus
from harness.diagnosis import DiagnosisRun
from harness.testing.models import FunctionModel, draft_json, text_reply, tool_reply
from harness.testing.rig import fake_deps
from tests.store_contract import REDIS_HOST, REDIS_PORT, make_record, ready_via

CONCURRENT = 400


async def _many(store: RedisCanonicalStore, run_id: str) -> list[EvidenceStatus | None]:
    async def one(i: int) -> EvidenceStatus | None:
        record = make_record(run_id=run_id, tool_call_id=f"call_{i:024x}")
        await store.begin(record)
        await ready_via(store, record, EvidenceStatus.EVIDENCE_FOUND)
        got = await store.get(run_id, record.tool_call_id)
        return got.evidence_status if got else None

    return await asyncio.gather(*(one(i) for i in range(CONCURRENT)))


def test_the_embedded_store_serves_hundreds_of_concurrent_operations() -> None:
    statuses = asyncio.run(_many(fakeredis_store(), "run-dense"))
    assert statuses == [EvidenceStatus.EVIDENCE_FOUND] * CONCURRENT


@pytest.mark.redis
def test_a_small_real_pool_queues_operations_instead_of_refusing_them() -> None:
    async def body() -> list[EvidenceStatus | None]:
        client = redis_client(f"redis://{REDIS_HOST}:{REDIS_PORT}/0", max_connections=4)
        store = RedisCanonicalStore(client, prefix=f"dense-{uuid.uuid4().hex[:8]}", op_timeout_s=30)
        try:
            return await _many(store, "run-dense")
        finally:
            await client.aclose()

    assert asyncio.run(body()) == [EvidenceStatus.EVIDENCE_FOUND] * CONCURRENT


def test_two_hundred_concurrent_runs_on_one_embedded_store_all_release() -> None:
    def reply(request):  # type: ignore[no-untyped-def]
        from harness.contracts.models import Component

        if request.component is Component.ROUTER:
            return text_reply('{"intent": "DIAGNOSIS"}')
        if request.component is Component.SEMANTIC_GUARD:
            return text_reply('{"verdict": "SUPPORTED", "issues": []}')
        tools = [m for m in request.messages if m.role == "tool"]
        if not tools:
            return tool_reply(
                *[("search_knowledge", {"query": f"pool {i}"}, f"k{i}") for i in range(6)]
            )
        call_id = tools[0].tool_call_id
        return text_reply(
            draft_json(
                "an-1",
                [
                    {
                        "id": "c1",
                        "kind": "OBSERVATION",
                        "statement": "the pool is exhausted",
                        "confidence": 0.7,
                        "citations": [{"tool_call_id": call_id, "item_ref": "doc:a#0"}],
                    }
                ],
            )
        )

    deps = fake_deps(FunctionModel(reply), store=fakeredis_store())

    async def all_runs() -> Counter[str]:
        results = await asyncio.gather(
            *(
                DiagnosisRun(RunRequest(question="why?", analysis_id="an-1"), deps).execute()
                for _ in range(200)
            )
        )
        return Counter(
            f"{r.kind}:{getattr(r, 'error_code', None) or getattr(r, 'failure_stage', None)}"
            for r in results
        )

    outcomes = asyncio.run(all_runs())
    assert outcomes == Counter({"DiagnosisReport:None": 200})
