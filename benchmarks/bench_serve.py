"""HTTP API benchmark: diagnoses/s through Ray Serve beside the same runs in process, and
bursts of async submissions against a model slowed to 10 s per call.

Prints a readable table and, as its last line, one JSON object with the same figures.

1. Throughput. The demo question ("Why does checkout-api return HTTP 500 since 14:05?") on the
   offline demo model (openai SDK) and the embedded tool plane, ``--runs`` runs per batch with
   ``--clients`` concurrent clients, median of ``--repeats`` batches:
   (a) through HTTP: ``POST /v1/diagnoses`` with ``wait`` from an httpx client (keep-alive,
   one connection per client) to a Serve deployment (``serve.deployment.start``; tools as Ray
   tasks, the production default, and then, with ``--tools both`` (the default), a second
   deployment whose RunActors run the tools inline); (b) in process: ``DiagnosisRun`` in this process on the
   same deps with inline tools and the same concurrency. Latency p50/p99 per request. CPU per
   run: the CPU time (user + system) of every Ray process (the driver's descendants: GCS,
   raylet, Serve's controller and proxy, the replica, the desk, RunActors, tool workers)
   over the batch, divided by its runs, beside this process's own (the HTTP client).
   Batches come in pairs, in process then HTTP right after (the load of a shared machine
   drifts by the minute); the ratios HTTP / in process (Ray CPU per run over the in-process
   run's, all CPU on both sides, runs/s) are medians over the pairs, next to their goals.
2. Bursts. A second deployment whose every model call first sleeps ``--delay-s`` (default
   10 s) inside the RunActor; ``--burst`` (default 1,000) and then ``--overload`` (default
   2,000) async submissions (``POST /v1/diagnoses`` without ``wait``) from ``--burst-clients``
   concurrent connections. For each burst: answers by class (accepted 202, 429 with an
   OVERLOADED or RATE_LIMITED body and ``Retry-After``, other 4xx, 5xx, transport failures:
   resets, timeouts); peak runs in flight as the run desk counts them (its ``ping``:
   placed and running, not yet terminal) and as the RunActors host them (sum of their
   ``ping().active``), sampled every ``--sample-s``; memory of the Ray processes (RSS and USS
   summed) idle before the burst and at the peak, (peak - idle) / runs in flight; once every
   admitted run ended, their outcomes (released result kinds, failures by code) and the
   harness overhead per run: from the run's submission (``created_at``) to its last timeline
   event, less the model's sleep (``model_calls`` × delay).

3. Open-loop load (``--open 1``, the default): on the slowed deployment, before the bursts,
   Poisson arrivals of async creates at a set rate for ``--open-duration-s`` (default 60 s),
   each sent at its instant whatever the state of the earlier ones (``benchmarks/open_loop.py``).
   Per level: rate offered and sent, runs ended per second, runs in flight at the desk (mean
   and peak), failures (429s, other answers, runs not released, tool calls not READY) and the
   harness overhead per run (p50/p99): from the instant the client sent the request to the
   run's last event, less its model calls x ``--delay-s``. The capacity is the highest rate
   measured to hold (p99 <= ``--limit-s``, default 1 s, and no failure), found by doubling from
   ``--start-rate`` (default half the closed-loop HTTP runs/s) and bisecting, at most
   ``--search-steps`` levels; then levels at 25 %, 50 % and 80 % of it (``--open-levels``).

The bursts (2.) stay the figure for runs in flight and 429s: every run of a burst wants the
CPU at the same instants (a phase-locked queue), which open-loop arrivals do not.

``--quick`` shrinks everything to a few minutes: 1 s model calls, 10 s levels, 4 search steps.

Usage: ``python benchmarks/bench_serve.py [--quick]`` from the repository root (Ray workers
import the project from the driver's working directory).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import socket
import statistics
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import httpx
from open_loop import Level, find_capacity, percentile, poisson_arrivals

from actors.deps import EmbeddedDepsFactory
from actors.factory import RAY_NAMESPACE, local_ray
from actors.pool_spec import PoolSpec
from harness.contracts.ingress import RunRequest
from harness.contracts.models import Component, ModelReply, ModelRequest
from harness.contracts.principal import Permission
from harness.diagnosis import DiagnosisRun, RunDeps
from harness.embedded.demo import INCIDENT_QUESTION, WINDOW_END
from harness.settings import ApiKeyEntry, ServeSettings
from serve.auth import key_digest, new_api_key
from serve.deps import ApiLimits

GOAL_RUNS_PER_S = 20.0
GOAL_IN_FLIGHT = 1000
GOAL_OVERHEAD_P99_MS = 100.0
GOAL_CPU_RATIO = 1.5  # Ray CPU per HTTP run over in-process CPU per run, at most
GOAL_RATE_RATIO = 1.2  # HTTP runs/s over in-process runs/s, at least
MIB = 1024 * 1024
PRINCIPAL = "bench"


# ---------------------------------------------------------------- the slowed model


@dataclasses.dataclass
class _SlowedModel:
    """A model client whose every call first sleeps ``delay_s`` (a slow provider)."""

    inner: Any
    delay_s: float

    async def complete(self, request: ModelRequest) -> ModelReply:
        await asyncio.sleep(self.delay_s)
        reply: ModelReply = await self.inner.complete(request)
        return reply


@dataclasses.dataclass(frozen=True)
class SlowedDeps:
    """Deps whose model calls each sleep ``delay_s`` first; component timeouts raised above it
    (pickled by value to the RunActors, since this module runs as ``__main__``)."""

    inner: Callable[[], RunDeps]
    delay_s: float

    def __call__(self) -> RunDeps:
        from harness.agent.caller import ComponentSettings

        deps = self.inner()
        models = {c: _SlowedModel(m, self.delay_s) for c, m in deps.models.items()}
        settings = {
            c: dataclasses.replace(
                deps.component_settings.get(c, ComponentSettings()),
                timeout_s=self.delay_s + 60.0,
            )
            for c in Component
        }
        return dataclasses.replace(deps, models=models, component_settings=settings)


# ---------------------------------------------------------------- Ray processes


def _ray_processes() -> list[Any]:
    import psutil

    return list(psutil.Process().children(recursive=True))


def _cpu_by_process(processes: list[Any]) -> dict[int, float]:
    import psutil

    seconds: dict[int, float] = {}
    for process in processes:
        try:
            times = process.cpu_times()
        except psutil.Error:
            continue
        seconds[process.pid] = times.user + times.system
    return seconds


def _role(process: Any) -> str:
    """What a Ray process is, from its title (``ray::RunActor``, ``raylet``...)."""
    import psutil

    try:
        cmdline = process.cmdline()
    except psutil.Error:
        return "gone"
    first = cmdline[0] if cmdline else process.name()
    if first.startswith("ray::"):
        title = first.removeprefix("ray::").split()[0]
        if title.startswith(("tool:", "project:", "run_tool", "run_projector", "IDLE")):
            return "tool workers (and idle workers)"
        return title.split(".")[0]
    return os.path.basename(first.split()[0]) if first else "?"


def _memory() -> tuple[float, float]:
    """(RSS, USS) of every Ray process, summed, in bytes."""
    import psutil

    rss = uss = 0.0
    for process in _ray_processes():
        try:
            full = process.memory_full_info()
        except psutil.Error:
            continue
        rss += full.rss
        uss += full.uss
    return rss, uss


class _CpuMeter:
    """CPU seconds of the Ray processes and of this process over a stretch."""

    def __enter__(self) -> _CpuMeter:
        self._processes = _ray_processes()
        self._ray0 = _cpu_by_process(self._processes)
        self._own0 = time.process_time()
        self._wall0 = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        ray1 = _cpu_by_process(self._processes)
        self.by_role: Counter[str] = Counter()
        for process in self._processes:
            if process.pid in ray1:
                delta = ray1[process.pid] - self._ray0.get(process.pid, 0.0)
                self.by_role[_role(process)] += delta
        self.ray_s = sum(self.by_role.values())
        self.own_s = time.process_time() - self._own0
        self.wall_s = time.perf_counter() - self._wall0


# ---------------------------------------------------------------- deployment


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclasses.dataclass(frozen=True)
class _Api:
    url: str
    key: str
    desk_name: str
    actor_prefix: str


def _deploy(
    args: argparse.Namespace, deps: Callable[[], RunDeps], *, tag: str, size: int, k: int
) -> _Api:
    from serve.deployment import ServeConfig, start

    key = new_api_key()
    entry = ApiKeyEntry(
        principal=PRINCIPAL,
        key_sha256=key_digest(key),
        permissions=frozenset(Permission) - {Permission.ADMIN},
        rate_limit=None,
    )
    prefix = f"bench-{tag}-actor"
    config = ServeConfig(
        pool=PoolSpec(
            size=size,
            runs_per_actor=k,
            deps_factory=deps,
            name_prefix=prefix,
            result_ttl_s=3600.0,
            max_waiting=args.max_waiting if tag == "burst" else None,
        ),
        keys=(entry,),
        limits=ApiLimits(
            max_body_bytes=16 * 1024,
            # The benchmark measures capacity, not quotas: the principal's quota is out of reach.
            rate_limit=1_000_000,
            rate_window_s=60,
            max_deadline_s=3600.0,
            max_wait_s=600.0,
            sse_heartbeat_s=15.0,
            max_stream_s=900.0,
        ),
        redis_url=args.redis_url,
        redis_prefix=f"dhbench:{tag}:{os.getpid()}",
        audit=False,
        desk_name=f"bench-{tag}-desk",
    )
    settings = ServeSettings(
        serve_replicas=args.replicas,
        serve_max_ongoing_requests=args.max_ongoing,
        serve_max_queued_requests=args.max_queued,
        api_max_wait_s=600.0,
        api_max_stream_s=900.0,
        api_max_deadline_s=3600.0,
    )
    port = args.port  # Serve's proxy keeps the port of its first start
    start(config, settings, host="127.0.0.1", port=port)
    return _Api(f"http://127.0.0.1:{port}", key, config.desk_name, prefix)


def _undeploy(api: _Api) -> None:
    from serve.deployment import stop

    stop(desk_name=api.desk_name)


def _client(api: _Api, connections: int) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        base_url=api.url,
        headers={"Authorization": f"Bearer {api.key}"},
        timeout=httpx.Timeout(900.0, connect=30.0),
        limits=httpx.Limits(max_connections=connections, max_keepalive_connections=connections),
    )


def _body(question: str, *, wait: bool, deadline_s: float, n: int) -> dict[str, Any]:
    return {
        "question": question,
        "session_id": f"bench-{n}",
        "as_of": WINDOW_END.isoformat(),
        "deadline_s": deadline_s,
        "wait": wait,
    }


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


# ---------------------------------------------------------------- 1. throughput


async def _timed_batch(
    one: Callable[[int], Awaitable[str]], runs: int, concurrency: int
) -> dict[str, Any]:
    gate = asyncio.Semaphore(concurrency)
    latencies: list[float] = []

    async def guarded(n: int) -> str:
        async with gate:
            t0 = time.perf_counter()
            kind = await one(n)
            latencies.append(time.perf_counter() - t0)
            return kind

    with _CpuMeter() as cpu:
        kinds = await asyncio.gather(*(guarded(n) for n in range(runs)))
    return {
        "runs_per_s": runs / cpu.wall_s,
        "p50_ms": 1000 * _percentile(latencies, 50),
        "p99_ms": 1000 * _percentile(latencies, 99),
        "ray_cpu_ms_per_run": 1000 * cpu.ray_s / runs,
        "driver_cpu_ms_per_run": 1000 * cpu.own_s / runs,
        "ray_cpu_ms_per_run_by_process": {
            role: round(1000 * seconds / runs, 1) for role, seconds in cpu.by_role.most_common()
        },
        "kinds": dict(Counter(kinds)),
    }


def _median_batch(batches: list[dict[str, Any]]) -> dict[str, Any]:
    median = sorted(batches, key=lambda b: b["runs_per_s"])[len(batches) // 2]
    return {
        **{k: round(v, 2) if isinstance(v, float) else v for k, v in median.items()},
        "runs_per_s_samples": [round(b["runs_per_s"], 2) for b in batches],
    }


async def _paired_throughput(
    api: _Api, local: Callable[[int], Awaitable[str]], args: argparse.Namespace
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``--repeats`` pairs of batches, each an in-process batch then an HTTP one right after:
    (HTTP batches, in-process batches). On a shared machine the load drifts from minute to
    minute; a ratio of two batches a few seconds apart sees (nearly) the same load."""
    async with _client(api, args.clients) as client:

        async def one(n: int) -> str:
            response = await client.post(
                "/v1/diagnoses", json=_body(INCIDENT_QUESTION, wait=True, deadline_s=120, n=n)
            )
            if response.status_code != 200:
                return f"http {response.status_code}"
            result = response.json().get("result") or {}
            return str(result.get("kind"))

        await _timed_batch(one, args.clients, args.clients)  # warm: connections, actor caches
        https, locals_ = [], []
        for _ in range(args.repeats):
            locals_.append(await _timed_batch(local, args.runs, args.clients))
            https.append(await _timed_batch(one, args.runs, args.clients))
    return https, locals_


