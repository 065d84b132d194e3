"""PoolSpec: the picklable recipe of a RunPool, for a pool built in another process (the run
desk's), and what the pool's size means for admission."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from actors.factory import RayResources
from harness.diagnosis import RunDeps

if TYPE_CHECKING:
    from actors.pool import RunPool

__all__ = ["PoolSpec"]


@dataclass(frozen=True, kw_only=True)
class PoolSpec:
    """Picklable recipe of a RunPool, for a pool built in another process (the run desk's)."""

    size: int = 1
    runs_per_actor: int = 1
    deps_factory: Callable[[], RunDeps] | None = None
    name_prefix: str = "api-run-actor"
    result_ttl_s: float = 60.0
    max_finished: int = 10_000
    max_waiting: int | None = None
    retry_after_s: float = 1.0
    actor_resources: RayResources = ()

    def __call__(self) -> RunPool:
        from actors.pool import RunPool

        return RunPool(
            self.size,
            self.runs_per_actor,
            self.deps_factory,
            name_prefix=self.name_prefix,
            result_ttl_s=self.result_ttl_s,
            max_finished=self.max_finished,
            max_waiting=self.max_waiting,
            retry_after_s=self.retry_after_s,
            actor_resources=self.actor_resources,
        )

    @property
    def capacity(self) -> int:
        """Runs the pool hosts at once."""
        return self.size * self.runs_per_actor
