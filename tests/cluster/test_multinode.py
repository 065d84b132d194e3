"""Runs across nodes: tool tasks leave the RunActor's node, and a lost node ends its work
with a stable code while the service goes on: a lost tool node ends the tool calls it ran
(BACKEND_LOST), a lost node of RunActors ends the runs they hosted (RUN_LOST).

Runs go through the run desk, as every HTTP replica's requests do: one named desk actor in
front of a pool of pre-warmed RunActors, on the head node. Tool tasks require the custom
resource of the tool nodes (``tool_task_resources``, the ``HARNESS_TOOL_TASK_RESOURCES``
setting), so they run there.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
import ray

from actors.factory import connect_run_desk
from actors.pool_spec import PoolSpec
from actors.testing import FakeDepsFactory, ProbeToolSetFactory
from harness.contracts.errors import ErrorCode
from harness.contracts.ingress import RunRequest
from harness.contracts.results import Answer, SafeFallback, StableFailure
from harness.contracts.status import RunStatus
from harness.run.snapshot import RunPhase
from harness.run.view import RunView
from tests.cluster.conftest import RUN_RESOURCE, TOOL_RESOURCE, LocalCluster

pytestmark = [pytest.mark.cluster, pytest.mark.ray]

T = TypeVar("T")
OWNER = "alice"
DESK = "cluster-desk"
ACTORS = "cluster-run-actor"


@pytest.fixture(scope="module")
def desk(local_cluster: LocalCluster, tmp_path_factory: pytest.TempPathFactory) -> Any:
    markers = tmp_path_factory.mktemp("markers")
    deps = FakeDepsFactory(
        tool_execution="ray",
        tool_set_factory=ProbeToolSetFactory(str(markers)),
        tool_task_resources=((TOOL_RESOURCE, 1.0),),
        deadline_s=90.0,
        # Far above the time a lost node takes to be noticed: a timeout here would mean the
        # loss went unseen and the call waited it out.
        execute_timeout_s=60.0,
    )
    handle = connect_run_desk(
        PoolSpec(
            size=2,
            runs_per_actor=2,
            deps_factory=deps,
            name_prefix=ACTORS,
            actor_resources=((RUN_RESOURCE, 1.0),),
        ),
        max_runs=1000,
        idempotency_ttl_s=600.0,
        name=DESK,
        resources=((RUN_RESOURCE, 1.0),),
    )
    ray.get(handle.start.remote(), timeout=120)
    handle.markers = markers
    return handle


def _submit(desk: Any, question: str) -> str:
    request = RunRequest(question=question, owner=OWNER, session_id="cluster")
    run_id: str = ray.get(desk.submit.remote(request), timeout=60)
    return run_id


def _wait(desk: Any, run_id: str, timeout_s: float = 90.0) -> RunView:
    view: RunView = ray.get(desk.wait.remote(run_id, OWNER, timeout_s), timeout=timeout_s + 30)
    assert view.terminal, view
    return view


def _marker(markers: Path, name: str, timeout_s: float = 60.0) -> dict[str, Any]:
    path = markers / name
    deadline = time.monotonic() + timeout_s
    while not path.exists():
        assert time.monotonic() < deadline, f"{name} never written"
        time.sleep(0.05)
    where: dict[str, Any] = json.loads(path.read_text())
    return where


def _eventually(probe: Callable[[], T], timeout_s: float = 30.0) -> T:
    deadline = time.monotonic() + timeout_s
    while not (value := probe()):
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.2)
    return value


def _task_nodes(name: str) -> set[str]:
    from ray.util.state import list_tasks

    return {t.node_id for t in list_tasks(filters=[("name", "=", name)], limit=1000) if t.node_id}


def _tools(view: RunView) -> list[tuple[str, str, ErrorCode | None]]:
    return sorted((t.tool_name, t.status, t.error_code) for t in view.progress.tools or [])


def test_tool_tasks_run_on_tool_nodes_and_a_lost_node_ends_its_calls(
    local_cluster: LocalCluster, desk: Any
) -> None:
    from ray.util.state import list_actors

    head_id = local_cluster.head.node_id
    tool_ids = {n.node_id for n in local_cluster.tool_nodes}

    # A diagnosis whose three tool calls run while the run's actor waits on the head.
    first = _wait(desk, _submit(desk, "@intent=DIAGNOSIS why is checkout slow?"))
    assert first.status is RunStatus.COMPLETED
    assert _tools(first) == [
        ("query_logs", "READY", None),
        ("query_mysql", "READY", None),
        ("search_knowledge", "READY", None),
    ]
    actors = list_actors(filters=[("state", "=", "ALIVE")], limit=1000)
    hosts = {a.name: a.node_id for a in actors if a.name == DESK or a.name.startswith(ACTORS)}
    assert sorted(hosts) == [DESK, f"{ACTORS}-1", f"{ACTORS}-2"]
    assert set(hosts.values()) == {head_id}
    # Task events reach the state API a moment after the task ran.
    tool_task_nodes = _eventually(lambda: _task_nodes("tool:search_knowledge"))
    assert tool_task_nodes <= tool_ids

    # A run whose search blocks on a tool node; that node dies under it.
    victim = _submit(desk, "@intent=DIAGNOSIS @tool_sleep_s=120 @token=victim slow search")
    where = _marker(desk.markers, "victim.started")
    assert where["node_id"] in tool_ids
    local_cluster.kill(local_cluster.node(where["node_id"]))
    killed_at = time.monotonic()
    lost = _wait(desk, victim)
    assert time.monotonic() - killed_at < 30.0  # noticed, not waited out (timeout: 60 s)
    # The run ends as any run whose tool failed: the lost call carries its own stable code
    # (not BACKEND_ERROR: the backend did not fail), the other calls stand, and the draft
    # that cites the lost call is withheld for a fallback built from the verified facts.
    assert lost.status is RunStatus.COMPLETED
    assert _tools(lost) == [
        ("query_logs", "READY", None),
        ("query_mysql", "READY", None),
        ("search_knowledge", "ERROR", ErrorCode.BACKEND_LOST),
    ]
    assert isinstance(lost.result, SafeFallback) and lost.result.failure_stage == "EVIDENCE"
    assert not (desk.markers / "victim.finished").exists()

    # The service goes on: the next run's tools run on the node that is left.
    after = _wait(desk, _submit(desk, "@intent=DIAGNOSIS @tool_sleep_s=0.1 @token=after again"))
    assert after.status is RunStatus.COMPLETED
    assert _tools(after) == _tools(first)
    assert _marker(desk.markers, "after.started")["node_id"] in {
        n.node_id for n in local_cluster.tool_nodes
    }


def test_a_lost_node_of_run_actors_ends_its_runs_run_lost(
    local_cluster: LocalCluster, desk: Any
) -> None:
    # A second pool whose one actor requires a resource that only a node started now has.
    run_node = local_cluster.add(**{"runs-b": 1.0})
    other = connect_run_desk(
        PoolSpec(
            size=1,
            runs_per_actor=2,
            deps_factory=FakeDepsFactory(),
            name_prefix="cluster-b-actor",
            actor_resources=(("runs-b", 1.0),),
            result_ttl_s=120.0,
        ),
        max_runs=100,
        idempotency_ttl_s=600.0,
        name="cluster-desk-b",
        resources=((RUN_RESOURCE, 1.0),),
    )
    ray.get(other.start.remote(), timeout=120)
    runs = [_submit(other, "wait for me @route_s=60") for _ in range(2)]

    def routing() -> bool:
        views = [ray.get(other.view.remote(r, OWNER), timeout=30) for r in runs]
        return all(v.progress.phase is RunPhase.ROUTING for v in views)

    _eventually(routing)
    local_cluster.kill(run_node)
    killed_at = time.monotonic()
    lost = [_wait(other, r) for r in runs]
    assert time.monotonic() - killed_at < 30.0  # the route would have taken 60 s
    assert [(v.status, v.result) for v in lost] == [
        (RunStatus.FAILED, StableFailure(run_id=r, error_code=ErrorCode.RUN_LOST)) for r in runs
    ]
    # The deployment's own desk, on the head, serves on.
    after = _wait(desk, _submit(desk, "@intent=SYSTEM_CHAT @answer=still-here hello"))
    assert after.result == Answer(run_id=after.run_id, intent="SYSTEM_CHAT", text="still-here")