async def _in_process_runner() -> Callable[[int], Awaitable[str]]:
    """One in-process run on inline-tool deps built once (warmed, like a warm actor)."""
    deps = EmbeddedDepsFactory(tool_execution="inline")()
    request = RunRequest(question=INCIDENT_QUESTION, as_of=WINDOW_END, deadline_s=120)

    async def one(n: int) -> str:
        return str((await DiagnosisRun(request, deps).execute()).kind)

    for n in range(4):
        await one(n)
    return one


# ---------------------------------------------------------------- 2. bursts


class _Sampler:
    """Runs in flight (desk and RunActors) sampled every ``period_s``; memory of the Ray
    processes sampled in a thread as often as it can be read (smaps is slow under load), each
    memory sample tagged with the runs in flight when it began."""

    def __init__(self, api: _Api, period_s: float, *, memory: bool = True) -> None:
        import ray

        self._desk = ray.get_actor(api.desk_name, namespace=RAY_NAMESPACE)
        self._actors = [
            ray.get_actor(a["name"], namespace=RAY_NAMESPACE)
            for a in ray.util.list_named_actors(all_namespaces=True)
            if a["namespace"] == RAY_NAMESPACE and a["name"].startswith(api.actor_prefix)
        ]
        self._period_s = period_s
        self._with_memory = memory
        self.desk_samples: list[int] = []
        self.desk = self.actors = 0
        self.peak_desk = self.peak_actors = 0
        self.samples = 0
        self.memory_samples = 0
        self.errors: Counter[str] = Counter()
        self.peak_memory = (0.0, 0.0)
        self._peak_memory_runs = -1
        self._stopping = False

    async def counts(self) -> tuple[int, int]:
        health = await self._desk.ping.remote()
        actors = await asyncio.gather(*(a.ping.remote() for a in self._actors))
        return health.runs_in_flight, sum(h.active for h in actors)

    async def _count_loop(self) -> None:
        while True:
            try:
                self.desk, self.actors = await asyncio.wait_for(self.counts(), 30.0)
            except Exception as exc:  # counted and shown; the next sample tries again
                self.errors[type(exc).__name__] += 1
                await asyncio.sleep(self._period_s)
                continue
            self.samples += 1
            self.desk_samples.append(self.desk)
            self.peak_desk = max(self.peak_desk, self.desk)
            self.peak_actors = max(self.peak_actors, self.actors)
            await asyncio.sleep(self._period_s)

    def _memory_loop(self) -> None:
        while not self._stopping:
            runs = self.actors
            memory = _memory()
            self.memory_samples += 1
            if runs > self._peak_memory_runs or (
                runs == self._peak_memory_runs and memory[0] > self.peak_memory[0]
            ):
                self._peak_memory_runs, self.peak_memory = runs, memory
            time.sleep(self._period_s)

    @property
    def memory_at_runs(self) -> int:
        """Runs hosted when the peak memory sample began."""
        return max(self._peak_memory_runs, 0)

    def start(self) -> None:
        self._count = asyncio.create_task(self._count_loop())
        # A daemon thread: an interrupted benchmark does not wait for it at exit.
        self._memory = threading.Thread(target=self._memory_loop, daemon=True)
        if self._with_memory:  # reading smaps costs CPU the open-loop levels measure
            self._memory.start()

    async def stop(self) -> None:
        self._stopping = True
        self._count.cancel()
        await asyncio.gather(self._count, return_exceptions=True)
        if self._with_memory:
            await asyncio.to_thread(self._memory.join)


