"""The Ray Serve deployment of the HTTP API: options, the replica class, and ``start``.

The one place where Serve options are applied (as ``actors.factory`` is for Ray's). Choices
and why, for two cores:

- Replicas reserve ``serve_replica_num_cpus`` (default 0). A replica awaits the run desk,
  Redis and the audit; the CPU-heavy work is the tool tasks, which reserve one CPU each. On a
  two-core node even 0.25 per replica would leave room for only one tool task at a time
  (1.75 free CPUs fit one 1-CPU task). Raise it on nodes with CPUs to spare.
- ``max_ongoing_requests`` is high (default 1000) because a request mostly waits: an open
  progress stream holds its slot for the run's whole life, a waiting create until the result.
  ``max_queued_requests`` (default 1000) bounds the proxy's queue; beyond it Serve answers 429
  with ``Retry-After`` (``BackpressureConfig``), which :class:`serve.edge.ServeEdge` gives the
  API's error body (OVERLOADED).
- Admission: the pool hosts ``pool_size`` × ``runs_per_actor`` runs at once; beyond them
  ``serve_max_waiting_runs`` runs may wait for a slot, and a further create answers 429
  OVERLOADED with ``Retry-After`` (``actors.pool.RunPool``'s ``max_waiting``) instead of
  queueing without bound: a burst far beyond the pool would push the runs' tool tasks and
  model calls past their timeouts. Unset, the line is unbounded.
- The proxy's ``request_timeout_s`` is above the longest wait, stream and run deadline
  (``ServeSettings.request_timeout_s``): the app bounds its own requests, and Serve's timeout
  is end to end, so a lower one would cut a healthy stream after its 200 was sent.
- The proxy drops the client's ``x-request-timeout-seconds`` and
  ``x-request-disconnect-disabled`` (:mod:`serve.edge`): ``start`` names the proxy callback in
  the Serve controller's environment, which its proxies inherit. ``http_options`` and the
  controller's environment apply only when Serve starts; ``start`` warns when it joins a
  running Serve instance instead.
- The run desk and its RunActors live in the namespace ``actors.factory.RAY_NAMESPACE``,
  named explicitly: a replica runs in Serve's own job, and finds the desk by that name.
- On a cluster the app is deployed declaratively (``serve deploy``, KubeRay's RayService):
  :func:`app_builder` is the import path of a Serve config. It reads the same settings from
  the environment, and the first replica creates the run desk. Serve's proxies are then
  started by the cluster, not by :func:`start`, so the proxy callback must be in every
  node's environment (``cluster.yaml``, ``docs/kubernetes/rayservice.yaml``).
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from actors.factory import RAY_NAMESPACE, RUN_DESK_NAME
from actors.pool_spec import PoolSpec
from harness.settings import ApiKeyEntry, ServeSettings, Settings
from serve.deps import ApiDeps, ApiLimits

if TYPE_CHECKING:
    from fastapi import FastAPI
    from ray.serve.handle import DeploymentHandle

__all__ = [
    "APP_NAME",
    "DEPLOYMENT_NAME",
    "PROXY_CALLBACK",
    "AppArgs",
    "DiagnosisApi",
    "ServeConfig",
    "app_builder",
    "application",
    "build_api_deps",
    "deployment_options",
    "http_options",
    "start",
    "stop",
]

log = logging.getLogger(__name__)

APP_NAME = "diagnosis-harness"
DEPLOYMENT_NAME = "DiagnosisApi"
PROXY_CALLBACK = "serve.edge.proxy_middlewares"
"""Import path of the middlewares Serve's HTTP proxy applies (see :mod:`serve.edge`)."""


