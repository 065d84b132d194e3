"""Harness metrics exported through ``ray.util.metrics`` (the node's metrics endpoint, the dashboard).

Figures come from a finished run's durable record (:class:`harness.audit.records.RunRecord`), so the
metrics say exactly what the audit says. Tags are low-cardinality only — outcome, tool, status,
code, component — never a run, session or case id.

Ray's behaviour, designed around: names get a ``ray_`` prefix on export, each process adds its
own ``WorkerId`` label (so series are summed across workers when read), values are exported
only every few seconds, and histogram sums are rebuilt from bucket midpoints (buckets below are
chosen for the latencies the harness sees).

Metric objects belong to the process that made them, so they are created lazily, once per
process; the recorder itself is picklable and travels to the actor.
"""

from __future__ import annotations

import functools
import logging
from typing import Any

from harness.audit.records import RunRecord
from harness.audit.writer import AuditWriterEvent
from harness.trace import ModelTokenUsage, ToolInvocation, ToolRequestRejected

__all__ = ["AuditMetrics", "RunMetrics"]

log = logging.getLogger(__name__)

_RUN_LATENCY_MS: list[float] = [
    50,
    100,
    250,
    500,
    1000,
    2500,
    5000,
    10000,
    30000,
    60000,
    120000,
    300000,
]
_TOOL_LATENCY_MS: list[float] = [1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000]
# A call queues for a tool slot from nothing (a free slot) to a burst's worth of calls.
_TOOL_QUEUE_WAIT_MS: list[float] = [0.1, 1, 5, 25, 100, 250, 1000, 2500, 5000, 10000, 30000, 60000]


class _Instruments:
    """The metric objects of one process."""

    def __init__(self) -> None:
        from ray.util.metrics import Counter, Histogram

        self.runs = Counter(
            "harness_runs_total",
            description="Runs finished, by the kind of the released result.",
            tag_keys=("outcome",),
        )
        self.tool_invocations = Counter(
            "harness_tool_invocations_total",
            description="Tool calls that entered execution, by tool and how they ended.",
            tag_keys=("tool", "outcome", "evidence"),
        )
        self.rejections = Counter(
            "harness_tool_rejections_total",
            description="Tool calls refused before execution, by stable code.",
            tag_keys=("code",),
        )
        self.model_calls = Counter(
            "harness_model_calls_total",
            description="Model call attempts, by component.",
            tag_keys=("component",),
        )
        self.tokens = Counter(
            "harness_model_tokens_total",
            description="Provider-reported tokens, by component and direction.",
            tag_keys=("component", "direction"),
        )
        self.run_latency = Histogram(
            "harness_run_latency_ms",
            description="Run wall time from start to release.",
            boundaries=_RUN_LATENCY_MS,
            tag_keys=("outcome",),
        )
        self.tool_latency = Histogram(
            "harness_tool_latency_ms",
            description="Time a tool call spent in the boundary.",
            boundaries=_TOOL_LATENCY_MS,
            tag_keys=("tool",),
        )
        self.tool_queue_wait = Histogram(
            "harness_tool_queue_wait_ms",
            description=(
                "Time a tool call waited for a tool slot of its RunActor before its backend "
                "was submitted (admission; the backend timeout counts only what follows)."
            ),
            boundaries=_TOOL_QUEUE_WAIT_MS,
            tag_keys=("tool",),
        )


class RunMetrics:
    """Records one finished run's figures; a metrics failure never touches the run."""

    def __init__(self) -> None:
        self._instruments: _Instruments | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {}  # the metric objects are per process; the receiving process makes its own

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._instruments = None

    def __call__(self, record: RunRecord) -> None:
        try:
            if self._instruments is None:
                self._instruments = _instruments()
            self._record(self._instruments, record)
        except Exception:  # metrics are best effort
            log.debug("run metrics not recorded", exc_info=True)

    @staticmethod
    def _record(m: _Instruments, record: RunRecord) -> None:
        outcome = record.run.result_kind or "NONE"
        m.runs.inc(1, tags={"outcome": outcome})
        m.run_latency.observe(record.run.duration_ms, tags={"outcome": outcome})
        for call in record.tool_invocations:
            evidence = call.evidence_status.value if call.evidence_status else "NONE"
            m.tool_invocations.inc(
                1, tags={"tool": call.tool_name, "outcome": call.outcome, "evidence": evidence}
            )
            m.tool_latency.observe(call.latency_ms, tags={"tool": call.tool_name})
        for event in record.trace:
            details = event.details
            if isinstance(details, ToolInvocation):
                m.tool_queue_wait.observe(details.queue_wait_ms, tags={"tool": details.tool_name})
            elif isinstance(details, ToolRequestRejected):
                m.rejections.inc(1, tags={"code": details.error_code.value})
            elif isinstance(details, ModelTokenUsage):
                component = details.component.value
                m.model_calls.inc(1, tags={"component": component})
                if details.usage is not None:
                    tags = {"component": component}
                    m.tokens.inc(details.usage.input_tokens, tags={**tags, "direction": "input"})
                    m.tokens.inc(details.usage.output_tokens, tags={**tags, "direction": "output"})


@functools.cache
def _instruments() -> _Instruments:
    """The run metrics of this process, made once however many recorders exist."""
    return _Instruments()


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
