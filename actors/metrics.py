"""Harness metrics exported through ``ray.util.metrics`` (visible in the Ray dashboard).

Metric objects are created lazily in the process that records, because a ``Counter`` belongs
to the process that made it; the recorder itself is picklable and travels to the actor.
"""

from __future__ import annotations

import logging
from typing import Any

__all__ = ["RunMetrics"]

log = logging.getLogger(__name__)


class RunMetrics:
    """Counts finished runs by outcome (the released result's type)."""

    def __init__(self) -> None:
        self._runs: Any = None

    def __getstate__(self) -> dict[str, Any]:
        return {}  # the counter is per process; the receiving process makes its own

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._runs = None

    def __call__(self, result_type: str) -> None:
        """Record one finished run; a metrics failure never touches the run."""
        try:
            if self._runs is None:
                from ray.util.metrics import Counter

                self._runs = Counter(
                    "harness_runs_total",
                    description="Runs finished, by the type of the released result.",
                    tag_keys=("outcome",),
                )
            self._runs.inc(1, tags={"outcome": result_type})
        except Exception:  # metrics are best effort
            log.debug("run metric not recorded", exc_info=True)
