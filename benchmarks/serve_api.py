"""The HTTP API as the Serve benchmarks (``bench_serve.py``) drive it: a deployment of their
own, an httpx client and the request bodies they send.

:func:`deploy` starts Serve and the API (``serve.deployment.start``) on a run pool of a given
size and runs per actor, with one API key whose quota is out of reach (the benchmarks measure
capacity, not quotas); :func:`warm` gets a fresh deployment's lazy parts built before it is
measured. The figures' two shared helpers live here too: the latency percentile and the goal
verdict.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import socket
from collections.abc import Callable
from typing import Any

import httpx

from actors.pool_spec import PoolSpec
from harness.contracts.principal import Permission
from harness.diagnosis import RunDeps
from harness.embedded.demo import INCIDENT_QUESTION, WINDOW_END
from harness.settings import ApiKeyEntry, ServeSettings
from serve.auth import key_digest, new_api_key
from serve.deps import ApiLimits

__all__ = [
    "Api",
    "api_client",
    "create",
    "deploy",
    "diagnosis_body",
    "free_port",
    "undeploy",
    "verdict",
    "warm",
]

_PRINCIPAL = "bench"


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now, for Serve's proxy."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclasses.dataclass(frozen=True)
class Api:
    """A deployed API: its URL, the benchmark's key, its run desk and its RunActors' name
    prefix (the sampler finds them by it)."""

    url: str
    key: str
    desk_name: str
    actor_prefix: str


def deploy(
    args: argparse.Namespace, deps: Callable[[], RunDeps], *, tag: str, size: int, k: int
) -> Api:
    """Start Serve and the API on a pool of ``size`` RunActors x ``k`` runs building their
    deps with ``deps``; ``tag`` names its desk, actors and Redis prefix (``burst``: the pool
    admits at most ``--max-waiting`` waiting runs)."""
    from serve.deployment import ServeConfig, start

    key = new_api_key()
    entry = ApiKeyEntry(
        principal=_PRINCIPAL,
        key_sha256=key_digest(key),
        permissions=frozenset(Permission) - {Permission.ADMIN},
        rate_limit=None,
    )
    prefix = f"bench-{tag}-actor"
    config = ServeConfig(
        pool=PoolSpec(
            size=size,
            runs_per_actor=k,
            deps_factory=deps,
            name_prefix=prefix,
            result_ttl_s=3600.0,
            max_waiting=args.max_waiting if tag == "burst" else None,
        ),
        keys=(entry,),
        limits=ApiLimits(
            max_body_bytes=16 * 1024,
            # The benchmark measures capacity, not quotas: the principal's quota is out of reach.
            rate_limit=1_000_000,
            rate_window_s=60,
            max_deadline_s=3600.0,
            max_wait_s=600.0,
            sse_heartbeat_s=15.0,
            max_stream_s=900.0,
        ),
        redis_url=args.redis_url,
        redis_prefix=f"dhbench:{tag}:{os.getpid()}",
        audit=False,
        desk_name=f"bench-{tag}-desk",
    )
    settings = ServeSettings(
        serve_replicas=args.replicas,
        serve_max_ongoing_requests=args.max_ongoing,
        serve_max_queued_requests=args.max_queued,
        api_max_wait_s=600.0,
        api_max_stream_s=900.0,
        api_max_deadline_s=3600.0,
    )
    port = args.port  # Serve's proxy keeps the port of its first start
    start(config, settings, host="127.0.0.1", port=port)
    return Api(f"http://127.0.0.1:{port}", key, config.desk_name, prefix)


def undeploy(api: Api) -> None:
    """Delete the API and end its run desk (and the RunActors with it)."""
    from serve.deployment import stop

    stop(desk_name=api.desk_name)


def api_client(api: Api, connections: int) -> httpx.AsyncClient:
    """An httpx client of ``api`` with the benchmark's key, keeping ``connections`` alive."""
    return httpx.AsyncClient(
        base_url=api.url,
        headers={"Authorization": f"Bearer {api.key}"},
        timeout=httpx.Timeout(900.0, connect=30.0),
        limits=httpx.Limits(max_connections=connections, max_keepalive_connections=connections),
    )


def diagnosis_body(question: str, *, wait: bool, deadline_s: float, n: int) -> dict[str, Any]:
    """The body of the ``n``-th ``POST /v1/diagnoses``: the question as of the demo window's end."""
    return {
        "question": question,
        "session_id": f"bench-{n}",
        "as_of": WINDOW_END.isoformat(),
        "deadline_s": deadline_s,
        "wait": wait,
    }


async def create(client: httpx.AsyncClient, n: int) -> httpx.Response | httpx.HTTPError:
    """One async create of the demo question (no ``wait``), or the transport error it met."""
    try:
        return await client.post(
            "/v1/diagnoses",
            json=diagnosis_body(INCIDENT_QUESTION, wait=False, deadline_s=1800, n=n),
        )
    except httpx.HTTPError as exc:
        return exc


async def warm(api: Api, runs: int) -> None:
    """A few waited runs at once: the RunActors' and tool workers' lazy parts get built."""
    async with api_client(api, runs) as client:
        await asyncio.gather(
            *(
                client.post(
                    "/v1/diagnoses",
                    json=diagnosis_body(INCIDENT_QUESTION, wait=True, deadline_s=900, n=n),
                )
                for n in range(runs)
            )
        )


def verdict(ok: bool) -> str:
    """How the table reads a figure against its goal."""
    return "meets" if ok else "MISSES"
