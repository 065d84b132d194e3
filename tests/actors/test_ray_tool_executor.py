"""RayToolExecutor: named tasks, timeouts and cancels that stop the task, errors keep their code,
and slots that keep a burst in the actor's queue instead of Ray's."""

from __future__ import annotations

import asyncio
import gc
import pickle
import time
import weakref
from pathlib import Path
from typing import Any

import pytest
import ray
from actor_helpers import file_appears

from actors.factory import ToolTasks, tool_tasks
from actors.pool import RunPool
from actors.tasks import (
    ProjectionFailure,
    ToolOutcome,
    embedded_tool_set,
    pack,
    run_tool,
    tool_outcome,
    tool_set_key,
    unpack,
)
from actors.testing import FakeDepsFactory, ProbeToolSetFactory
from actors.tool_executor import RayToolExecutor
from harness.contracts.errors import (
    BackendError,
    ErrorCode,
    HarnessError,
    ProjectionError,
    RawTooLarge,
)
from harness.contracts.ingress import RunRequest
from harness.contracts.observation import Projection, RagObservation
from harness.contracts.raw import RawResponse
from harness.contracts.results import Cancelled
from harness.contracts.status import RunStatus
from harness.projectors.logs import LogsProjector
from harness.redaction import Pseudonyms
from harness.tools.arguments import QueryLogsRequest, SearchKnowledgeRequest
from tests.executor_contract import check_burst_beyond_slots

pytestmark = pytest.mark.usefixtures("ray_cluster")


def _request(query: str = "pool") -> SearchKnowledgeRequest:
    return SearchKnowledgeRequest(query=query, top_k=3)


def _execute(
    executor: RayToolExecutor,
    tool: str,
    request: SearchKnowledgeRequest,
    timeout_s: float,
    *,
    call_id: str = "call_1",
    max_raw_bytes: int = 1 << 20,
) -> Any:
    return executor.execute(
        tool, request, timeout_s, tool_call_id=call_id, max_raw_bytes=max_raw_bytes
    )


def _projected_in(projection: Any) -> list[str]:
    observation = projection.observation
    assert isinstance(observation, RagObservation)
    return [b.title for b in observation.evidence]


def test_a_tool_call_is_one_named_task_that_projects_its_own_raw(tmp_path: Path) -> None:
    executor = RayToolExecutor(ProbeToolSetFactory(str(tmp_path)))

    async def main() -> tuple[object, list[str]]:
        request = _request()
        raw = await _execute(executor, "query_logs", request, 10.0)
        projection = await executor.project("query_logs", "call_1", request, raw, 10.0)
        assert projection.observation.tool_call_id == "call_1"
        return raw.value()["task_name"], _projected_in(projection)

    assert asyncio.run(main()) == ("tool:query_logs", ["tool:query_logs"])


def test_a_raw_it_did_not_project_gets_a_projection_task(tmp_path: Path) -> None:
    executor = RayToolExecutor(ProbeToolSetFactory(str(tmp_path)))

    async def main() -> list[list[str]]:
        request = _request()
        raw = await _execute(executor, "query_logs", request, 10.0)
        copy = RawResponse.from_json(raw.json)  # equal bytes, another object
        stranger = await executor.project("query_logs", "call_1", request, copy, 10.0)
        # Another call id or request than the task projected for: projected again, for them.
        other_id = await executor.project("query_logs", "call_2", request, raw, 10.0)
        raw = await _execute(executor, "query_logs", request, 10.0, call_id="call_3")
        other_request = await executor.project("query_logs", "call_3", _request(), raw, 10.0)
        assert other_id.observation.tool_call_id == "call_2"
        return [_projected_in(p) for p in (stranger, other_id, other_request)]

    assert asyncio.run(main()) == [["project:query_logs"]] * 3


def test_a_raw_over_its_byte_limit_is_not_projected_by_the_tool_task(tmp_path: Path) -> None:
    executor = RayToolExecutor(ProbeToolSetFactory(str(tmp_path)))

    async def main() -> list[str]:
        request = _request()
        raw = await _execute(executor, "query_logs", request, 10.0, max_raw_bytes=1)
        assert raw.size > 1
        # Asked for all the same (a caller whose budget allowed it after all): projected apart.
        return _projected_in(await executor.project("query_logs", "call_1", request, raw, 10.0))

    assert asyncio.run(main()) == ["project:query_logs"]


