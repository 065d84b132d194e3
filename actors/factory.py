"""The one place where Ray options are applied (cf. Ray Serve's ``_private/default_impl.py``).

Classes and task bodies elsewhere in ``actors/`` are plain Python; this module decides how
they run on Ray: resources, names, lifetimes, restarts and concurrency.

Choices and why:

- RunActors reserve no CPU (``num_cpus=0``). A run spends its life awaiting models and tool
  tasks; the CPU-heavy work is the tool tasks, which do reserve CPU. With a CPU per actor a
  two-core node could host two runs. Ray places an actor that requires no resources on a
  random node; custom resources (``HARNESS_RUN_ACTOR_RESOURCES``, and
  ``HARNESS_TOOL_TASK_RESOURCES`` for tool tasks) keep RunActors on the nodes an operator
  chose — say the head, whose loss ends the cluster anyway — and tool work on others, so
  that losing a tool node costs tool calls, not runs.
- RunActors never restart and never retry methods: a run's state lives in the actor's
  memory, so a restarted actor would not know its runs. The pool replaces dead actors and
  ends their runs FAILED with RUN_LOST instead.
- Tool tasks never retry: tool calls are not retried automatically (a retried call could act
  twice on a backend and would spend the run's budget behind its back).
- Actors are owned by the process that created the pool (no detached lifetime), so they go
  away with it.
- The audit writer is one actor per node and namespace, ``audit-writer-<node id>``, pinned to
  its node (hard node affinity) and shared by every RunActor there: ``get_if_exists`` makes
  the first RunActor create it and the others find it. It is *detached*, because a writer
  owned by the RunActor that happened to create it would die with that actor and take the
  other actors' queued records with it; it ends with the Ray instance. It reserves no CPU (it
  mostly waits on the database, in a thread). It restarts without limit
  (``max_restarts=-1``): it keeps nothing but a queue of best-effort records, so a fresh
  writer is always better than none — what the crash lost is lost either way. Its methods
  never retry (a retried ``record`` could store a run twice). ``max_pending_calls`` bounds a
  caller's mailbox: beyond it the sink's submission fails at once and is counted, instead of
  piling records up in the RunActor.
- The run desk (:class:`actors.desk.RunDesk`) is one actor per namespace, ``run-desk``, that
  every HTTP replica finds by name (``get_if_exists``: the first to ask creates it), so no
  replica keeps run state. It is *detached* — replicas come and go under Serve, the desk and
  the pool it owns must not go with the one that created it — and reserves no CPU (it routes
  calls). It restarts without limit: a restarted desk is empty (the runs it knew died with its
  RunActors, which it owned) but serves new runs at once. Its methods never retry (a retried
  ``submit`` could start a run twice). ``max_concurrency`` is high because every open progress
  stream and every waiting request holds one call on it. It requires the RunActors' custom
  resources (``HARNESS_RUN_ACTOR_RESOURCES``), so that it lives on their nodes: a desk lost
  with a tool node would forget every run.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ray
from ray.actor import ActorHandle

from actors.audit_writer import AuditWriterActor, audit_writer_name
from actors.desk import HostedRuns, RunDesk
from actors.metrics import AuditMetrics, RunMetrics
from actors.run_actor import HEALTH_GROUP, RunActor
from actors.tasks import run_projector, run_tool
from harness.audit.records import AuditStore
from harness.audit.writer import AuditWriterPolicy
from harness.diagnosis import RunDeps

__all__ = [
    "AUDIT_WRITER_MAX_PENDING_CALLS",
    "RAY_NAMESPACE",
    "RUN_DESK_MAX_CONCURRENCY",
    "RUN_DESK_NAME",
    "TOOL_TASK_NUM_CPUS",
    "RayResources",
    "ToolTasks",
    "audit_writer_options",
    "cluster_token",
    "connect_run_desk",
    "create_run_actor",
    "local_ray",
    "node_audit_writer",
    "run_actor_options",
    "run_desk_options",
    "tool_task_capacity",
    "tool_tasks",
]

RAY_NAMESPACE = "diagnosis-harness"
"""The namespace of the harness's named actors (run actors, the node's audit writer)."""

TOOL_TASK_NUM_CPUS = 1.0
"""CPU per tool task. One keeps the number of task worker processes (each holding its own
tool set) at the node's CPU count; raise the node's CPUs, not this, to run more at once."""

RayResources = tuple[tuple[str, float], ...]
"""Custom Ray resources an actor or task requires, as sorted ``(name, amount)`` pairs
(hashable and picklable: :func:`tool_tasks` caches one ToolTasks per setting)."""


@contextlib.contextmanager
def local_ray(num_cpus: int = 2, *, address: str | None = None) -> Iterator[None]:
    """A local Ray instance for one command (CLI, benchmark): no dashboard, quiet workers.

    Reuses an instance that is already running in this process and leaves it running. With
    ``address`` (or ``RAY_ADDRESS``) it joins that cluster instead (``auto``, ``host:port``,
    ``ray://…``). Without, it starts an instance of its own even when another one runs on the
    machine: the command's settings (data directory, audit database) are its workers' only
    because they inherit its environment.
    """
    started = not ray.is_initialized()
    address = address or os.environ.get("RAY_ADDRESS") or None
    if started:
        if address is not None and address != "local":
            ray.init(address=address, logging_level=logging.WARNING, namespace=RAY_NAMESPACE)
        else:
            cluster_token()
            ray.init(
                address="local",
                num_cpus=num_cpus,
                include_dashboard=False,
                log_to_driver=False,
                logging_level=logging.WARNING,
                namespace=RAY_NAMESPACE,
            )
    try:
        yield
    finally:
        if started:
            ray.shutdown()


def cluster_token() -> None:
    """Give a local Ray this process starts a token of its own, kept in the environment.

    Ray enables token authentication for a new local cluster and, when no token is set,
    writes one to ``~/.ray/auth_token``: a file outside the harness's data directory that
    outlives the command. A token in ``RAY_AUTH_TOKEN`` (which the cluster's processes
    inherit) keeps the authentication and writes nothing. An operator's own token (that
    variable, or the file) or authentication mode (``RAY_AUTH_MODE``) is left as it is. Call
    it only before starting a cluster, never before joining one.
    """
    if os.environ.get("RAY_AUTH_TOKEN") or os.environ.get("RAY_AUTH_MODE"):
        return
    if (Path.home() / ".ray" / "auth_token").exists():
        return
    os.environ["RAY_AUTH_TOKEN"] = secrets.token_hex(32)


def run_actor_options(name: str, max_runs: int, resources: RayResources = ()) -> dict[str, Any]:
    """Ray options of one RunActor (``resources``: custom resources it requires)."""
    return {
        "name": name,
        "num_cpus": 0,
        "resources": dict(resources),
        "max_restarts": 0,
        "max_task_retries": 0,
        # Every hosted run holds one pending ``wait`` call; status, cancel and ping come on top.
        "max_concurrency": 4 * max_runs + 16,
    }


def create_run_actor(
    name: str,
    deps_factory: Callable[[], RunDeps],
    *,
    max_runs: int = 1,
    result_ttl_s: float = 60.0,
    resources: RayResources = (),
) -> ActorHandle[RunActor]:
    """Start one RunActor process; its deps are built by the first ``ping`` or ``start``.

    Raises:
        ray.exceptions.ActorAlreadyExistsError: The name is taken in this namespace.
    """
    cls = _remote_run_actor()
    handle: ActorHandle[RunActor] = cls.options(
        **run_actor_options(name, max_runs, resources)
    ).remote(
        deps_factory,
        max_runs=max_runs,
        result_ttl_s=result_ttl_s,
        name=name,
        on_finished=RunMetrics(),
    )
    return handle


@functools.cache
def _remote_run_actor() -> Any:
    # The health check has a thread and loop of its own (see actors.run_actor).
    # Ray's typed overloads of ``remote`` omit ``concurrency_groups``, which it accepts.
    return ray.remote(concurrency_groups={HEALTH_GROUP: 1})(RunActor)  # type: ignore[call-overload]


AUDIT_WRITER_MAX_PENDING_CALLS = 10_000
"""Records one caller may have in flight to the writer before its submissions fail."""


def audit_writer_options(name: str, node_id: str) -> dict[str, Any]:
    """Ray options of the audit writer of one node (see the module docstring)."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    return {
        "name": name,
        "get_if_exists": True,
        "lifetime": "detached",
        "num_cpus": 0,
        "max_restarts": -1,
        "max_task_retries": 0,
        # ``flush`` and ``close`` wait on the database; ``record`` calls must still get in.
        "max_concurrency": 64,
        "max_pending_calls": AUDIT_WRITER_MAX_PENDING_CALLS,
        "scheduling_strategy": NodeAffinitySchedulingStrategy(node_id, soft=False),
    }