def _classify(response: httpx.Response | BaseException) -> str:
    if isinstance(response, BaseException):
        return f"transport:{type(response).__name__}"
    status = response.status_code
    if status in (200, 202):
        return "accepted"
    if status == 429:
        try:
            code = response.json().get("error_code")
        except ValueError:
            code = None
        retry = response.headers.get("Retry-After")
        if code in ("OVERLOADED", "RATE_LIMITED") and retry is not None:
            return f"429 {code}"
        return "429 without error body or Retry-After"
    return f"{status // 100}xx {status}"


async def _burst(api: _Api, n: int, args: argparse.Namespace) -> dict[str, Any]:
    sampler = _Sampler(api, args.sample_s)
    idle_rss, idle_uss = await asyncio.to_thread(_memory)
    async with _client(api, args.burst_clients) as client:
        gate = asyncio.Semaphore(args.burst_clients)
        latencies: list[float] = []

        async def submit(i: int) -> httpx.Response | BaseException:
            async with gate:
                t0 = time.perf_counter()
                try:
                    response = await client.post(
                        "/v1/diagnoses",
                        json=_body(INCIDENT_QUESTION, wait=False, deadline_s=1800, n=i),
                    )
                except httpx.HTTPError as exc:
                    return exc
                latencies.append(time.perf_counter() - t0)
                return response

        sampler.start()
        with _CpuMeter() as submitting:
            answers = await asyncio.gather(*(submit(i) for i in range(n)))
        classes = Counter(_classify(a) for a in answers)
        run_ids = [
            a.json()["run_id"]
            for a in answers
            if isinstance(a, httpx.Response) and a.status_code in (200, 202)
        ]
        # Every admitted run ends before its views are read (and before the next burst).
        with _CpuMeter() as running:
            first = sampler.samples
            deadline = time.monotonic() + args.drain_timeout_s
            while sampler.samples <= first or sampler.desk or sampler.actors:
                if time.monotonic() > deadline:
                    break
                await asyncio.sleep(1.0)
        await sampler.stop()
        views = await _collect(client, run_ids, args)
    overheads = [v["overhead_s"] for v in views if v["overhead_s"] is not None]
    queued = [v["queued_s"] for v in views if v["queued_s"] is not None]
    tool_waits = [w for v in views for w in v["tool_queue_waits_ms"]]
    outcomes = Counter(v["outcome"] for v in views)
    peak_rss, peak_uss = sampler.peak_memory
    in_flight = max(sampler.memory_at_runs, 1)
    return {
        "submissions": n,
        "answers": dict(sorted(classes.items())),
        "errors": sum(c for k, c in classes.items() if not k.startswith(("accepted", "429 "))),
        "submit_wall_s": round(submitting.wall_s, 2),
        "submit_p50_ms": round(1000 * _percentile(latencies, 50), 1),
        "submit_p99_ms": round(1000 * _percentile(latencies, 99), 1),
        "submit_ray_cpu_ms_per_request": round(1000 * submitting.ray_s / n, 2),
        "peak_in_flight_desk": sampler.peak_desk,
        "peak_in_flight_actors": sampler.peak_actors,
        "samples": sampler.samples,
        "memory_samples": sampler.memory_samples,
        "sample_errors": dict(sampler.errors),
        "left_in_flight": {"desk": sampler.desk, "actors": sampler.actors},
        "memory_peak_at_runs": sampler.memory_at_runs,
        "drain_wall_s": round(running.wall_s, 1),
        "run_ray_cpu_ms_per_run": round(1000 * running.ray_s / max(len(run_ids), 1), 1),
        # Mean cores the Ray processes and this client kept busy from the first submission to
        # the last run's end: near the machine's cores, the overhead is queueing for CPU.
        "cores_busy": round(
            (submitting.ray_s + submitting.own_s + running.ray_s + running.own_s)
            / (submitting.wall_s + running.wall_s),
            2,
        ),
        "outcomes": dict(sorted(outcomes.items())),
        "run_errors": sum(c for k, c in outcomes.items() if not k.startswith("released")),
        # A released SafeFallback or a tool call that timed out is a degraded run, not a
        # failed one: counted apart, and against the "errors 0" goal.
        "fallback_runs": sum(c for k, c in outcomes.items() if k == "released SafeFallback"),
        "tool_errors": sum(1 for v in views for t in v["tools"] if t != "READY"),
        "overhead_p50_ms": round(1000 * _percentile(overheads, 50), 1),
        "overhead_p99_ms": round(1000 * _percentile(overheads, 99), 1),
        "overhead_max_ms": round(1000 * max(overheads, default=float("nan")), 1),
        "to_start_p50_ms": round(1000 * _percentile(queued, 50), 1),
        "to_start_p99_ms": round(1000 * _percentile(queued, 99), 1),
        "tool_queue_wait_p50_ms": round(_percentile(tool_waits, 50), 1),
        "tool_queue_wait_p99_ms": round(_percentile(tool_waits, 99), 1),
        "tool_queue_wait_max_ms": round(max(tool_waits, default=float("nan")), 1),
        "model_calls_per_run": dict(Counter(v["model_calls"] for v in views)),
        "tool_calls": dict(Counter(t for v in views for t in v["tools"])),
        "idle_rss_mib": round(idle_rss / MIB, 1),
        "peak_rss_mib": round(peak_rss / MIB, 1),
        "idle_uss_mib": round(idle_uss / MIB, 1),
        "peak_uss_mib": round(peak_uss / MIB, 1),
        "rss_per_run_mib": round((peak_rss - idle_rss) / in_flight / MIB, 2),
        "uss_per_run_mib": round((peak_uss - idle_uss) / in_flight / MIB, 2),
    }


