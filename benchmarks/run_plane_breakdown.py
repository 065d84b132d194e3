"""Where an in-process demo run's time goes, per stage (part 4. of ``bench_run_plane.py``).

Runs one after the other (so that exactly one run is active) on the in-process deps with every
port wrapped by a timer; each moment of a run is charged to the innermost stage active then
(wall time by ``perf_counter``, CPU by ``process_time``), so the stages add up to the run's
total and whatever no stage claims is "other" (the stages: :data:`STAGES`, described in
``bench_run_plane.py``'s docstring). The median batch (by total) is reported, next to the same
runs without the timers; ``print_release_verdict`` holds the guards stage against its goal.
"""

from __future__ import annotations

import dataclasses
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from harness.contracts.ingress import RunRequest
from harness.contracts.models import Component, ModelClient, ModelReply, ModelRequest
from harness.diagnosis import DiagnosisRun, RunDeps
from harness.release import ReleasePolicy

__all__ = ["STAGES", "measure_breakdown", "print_breakdown", "print_release_verdict"]

# The printed stages, in order; model calls are charged per component first.
STAGES = (
    "router",
    "model_adapter",
    "model_server",
    "boundary",
    "backend",
    "projector",
    "store",
    "guards",
    "audit",
    "other",
    "between_runs",
)
_ADAPTER = "adapter:"
_SERVER = "server:"


class _Stages:
    """Exclusive time per stage: every moment goes to the innermost stage active then.

    Correct while one run is active at a time (the breakdown runs them one after the other);
    a backend or projector in a worker thread is charged to the stage that awaits it.
    """

    def __init__(self) -> None:
        self._stack: list[str] = []
        self.reset()

    def reset(self) -> None:
        """Forget what was charged so far (between batches, when no stage is active)."""
        assert not self._stack
        self.wall: Counter[str] = Counter()
        self.cpu: Counter[str] = Counter()
        self._wall_mark = time.perf_counter()
        self._cpu_mark = time.process_time()

    def _charge(self) -> None:
        wall, cpu = time.perf_counter(), time.process_time()
        if self._stack:
            self.wall[self._stack[-1]] += wall - self._wall_mark
            self.cpu[self._stack[-1]] += cpu - self._cpu_mark
        self._wall_mark, self._cpu_mark = wall, cpu

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        self._charge()
        self._stack.append(name)
        try:
            yield
        finally:
            self._charge()
            self._stack.pop()

    def server_stage(self) -> str:
        """The model server's stage, named after the component whose call reached it."""
        caller = next((s for s in reversed(self._stack) if s.startswith(_ADAPTER)), "")
        return _SERVER + caller.removeprefix(_ADAPTER)


class _TimedModel:
    """A ModelClient charged to one component's adapter stage."""

    def __init__(self, stages: _Stages, component: Component, inner: ModelClient) -> None:
        self.stages, self.component, self.inner = stages, component, inner

    async def complete(self, request: ModelRequest) -> ModelReply:
        with self.stages.stage(_ADAPTER + self.component.value.lower()):
            return await self.inner.complete(request)


class _Timed:
    """Charges the listed async methods of ``inner`` to stages; everything else passes through."""

    def __init__(self, stages: _Stages, inner: Any, methods: dict[str, str]) -> None:
        self._stages, self._inner, self._methods = stages, inner, methods

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._inner, name)
        stage = self._methods.get(name)
        if stage is None:
            return value

        async def timed(*args: Any, **kwargs: Any) -> Any:
            with self._stages.stage(stage):
                return await value(*args, **kwargs)

        return timed


class _TimedCipher:
    """A ReasoningCipher whose sealing is charged to the audit stage."""

    def __init__(self, stages: _Stages, inner: Any) -> None:
        self.stages, self.inner = stages, inner

    def encrypt(self, plaintext: bytes) -> tuple[str, bytes]:
        with self.stages.stage("audit"):
            return self.inner.encrypt(plaintext)  # type: ignore[no-any-return]

    def decrypt(self, key_id: str, ciphertext: bytes) -> bytes:
        return self.inner.decrypt(key_id, ciphertext)  # type: ignore[no-any-return]


class _TimedRelease(ReleasePolicy):
    """The release policy (both guards, content checks, rendering) charged to "guards"."""

    stages: _Stages | None = None

    async def release(self, run: Any, outcome: Any) -> Any:
        assert self.stages is not None
        with self.stages.stage("guards"):
            return await super().release(run, outcome)


class _TimedRun(DiagnosisRun):
    """A DiagnosisRun whose ToolBoundary.call is charged to "boundary"."""

    def __init__(self, request: RunRequest, deps: RunDeps, stages: _Stages) -> None:
        super().__init__(request, deps)
        call = self.boundary.call

        async def timed_call(envelope: Any) -> Any:
            with stages.stage("boundary"):
                return await call(envelope)

        self.boundary.call = timed_call  # type: ignore[method-assign]