@dataclass(frozen=True, kw_only=True)
class ServeConfig:
    """What every replica builds its ApiDeps from (picklable: it travels to each replica).

    Args:
        pool: The run desk's pool (created by the first replica or ``start``, then shared).
        keys: API key digests → principals.
        limits: What the API accepts.
        redis_url: Shared request counters; None = in-process fakeredis (one replica only).
        redis_prefix: Key prefix of the counters.
        idempotency_ttl_s: How long an Idempotency-Key names its run.
        max_runs: Runs the desk remembers.
        audit: Read the durable audit (trace after the host forgot a run, reasoning).
        desk_name: The run desk's actor name in the namespace.
    """

    pool: PoolSpec
    keys: tuple[ApiKeyEntry, ...]
    limits: ApiLimits
    redis_url: str | None = None
    redis_prefix: str = "dh:api"
    idempotency_ttl_s: float = 24 * 3600.0
    max_runs: int = 10_000
    audit: bool = True
    desk_name: str = RUN_DESK_NAME

    @classmethod
    def of(
        cls,
        serve_settings: ServeSettings,
        settings: Settings,
        *,
        keys: tuple[ApiKeyEntry, ...],
        pool: PoolSpec | None = None,
    ) -> ServeConfig:
        """The configuration the settings describe (``pool`` defaults to the embedded deps)."""
        return cls(
            pool=pool
            or PoolSpec(
                size=settings.pool_size,
                runs_per_actor=settings.runs_per_actor,
                max_finished=serve_settings.api_max_runs_remembered,
                actor_resources=tuple(sorted(settings.run_actor_resources.items())),
                max_waiting=serve_settings.serve_max_waiting_runs,
                retry_after_s=float(serve_settings.serve_retry_after_s),
            ),
            keys=keys,
            limits=ApiLimits.of(serve_settings),
            redis_url=settings.redis_url,
            redis_prefix=f"{settings.store_prefix}:api",
            idempotency_ttl_s=serve_settings.api_idempotency_ttl_s,
            max_runs=serve_settings.api_max_runs_remembered,
            audit=settings.audit_enabled,
        )


async def build_api_deps(config: ServeConfig) -> ApiDeps:
    """A replica's ApiDeps: the shared run desk (started, or created by this call), the
    counters in Redis, the audit database and the reasoning cipher."""
    from actors.errors import resolve
    from actors.factory import connect_run_desk
    from harness.adapters.redis_quota import rate_limiter
    from harness.contracts.errors import Unavailable
    from serve.auth import KeyRing
    from serve.plane import RayRunPlane

    desk = connect_run_desk(
        config.pool,
        max_runs=config.max_runs,
        idempotency_ttl_s=config.idempotency_ttl_s,
        name=config.desk_name,
        resources=config.pool.actor_resources,
    )
    await resolve(desk.start.remote(), fallback=Unavailable(message="run desk start"))
    audit = cipher = None
    if config.audit:
        from harness.adapters.audit_sql import SqlAuditStore, create_audit_engine
        from harness.adapters.embedded import reasoning_cipher

        settings = Settings()
        # The store migrates lazily on its first statement: a replica starts (and answers
        # /readyz as degraded) while the audit database is down.
        audit = SqlAuditStore(
            create_audit_engine(settings.audit_database_url(), timeout_s=settings.audit_timeout_s)
        )
        cipher = reasoning_cipher(settings)
    return ApiDeps(
        plane=RayRunPlane(desk),
        keys=KeyRing(config.keys),
        limiter=rate_limiter(config.redis_url, prefix=config.redis_prefix),
        audit=audit,
        cipher=cipher,
        limits=config.limits,
    )


class DiagnosisApi:
    """One HTTP replica: ApiDeps built from the config, and the app over them.

    Plain class; :func:`application` wraps it with ``serve.ingress`` and the deployment options.
    """

    def __init__(self, config: ServeConfig) -> None:
        self._config = config

    async def __serve_build_asgi_app__(self) -> FastAPI:
        from serve.app import build_app

        return build_app(await build_api_deps(self._config))


def deployment_options(settings: ServeSettings) -> dict[str, Any]:
    """Serve options of the API deployment (see the module docstring)."""
    from ray.serve.config import BackpressureConfig

    return {
        "name": DEPLOYMENT_NAME,
        "num_replicas": settings.serve_replicas,
        "ray_actor_options": {"num_cpus": settings.serve_replica_num_cpus},
        "max_ongoing_requests": settings.serve_max_ongoing_requests,
        "max_queued_requests": settings.serve_max_queued_requests,
        "backpressure_config": BackpressureConfig(
            status_code=429, retry_after_s=settings.serve_retry_after_s
        ),
        "graceful_shutdown_timeout_s": 10.0,
    }