async def _warm(api: _Api, runs: int) -> None:
    """A few waited runs at once: the RunActors' and tool workers' lazy parts get built."""
    async with _client(api, runs) as client:
        await asyncio.gather(
            *(
                client.post(
                    "/v1/diagnoses", json=_body(INCIDENT_QUESTION, wait=True, deadline_s=900, n=n)
                )
                for n in range(runs)
            )
        )


async def _collect(
    client: httpx.AsyncClient,
    run_ids: list[str],
    args: argparse.Namespace,
    sent: dict[str, datetime] | None = None,
) -> list[dict[str, Any]]:
    """Each run's outcome and overhead over the model's sleep, from its view and trace: from
    the run's submission (``created_at``), and from when the client sent its request when
    ``sent`` has it (the HTTP path up to the run's record included)."""
    gate = asyncio.Semaphore(16)

    async def one(run_id: str) -> dict[str, Any]:
        async with gate:
            view = (await client.get(f"/v1/runs/{run_id}")).json()
            trace = (await client.get(f"/v1/runs/{run_id}/trace")).json()
        result = view.get("result") or {}
        kind = result.get("kind")
        code = result.get("error_code")
        outcome = f"released {kind}" if code is None else f"{kind} {code}"
        model_calls = view["progress"].get("model_calls")
        events = trace.get("events") or []
        overhead = queued = from_send = ended = None
        if events and model_calls is not None:
            created = datetime.fromisoformat(view["created_at"])
            started = min(datetime.fromisoformat(e["at"]) for e in events)
            ended = max(datetime.fromisoformat(e["at"]) for e in events)
            overhead = (ended - created).total_seconds() - model_calls * args.delay_s
            queued = (started - created).total_seconds()
            if sent is not None and run_id in sent:
                from_send = (ended - sent[run_id]).total_seconds() - model_calls * args.delay_s
        tools = [
            f"{t['status']} {t.get('error_code') or ''}".strip()
            for t in view["progress"].get("tools") or []
        ]
        waits = [
            e["details"].get("queue_wait_ms", 0.0)
            for e in events
            if e.get("event_type") == "TOOL_INVOCATION"
        ]
        return {
            "outcome": outcome,
            "tools": tools,
            "tool_queue_waits_ms": waits,
            "model_calls": model_calls,
            "overhead_s": overhead,
            "overhead_from_send_s": from_send,
            "queued_s": queued,
            "ended": ended,
        }

    return list(await asyncio.gather(*(one(r) for r in run_ids)))


