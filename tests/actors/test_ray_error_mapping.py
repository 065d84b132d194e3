"""map_ray_errors: each Ray failure becomes the most specific HarnessError (no Ray started)."""

from __future__ import annotations

import pytest
from ray.exceptions import (
    ActorDiedError,
    LocalRayletDiedError,
    NodeDiedError,
    ObjectLostError,
    RayTaskError,
    WorkerCrashedError,
)

from actors.errors import map_ray_errors
from harness.contracts.errors import BackendError, ErrorCode, HarnessError, RunLost

FALLBACK = BackendError(ErrorCode.BACKEND_ERROR, "task failed")
LOST = BackendError(ErrorCode.BACKEND_LOST, "worker lost", retryable=True)


def _mapped(raised: BaseException, *, lost: HarnessError | None = LOST) -> HarnessError:
    with pytest.raises(HarnessError) as caught, map_ray_errors(FALLBACK, lost=lost):
        raise raised
    return caught.value


@pytest.mark.parametrize(
    "raised",
    [NodeDiedError("node gone"), WorkerCrashedError(), LocalRayletDiedError()],
    ids=lambda e: type(e).__name__,
)
def test_a_dead_worker_or_node_is_the_callers_lost_error(raised: BaseException) -> None:
    assert _mapped(raised) is LOST
    assert _mapped(raised, lost=None) is FALLBACK


def test_other_failures_keep_their_mapping() -> None:
    cause = BackendError(ErrorCode.BACKEND_TIMEOUT, "slow")
    task_error = RayTaskError("tool:query_logs", "traceback text", cause)
    assert _mapped(task_error) is cause
    assert _mapped(ObjectLostError("0" * 56, "owner", "call site")) is FALLBACK
    lost_actor = _mapped(ActorDiedError())
    assert isinstance(lost_actor, RunLost) and lost_actor.error_code is ErrorCode.RUN_LOST
