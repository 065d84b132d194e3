"""The trace lookup decides live or audit in one place: the run's host first, the durable
audit once the host forgot the run or no longer knows it — for the run's owner only."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from harness.contracts.errors import ErrorCode, HarnessError, RunNotFound, Unavailable
from harness.testing.memory_audit import InMemoryAuditStore
from harness.testing.records import run_record
from harness.trace import TraceEvent
from serve.lookups import find_trace

RUN = "run-0123456789abcdef0123"
OWNER = "alice"


class _Host:
    """A run host that answers every trace with ``answer`` (or raises it); the lookup asks
    nothing else of it."""

    def __init__(self, answer: list[TraceEvent] | HarnessError | None) -> None:
        self.answer = answer
        self.asked: list[tuple[str, str]] = []

    async def trace(self, run_id: str, owner: str) -> list[TraceEvent] | None:
        self.asked.append((run_id, owner))
        if isinstance(self.answer, HarnessError):
            raise self.answer
        return self.answer


def _audit() -> InMemoryAuditStore:
    audit = InMemoryAuditStore()
    record = run_record(RUN, at=datetime(2026, 11, 2, 14, tzinfo=UTC))
    asyncio.run(audit.write([record]))
    return audit


def _events() -> list[TraceEvent]:
    return list(run_record(RUN, at=datetime(2026, 11, 2, 14, tzinfo=UTC)).trace)


def test_a_live_timeline_comes_from_the_host_without_asking_the_audit() -> None:
    live = _events()[:3]
    host = _Host(live)
    found = asyncio.run(find_trace(host, None, run_id=RUN, owner=OWNER))
    assert (found.source, found.events, host.asked) == ("live", live, [(RUN, OWNER)])


@pytest.mark.parametrize(
    "host_answer", [None, RunNotFound(message="forgotten")], ids=["forgotten", "unknown"]
)
def test_a_timeline_the_host_no_longer_has_comes_from_the_audit_for_its_owner(
    host_answer: HarnessError | None,
) -> None:
    audit = _audit()
    host = _Host(host_answer)
    mine = asyncio.run(find_trace(host, audit, run_id=RUN, owner=OWNER))
    with pytest.raises(RunNotFound):
        asyncio.run(find_trace(host, audit, run_id=RUN, owner="bob"))
    assert (mine.source, mine.events) == ("audit", _events())


def test_without_an_audit_a_forgotten_timeline_is_unavailable_and_host_failures_pass() -> None:
    with pytest.raises(Unavailable):
        asyncio.run(find_trace(_Host(None), None, run_id=RUN, owner=OWNER))
    down = _Host(Unavailable(message="desk down"))
    with pytest.raises(HarnessError) as failed:
        asyncio.run(find_trace(down, _audit(), run_id=RUN, owner=OWNER))
    assert failed.value.error_code is ErrorCode.UNAVAILABLE
