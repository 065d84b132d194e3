"""One Ray Serve deployment of the HTTP API for the whole session, on a free port.

Serve starts once (``serve.run`` costs seconds on two cores) with two replicas, so requests of
one test spread over both and nothing may live in a replica. The runs are played by
``actors.testing.FakeDepsFactory`` (the directed model: ``@answer_s=2`` slows every model call
after the router) and audited into the session's audit database, which the replicas read for
reasoning. Rate-limit counters live in a real Redis (db 13, a key prefix of this session): the
tests skip without Redis, and fail under ``CI=true``.

Principals: ``alice`` and ``bob`` (everything but ADMIN), ``reader`` (READ only), ``limited``
(3 requests per window), ``noreason`` (DIAGNOSE and READ, no REASONING_READ).
"""

from __future__ import annotations

import os
import socket
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest

from actors.pool_spec import PoolSpec
from actors.testing import FakeDepsFactory
from harness.contracts.principal import Permission
from harness.settings import ApiKeyEntry, ServeSettings
from serve.auth import key_digest, new_api_key
from serve.deps import ApiLimits
from tests.store_contract import REDIS_HOST, REDIS_PORT, require_real_redis

REDIS_DB = 13
REPLICAS = 2
MAX_ONGOING = 8
MAX_QUEUED = 4
DESK = "http-test-desk"
ALL = frozenset(Permission) - {Permission.ADMIN}
PRINCIPALS: dict[str, tuple[frozenset[Permission], int | None]] = {
    "alice": (ALL, None),
    "bob": (ALL, None),
    "reader": (frozenset({Permission.READ}), None),
    "limited": (ALL, 3),
    "noreason": (frozenset({Permission.DIAGNOSE, Permission.READ}), None),
}


@dataclass(frozen=True)
class Api:
    """The running API: its base URL and one key per principal."""

    url: str
    keys: dict[str, str]

    def client(
        self, principal: str | None = "alice", *, headers: dict[str, str] | None = None
    ) -> httpx.Client:
        sent = dict(headers or {})
        if principal is not None:
            sent["Authorization"] = f"Bearer {self.keys[principal]}"
        return httpx.Client(base_url=self.url, headers=sent, timeout=60.0)

    def async_client(self, principal: str = "alice") -> httpx.AsyncClient:
        return httpx.AsyncClient(
            base_url=self.url,
            headers={"Authorization": f"Bearer {self.keys[principal]}"},
            timeout=60.0,
            limits=httpx.Limits(max_connections=100),
        )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _fresh_audit_writer() -> None:
    """End the node's audit writer left by earlier tests (the first caller configures it, and
    some point it at their own databases), so that this deployment's runs are audited into the
    session's database, which the replicas read."""
    import ray

    from actors.audit_writer import audit_writer_name
    from actors.factory import RAY_NAMESPACE

    name = audit_writer_name(ray.get_runtime_context().get_node_id())
    try:
        ray.kill(ray.get_actor(name, namespace=RAY_NAMESPACE), no_restart=True)
    except ValueError:
        return
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            ray.get_actor(name, namespace=RAY_NAMESPACE)
        except ValueError:
            return
        time.sleep(0.1)


@pytest.fixture(scope="session")
def api(ray_cluster: None) -> Iterator[Api]:
    require_real_redis()
    from serve.deployment import ServeConfig, start, stop

    keys = {name: new_api_key() for name in PRINCIPALS}
    entries = tuple(
        ApiKeyEntry(
            principal=name,
            key_sha256=key_digest(keys[name]),
            permissions=permissions,
            rate_limit=rate,
        )
        for name, (permissions, rate) in PRINCIPALS.items()
    )
    config = ServeConfig(
        pool=PoolSpec(
            size=1,
            runs_per_actor=32,
            deps_factory=FakeDepsFactory(audit_url=os.environ["HARNESS_AUDIT_URL"]),
            name_prefix="http-test-actor",
        ),
        keys=entries,
        limits=ApiLimits(
            max_body_bytes=4096,
            rate_limit=10_000,
            rate_window_s=60,
            max_deadline_s=60.0,
            max_wait_s=30.0,
            sse_heartbeat_s=0.5,
            max_stream_s=60.0,
        ),
        redis_url=f"redis://{REDIS_HOST}:{REDIS_PORT}/{REDIS_DB}",
        redis_prefix=f"dhtest:{uuid.uuid4().hex}",
        desk_name=DESK,
    )
    settings = ServeSettings(
        serve_replicas=REPLICAS,
        serve_max_ongoing_requests=MAX_ONGOING,
        serve_max_queued_requests=MAX_QUEUED,
        serve_retry_after_s=2,
        api_max_wait_s=30.0,
        api_max_stream_s=60.0,
        api_max_deadline_s=60.0,
    )
    _fresh_audit_writer()
    port = _free_port()
    start(config, settings, host="127.0.0.1", port=port)
    try:
        yield Api(url=f"http://127.0.0.1:{port}", keys=keys)
    finally:
        stop(desk_name=DESK)  # Serve's controller and proxy end with the session's Ray