# ---------------------------------------------------------------- 3. open-loop load


async def _open_level(api: _Api, rate: float, args: argparse.Namespace, seed: int) -> Level:
    """Poisson arrivals at ``rate`` for ``--open-duration-s``, each an async create sent at its
    instant whatever the earlier ones' state; once every admitted run ended, their overheads.

    A run's overhead is from the instant the client sent its request to the run's last event,
    less its model calls x the model's delay. A rejected submission (429, other status,
    transport failure), a run that did not release its result and a tool call that was not
    READY are failures: a level with one does not hold, whatever its p99.
    """
    arrivals = poisson_arrivals(rate, args.open_duration_s, seed)
    sampler = _Sampler(api, args.sample_s, memory=False)
    sent: dict[str, datetime] = {}
    lateness: list[float] = []
    async with _client(api, args.open_connections) as client:

        async def arrive(i: int, at: float) -> httpx.Response | BaseException:
            await asyncio.sleep(max(0.0, at - (time.perf_counter() - t0)))
            lateness.append(time.perf_counter() - t0 - at)
            at_wall = datetime.now(UTC)
            try:
                response = await client.post(
                    "/v1/diagnoses",
                    json=_body(INCIDENT_QUESTION, wait=False, deadline_s=1800, n=i),
                )
            except httpx.HTTPError as exc:
                return exc
            if response.status_code in (200, 202):
                sent[response.json()["run_id"]] = at_wall
            return response

        sampler.start()
        with _CpuMeter() as cpu:
            t0 = time.perf_counter()
            answers = await asyncio.gather(*(arrive(i, at) for i, at in enumerate(arrivals)))
            arriving_s = time.perf_counter() - t0
            in_flight = list(sampler.desk_samples)
            first = sampler.samples
            deadline = time.monotonic() + args.drain_timeout_s
            while sampler.samples <= first or sampler.desk or sampler.actors:
                if time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.5)
        await sampler.stop()
        views = await _collect(client, list(sent), args, sent)
    classes = Counter(_classify(a) for a in answers)
    rejected = sum(c for k, c in classes.items() if k != "accepted")
    released = [v for v in views if v["outcome"].startswith("released")]
    failed_runs = len(views) - len(released)
    tool_errors = sum(1 for v in views for t in v["tools"] if t != "READY")
    overheads = [
        v["overhead_from_send_s"] for v in released if v["overhead_from_send_s"] is not None
    ]
    ends = sorted(v["ended"] for v in released if v["ended"] is not None)
    # Runs ended per second while they ended: the offered rate when the system keeps up,
    # less when a backlog stretches the span past the arrivals'.
    completed_per_s = (
        (len(ends) - 1) / (ends[-1] - ends[0]).total_seconds()
        if len(ends) > 1 and ends[-1] > ends[0]
        else float("nan")
    )
    p99 = percentile(overheads, 99)
    figures = {
        "rate": round(rate, 2),
        "arrivals": len(arrivals),
        "sent_per_s": round(len(arrivals) / arriving_s, 2),
        "completed_per_s": round(completed_per_s, 2),
        "in_flight_mean": round(statistics.fmean(in_flight), 1) if in_flight else None,
        "in_flight_peak": max(in_flight, default=0),
        "answers": dict(sorted(classes.items())),
        "rejected": rejected,
        "failed_runs": failed_runs,
        "tool_errors": tool_errors,
        "fallback_runs": sum(1 for v in released if v["outcome"] == "released SafeFallback"),
        "overhead_p50_ms": round(1000 * percentile(overheads, 50), 1),
        "overhead_p99_ms": round(1000 * p99, 1),
        "overhead_max_ms": round(1000 * max(overheads, default=float("nan")), 1),
        "send_lateness_p99_ms": round(1000 * percentile(lateness, 99), 1),
        "tool_slot_wait_p99_ms": round(
            percentile([w for v in views for w in v["tool_queue_waits_ms"]], 99), 1
        ),
        "ray_cpu_ms_per_run": round(1000 * cpu.ray_s / max(len(sent), 1), 1),
        "driver_cpu_ms_per_run": round(1000 * cpu.own_s / max(len(arrivals), 1), 1),
        "cores_busy": round((cpu.ray_s + cpu.own_s) / cpu.wall_s, 2),
        "wall_s": round(cpu.wall_s, 1),
    }
    level = Level(
        rate=rate,
        overhead_p99_s=p99 if overheads else float("nan"),
        failed=rejected + failed_runs + tool_errors,
        figures=figures,
    )
    print(
        f"  open loop {rate:.2f}/s: p99 overhead {figures['overhead_p99_ms']} ms, "
        f"failed {level.failed}, in flight peak {figures['in_flight_peak']}"
        f" -> {'holds' if level.holds(args.limit_s) else 'breaks'}",
        flush=True,
    )
    return level