def _offline_client(stages: _Stages) -> Any:
    """An AsyncOpenAI client on the offline model whose server side is its own stage."""
    import httpx
    import openai

    from harness.adapters.offline_transport import (
        OFFLINE_API_KEY,
        OFFLINE_BASE_URL,
        OfflineModelTransport,
        handle,
    )

    class TimedTransport(OfflineModelTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            body = await request.aread()
            with stages.stage(stages.server_stage()):
                status, payload = handle(
                    self.model, request.method, request.url.path, body, dict(request.headers)
                )
                return httpx.Response(status, json=payload, request=request)

    return openai.AsyncOpenAI(
        base_url=OFFLINE_BASE_URL,
        api_key=OFFLINE_API_KEY,
        max_retries=0,
        http_client=httpx.AsyncClient(transport=TimedTransport()),
    )


def _timed_models(stages: _Stages, models: Any) -> dict[Component, ModelClient]:
    """Each component's client wrapped; those on the offline model re-built on a timed transport
    (same adapter class, model name and structured-output mode)."""
    try:
        from harness.adapters.offline_transport import OFFLINE_BASE_URL
        from harness.adapters.openai_model import OpenAIModelClient
    except ImportError:  # the scripted fallback has no openai adapter
        return {c: _TimedModel(stages, c, client) for c, client in models.items()}
    timed: dict[Component, ModelClient] = {}
    offline = None
    for component, client in models.items():
        inner = client
        if isinstance(client, OpenAIModelClient) and str(client.client.base_url).startswith(
            OFFLINE_BASE_URL
        ):
            offline = offline or _offline_client(stages)
            inner = OpenAIModelClient(
                offline, client.model, structured_output=client.structured_output
            )
        timed[component] = _TimedModel(stages, component, inner)
    return timed


def _timed_deps(deps: RunDeps, stages: _Stages) -> RunDeps:
    store = _Timed(
        stages, deps.store, {m: "store" for m in ("begin", "mark_ready", "mark_error", "get")}
    )
    base = deps.release or ReleasePolicy(store=deps.store, content=deps.content)
    fields = {f.name: getattr(base, f.name) for f in dataclasses.fields(base)}
    release = _TimedRelease(**{**fields, "store": store})
    release.stages = stages
    return dataclasses.replace(
        deps,
        models=_timed_models(stages, deps.models),
        store=store,  # type: ignore[arg-type]
        executor=_Timed(stages, deps.executor, {"execute": "backend", "project": "projector"}),  # type: ignore[arg-type]
        audit=None if deps.audit is None else _Timed(stages, deps.audit, {"record": "audit"}),  # type: ignore[arg-type]
        cipher=None if deps.cipher is None else _TimedCipher(stages, deps.cipher),
        release=release,
    )


async def _breakdown_batch(
    timed: RunDeps, stages: _Stages, request: Callable[[], RunRequest], runs: int
) -> dict[str, Any]:
    """One batch of sequential runs on the timed deps: per-stage wall and CPU ms per run."""
    stages.reset()
    wall0, cpu0 = time.perf_counter(), time.process_time()
    kinds = set()
    for _ in range(runs):
        with stages.stage("other"):
            result = await _TimedRun(request(), timed, stages).execute()
        kinds.add(str(result.kind))
    wall = (time.perf_counter() - wall0) * 1000 / runs
    cpu = (time.process_time() - cpu0) * 1000 / runs
    by: dict[str, dict[str, float]] = {}
    for name in stages.wall.keys() | stages.cpu.keys():
        by[name] = {
            "wall_ms": stages.wall[name] * 1000 / runs,
            "cpu_ms": stages.cpu[name] * 1000 / runs,
        }
    return {"wall_ms": wall, "cpu_ms": cpu, "raw": by, "result_types": sorted(kinds)}


def _fold(batch: dict[str, Any]) -> dict[str, Any]:
    """Raw stages → the printed ones (model calls summed over components), rounded."""
    raw = batch["raw"]
    clocks = ("wall_ms", "cpu_ms")

    def pick(names: list[str]) -> dict[str, float]:
        return {clock: sum(raw[n][clock] for n in names if n in raw) for clock in clocks}

    def rounded(row: dict[str, float]) -> dict[str, float]:
        return {clock: round(value, 2) for clock, value in row.items()}

    adapters = sorted(n for n in raw if n.startswith(_ADAPTER))
    servers = sorted(n for n in raw if n.startswith(_SERVER))
    router = _ADAPTER + Component.ROUTER.value.lower()
    stages = {
        "router": pick([router]),
        "model_adapter": pick([n for n in adapters if n != router]),
        "model_server": pick(servers),
        **{name: pick([name]) for name in STAGES[3:-1]},
    }
    stages["between_runs"] = {
        clock: batch[clock] - sum(row[clock] for row in stages.values()) for clock in clocks
    }
    return {
        "wall_ms": round(batch["wall_ms"], 2),
        "cpu_ms": round(batch["cpu_ms"], 2),
        "stages": {name: rounded(row) for name, row in stages.items()},
        "model_adapter_by_component": {
            n.removeprefix(_ADAPTER): rounded(pick([n])) for n in adapters
        },
        "model_server_by_component": {n.removeprefix(_SERVER): rounded(pick([n])) for n in servers},
        "result_types": batch["result_types"],
    }


async def _plain_batch(
    deps: RunDeps, request: Callable[[], RunRequest], runs: int
) -> tuple[float, float]:
    """The same sequential runs without timers: (wall, CPU) ms per run."""
    wall0, cpu0 = time.perf_counter(), time.process_time()
    for _ in range(runs):
        await DiagnosisRun(request(), deps).execute()
    return (
        (time.perf_counter() - wall0) * 1000 / runs,
        (time.process_time() - cpu0) * 1000 / runs,
    )


async def measure_breakdown(
    deps: RunDeps, request: Callable[[], RunRequest], args: Any
) -> dict[str, Any]:
    stages = _Stages()
    timed = _timed_deps(deps, stages)
    await _breakdown_batch(timed, stages, request, 1)  # warm the timed model client
    batches, plain = [], []
    for _ in range(args.repeats):
        batch = await _breakdown_batch(timed, stages, request, args.breakdown_runs)
        batches.append(_fold(batch))
        plain.append(await _plain_batch(deps, request, args.breakdown_runs))
    median = sorted(batches, key=lambda b: b["wall_ms"])[len(batches) // 2]
    return {
        "runs_per_batch": args.breakdown_runs,
        "batches": args.repeats,
        **median,
        "total_wall_ms_samples": [b["wall_ms"] for b in batches],
        "untimed_wall_ms": round(statistics.median(w for w, _ in plain), 2),
        "untimed_cpu_ms": round(statistics.median(c for _, c in plain), 2),
    }


def print_release_verdict(figures: dict[str, Any]) -> None:
    guards = figures["breakdown"]["stages"]["guards"]["cpu_ms"]
    goal = figures["goal_release_cpu_ms"]
    if figures["breakdown"]["result_types"] != ["DiagnosisReport"]:
        # A run that failed before its release measures no release checks.
        verdict = f"not measured (the timed runs ended {figures['breakdown']['result_types']})"
    else:
        verdict = "meets" if guards <= goal else "misses"
    print(
        f"release checks (the guards stage) {guards:.2f} ms CPU per demo run: "
        f"{verdict} the <= {goal:g} ms goal"
    )


_STAGE_NOTES = {
    "router": "the router's model call, client side (adapter + openai SDK + httpx)",
    "model_adapter": "the agent's and the judge's model calls, client side",
    "model_server": "the offline model inside the transport (a provider's share)",
    "boundary": "ToolBoundary.call less backend, projector and store",
    "backend": "ToolExecutor.execute",
    "projector": "ToolExecutor.project",
    "store": "CanonicalStore begin / mark_ready / mark_error / get",
    "guards": "ReleasePolicy.release less its store reads and the judge's model call",
    "audit": "sealing reasoning, AuditSink.record",
    "other": "agent loop, prompts, router/caller code, trace, budget, orchestration",
    "between_runs": "after one run returned, before the next started",
}


def print_breakdown(b: dict[str, Any]) -> None:
    print(
        f"Per-stage breakdown, in process, runs one at a time: median of {b['batches']} batches "
        f"of {b['runs_per_batch']} runs (by total), ms per run"
    )
    print(f"{'stage':<15}{'wall ms':>9}{'CPU ms':>9}{'CPU %':>8}   measured as")
    for name in STAGES:
        row = b["stages"][name]
        share = 100 * row["cpu_ms"] / b["cpu_ms"] if b["cpu_ms"] else 0.0
        print(
            f"{name:<15}{row['wall_ms']:>9.2f}{row['cpu_ms']:>9.2f}{share:>7.1f}%"
            f"   {_STAGE_NOTES[name]}"
        )
    print(f"{'total':<15}{b['wall_ms']:>9.2f}{b['cpu_ms']:>9.2f}{100:>7.1f}%")
    by = ", ".join(
        f"{name} {row['wall_ms']:.2f}" for name, row in b["model_adapter_by_component"].items()
    )
    server = ", ".join(
        f"{name} {row['wall_ms']:.2f}" for name, row in b["model_server_by_component"].items()
    )
    print(f"model calls, client side by component (wall ms): {by}")
    print(f"model server by component (wall ms): {server}")
    print(
        f"the same runs without timers: {b['untimed_wall_ms']:.2f} ms wall, "
        f"{b['untimed_cpu_ms']:.2f} ms CPU per run; results={','.join(b['result_types'])}"
    )
