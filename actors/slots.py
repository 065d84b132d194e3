"""ActorSlot and the spawner that starts, warms and kills RunActors for the pool."""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable
from dataclasses import dataclass

import ray
from ray.actor import ActorHandle
from ray.exceptions import ActorAlreadyExistsError

from actors.errors import resolve
from actors.factory import RayResources, create_run_actor
from actors.run_actor import ActorHealth, RunActor
from harness.contracts.errors import InternalError
from harness.diagnosis import RunDeps

__all__ = ["ActorSlot", "ActorSpawner"]

log = logging.getLogger(__name__)


@dataclass(eq=False)
class ActorSlot:
    """One RunActor as the pool tracks it."""

    name: str
    handle: ActorHandle[RunActor]
    pid: int
    fresh: bool = False
    load: int = 0
    """Runs placed on it and not yet settled."""
    started: int = 0
    """Runs it has hosted so far."""
    alive: bool = True
    unanswered_since: float | None = None
    """``time.monotonic()`` when its health checks began to go unanswered (None: answered)."""


@dataclass
class ActorSpawner:
    """Starts RunActors named ``<name_prefix>-<n>`` and returns them warm."""

    name_prefix: str
    deps_factory: Callable[[], RunDeps]
    max_runs: int
    result_ttl_s: float
    resources: RayResources = ()
    """Custom Ray resources each actor requires (where it may run)."""

    def __post_init__(self) -> None:
        self._numbers = itertools.count(1)

    async def spawn(self, *, fresh: bool = False) -> ActorSlot:
        """Start an actor and wait for its first ping, which builds its deps."""
        handle, name = self._create()
        try:
            health: ActorHealth = await resolve(
                handle.ping.remote(), fallback=InternalError(message="ping")
            )
        except BaseException:
            ray.kill(handle)
            raise
        return ActorSlot(name=name, handle=handle, pid=health.pid, fresh=fresh)

    @staticmethod
    def kill(slot: ActorSlot) -> None:
        """Kill the actor's process (no restart); a dead one is left as it is."""
        slot.alive = False
        try:
            ray.kill(slot.handle, no_restart=True)
        except Exception:
            log.debug("ray.kill refused name=%s", slot.name, exc_info=True)

    def _create(self) -> tuple[ActorHandle[RunActor], str]:
        for _ in range(100):
            name = f"{self.name_prefix}-{next(self._numbers)}"
            try:
                handle = create_run_actor(
                    name,
                    self.deps_factory,
                    max_runs=self.max_runs,
                    result_ttl_s=self.result_ttl_s,
                    resources=self.resources,
                )
            except ActorAlreadyExistsError:  # taken: another pool, or a dying actor
                continue
            return handle, name
        raise InternalError(message="no free actor name")
