"""Run-plane benchmark: runs/s in process, on pooled RunActors and on a fresh actor per run.

Prints a readable table and, as its last line, one JSON object with the same figures.

1. Runs/s with the same deps and the same number of runs in flight (``--concurrency``):
   (a) DiagnosisRun directly in this process, (b) through a pre-warmed RunPool, (c) with a
   fresh actor started (and its deps built) for every run. Each figure is the median of
   ``--repeats`` timed batches; pooled actors are warmed before timing, fresh ones never are.
2. RSS of the RunActor process per in-flight run at K=1 and at K=N runs per actor: the
   actor's RSS sampled (psutil, by the actor's pid) while K runs are in flight; reported as
   peak/K and as (peak - idle)/K.
   And the memory of one actor while K runs (``--wait-k``, default 64 and 256) all wait on a
   model call slowed to ``--wait-s`` seconds (the SemanticGuard's: each run has made its tool
   calls, drafted and passed EvidenceGuard, so it holds all it will hold): RSS and USS before
   and while all K wait, marginal = (waiting - idle) / K. The held calls are released together
   once all K are held, after the delay; runs are admitted in waves of 16 (each once the one
   before waits), since K runs started at once on 2 cores queue their tool tasks past the tool
   timeout.
3. Runs/s with tools as Ray tasks (``--tools``, default) and, pooled, with inline tools.
4. Where an in-process run's time goes, per stage, in ms per run: ``--breakdown-runs`` runs
   one after the other (so that exactly one run is active) on the in-process deps with every
   port wrapped by a timer; each moment of a run is charged to the innermost stage active then
   (wall time by ``perf_counter``, CPU by ``process_time``), so the stages add up to the run's
   total and whatever no stage claims is "other". Stages: router / model adapter — each
   component's ``ModelClient.complete`` (the openai adapter, the SDK and the httpx client),
   less the model server — the offline demo model inside the in-process transport (the
   provider's share: parse, rules, JSON); backend — ``ToolExecutor.execute``; projector —
   ``ToolExecutor.project``; store — every ``CanonicalStore`` method; boundary —
   ``ToolBoundary.call`` less its backend, projector and store time; guards —
   ``ReleasePolicy.release`` (EvidenceGuard, the content checks, SemanticGuard's own code,
   rendering) less its store reads and the judge's model call; audit — sealing reasoning and
   ``AuditSink.record``; other — the rest of the run (agent loop and prompts, the router's and
   the model caller's own code, trace, budget, run orchestration); between runs — what ran
   between one run's end and the next one's start. The median batch (by total) of
   ``--repeats`` is printed, next to the same runs without the timers.

Model: the offline demo model through the openai SDK on the embedded tool plane when
``harness.adapters.openai_model`` and ``harness.adapters.embedded`` import; otherwise a
deterministic scripted diagnosis (``actors.testing.DirectedModel``) over probe tools. The
output says which. Usage: ``python benchmarks/bench_run_plane.py [--repeats 3]``;
``--breakdown-only`` prints the breakdown (4.) alone, without Ray, and its JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import importlib
import json
import os
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from actors.factory import local_ray
from actors.pool import RunPool
from harness.contracts.ingress import RunRequest
from harness.contracts.models import Component, ModelClient, ModelReply, ModelRequest
from harness.diagnosis import DiagnosisRun, RunDeps
from harness.release import ReleasePolicy

GOAL_POOLED_OVER_FRESH = 8.0
GOAL_MARGINAL_MIB = 2.0
GOAL_RELEASE_CPU_MS = 5.0  # the release checks' CPU per demo run, at most
WAIT_WAVE = 16


def _setup(model: str, tools: str) -> tuple[str, Callable[[], RunDeps], Callable[[], RunDeps], str]:
    """(label, deps factory for actors, deps factory in process, question)."""
    if model in ("auto", "offline"):
        try:
            importlib.import_module("harness.adapters.embedded")
            importlib.import_module("harness.adapters.openai_model")
        except ImportError:
            if model == "offline":
                raise
        else:
            from actors.deps import EmbeddedDepsFactory
            from harness.embedded.demo import INCIDENT_QUESTION

            return (
                "offline demo model (openai SDK) + embedded tool plane",
                EmbeddedDepsFactory(tool_execution=tools),  # type: ignore[arg-type]
                EmbeddedDepsFactory(tool_execution="inline"),
                INCIDENT_QUESTION,
            )
    from actors.testing import FakeDepsFactory

    return (
        "scripted diagnosis (DirectedModel) + probe tools",
        FakeDepsFactory(tool_execution=tools),  # type: ignore[arg-type]
        FakeDepsFactory(tool_execution="inline"),
        "Why does checkout-api fail? @intent=DIAGNOSIS",
    )


def _request(question: str) -> RunRequest:
    from harness.embedded.demo import WINDOW_END

    return RunRequest(question=question, as_of=WINDOW_END, deadline_s=300)


async def _batch(
    run_one: Callable[[], Any], runs: int, concurrency: int
) -> tuple[float, list[str]]:
    gate = asyncio.Semaphore(concurrency)

    async def guarded() -> str:
        async with gate:
            return str((await run_one()).kind)

    started = time.perf_counter()
    types = await asyncio.gather(*(guarded() for _ in range(runs)))
    return runs / (time.perf_counter() - started), list(types)


async def _in_process(deps: RunDeps, question: str, args: Any) -> list[float]:
    await DiagnosisRun(_request(question), deps).execute()  # warm caches, like a warm actor
    rates = []
    for _ in range(args.repeats):
        rate, _ = await _batch(
            lambda: DiagnosisRun(_request(question), deps).execute(), args.runs, args.concurrency
        )
        rates.append(rate)
    return rates


async def _pooled(
    factory: Callable[[], RunDeps], question: str, args: Any
) -> tuple[list[float], list[str]]:
    async with RunPool(args.concurrency, 1, factory, name_prefix="bench-pooled") as pool:
        await asyncio.gather(*(pool.run(_request(question)) for _ in range(args.concurrency)))
        rates: list[float] = []
        types: list[str] = []
        for _ in range(args.repeats):
            rate, types = await _batch(
                lambda: pool.run(_request(question)), args.runs, args.concurrency
            )
            rates.append(rate)
        return rates, types


async def _fresh(factory: Callable[[], RunDeps], question: str, args: Any) -> list[float]:
    async with RunPool(
        args.concurrency, 1, factory, name_prefix="bench-fresh", fresh_actor_per_run=True
    ) as pool:
        rates = []
        for _ in range(args.repeats):
            rate, _ = await _batch(
                lambda: pool.run(_request(question)), args.fresh_runs, args.concurrency
            )
            rates.append(rate)
        return rates


async def _rss(
    factory: Callable[[], RunDeps], question: str, k: int, hold: bool
) -> dict[str, float]:
    """Peak RSS of one actor while K runs are in flight on it."""
    # psutil ships inside ray (ray/thirdparty_files), importable once ray is imported.
    import psutil

    if hold:  # scripted runs finish in ms; keep them in flight long enough to measure
        question = f"{question} @route_s=1.0"
    async with RunPool(1, k, factory, name_prefix=f"bench-rss-k{k}") as pool:
        await pool.run(_request(question))  # warm
        process = psutil.Process(pool.actors()[0].pid)
        idle = process.memory_info().rss
        runs = asyncio.gather(*(pool.run(_request(question)) for _ in range(k)))
        peak = idle
        while not runs.done():
            peak = max(peak, process.memory_info().rss)
            await asyncio.sleep(0.02)
        await runs
    mib = 1024 * 1024
    return {
        "k": k,
        "idle_mib": round(idle / mib, 1),
        "peak_mib": round(peak / mib, 1),
        "per_run_mib": round(peak / k / mib, 1),
        "marginal_per_run_mib": round((peak - idle) / k / mib, 2),
    }


class _JudgeGate:
    """Holds every SemanticGuard call of an actor until ``k`` are held, then ``hold_s`` more.

    The first call (the warm-up run's) passes straight through. Lives in the actor process.
    """

    def __init__(self, k: int, hold_s: float) -> None:
        self.k = k
        self.hold_s = hold_s
        self.calls = 0
        self.held = 0
        self._all_in: asyncio.Event | None = None

    async def wait(self) -> None:
        self.calls += 1
        if self.calls == 1:
            return
        if self._all_in is None:
            self._all_in = asyncio.Event()
        self.held += 1
        if self.held >= self.k:
            self._all_in.set()
        await self._all_in.wait()
        await asyncio.sleep(self.hold_s)


@dataclasses.dataclass
class _HeldJudge:
    """A model client whose SemanticGuard calls wait at the gate (the run has done all its
    tool calls, drafted and passed EvidenceGuard: it holds everything it will hold)."""

    inner: Any
    gate: _JudgeGate

    async def complete(self, request: Any) -> Any:
        from harness.contracts.models import Component

        if request.component is Component.SEMANTIC_GUARD:
            await self.gate.wait()
        return await self.inner.complete(request)


@dataclasses.dataclass(frozen=True)
class _WaitingDeps:
    """Deps of one actor whose K runs all wait on a model slowed to ``hold_s``."""

    inner: Callable[[], RunDeps]
    k: int
    hold_s: float

    def __call__(self) -> RunDeps:
        from harness.agent.caller import ComponentSettings

        deps = self.inner()
        gate = _JudgeGate(self.k, self.hold_s)
        models = {c: _HeldJudge(m, gate) for c, m in deps.models.items()}
        # A held call lasts as long as the slowest run takes to arrive, plus the delay: the
        # call timeout is raised so that no held run gives up on its judge.
        settings = {
            c: dataclasses.replace(
                deps.component_settings.get(c, ComponentSettings()), timeout_s=600
            )
            for c in Component
        }
        return dataclasses.replace(deps, models=models, component_settings=settings)


async def _waiting_rss(
    factory: Callable[[], RunDeps], question: str, k: int, hold_s: float
) -> dict[str, Any]:
    """Memory of one actor while K runs wait on a slowed model call (the SemanticGuard's):
    RSS and USS (private pages: Ray's shared object-store mappings left out), before the K runs
    and while all K wait; marginal = (waiting - idle) / K."""
    import psutil

    from harness.run.snapshot import RunPhase

    async with RunPool(
        1, k, _WaitingDeps(factory, k, hold_s), name_prefix=f"bench-wait-k{k}"
    ) as pool:
        await pool.run(_request(question))  # warm: every lazy part of the deps is built
        process = psutil.Process(pool.actors()[0].pid)
        idle_rss, idle_uss = process.memory_info().rss, process.memory_full_info().uss
        ids: list[str] = []
        t0 = time.perf_counter()
        # Runs are admitted in waves, each once the previous one waits on its judge: K runs
        # started at once on 2 cores queue their tool tasks past the tool timeout (an overload
        # that admission control answers, not what this row measures).
        for start in range(0, k, WAIT_WAVE):
            wave = [await pool.submit(_request(question)) for _ in range(min(WAIT_WAVE, k - start))]
            ids.extend(wave)
            while True:
                phases = [(await pool.status(run_id)).phase for run_id in wave]
                if all(p in (RunPhase.RELEASING, RunPhase.DONE) for p in phases):
                    break
                await asyncio.sleep(0.1)
        arrived_s = time.perf_counter() - t0
        await asyncio.sleep(min(1.0, hold_s / 4))
        phases = [(await pool.status(run_id)).phase for run_id in ids]
        waiting = sum(p is RunPhase.RELEASING for p in phases)
        rss, uss = process.memory_info().rss, process.memory_full_info().uss
        kinds = sorted({(await pool.result(run_id)).kind for run_id in ids})
    mib = 1024 * 1024
    return {
        "k": k,
        "hold_s": hold_s,
        "waiting": waiting,
        "arrived_s": round(arrived_s, 1),
        "idle_rss_mib": round(idle_rss / mib, 1),
        "waiting_rss_mib": round(rss / mib, 1),
        "marginal_rss_mib": round((rss - idle_rss) / k / mib, 2),
        "idle_uss_mib": round(idle_uss / mib, 1),
        "waiting_uss_mib": round(uss / mib, 1),
        "marginal_uss_mib": round((uss - idle_uss) / k / mib, 2),
        "result_types": kinds,
    }


# ---------------------------------------------------------------- per-stage breakdown

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
    timed: RunDeps, stages: _Stages, question: str, runs: int
) -> dict[str, Any]:
    """One batch of sequential runs on the timed deps: per-stage wall and CPU ms per run."""
    stages.reset()
    wall0, cpu0 = time.perf_counter(), time.process_time()
    kinds = set()
    for _ in range(runs):
        with stages.stage("other"):
            result = await _TimedRun(_request(question), timed, stages).execute()
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


async def _plain_batch(deps: RunDeps, question: str, runs: int) -> tuple[float, float]:
    """The same sequential runs without timers: (wall, CPU) ms per run."""
    wall0, cpu0 = time.perf_counter(), time.process_time()
    for _ in range(runs):
        await DiagnosisRun(_request(question), deps).execute()
    return (
        (time.perf_counter() - wall0) * 1000 / runs,
        (time.process_time() - cpu0) * 1000 / runs,
    )


async def _breakdown(deps: RunDeps, question: str, args: Any) -> dict[str, Any]:
    stages = _Stages()
    timed = _timed_deps(deps, stages)
    await _breakdown_batch(timed, stages, question, 1)  # warm the timed model client
    batches, plain = [], []
    for _ in range(args.repeats):
        batch = await _breakdown_batch(timed, stages, question, args.breakdown_runs)
        batches.append(_fold(batch))
        plain.append(await _plain_batch(deps, question, args.breakdown_runs))
    median = sorted(batches, key=lambda b: b["wall_ms"])[len(batches) // 2]
    return {
        "runs_per_batch": args.breakdown_runs,
        "batches": args.repeats,
        **median,
        "total_wall_ms_samples": [b["wall_ms"] for b in batches],
        "untimed_wall_ms": round(statistics.median(w for w, _ in plain), 2),
        "untimed_cpu_ms": round(statistics.median(c for _, c in plain), 2),
    }


async def _breakdown_only(args: argparse.Namespace) -> dict[str, Any]:
    """The breakdown alone, on the in-process deps (inline tools)."""
    label, _, local_factory, question = _setup(args.model, "inline")
    return {
        "model": label,
        "cpus": os.cpu_count(),
        "repeats": args.repeats,
        "goal_release_cpu_ms": GOAL_RELEASE_CPU_MS,
        "breakdown": await _breakdown(local_factory(), question, args),
    }


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    label, actor_factory, local_factory, question = _setup(args.model, args.tools)
    scripted = label.startswith("scripted")
    local_deps = local_factory()
    in_process = await _in_process(local_deps, question, args)
    breakdown = await _breakdown(local_deps, question, args)
    pooled, types = await _pooled(actor_factory, question, args)
    fresh = await _fresh(actor_factory, question, args)
    pooled_inline, _ = await _pooled(local_factory, question, args)  # inline-tools deps
    rss = [await _rss(actor_factory, question, k, scripted) for k in (1, args.k)]
    waiting = [await _waiting_rss(actor_factory, question, k, args.wait_s) for k in args.wait_k]
    medians = {
        "in_process": round(statistics.median(in_process), 3),
        "pooled": round(statistics.median(pooled), 3),
        "pooled_inline_tools": round(statistics.median(pooled_inline), 3),
        "fresh_actor": round(statistics.median(fresh), 3),
    }
    return {
        "model": label,
        "tools": args.tools,
        "cpus": os.cpu_count(),
        "concurrency": args.concurrency,
        "runs_per_batch": {
            "in_process": args.runs,
            "pooled": args.runs,
            "pooled_inline_tools": args.runs,
            "fresh_actor": args.fresh_runs,
        },
        "repeats": args.repeats,
        "result_types": sorted(set(types)),
        "runs_per_s": medians,
        "runs_per_s_samples": {
            "in_process": [round(r, 3) for r in in_process],
            "pooled": [round(r, 3) for r in pooled],
            "pooled_inline_tools": [round(r, 3) for r in pooled_inline],
            "fresh_actor": [round(r, 3) for r in fresh],
        },
        "pooled_over_fresh": round(medians["pooled"] / medians["fresh_actor"], 1),
        # The same runs on pooled RunActors (tools as --tools says) against this process,
        # measured in this run: Ray's hops cost, two cores gain.
        "pooled_over_in_process": round(medians["pooled"] / medians["in_process"], 2),
        "pooled_inline_over_in_process": round(
            medians["pooled_inline_tools"] / medians["in_process"], 2
        ),
        "goal_release_cpu_ms": GOAL_RELEASE_CPU_MS,
        "goal_pooled_over_fresh": GOAL_POOLED_OVER_FRESH,
        "rss": rss,
        "waiting_rss": waiting,
        "breakdown": breakdown,
    }


def _print_table(figures: dict[str, Any]) -> None:
    print(f"Run plane benchmark — {figures['model']}; tools: {figures['tools']}")
    print(
        f"cpus={figures['cpus']} concurrency={figures['concurrency']} "
        f"repeats={figures['repeats']} results={','.join(figures['result_types'])}"
    )
    print(f"{'mode':<14}{'runs/batch':>12}{'runs/s (median)':>18}   samples")
    for mode in ("in_process", "pooled", "pooled_inline_tools", "fresh_actor"):
        print(
            f"{mode:<14}{figures['runs_per_batch'][mode]:>12}{figures['runs_per_s'][mode]:>18.2f}"
            f"   {figures['runs_per_s_samples'][mode]}"
        )
    ratio, goal = figures["pooled_over_fresh"], figures["goal_pooled_over_fresh"]
    verdict = "meets" if ratio >= goal else "misses"
    print(f"pooled / fresh actor = {ratio}x ({verdict} the >= {goal:g}x goal)")
    print(
        f"pooled / in process = {figures['pooled_over_in_process']}x "
        f"(inline tools: {figures['pooled_inline_over_in_process']}x), same run"
    )
    print(
        f"{'RunActor RSS':<14}{'idle MiB':>10}{'peak MiB':>10}{'peak/K':>10}{'(peak-idle)/K':>15}"
    )
    for row in figures["rss"]:
        print(
            f"{'K=' + str(row['k']):<14}{row['idle_mib']:>10}{row['peak_mib']:>10}"
            f"{row['per_run_mib']:>10}{row['marginal_per_run_mib']:>15}"
        )
    if figures["waiting_rss"]:
        print(
            f"RunActor memory with every run waiting on a model slowed to "
            f"{figures['waiting_rss'][0]['hold_s']:g} s (goal: marginal <= {GOAL_MARGINAL_MIB} MiB/run)"
        )
        print(
            f"{'runs':<10}{'waiting':>8}{'idle RSS':>10}{'RSS':>8}{'marginal':>10}"
            f"{'idle USS':>10}{'USS':>8}{'marginal':>10}  MiB"
        )
        for row in figures["waiting_rss"]:
            print(
                f"{'K=' + str(row['k']):<10}{row['waiting']:>8}{row['idle_rss_mib']:>10}"
                f"{row['waiting_rss_mib']:>8}{row['marginal_rss_mib']:>10}"
                f"{row['idle_uss_mib']:>10}{row['waiting_uss_mib']:>8}{row['marginal_uss_mib']:>10}"
                f"  ({','.join(row['result_types'])}; all in after {row['arrived_s']} s)"
            )
    _print_breakdown(figures["breakdown"])
    _print_release_verdict(figures)


def _print_release_verdict(figures: dict[str, Any]) -> None:
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


def _print_breakdown(b: dict[str, Any]) -> None:
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=("auto", "offline", "scripted"), default="auto")
    parser.add_argument("--tools", choices=("ray", "inline"), default="ray")
    parser.add_argument("--runs", type=int, default=12, help="runs per timed batch")
    parser.add_argument("--fresh-runs", type=int, default=4, help="runs per fresh-actor batch")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=2, help="runs in flight")
    parser.add_argument("--k", type=int, default=8, help="runs per actor for the K=N RSS row")
    parser.add_argument(
        "--wait-k",
        type=int,
        nargs="*",
        default=[64, 256],
        help="runs per actor for the rows where every run waits on a slowed model",
    )
    parser.add_argument("--wait-s", type=float, default=10.0, help="the slowed model's delay")
    parser.add_argument(
        "--breakdown-runs", type=int, default=8, help="sequential runs per breakdown batch"
    )
    parser.add_argument(
        "--breakdown-only",
        action="store_true",
        help="only the per-stage breakdown (4.), in process, without Ray: the release checks' "
        "figure in a few seconds",
    )
    args = parser.parse_args()
    if args.breakdown_only:
        figures = asyncio.run(_breakdown_only(args))
        _print_breakdown(figures["breakdown"])
        _print_release_verdict(figures)
        print(json.dumps(figures))
        return
    with local_ray(num_cpus=2):
        figures = asyncio.run(_main(args))
    _print_table(figures)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
