"""Peak RSS growth of one tool call, measured in a fresh Python process.

``measure_call(setup, call)`` runs ``setup`` (imports, the tool plane, a warm-up call), then
resets the process's peak RSS (Linux: ``5`` written to ``/proc/self/clear_refs`` sets
``VmHWM`` back to ``VmRSS``), runs ``call`` — which makes one call through a real
ToolBoundary with the in-process canonical store, see :data:`PRELUDE` — and reports how far
the peak rose above the RSS the call started from, with the call's code and canonical record.

A fresh process, because a test process's own heap (imports, fixtures, earlier tests)
hides what one call costs; the peak, because memory a call held and gave back is what
exhausts a machine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from typing import Any

from tests.paths import REPO

__all__ = ["CAP", "MAX_GROWTH", "PRELUDE", "assert_bounded_raw_too_large", "measure_call"]

CAP = 1024 * 1024
"""The raw cap of the measured call: 1 MiB per call."""
MAX_GROWTH = 4 * CAP
"""The most the peak RSS may rise during a call the cap stops (issue 34)."""

PRELUDE = textwrap.dedent(
    f"""
    import asyncio, gc, json

    from harness.run.budget import Budgets
    from harness.contracts.envelope import ToolCallEnvelope

    CAP = {CAP}

    def memory():
        found = {{}}
        with open("/proc/self/status") as status:
            for line in status:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    found[key] = int(value.split()[0]) * 1024
        return found

    def call(plane, tool, arguments, call_id="hostile"):
        # One call through the plane's boundary and store, the raw cap CAP per call.
        boundary = plane.open_run(
            budgets=Budgets(max_raw_bytes_per_call=CAP, max_raw_bytes_per_run=64 * CAP)
        )
        envelope = ToolCallEnvelope(
            run_id=boundary.run.run_id,
            tool_call_id=call_id,
            tool_name=tool,
            arguments=json.dumps(arguments),
        )
        result = asyncio.run(boundary.call(envelope))
        record = asyncio.run(plane.store.get(boundary.run.run_id, call_id))
        return {{
            "outcome": result.outcome,
            "code": result.error_code.value if result.error_code else None,
            "model": json.loads(result.model_content()),
            "record_status": record.invocation_status.value if record else None,
            "record_code": record.error_code.value if record and record.error_code else None,
            "record_raw": record is not None and record.raw_response() is not None,
            "raw_booked": boundary.budget.ledger.snapshot().raw_bytes,
        }}
    """
)


def measure_call(setup: str, call: str, *, timeout_s: float = 120.0) -> dict[str, Any]:
    """Run ``setup`` then ``call`` (which assigns ``result``, a dict) in a new process.

    Returns:
        ``result`` plus ``growth_bytes``: the peak RSS during ``call`` above the RSS before.
    """
    script = "\n".join(
        [
            PRELUDE,
            textwrap.dedent(setup),
            "gc.collect()",
            "with open('/proc/self/clear_refs', 'w') as clear:",
            "    clear.write('5')",
            "before = memory()['VmRSS']",
            textwrap.dedent(call),
            "peak = memory()['VmHWM']",
            "print(json.dumps({'growth_bytes': peak - before, **result}))",
        ]
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=timeout_s,
        check=False,
    )
    if done.returncode != 0:
        raise AssertionError(f"the measured process failed:\n{done.stderr[-4000:]}")
    measured: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return measured


def assert_bounded_raw_too_large(measured: dict[str, Any]) -> None:
    """The call ended as an oversized raw ends (seed tool-dual-view §8.3), within 4x the cap."""
    assert {k: v for k, v in measured.items() if k != "growth_bytes"} == {
        "outcome": "ERROR",
        "code": "RAW_TOO_LARGE",
        "model": {"tool_call_id": "hostile", "error_code": "RAW_TOO_LARGE"},
        "record_status": "ERROR",
        "record_code": "RAW_TOO_LARGE",
        "record_raw": False,
        "raw_booked": 0,
    }
    assert measured["growth_bytes"] <= MAX_GROWTH, f"{measured['growth_bytes'] / CAP:.2f} MiB"
