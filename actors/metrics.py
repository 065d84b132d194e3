"""Harness metrics exported through ``ray.util.metrics`` (visible in the Ray dashboard).

Metric objects are created lazily in the process that records, because a ``Counter`` belongs
to the process that made it; the recorder itself is picklable and travels to the actor.
"""

from __future__ import annotations

import functools
import logging
from typing import Any

from harness.audit_writer import AuditWriterEvent

__all__ = ["AuditMetrics", "RunMetrics"]

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


class AuditMetrics:
    """The audit writer's and the sinks' counters (no run ids as tags: counts only).

    ``harness_audit_rows_written_total``; ``harness_audit_flush_failures_total`` by the
    exception's class; ``harness_audit_rows_dropped_total`` by reason (OVERFLOW, FAILED,
    CLOSED); ``harness_audit_sink_failures_total``: records a RunActor could not hand over.
    Call it with a writer event (it is the writer's listener), or :meth:`sink_failed`.
    """

    def __init__(self) -> None:
        self._counters: dict[str, Any] | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {}  # the counters are per process; the receiving process makes its own

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._counters = None

    def __call__(self, event: AuditWriterEvent) -> None:
        """Record one writer event; a metrics failure never touches the writer."""
        try:
            counters = self._get()
            if event.kind == "WRITTEN":
                counters["written"].inc(event.rows)
            elif event.kind == "FLUSH_FAILED":
                counters["failed"].inc(1, tags={"error": event.error or "unknown"})
            elif event.kind == "DROPPED" and event.reason is not None:
                counters["dropped"].inc(event.rows, tags={"reason": event.reason.value})
        except Exception:  # metrics are best effort
            log.debug("audit metric not recorded", exc_info=True)

    def sink_failed(self) -> None:
        """Record one record that never reached the writer."""
        try:
            self._get()["sink"].inc(1)
        except Exception:  # metrics are best effort
            log.debug("audit metric not recorded", exc_info=True)

    def _get(self) -> dict[str, Any]:
        if self._counters is None:
            self._counters = _audit_counters()
        return self._counters


@functools.cache
def _audit_counters() -> dict[str, Any]:
    """The audit counters of this process, made once however many recorders exist."""
    from ray.util.metrics import Counter

    return {
        "written": Counter(
            "harness_audit_rows_written_total",
            description="Audit rows written to the database.",
        ),
        "failed": Counter(
            "harness_audit_flush_failures_total",
            description="Audit batch writes that failed, by exception class.",
            tag_keys=("error",),
        ),
        "dropped": Counter(
            "harness_audit_rows_dropped_total",
            description="Audit rows given up, by reason.",
            tag_keys=("reason",),
        ),
        "sink": Counter(
            "harness_audit_sink_failures_total",
            description="Run records that could not be handed to the audit writer.",
        ),
    }