async def _open_loop(api: _Api, args: argparse.Namespace, start_rate: float) -> dict[str, Any]:
    """The capacity (the highest rate measured to hold: p99 overhead within ``--limit-s``, no
    failure), found by a short search from ``start_rate``; then levels at fractions of it."""
    seeds = iter(range(args.seed, args.seed + 1000))

    async def measure(rate: float) -> Level:
        return await _open_level(api, rate, args, next(seeds))

    search = await find_capacity(
        measure, start_rate=start_rate, limit_s=args.limit_s, max_steps=args.search_steps
    )
    capacity = search.held
    levels: dict[str, Any] = {}
    if capacity > 0:
        for share in args.open_levels:
            level = await measure(share * capacity)
            levels[f"{round(100 * share)}%"] = {
                **level.figures,
                "holds": level.holds(args.limit_s),
            }
    return {
        "delay_s": args.delay_s,
        "duration_s": args.open_duration_s,
        "limit_ms": 1000 * args.limit_s,
        "start_rate": round(start_rate, 2),
        "capacity_per_s": round(capacity, 2),
        "broke_at_per_s": None if search.broke is None else round(search.broke, 2),
        "search": [{**lv.figures, "holds": lv.holds(args.limit_s)} for lv in search.levels],
        "levels": levels,
    }


# ---------------------------------------------------------------- main


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    figures: dict[str, Any] = {
        "cpus": os.cpu_count(),
        "load_avg_1m_at_start": round(os.getloadavg()[0], 2),
        "model": "offline demo model (openai SDK) + embedded tool plane",
        "question": INCIDENT_QUESTION,
        "clients": args.clients,
        "runs_per_batch": args.runs,
        "repeats": args.repeats,
        "pool": {"size": args.pool_size, "runs_per_actor": args.runs_per_actor},
        "tools": args.tools,
        "goals": {
            "http_runs_per_s": GOAL_RUNS_PER_S,
            "peak_in_flight": GOAL_IN_FLIGHT,
            "errors": 0,
            "overhead_p99_ms": GOAL_OVERHEAD_P99_MS,
            "ray_cpu_over_in_process_cpu": GOAL_CPU_RATIO,
            "runs_per_s_over_in_process": GOAL_RATE_RATIO,
        },
    }
    args.port = args.port or _free_port()
    if args.runs:
        await _throughput(args, figures)
    if not args.burst and not args.open:
        return figures
    slowed = SlowedDeps(
        EmbeddedDepsFactory(tool_execution=_http_rows(args.tools)[0][1]), args.delay_s
    )
    api = await asyncio.to_thread(
        _deploy, args, slowed, tag="burst", size=args.burst_pool_size, k=args.burst_runs_per_actor
    )
    figures["burst_pool"] = {
        "size": args.burst_pool_size,
        "runs_per_actor": args.burst_runs_per_actor,
        "max_waiting": args.max_waiting,
        "delay_s": args.delay_s,
        "burst_clients": args.burst_clients,
    }
    try:
        await _warm(api, args.warm_runs)
        if args.open:
            # The search starts at half the closed-loop HTTP throughput, when measured.
            start = args.start_rate or (
                figures["http"]["runs_per_s"] / 2 if "http" in figures else 2.0
            )
            figures["open_loop"] = await _open_loop(api, args, start)
        if args.burst:
            figures["burst"] = await _burst(api, args.burst, args)
        if args.burst and args.overload:
            figures["overload"] = await _burst(api, args.overload, args)
    finally:
        await asyncio.to_thread(_undeploy, api)
    return figures


async def _throughput(args: argparse.Namespace, figures: dict[str, Any]) -> None:
    local = await _in_process_runner()
    local_batches: list[dict[str, Any]] = []
    figures["ratios"] = {}
    for row, tools in _http_rows(args.tools):
        api = await asyncio.to_thread(
            _deploy,
            args,
            EmbeddedDepsFactory(tool_execution=tools),
            tag="fast",
            size=args.pool_size,
            k=args.runs_per_actor,
        )
        try:
            https, locals_ = await _paired_throughput(api, local, args)
        finally:
            await asyncio.to_thread(_undeploy, api)
        figures[row] = _median_batch(https)
        figures["ratios"][row] = _ratios(https, locals_)
        local_batches.extend(locals_)
    figures["in_process"] = _median_batch(local_batches)


def _ratios(https: list[dict[str, Any]], locals_: list[dict[str, Any]]) -> dict[str, Any]:
    """Each HTTP batch against the in-process batch just before it, medians over the pairs:
    CPU per run (the Ray processes' over this process's, the runs' own; and all CPU either
    caused, client and Ray processes included) and runs/s."""

    def ratios(http: dict[str, Any], local: dict[str, Any]) -> dict[str, float]:
        return {
            "ray_cpu_over_in_process_cpu": http["ray_cpu_ms_per_run"]
            / local["driver_cpu_ms_per_run"],
            "all_cpu_over_in_process_all_cpu": (
                http["ray_cpu_ms_per_run"] + http["driver_cpu_ms_per_run"]
            )
            / (local["ray_cpu_ms_per_run"] + local["driver_cpu_ms_per_run"]),
            "runs_per_s_over_in_process": http["runs_per_s"] / local["runs_per_s"],
        }

    pairs = [ratios(h, lo) for h, lo in zip(https, locals_, strict=True)]
    return {
        **{key: round(statistics.median([p[key] for p in pairs]), 2) for key in pairs[0]},
        "pairs": [{k: round(v, 2) for k, v in p.items()} for p in pairs],
    }


def _http_rows(tools: str) -> list[tuple[str, str]]:
    """(figures key, tool execution) of each HTTP throughput row: ``http`` is the first."""
    if tools == "both":
        return [("http", "ray"), ("http_inline", "inline")]
    return [("http", tools)]


def _verdict(ok: bool) -> str:
    return "meets" if ok else "MISSES"


def _print_table(f: dict[str, Any]) -> None:
    print(f"Serve benchmark — {f['model']}; cpus={f['cpus']} load(1m)={f['load_avg_1m_at_start']}")
    if "http" in f:
        _print_throughput(f)
    if "open_loop" in f:
        _print_open_loop(f)
    if "burst" not in f:
        return
    _print_bursts(f)