def test_the_executor_never_keeps_a_raw_alive(tmp_path: Path) -> None:
    executor = RayToolExecutor(ProbeToolSetFactory(str(tmp_path)))

    async def main() -> weakref.ref[RawResponse]:
        raw = await _execute(executor, "query_logs", _request(), 10.0)
        return weakref.ref(raw)

    gone = asyncio.run(main())
    gc.collect()
    assert gone() is None


def test_timeout_is_backend_timeout_and_cancels_the_task(tmp_path: Path) -> None:
    executor = RayToolExecutor(ProbeToolSetFactory(str(tmp_path)))

    async def main() -> tuple[ErrorCode, float]:
        started = time.monotonic()
        with pytest.raises(BackendError) as caught:
            await _execute(
                executor, "search_knowledge", _request("@tool_sleep_s=30 @token=slow"), 1.0
            )
        elapsed_s = time.monotonic() - started
        await file_appears(tmp_path / "slow.cancelled")
        return caught.value.error_code, elapsed_s

    code, elapsed_s = asyncio.run(main())
    assert code is ErrorCode.BACKEND_TIMEOUT
    assert elapsed_s < 5.0
    assert (tmp_path / "slow.started").exists() and not (tmp_path / "slow.finished").exists()
    assert executor.cancelled_tasks == 1


def test_harness_error_raised_in_the_task_comes_back_as_itself(tmp_path: Path) -> None:
    executor = RayToolExecutor(ProbeToolSetFactory(str(tmp_path)))

    async def main() -> HarnessError:
        try:
            await _execute(executor, "query_mysql", _request("@tool_raise=RECORD_TOO_LARGE"), 10.0)
        except HarnessError as err:
            return err
        raise AssertionError("no error")

    err = asyncio.run(main())
    assert (type(err), err.error_code, err.message, err.context) == (
        HarnessError,
        ErrorCode.RECORD_TOO_LARGE,
        "probe",
        {"reason": "probe"},
    )


def test_a_fetch_that_reads_past_its_cap_in_the_task_comes_back_as_raw_too_large(
    tmp_path: Path,
) -> None:
    executor = RayToolExecutor(ProbeToolSetFactory(str(tmp_path)))

    async def main() -> tuple[HarnessError, RawResponse]:
        with pytest.raises(HarnessError) as caught:
            await _execute(
                executor, "query_logs", _request("@tool_read_bytes=1001"), 10.0, max_raw_bytes=1000
            )
        fits = await _execute(
            executor, "query_logs", _request("@tool_read_bytes=1000"), 10.0, max_raw_bytes=1000
        )
        return caught.value, fits

    err, fits = asyncio.run(main())
    assert (type(err), err.error_code, err.context) == (
        RawTooLarge,
        ErrorCode.RAW_TOO_LARGE,
        {"max_raw_bytes": 1000, "read_bytes": 1001},
    )
    assert fits.value()["task_name"] == "tool:query_logs"


def test_other_failures_become_stable_codes_without_their_text(tmp_path: Path) -> None:
    executor = RayToolExecutor(ProbeToolSetFactory(str(tmp_path)))

    async def main() -> tuple[HarnessError, HarnessError]:
        with pytest.raises(BackendError) as backend:
            await _execute(executor, "query_logs", _request("@tool_crash=1"), 10.0)
        with pytest.raises(ProjectionError) as projection:
            await executor.project("query_logs", "call_1", _request(), None, 10.0)
        with pytest.raises(BackendError) as unknown:
            await _execute(executor, "no_such_tool", _request(), 10.0)
        assert unknown.value.error_code is ErrorCode.BACKEND_ERROR
        return backend.value, projection.value

    backend, projection = asyncio.run(main())
    assert (backend.error_code, projection.error_code) == (
        ErrorCode.BACKEND_ERROR,
        ErrorCode.PROJECTION_ERROR,
    )
    assert "probe crash" not in f"{backend} {backend.message} {backend.context}"


def test_a_failed_projection_travels_with_its_raw_as_a_code(tmp_path: Path) -> None:
    executor = RayToolExecutor(ProbeToolSetFactory(str(tmp_path)))

    async def main() -> tuple[str, ProjectionError]:
        request = _request("@project_crash=1")
        raw = await _execute(executor, "query_logs", request, 10.0)
        with pytest.raises(ProjectionError) as caught:
            await executor.project("query_logs", "call_1", request, raw, 10.0)
        return raw.value()["task_name"], caught.value

    task_name, error = asyncio.run(main())
    assert (task_name, error.error_code, error.context) == (
        "tool:query_logs",
        ErrorCode.PROJECTION_ERROR,
        {"tool": "query_logs"},
    )
    assert "probe projector crash" not in f"{error} {error.message} {error.context}"


