"""Ray's exceptions mapped to the harness's own, in one place.

Like httpx's ``map_httpcore_exceptions``, :func:`map_ray_errors` is a context manager that
turns every Ray exception raised inside it into a :class:`~harness.contracts.errors.HarnessError`,
choosing the most specific match:

=====================================  ===============================================
raised by Ray                          becomes
=====================================  ===============================================
RayTaskError caused by a HarnessError  that error (same class, code and context)
RayActorError (actor died, unreachable) RunLost (RUN_LOST): the run's state is gone
the task's worker died (its process:    the caller's ``lost`` (e.g. BACKEND_LOST), else
WorkerCrashedError; its node:          its ``fallback``
NodeDiedError, LocalRayletDiedError)
any other RayError                     the caller's ``fallback`` (e.g. BACKEND_ERROR)
=====================================  ===============================================

Only the exception's class name is logged: Ray's messages carry remote tracebacks, which may
quote data. :func:`resolve` awaits an ObjectRef under the mapping.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any

import ray
from ray.exceptions import (
    LocalRayletDiedError,
    NodeDiedError,
    RayActorError,
    RayError,
    RayTaskError,
    WorkerCrashedError,
)

from harness.contracts.errors import HarnessError, RunLost

__all__ = ["map_ray_errors", "resolve"]

log = logging.getLogger(__name__)


_WORKER_LOST = (WorkerCrashedError, NodeDiedError, LocalRayletDiedError)


@contextlib.contextmanager
def map_ray_errors(fallback: HarnessError, *, lost: HarnessError | None = None) -> Iterator[None]:
    """Re-raise Ray's exceptions as HarnessErrors (see the module table).

    Args:
        fallback: Raised for a Ray failure that carries no harness error of its own.
        lost: Raised when the worker running the task died with its process or node
            (default: ``fallback``).
    """
    try:
        yield
    except RayTaskError as err:
        cause = err.cause
        if isinstance(cause, HarnessError):
            raise cause from None
        log.warning("ray task failed error=%s code=%s", type(cause).__name__, fallback.error_code)
        raise fallback from None
    except RayActorError as err:
        log.warning("ray actor lost error=%s", type(err).__name__)
        raise RunLost(message="actor lost", context={"cause": type(err).__name__}) from None
    except _WORKER_LOST as err:
        code = (lost or fallback).error_code
        log.warning("ray worker lost error=%s code=%s", type(err).__name__, code)
        raise (lost or fallback) from None
    except RayError as err:  # task cancelled elsewhere, object lost, out of memory
        log.warning("ray call lost error=%s code=%s", type(err).__name__, fallback.error_code)
        raise fallback from None


async def resolve(
    ref: ray.ObjectRef[Any], *, fallback: HarnessError, lost: HarnessError | None = None
) -> Any:
    """Await ``ref``; Ray's exceptions leave as HarnessErrors (:func:`map_ray_errors`)."""
    with map_ray_errors(fallback, lost=lost):
        return await ref