def _print_open_loop(f: dict[str, Any]) -> None:
    o = f["open_loop"]
    bp = f["burst_pool"]
    print(
        f"3. Open-loop load: Poisson arrivals of async creates for {o['duration_s']:g} s per "
        f"level, every model call slowed to {o['delay_s']:g} s; pool {bp['size']} actors x "
        f"{bp['runs_per_actor']}. Overhead: from sending the request to the run's last event, "
        f"less model calls x delay. A level holds when its p99 <= {o['limit_ms']:g} ms and "
        f"nothing failed (429, error, run not released, tool call not READY)."
    )
    header = (
        f"  {'level':<9}{'rate/s':>8}{'sent/s':>8}{'done/s':>8}{'in flight':>11}"
        f"{'failed':>8}{'p50 ms':>9}{'p99 ms':>9}{'late p99':>10}{'Ray CPU':>9}{'cores':>7}"
    )

    def row(name: str, lv: dict[str, Any]) -> str:
        failed = lv["rejected"] + lv["failed_runs"] + lv["tool_errors"]
        return (
            f"  {name:<9}{lv['rate']:>8.2f}{lv['sent_per_s']:>8.2f}{lv['completed_per_s']:>8.2f}"
            f"{str(lv['in_flight_mean']) + '/' + str(lv['in_flight_peak']):>11}{failed:>8}"
            f"{lv['overhead_p50_ms']:>9.0f}{lv['overhead_p99_ms']:>9.0f}"
            f"{lv['send_lateness_p99_ms']:>10.0f}{lv['ray_cpu_ms_per_run']:>9.1f}"
            f"{lv['cores_busy']:>7.2f}  {'holds' if lv['holds'] else 'breaks'}"
        )

    print(header + "   (in flight: mean/peak at the desk; late: sender behind schedule)")
    for i, lv in enumerate(o["search"]):
        print(row(f"search {i + 1}", lv))
    for name, lv in o["levels"].items():
        print(row(f"{name} cap", lv))
    print(
        "  tool slot wait p99 (ms) by level: "
        + ", ".join(f"{lv['rate']:.2f}/s {lv['tool_slot_wait_p99_ms']}" for lv in o["search"])
        + " | "
        + ", ".join(f"{name} {lv['tool_slot_wait_p99_ms']}" for name, lv in o["levels"].items())
    )
    print(
        f"  capacity {o['capacity_per_s']} runs/s (highest rate that held; lowest that broke: "
        f"{o['broke_at_per_s']}); Ray CPU in ms per run admitted, cores = Ray processes and "
        f"this client over the level"
    )
    half = o["levels"].get("50%")
    if half is not None:
        goal = f["goals"]["overhead_p99_ms"]
        print(
            f"  overhead p99 at 50% of capacity {half['overhead_p99_ms']} ms: "
            f"{_verdict(half['overhead_p99_ms'] <= goal)} <= {goal:g} ms"
        )


def _print_throughput(f: dict[str, Any]) -> None:
    print(
        f"1. Throughput: {f['runs_per_batch']} runs/batch, {f['clients']} concurrent clients, "
        f"median of {f['repeats']}; pool {f['pool']['size']} actors x {f['pool']['runs_per_actor']}; "
        f"tools over HTTP: {f['tools']} (http: {_http_rows(f['tools'])[0][1]}), in process: inline"
    )
    print(
        f"{'mode':<12}{'runs/s':>8}{'p50 ms':>9}{'p99 ms':>9}{'Ray CPU ms/run':>16}"
        f"{'driver CPU ms/run':>19}   samples, results"
    )
    for mode in ("http", "http_inline", "in_process"):
        if mode not in f:
            continue
        row = f[mode]
        print(
            f"{mode:<12}{row['runs_per_s']:>8.2f}{row['p50_ms']:>9.0f}{row['p99_ms']:>9.0f}"
            f"{row['ray_cpu_ms_per_run']:>16.1f}{row['driver_cpu_ms_per_run']:>19.1f}"
            f"   {row['runs_per_s_samples']} {row['kinds']}"
        )
    for mode in ("http", "http_inline"):
        if mode in f:
            print(f"{mode}: Ray CPU ms/run by process: {f[mode]['ray_cpu_ms_per_run_by_process']}")
    goal = f["goals"]["http_runs_per_s"]
    print(f"HTTP {_verdict(f['http']['runs_per_s'] >= goal)} the >= {goal:g} diagnoses/s goal")
    for mode, r in f.get("ratios", {}).items():
        cpu, rate = r["ray_cpu_over_in_process_cpu"], r["runs_per_s_over_in_process"]
        print(
            f"{mode} / in process, median of {len(r['pairs'])} adjacent pairs: Ray CPU per run "
            f"{cpu}x the in-process run's "
            f"({_verdict(cpu <= GOAL_CPU_RATIO)} <= {GOAL_CPU_RATIO:g}x; all CPU, client and "
            f"Ray processes on both sides: {r['all_cpu_over_in_process_all_cpu']}x), "
            f"runs/s {rate}x ({_verdict(rate >= GOAL_RATE_RATIO)} >= {GOAL_RATE_RATIO:g}x)"
        )