def test_the_tool_task_returns_the_raw_with_its_projection_or_its_failure() -> None:
    factory = ProbeToolSetFactory()
    key = tool_set_key(factory)

    def outcome(query: str, max_raw_bytes: int = 1 << 20) -> ToolOutcome:
        return tool_outcome(key, factory, "query_logs", "call_1", _request(query), max_raw_bytes)

    projected, failed, skipped = outcome("pool"), outcome("@project_crash=1"), outcome("pool", 1)
    assert isinstance(projected.projection, Projection)
    assert projected.projection.observation.tool_call_id == "call_1"
    assert failed.projection == ProjectionFailure(
        error_code=ErrorCode.PROJECTION_ERROR, context={"tool": "query_logs"}
    )
    assert skipped.projection is None and skipped.raw.size > 1
    # What crosses the process boundary: the raw as its frame, the failure as a code.
    assert pickle.loads(pickle.dumps(failed)) == failed


def test_a_call_and_its_outcome_cross_ray_packed_once() -> None:
    factory = ProbeToolSetFactory()
    key = tool_set_key(factory)
    call = (key, factory, "query_logs", "call_1", _request("pool"), 1 << 20)
    packed = pack((*call, frozenset()))  # the stores the caller holds: none
    assert unpack(packed) == (*call, frozenset())
    # The task body: packed arguments in, the packed ToolOutcome out.
    outcome = unpack(run_tool(packed))
    assert isinstance(outcome, ToolOutcome) and isinstance(outcome.projection, Projection)
    direct = tool_outcome(*call)
    assert outcome.projection == direct.projection
    assert outcome.raw.value().keys() == direct.raw.value().keys()  # the probe stamps its pid
    # A factory the standard pickler refuses (a closure) is packed by cloudpickle instead.
    probe = ProbeToolSetFactory()
    closure = lambda: probe()  # noqa: E731 - the point is a callable pickle cannot name
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        pickle.dumps(closure)
    rebuilt = unpack(pack((closure,)))[0]
    assert type(rebuilt()) is type(probe())


class _UnreadableTasks(ToolTasks):
    """Tool tasks whose result is bytes no pack() wrote."""

    def tool(self, tool_name: str) -> Any:
        return ray.remote(_unreadable).options(name=f"tool:{tool_name}", max_retries=0)


def _unreadable(call: bytes) -> bytes:
    return b"not a pickle"


def test_an_unreadable_task_result_is_backend_error(tmp_path: Path) -> None:
    executor = RayToolExecutor(ProbeToolSetFactory(str(tmp_path)), tasks=_UnreadableTasks())

    async def main() -> None:
        await _execute(executor, "query_logs", _request(), 10.0)

    with pytest.raises(BackendError) as caught:
        asyncio.run(main())
    assert (caught.value.error_code, caught.value.context) == (
        ErrorCode.BACKEND_ERROR,
        {"tool": "query_logs"},
    )


def test_cancelled_caller_cancels_the_task_and_never_reads_its_result(tmp_path: Path) -> None:
    executor = RayToolExecutor(ProbeToolSetFactory(str(tmp_path)))

    async def main() -> None:
        call = asyncio.create_task(
            _execute(executor, "search_knowledge", _request("@tool_sleep_s=30 @token=gone"), 60.0)
        )
        await file_appears(tmp_path / "gone.started")
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        await file_appears(tmp_path / "gone.cancelled")

    asyncio.run(main())
    assert not (tmp_path / "gone.finished").exists()
    assert executor.cancelled_tasks == 1


def test_a_worker_builds_its_tool_set_once(tmp_path: Path) -> None:
    executor = RayToolExecutor(ProbeToolSetFactory(str(tmp_path)))

    async def main() -> dict[int, list[int]]:
        calls: dict[int, list[int]] = {}
        for _ in range(6):
            raw = await _execute(executor, "query_logs", _request(), 10.0)
            calls.setdefault(raw.value()["pid"], []).append(raw.value()["calls"])
        return calls

    # Each worker counts on with the same backend: 1, 2, 3, ... — never 1 again.
    calls = asyncio.run(main())
    assert {pid: list(range(1, len(seen) + 1)) for pid, seen in calls.items()} == calls
    assert sum(len(seen) for seen in calls.values()) == 6
    assert max(len(seen) for seen in calls.values()) >= 2  # some worker served twice


