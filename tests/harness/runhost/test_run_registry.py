"""RunRegistry: runs settle once, the oldest settled are forgotten, a run is its owner's, and
a settled run reads as its final snapshot with its result."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from harness.contracts.errors import ErrorCode, HarnessError, RunNotFound
from harness.contracts.ingress import RunRequest
from harness.contracts.results import Answer, Cancelled, StableFailure
from harness.contracts.status import RunStatus
from harness.run.snapshot import RunPhase, RunSnapshot
from harness.run.view import RunView
from harness.runhost import RunRegistry, RunTicket

AT = datetime(2026, 11, 2, 14, 5, tzinfo=UTC)


def _ticket(owner: str = "alice", session_id: str = "s1") -> RunTicket:
    return RunTicket(owner=owner, session_id=session_id, created_at=AT)


def test_a_ticket_names_the_owner_and_a_session_of_its_own_without_one() -> None:
    with_session = RunRequest(question="why", owner="alice", session_id="s1")
    without = RunRequest(question="why", owner="bob")
    assert [
        RunTicket.of(with_session, run_id="run-1", created_at=AT),
        RunTicket.of(without, run_id="run-2", created_at=AT),
    ] == [
        RunTicket(owner="alice", session_id="s1", created_at=AT),
        RunTicket(owner="bob", session_id="run-2", created_at=AT),
    ]


def test_registry_settles_once_and_forgets_oldest() -> None:
    async def main() -> None:
        registry: RunRegistry[str] = RunRegistry(max_finished=1)
        first = registry.add("run-1", "slot-a", _ticket())
        registry.add("run-2", "slot-b", _ticket())
        assert [e.run_id for e in registry.on_slot("slot-a")] == ["run-1"]
        lost = StableFailure(run_id="run-1", error_code=ErrorCode.RUN_LOST)
        assert registry.settle("run-1", lost) is True
        assert registry.settle("run-1", Cancelled(run_id="run-1")) is False
        assert (first.done.result(), registry.in_flight()) == (lost, 1)
        registry.settle("run-2", Cancelled(run_id="run-2"))
        with pytest.raises(HarnessError) as forgotten:
            registry.get("run-1")
        assert forgotten.value.error_code is ErrorCode.NOT_FOUND
        with pytest.raises(HarnessError):
            registry.add("run-2", "slot-a", _ticket())

    asyncio.run(main())


def test_a_run_the_pool_ended_closes_its_timeline_past_what_was_seen() -> None:
    async def main() -> list[int | None]:
        registry: RunRegistry[str] = RunRegistry()
        registry.add("run-p", "slot-a", _ticket())  # ended while it waited: nothing seen
        registry.add("run-l", "slot-a", _ticket())
        registry.get("run-l").observe(
            RunSnapshot(
                run_id="run-l", status=RunStatus.RUNNING, phase=RunPhase.ROUTING, sequence_no=4
            )
        )
        registry.settle("run-p", Cancelled(run_id="run-p"))
        registry.settle("run-l", StableFailure(run_id="run-l", error_code=ErrorCode.RUN_LOST))
        return [registry.get(r).snapshot().sequence_no for r in ("run-p", "run-l")]

    assert asyncio.run(main()) == [1, 5]


def test_a_run_of_another_owner_is_not_found_like_an_unknown_one() -> None:
    async def main() -> list[tuple[type, ErrorCode]]:
        registry: RunRegistry[str] = RunRegistry()
        registry.add("run-a", "slot-a", _ticket(owner="alice"))
        assert registry.owned("run-a", "alice").run_id == "run-a"
        refusals = []
        for run_id, owner in (("run-a", "bob"), ("run-x", "alice")):
            with pytest.raises(HarnessError) as refused:
                registry.owned(run_id, owner)
            refusals.append((type(refused.value), refused.value.error_code))
        return refusals

    assert asyncio.run(main()) == [(RunNotFound, ErrorCode.NOT_FOUND)] * 2


def test_a_settled_run_reads_as_its_final_snapshot_with_its_result() -> None:
    running = RunSnapshot(
        run_id="run-v", status=RunStatus.RUNNING, phase=RunPhase.ANSWERING, sequence_no=3
    )
    final = running.model_copy(
        update={"status": RunStatus.COMPLETED, "phase": RunPhase.DONE, "sequence_no": 5}
    )
    answer = Answer(run_id="run-v", intent="SYSTEM_CHAT", text="hi")

    async def main() -> list[RunView]:
        registry: RunRegistry[str] = RunRegistry()
        entry = registry.add("run-v", "slot-a", _ticket())
        before = entry.view(running)
        registry.settle("run-v", answer, final)
        return [before, entry.settled_view(), entry.view(running)]

    before, settled, stale = asyncio.run(main())
    identity = {"run_id": "run-v", "session_id": "s1", "created_at": AT}
    assert before == RunView(**identity, status=RunStatus.RUNNING, progress=running)
    assert settled == RunView(**identity, status=RunStatus.COMPLETED, progress=final, result=answer)
    # A snapshot read before the settlement makes a view without the result, never one that
    # pairs the result with an older snapshot.
    assert stale.result is None and stale.progress == running