def node_audit_writer(
    store_factory: Callable[[], AuditStore], policy: AuditWriterPolicy
) -> ActorHandle[AuditWriterActor]:
    """The audit writer of the calling process's node, started when it is not running yet.

    The first caller's ``store_factory`` and ``policy`` configure it; later callers share it.
    """
    node_id = ray.get_runtime_context().get_node_id()
    name = audit_writer_name(node_id)
    handle: ActorHandle[AuditWriterActor] = (
        _remote_audit_writer()
        .options(**audit_writer_options(name, node_id))
        .remote(store_factory, policy, name=name, listener=AuditMetrics())
    )
    return handle


@functools.cache
def _remote_audit_writer() -> Any:
    return ray.remote(AuditWriterActor)


RUN_DESK_NAME = "run-desk"
"""The run desk's actor name in :data:`RAY_NAMESPACE`."""

RUN_DESK_MAX_CONCURRENCY = 20_000
"""Calls the desk serves at once: open progress streams and waiting requests each hold one."""


def run_desk_options(name: str = RUN_DESK_NAME, resources: RayResources = ()) -> dict[str, Any]:
    """Ray options of the run desk (see the module docstring); ``resources``: custom
    resources it requires (those of the RunActors, so that it lives where they do)."""
    return {
        "name": name,
        "namespace": RAY_NAMESPACE,
        "get_if_exists": True,
        "lifetime": "detached",
        "num_cpus": 0,
        "resources": dict(resources),
        "max_restarts": -1,
        "max_task_retries": 0,
        "max_concurrency": RUN_DESK_MAX_CONCURRENCY,
    }