def test_runs_on_actors_use_tool_tasks_and_a_cancel_stops_them(tmp_path: Path) -> None:
    deps = FakeDepsFactory(
        tool_execution="ray", tool_set_factory=ProbeToolSetFactory(str(tmp_path))
    )

    async def main() -> None:
        async with RunPool(1, 2, deps, name_prefix="task-actor") as pool:
            report = await pool.run(RunRequest(question="why @intent=DIAGNOSIS"), timeout_s=60)
            assert report.kind == "DiagnosisReport" and len(report.conclusions) == 3

            run_id = await pool.submit(
                RunRequest(question="why @intent=DIAGNOSIS @tool_sleep_s=30 @token=in-run")
            )
            await file_appears(tmp_path / "in-run.started")
            assert (await pool.cancel(run_id, "anonymous")).cancelled is True
            assert await pool.result(run_id, timeout_s=10) == Cancelled(run_id=run_id)
            await file_appears(tmp_path / "in-run.cancelled")
            status = await pool.status(run_id)
            assert (status.status, status.result_kind) == (RunStatus.CANCELLED, "Cancelled")

    asyncio.run(main())
    assert not (tmp_path / "in-run.finished").exists()


def test_slots_default_to_the_tool_tasks_the_cluster_runs_at_once() -> None:
    factory = ProbeToolSetFactory()
    # The test cluster has 2 CPUs and a tool task takes 1.
    assert RayToolExecutor(factory).slots.capacity == 2
    assert RayToolExecutor(factory, slots=5).slots.capacity == 5
    # Tasks that need a custom resource the cluster lacks still get one slot.
    needy = tool_tasks(resources=(("no-such-resource", 1.0),))
    assert RayToolExecutor(factory, tasks=needy).slots.capacity == 1


def test_a_burst_beyond_the_slots_queues_instead_of_timing_out(tmp_path: Path) -> None:
    executor = RayToolExecutor(ProbeToolSetFactory(str(tmp_path)), slots=2)

    async def warm() -> None:  # both workers started and their tool sets built
        await asyncio.gather(
            *(_execute(executor, "search_knowledge", _request(), 60.0) for _ in "ab")
        )

    asyncio.run(warm())
    # 48 calls of 0.25 s on 2 slots: the last ones queue ~5.75 s, past the 4 s timeout and its
    # grace second, which a task waiting in Ray's queue instead would have run down. Each call
    # has 16x its work in hand, so a loaded machine (a CI run beside other work) cannot time out
    # a call that really ran; 2 s of timeout failed so once.
    check_burst_beyond_slots(executor, query="@tool_sleep_s=0.25", calls=48, execute_timeout_s=4.0)


def test_pseudonym_marks_cross_the_task_boundary_beside_the_observation() -> None:
    # The projector in the task marks hosts; the run (the caller) numbers them: the values
    # travel with the projection, outside its JSON.
    projection = LogsProjector().project(
        "call_1",
        QueryLogsRequest(start="2026-03-10T08:00:00Z", end="2026-03-10T09:00:00Z"),
        {
            "format": "embedded-jsonl/v1",
            "events": [
                {
                    "ts": "2026-03-10T08:41:07Z",
                    "service": "api",
                    "level": "ERROR",
                    "message": "connect db01.internal.example.com refused",
                }
            ],
            "matched": 1,
            "limit_hit": False,
        },
    )
    crossed = unpack(pack(ToolOutcome(raw=RawResponse.of({}), projection=projection)))
    assert crossed.projection.marks == projection.marks and projection.marks.values
    assert "db01" not in projection.observation.model_dump_json()
    shown = crossed.projection.resolved(Pseudonyms()).model_dump_json()
    assert "connect <HOST#1> refused" in shown and "db01" not in shown


def test_a_log_raw_comes_back_by_reference_when_the_caller_holds_the_store() -> None:
    # The caller (this process) holds the demo store; the worker sends the events' positions
    # instead of their compressed JSON, and the raw is rebuilt here, equal byte for byte.
    request = QueryLogsRequest(start="2026-11-02T13:55:00Z", end="2026-11-02T14:10:00Z")
    backend = embedded_tool_set().backends["query_logs"]
    local = backend.fetch(request, max_raw_bytes=1 << 26)
    executor = RayToolExecutor(holds=[backend])
    raw = asyncio.run(
        executor.execute(
            "query_logs", request, 60.0, tool_call_id="call_ref", max_raw_bytes=1 << 26
        )
    )
    assert raw.shared and raw.shared_parts() is not None  # rebuilt from this process's store
    assert raw.json == local.json
    plain = asyncio.run(
        RayToolExecutor().execute(
            "query_logs", request, 60.0, tool_call_id="call_frame", max_raw_bytes=1 << 26
        )
    )
    assert not plain.shared and plain.json == local.json  # no declaration: the frame
