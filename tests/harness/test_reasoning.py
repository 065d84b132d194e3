"""The reasoning audit: sealed per model call, readable by the owner only, every read audited."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta

import pytest

from harness.adapters.reasoning_cipher import FernetReasoningCipher
from harness.audit.reasoning import read_reasoning
from harness.audit.records import RunRecord
from harness.contracts.errors import ErrorCode, RunNotFound
from harness.contracts.ingress import RunRequest
from harness.contracts.principal import Permission, Principal
from harness.diagnosis import DiagnosisRun
from harness.testing.clock import FakeClock
from harness.testing.memory_audit import InMemoryAuditStore
from harness.testing.models import ScriptedModel, text_reply
from harness.testing.rig import fake_deps

CIPHER = FernetReasoningCipher({"k1": FernetReasoningCipher.generate_key()}, "k1")
OWNER = Principal(id="alice", permissions=frozenset({Permission.REASONING_READ}))
THOUGHT = "the pool shrank at 14:04; check CHG-4821"


class MemoryStore(InMemoryAuditStore):
    """The in-memory AuditStore, also used as the run's sink (every record written at once)."""

    async def record(self, record: RunRecord) -> None:
        await self.write([record])


def _run(store: MemoryStore, clock: FakeClock, *, cipher: object = CIPHER) -> DiagnosisRun:
    model = ScriptedModel(
        [
            text_reply(json.dumps({"intent": "SYSTEM_CHAT"}), reasoning=THOUGHT),
            text_reply("Hello."),  # no reasoning from this call
        ]
    )
    deps = fake_deps(model, clock=clock)
    deps.audit = store
    deps.cipher = cipher  # type: ignore[assignment]
    deps.reasoning_retention = timedelta(days=7)
    run = DiagnosisRun(
        RunRequest(question="hi", session_id="s-1", owner="alice"), deps, run_id="run-r"
    )
    asyncio.run(run.execute())
    return run


def _read(store: MemoryStore, clock: FakeClock, principal: Principal, session: str, run: str):  # type: ignore[no-untyped-def]
    return asyncio.run(
        read_reasoning(
            store, CIPHER, principal=principal, session_id=session, run_id=run, clock=clock
        )
    )


def test_reasoning_is_sealed_per_call_and_unavailable_is_recorded_not_invented() -> None:
    clock = FakeClock()
    store = MemoryStore(clock)
    _run(store, clock)
    (record,) = store.records
    rows = record.reasoning
    assert [(r.component.value, r.component_round, r.available) for r in rows] == [
        ("ROUTER", 1, True),
        ("SYSTEM_CHAT", 1, False),
    ]
    sealed = rows[0].ciphertext
    assert sealed is not None and THOUGHT.encode() not in sealed and rows[0].key_id == "k1"
    assert rows[1].ciphertext is None and rows[1].key_id is None
    assert rows[0].expires_at - rows[0].created_at == timedelta(days=7)
    # Reasoning never reaches the trace or the released result.
    assert THOUGHT not in json.dumps([e.model_dump(mode="json") for e in record.trace])


def test_the_owner_reads_it_and_the_read_is_audited() -> None:
    clock = FakeClock()
    store = MemoryStore(clock)
    _run(store, clock)
    entries = _read(store, clock, OWNER, "s-1", "run-r")
    assert [(e.component.value, e.text) for e in entries] == [
        ("ROUTER", THOUGHT),
        ("SYSTEM_CHAT", None),
    ]
    assert [(a.principal, a.allowed, a.reason) for a in store.accesses] == [
        ("alice", True, "ALLOWED")
    ]


@pytest.mark.parametrize(
    ("principal", "session", "run", "reason"),
    [
        (Principal(id="mallory", permissions=frozenset(Permission)), "s-1", "run-r", "OWNER"),
        (OWNER, "s-2", "run-r", "SESSION"),
        (OWNER, "s-1", "run-nope", "UNKNOWN_RUN"),
        (
            Principal(id="alice", permissions=frozenset({Permission.READ})),
            "s-1",
            "run-r",
            "PERMISSION",
        ),
    ],
    ids=["wrong-owner", "wrong-session", "unknown-run", "no-permission"],
)
def test_every_refusal_looks_the_same_and_is_audited(
    principal: Principal, session: str, run: str, reason: str
) -> None:
    clock = FakeClock()
    store = MemoryStore(clock)
    _run(store, clock)
    with pytest.raises(RunNotFound) as refused:
        _read(store, clock, principal, session, run)
    assert refused.value.error_code is ErrorCode.NOT_FOUND
    assert str(refused.value) == "NOT_FOUND: reasoning not available"  # one message for all
    assert [(a.allowed, a.reason) for a in store.accesses] == [(False, reason)]


def test_without_a_cipher_reasoning_text_is_never_stored() -> None:
    clock = FakeClock()
    store = MemoryStore(clock)
    _run(store, clock, cipher=None)
    (record,) = store.records
    assert [(r.component.value, r.available, r.ciphertext) for r in record.reasoning] == [
        ("SYSTEM_CHAT", False, None)
    ]
    assert THOUGHT not in record.model_dump_json()


def test_a_failing_audit_sink_never_changes_the_result() -> None:
    class Down:
        async def record(self, record: RunRecord) -> None:
            raise ConnectionError("db gone")

    clock = FakeClock()
    model = ScriptedModel([text_reply(json.dumps({"intent": "SYSTEM_CHAT"})), text_reply("Hi.")])
    deps = fake_deps(model, clock=clock)
    deps.audit = Down()
    run = DiagnosisRun(RunRequest(question="hi"), deps, run_id="run-d")
    result = asyncio.run(run.execute())
    assert result.kind == "Answer" and run.audit_failures == 1