def connect_run_desk(
    pool: Callable[[], HostedRuns],
    *,
    max_runs: int,
    idempotency_ttl_s: float,
    name: str = RUN_DESK_NAME,
    resources: RayResources = (),
) -> ActorHandle[RunDesk]:
    """The namespace's run desk, created with ``pool`` (e.g. an ``actors.pool_spec.PoolSpec``)
    when it is not running yet.

    The first caller's arguments configure it; later callers share it as it is. Await
    ``handle.start.remote()`` before use (it is idempotent).
    """
    handle: ActorHandle[RunDesk] = (
        _remote_run_desk()
        .options(**run_desk_options(name, resources))
        .remote(pool, max_runs=max_runs, idempotency_ttl_s=idempotency_ttl_s)
    )
    return handle


@functools.cache
def _remote_run_desk() -> Any:
    return ray.remote(RunDesk)


@dataclass
class ToolTasks:
    """The two remote functions, with one readable name per tool (cached per process).

    ``resources`` are custom Ray resources each task requires: an operator who starts the
    nodes meant for tool work with, say, ``ray start --resources='{"tools": 4}'`` and sets
    ``HARNESS_TOOL_TASK_RESOURCES='{"tools": 1}'`` keeps tool tasks on those nodes (and off
    the head, which hosts the run desk and the RunActors).
    """

    num_cpus: float = TOOL_TASK_NUM_CPUS
    resources: RayResources = ()
    _named: dict[str, Any] = field(default_factory=dict)

    def tool(self, tool_name: str) -> Any:
        """The remote function named ``tool:<tool_name>``."""
        return self._get("tool", tool_name)

    def projector(self, tool_name: str) -> Any:
        """The remote function named ``project:<tool_name>``."""
        return self._get("project", tool_name)

    def _get(self, kind: str, tool_name: str) -> Any:
        name = f"{kind}:{tool_name}"
        remote = self._named.get(name)
        if remote is None:
            body = _remote_tool if kind == "tool" else _remote_projector
            remote = self._named[name] = body().options(
                name=name,
                num_cpus=self.num_cpus,
                resources=dict(self.resources),
                max_retries=0,
                retry_exceptions=False,
            )
        return remote


@functools.cache
def _remote_tool() -> Any:
    return ray.remote(run_tool)


@functools.cache
def _remote_projector() -> Any:
    return ray.remote(run_projector)


@functools.cache
def tool_tasks(num_cpus: float = TOOL_TASK_NUM_CPUS, resources: RayResources = ()) -> ToolTasks:
    """The process-wide ToolTasks for a CPU and custom-resource setting."""
    return ToolTasks(num_cpus=num_cpus, resources=resources)


def tool_task_capacity(tasks: ToolTasks) -> int:
    """Tool tasks the cluster runs at once: its CPUs over each task's, and likewise for every
    custom resource the tasks require (at least one). The default number of tool slots of a
    RunActor (``HARNESS_TOOL_SLOTS`` overrides it): more tasks in flight would only wait in
    Ray's queue, where their wait would look like backend time.
    """
    total: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]  # Ray ships it untyped
    needs = [("CPU", tasks.num_cpus), *tasks.resources]
    fits = [total.get(name, 0.0) / amount for name, amount in needs if amount > 0]
    return max(1, int(min(fits, default=1.0) + 1e-9))  # 2.0 / 1.0 must give 2, not 1.999…


def eval_worker_options(workers: int, slots: int) -> tuple[Any, dict[str, Any], int]:
    """Compute strategy, remote args and batch size of the evaluation's UDF actors.

    A worker reserves a quarter CPU, never a whole one: case runs wait on models, and tools run
    inline in the worker, so nothing it waits on holds a CPU it needs (no deadlock on two
    cores). The async UDF already runs up to four batches at once per task; batches of a
    quarter of the slots keep every slot busy while the worker's own semaphore bounds the runs.
    """
    from ray.data import ActorPoolStrategy

    compute = ActorPoolStrategy(size=workers, max_tasks_in_flight_per_actor=4)
    return compute, {"num_cpus": 0.25}, max(1, -(-slots // 4))