def _print_bursts(f: dict[str, Any]) -> None:
    bp = f["burst_pool"]
    print(
        f"2. Bursts of async submissions, every model call slowed to {bp['delay_s']:g} s; pool "
        f"{bp['size']} actors x {bp['runs_per_actor']}, at most {bp['max_waiting']} waiting for a slot, "
        f"{bp['burst_clients']} connections"
    )
    rows = [("burst", f["burst"])] + ([("overload", f["overload"])] if "overload" in f else [])
    for name, b in rows:
        print(f"  {name}: {b['submissions']} submissions in {b['submit_wall_s']} s: {b['answers']}")
        print(
            f"    submit p50/p99 {b['submit_p50_ms']}/{b['submit_p99_ms']} ms, "
            f"Ray CPU {b['submit_ray_cpu_ms_per_request']} ms/request; "
            f"peak in flight: desk {b['peak_in_flight_desk']}, actors {b['peak_in_flight_actors']}"
        )
        print(
            f"    runs: {b['outcomes']} model calls/run {b['model_calls_per_run']}; "
            f"tool calls {b['tool_calls']}, waited for a tool slot p50/p99/max "
            f"{b['tool_queue_wait_p50_ms']}/{b['tool_queue_wait_p99_ms']}/"
            f"{b['tool_queue_wait_max_ms']} ms; "
            f"drained in {b['drain_wall_s']} s (left in flight {b['left_in_flight']}), "
            f"Ray CPU {b['run_ray_cpu_ms_per_run']} ms/run; sampling errors {b['sample_errors']}"
        )
        print(
            f"    cores busy (Ray processes and this client) from the first submission to the "
            f"last run's end: {b['cores_busy']} of {f['cpus']}"
        )
        print(
            f"    overhead over the model's sleep p50/p99/max "
            f"{b['overhead_p50_ms']}/{b['overhead_p99_ms']}/{b['overhead_max_ms']} ms "
            f"(of which submission to the run's first event p50/p99 "
            f"{b['to_start_p50_ms']}/{b['to_start_p99_ms']} ms)"
        )
        print(
            f"    memory idle -> peak RSS {b['idle_rss_mib']} -> {b['peak_rss_mib']} MiB, "
            f"USS {b['idle_uss_mib']} -> {b['peak_uss_mib']} MiB; per run in flight "
            f"RSS {b['rss_per_run_mib']} MiB, USS {b['uss_per_run_mib']} MiB "
            f"(peak sample at {b['memory_peak_at_runs']} runs hosted)"
        )
    b = f["burst"]
    g = f["goals"]
    print(
        f"burst: peak in flight {_verdict(b['peak_in_flight_actors'] >= g['peak_in_flight'])} "
        f">= {g['peak_in_flight']}; "
        f"errors {_verdict(b['errors'] + b['run_errors'] + b['tool_errors'] == 0)} 0 "
        f"({b['errors']} HTTP, {b['run_errors']} failed runs, {b['tool_errors']} tool calls "
        f"not READY, {b['fallback_runs']} runs released a SafeFallback); "
        f"overhead p99 {_verdict(b['overhead_p99_ms'] <= g['overhead_p99_ms'])} "
        f"<= {g['overhead_p99_ms']:g} ms"
    )
    if "overload" in f:
        o = f["overload"]
        graceful = sum(c for k, c in o["answers"].items() if k.startswith("429 "))
        failures = o["errors"] + o["run_errors"]
        print(
            f"overload: {graceful} graceful 429s, {failures} failures ({o['errors']} HTTP, "
            f"{o['run_errors']} accepted runs not released) "
            f"({_verdict(failures == 0 and graceful > 0)} 429s instead of failures)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small smoke run")
    parser.add_argument(
        "--tools",
        choices=("ray", "inline", "both"),
        default="both",
        help="tool execution of the RunActors over HTTP (both: a Ray-task row, then an inline one)",
    )
    parser.add_argument(
        "--runs", type=int, default=60, help="runs per throughput batch (0: bursts only)"
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--clients", type=int, default=8, help="concurrent HTTP clients")
    parser.add_argument("--pool-size", type=int, default=2, help="RunActors (throughput)")
    parser.add_argument("--runs-per-actor", type=int, default=8, help="K (throughput)")
    parser.add_argument("--burst", type=int, default=1000, help="0: no bursts")
    parser.add_argument("--overload", type=int, default=2000, help="0: no overload burst")
    parser.add_argument("--burst-clients", type=int, default=100)
    parser.add_argument("--burst-pool-size", type=int, default=4)
    parser.add_argument("--burst-runs-per-actor", type=int, default=256)
    parser.add_argument(
        "--max-waiting",
        type=int,
        default=64,
        help="runs that may wait for a slot in the burst pool (admission control)",
    )
    parser.add_argument("--delay-s", type=float, default=10.0, help="the slowed model's delay")
    parser.add_argument(
        "--warm-runs", type=int, default=8, help="waited runs before the bursts (warm-up)"
    )
    parser.add_argument(
        "--drain-timeout-s", type=float, default=900.0, help="longest wait for a burst to end"
    )
    parser.add_argument("--sample-s", type=float, default=0.5)
    parser.add_argument(
        "--open", type=int, default=1, help="open-loop load levels and capacity (0: none)"
    )
    parser.add_argument(
        "--open-duration-s", type=float, default=60.0, help="arrivals per open-loop level"
    )
    parser.add_argument(
        "--limit-s", type=float, default=1.0, help="p99 overhead past which a level breaks"
    )
    parser.add_argument("--search-steps", type=int, default=6, help="levels the search may try")
    parser.add_argument(
        "--start-rate", type=float, default=0.0, help="first rate tried (default: half HTTP runs/s)"
    )
    parser.add_argument(
        "--open-levels",
        type=float,
        nargs="*",
        default=[0.25, 0.5, 0.8],
        help="shares of the capacity measured after the search",
    )
    parser.add_argument("--open-connections", type=int, default=64)
    parser.add_argument("--seed", type=int, default=40, help="first Poisson schedule's seed")
    parser.add_argument("--replicas", type=int, default=1)
    parser.add_argument("--max-ongoing", type=int, default=1000)
    parser.add_argument("--max-queued", type=int, default=1000)
    parser.add_argument("--redis-url", default=None, help="rate counters; default in-process")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    if args.quick:
        args.runs, args.repeats, args.clients = 8, 1, 4
        args.pool_size, args.runs_per_actor = 1, 4
        # One actor of 128 slots: room for the open-loop levels' runs in flight (rate x ~6 s);
        # the overload burst passes 128 + 8 to draw 429s.
        args.burst, args.overload, args.burst_clients = 60, 200, 20
        args.burst_pool_size, args.burst_runs_per_actor, args.max_waiting = 1, 128, 8
        args.delay_s = 1.0
        args.open_duration_s, args.search_steps = 10.0, 4
    with local_ray(num_cpus=2):
        figures = asyncio.run(_main(args))
    _print_table(figures)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
