"""A Ray cluster of three nodes on this machine, for the tests marked ``cluster``.

The rest of the suite shares one local Ray per session (``tests/conftest.py``), and a process
holds one Ray connection, so these tests run in a pytest invocation of their own:
``pytest -m cluster tests/cluster`` (``make pytest`` runs it after the main suite; the main
invocation leaves them out). The fixture refuses to start when Ray is already up.

The cluster keeps to itself on a shared machine: its temp dir (sockets, logs, and the
``ray_current_cluster`` file through which ``ray.init()`` finds a running cluster) is private,
so that another process's ``ray.init()`` never joins it; ``RAY_ADDRESS`` names it, so that
nothing in this process joins another; and every port it listens on is free when chosen.

Topology (two cores in all, so the CPUs are nominal), placed by the custom resources an
operator would set (``HARNESS_RUN_ACTOR_RESOURCES`` and ``HARNESS_TOOL_TASK_RESOURCES``; here
the pool's ``actor_resources`` and the deps factory's ``tool_task_resources``): a head node
with one CPU and the resource ``runs``, where the driver, the run desk and the RunActors live,
and two tool nodes, each with one CPU and the resource ``tools``, which tool tasks require.
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

RUN_RESOURCE = "runs"
TOOL_RESOURCE = "tools"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class LocalCluster:
    """The running cluster: the ``ray.cluster_utils.Cluster`` and its nodes by role."""

    cluster: Any  # ray.cluster_utils.Cluster
    head: Any  # ray._private.node.Node
    tool_nodes: list[Any]

    def node(self, node_id: str) -> Any:
        """The tool node with this Ray node id."""
        return next(n for n in self.tool_nodes if n.node_id == node_id)

    def add(self, **resources: float) -> Any:
        """Start one more node (no CPU) with these custom resources."""
        node = self.cluster.add_node(num_cpus=0, resources=resources)
        self.cluster.wait_for_nodes()
        return node

    def kill(self, node: Any) -> None:
        """Kill every process of a node at once (no graceful shutdown)."""
        self.cluster.remove_node(node, allow_graceful=False)
        if node in self.tool_nodes:
            self.tool_nodes.remove(node)


@pytest.fixture(scope="module")
def local_cluster() -> Iterator[LocalCluster]:
    import ray
    from ray.cluster_utils import Cluster

    from actors.factory import RAY_NAMESPACE

    if ray.is_initialized():
        pytest.fail(
            "the cluster tests need a process of their own: pytest -m cluster tests/cluster",
            pytrace=False,
        )
    temp_dir = tempfile.mkdtemp(prefix="dh-cl-")  # short: Ray's socket paths live under it
    os.environ["RAY_TMPDIR"] = temp_dir
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    cluster = Cluster(
        initialize_head=True,
        head_node_args={
            "num_cpus": 1,
            "resources": {RUN_RESOURCE: 100},
            "gcs_server_port": _free_port(),
            "include_dashboard": True,  # the state API (list_tasks, list_actors) lives there
            "dashboard_port": _free_port(),
            "dashboard_agent_listen_port": _free_port(),
        },
    )
    tool_nodes = [cluster.add_node(num_cpus=1, resources={TOOL_RESOURCE: 1}) for _ in range(2)]
    cluster.wait_for_nodes()
    # Whatever looks for "the" cluster in this process (the state API does) finds this one,
    # never another Ray instance running on the machine.
    os.environ["RAY_ADDRESS"] = cluster.address
    ray.init(
        address=cluster.address,
        namespace=RAY_NAMESPACE,
        log_to_driver=False,
        logging_level=logging.WARNING,
    )
    try:
        yield LocalCluster(cluster=cluster, head=cluster.head_node, tool_nodes=tool_nodes)
    finally:
        ray.shutdown()
        cluster.shutdown()
        del os.environ["RAY_ADDRESS"]
        shutil.rmtree(temp_dir, ignore_errors=True)