def http_options(settings: ServeSettings, *, host: str, port: int) -> dict[str, Any]:
    """Options of Serve's HTTP proxies."""
    return {"host": host, "port": port, "request_timeout_s": settings.request_timeout_s}


def application(config: ServeConfig, settings: ServeSettings) -> Any:
    """The bound Serve application."""
    from ray import serve

    ingress = serve.ingress()(DiagnosisApi)
    return serve.deployment(**deployment_options(settings))(ingress).bind(config)


class AppArgs(BaseModel):
    """The ``args`` of :func:`app_builder` in a Serve config: none, the settings come from
    the environment (``HARNESS_*``). Any key is refused, so a misplaced setting fails the
    deploy instead of being ignored."""

    model_config = ConfigDict(extra="forbid")


def app_builder(args: dict[str, Any]) -> Any:
    """The API as a Serve application builder, for ``serve deploy`` and KubeRay
    (``import_path: serve.deployment:app_builder``).

    Settings and API keys come from the environment of the process Serve builds the app in
    (the node's, or the application's ``runtime_env``). Unlike ``harness serve`` it makes no
    development key: a key printed into a cluster's logs would be a leaked secret.

    Raises:
        ValueError: Invalid settings, no API key configured, or several replicas without a
            shared Redis for their rate-limit counters.
    """
    AppArgs.model_validate(args)
    settings, serve_settings = Settings(), ServeSettings()
    keys = serve_settings.all_api_keys()
    if not keys:
        raise ValueError("no API keys: set HARNESS_API_KEYS or HARNESS_API_KEYS_FILE")
    if settings.redis_url is None and serve_settings.serve_replicas > 1:
        raise ValueError(
            "HARNESS_SERVE_REPLICAS > 1 needs HARNESS_REDIS_URL: rate-limit counters must be "
            "shared by the replicas"
        )
    config = ServeConfig.of(serve_settings, settings, keys=tuple(keys))
    return application(config, serve_settings)


def start(
    config: ServeConfig,
    settings: ServeSettings,
    *,
    host: str,
    port: int,
) -> DeploymentHandle[Any]:
    """Start Serve (HTTP on ``host:port``) and deploy the API; Ray must be initialised in
    the namespace ``RAY_NAMESPACE``. The run desk is created and warmed before the replicas
    start, so the first request finds its pool ready."""
    import ray
    from ray import serve

    from actors.factory import connect_run_desk

    if ray.get_runtime_context().namespace != RAY_NAMESPACE:
        raise RuntimeError(f"ray.init(namespace={RAY_NAMESPACE!r}) first")
    desk = connect_run_desk(
        config.pool,
        max_runs=config.max_runs,
        idempotency_ttl_s=config.idempotency_ttl_s,
        name=config.desk_name,
        resources=config.pool.actor_resources,
    )
    ray.get(desk.start.remote())
    # On a running Serve instance these are ignored (Serve logs it): they apply at first start.
    serve.start(
        http_options=http_options(settings, host=host, port=port),
        controller_options={
            "runtime_env": {
                "env_vars": {"RAY_SERVE_HTTP_PROXY_CALLBACK_IMPORT_PATH": PROXY_CALLBACK}
            }
        },
    )
    handle: DeploymentHandle[Any] = serve.run(
        application(config, settings), name=APP_NAME, route_prefix="/"
    )
    return handle


def stop(*, desk_name: str = RUN_DESK_NAME) -> None:
    """Delete the API application and end the run desk (its RunActors end with it)."""
    import ray
    from ray import serve

    try:
        serve.delete(APP_NAME)
    except Exception:  # not deployed, or Serve already gone
        log.debug("serve.delete failed", exc_info=True)
    with contextlib.suppress(ValueError):  # no desk
        ray.kill(ray.get_actor(desk_name, namespace=RAY_NAMESPACE), no_restart=True)
