"""CPU of the text checks per demo run: redaction, the injection check, the command checks.

Runs the bundled demo incident in process on the embedded default (offline model, inline
tools) and charges the CPU time (``process_time``) spent inside each check's entry point to
that check; a check called from inside another is charged to the outer one only. Each repeat
is a fresh process: its first run is *cold* (patterns compiled on first use, caches empty,
as in a new RunActor or tool worker), the runs after it *warm* (a pre-warmed actor). Prints a
table of medians over the repeats and, last, one JSON line.

Usage: ``python benchmarks/bench_text_checks.py [--repeats 5] [--warm-runs 10]``.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import importlib
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

# (check, module, attribute path): every place a check may live; those that do not import are
# skipped, so that the same file measures a checkout before and after a move.
_ENTRY_POINTS: tuple[tuple[str, str, str], ...] = (
    ("redaction", "harness.redaction", "Redactor.redact"),
    ("injection", "harness.release.content", "injection"),
    ("injection", "harness.textcheck", "injection"),
    ("commands", "harness.release.commands", "dangerous_command"),
    ("commands", "harness.release.commands", "prescribed_command"),
    ("commands", "harness.release.commands", "advised_command"),
    ("commands", "harness.textcheck", "dangerous_command"),
    ("commands", "harness.textcheck", "prescribed_command"),
    ("commands", "harness.textcheck", "advised_command"),
    ("links", "harness.release.content", "ContentPolicy.defang"),
    ("links", "harness.release.links", "ContentPolicy.defang"),
)
CHECKS = ("redaction", "injection", "commands", "links")


class _Meter:
    def __init__(self) -> None:
        self.cpu_s = dict.fromkeys(CHECKS, 0.0)
        self.calls = dict.fromkeys(CHECKS, 0)
        self._depth = 0

    def wrap(self, check: str, function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def timed(*args: Any, **kwargs: Any) -> Any:
            if self._depth:
                return function(*args, **kwargs)
            self._depth += 1
            start = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                self.cpu_s[check] += time.process_time() - start
                self.calls[check] += 1
                self._depth -= 1

        timed.__wrapped_check__ = True  # type: ignore[attr-defined]
        return timed


def _install(meter: _Meter) -> list[str]:
    """Wrap every entry point, in its module and wherever a module imported it by name."""
    installed: list[str] = []
    for check, module_name, path in _ENTRY_POINTS:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        owner: Any = module
        *parents, name = path.split(".")
        try:
            for parent in parents:
                owner = getattr(owner, parent)
            original = getattr(owner, name)
        except AttributeError:
            continue
        if getattr(original, "__wrapped_check__", False):
            continue
        timed = meter.wrap(check, original)
        setattr(owner, name, timed)
        if not parents:
            for other in list(sys.modules.values()):
                if other is not None and getattr(other, name, None) is original:
                    setattr(other, name, timed)
        installed.append(f"{module_name}.{path}")
    return installed


def _one_process(warm_runs: int) -> dict[str, Any]:
    from actors.deps import EmbeddedDepsFactory
    from harness.contracts.ingress import RunRequest
    from harness.diagnosis import DiagnosisRun
    from harness.embedded.demo import INCIDENT_QUESTION, WINDOW_END

    # Everything the run imports is imported before the wrappers go in, so that names
    # imported from the checks' modules are found and wrapped too; the deps are built after,
    # so that the methods they bind (a projector's redactor) are the wrapped ones.
    factory = EmbeddedDepsFactory(tool_execution="inline")
    factory()
    meter = _Meter()
    installed = _install(meter)
    deps = factory()

    def run() -> tuple[dict[str, float], str]:
        before = dict(meter.cpu_s)
        request = RunRequest(question=INCIDENT_QUESTION, as_of=WINDOW_END, deadline_s=300)
        start = time.process_time()
        outcome = asyncio.run(DiagnosisRun(request, deps).execute())
        spent = {check: (meter.cpu_s[check] - before[check]) * 1000 for check in CHECKS}
        spent["run"] = (time.process_time() - start) * 1000
        return spent, type(getattr(outcome, "result", outcome)).__name__

    cold, result = run()
    warm = [run()[0] for _ in range(warm_runs)]
    return {
        "cold_ms": cold,
        "warm_ms": {key: statistics.median(w[key] for w in warm) for key in cold},
        "result": result,
        "installed": installed,
        "calls_per_run": {check: meter.calls[check] / (warm_runs + 1) for check in CHECKS},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="fresh processes")
    parser.add_argument("--warm-runs", type=int, default=10, help="warm runs per process")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_one_process(args.warm_runs)))
        return
    samples = []
    for _ in range(args.repeats):
        out = subprocess.run(
            [sys.executable, __file__, "--child", "--warm-runs", str(args.warm_runs)],
            check=True,
            capture_output=True,
            text=True,
        )
        samples.append(json.loads(out.stdout.strip().splitlines()[-1]))
    keys = (*CHECKS, "run")
    cold = {k: statistics.median(s["cold_ms"][k] for s in samples) for k in keys}
    warm = {k: statistics.median(s["warm_ms"][k] for s in samples) for k in keys}
    checks_cold = sum(cold[k] for k in CHECKS)
    checks_warm = sum(warm[k] for k in CHECKS)
    print(f"demo run ({samples[0]['result']}), CPU ms per run, median of {args.repeats} processes")
    print(f"{'check':<12}{'cold':>10}{'warm':>10}{'calls':>8}")
    for k in keys:
        calls = samples[0]["calls_per_run"].get(k)
        shown = "" if calls is None else f"{calls:.1f}"
        print(f"{k:<12}{cold[k]:>10.2f}{warm[k]:>10.2f}{shown:>8}")
    print(f"{'checks':<12}{checks_cold:>10.2f}{checks_warm:>10.2f}")
    print(f"# entry points: {', '.join(samples[0]['installed'])}")
    print(
        json.dumps(
            {
                "cold_ms": cold,
                "warm_ms": warm,
                "checks_cold_ms": checks_cold,
                "checks_warm_ms": checks_warm,
                "repeats": args.repeats,
                "warm_runs": args.warm_runs,
            }
        )
    )


if __name__ == "__main__":
    main()
