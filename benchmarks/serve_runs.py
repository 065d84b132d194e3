"""Async runs on a benchmark's deployment, observed (for ``serve_bursts.py`` and
``serve_open_loop.py``): what the API answered, how many runs were in flight, and what each
run came to.

:class:`Sampler` counts the runs in flight twice, as the run desk counts them (its ``ping``:
placed and running, not yet terminal) and as the RunActors host them (the sum of their
``ping().active``), and can sample the Ray processes' memory beside; :func:`classify` sorts an
answer (accepted, a 429 with its error code and ``Retry-After``, other status, transport
failure); :func:`collect_runs` reads each ended run's view and trace for its outcome, tool
calls and overhead over the model's sleep.
"""

from __future__ import annotations

import argparse
import asyncio
import threading
import time
from collections import Counter
from datetime import datetime
from typing import Any

import httpx
from ray_processes import ray_memory
from serve_api import Api

from actors.factory import RAY_NAMESPACE

__all__ = ["Sampler", "classify", "collect_runs", "drained"]


class Sampler:
    """Runs in flight (desk and RunActors) sampled every ``period_s``; memory of the Ray
    processes sampled in a thread as often as it can be read (smaps is slow under load), each
    memory sample tagged with the runs in flight when it began."""

    def __init__(self, api: Api, period_s: float, *, memory: bool = True) -> None:
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
            memory = ray_memory()
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


async def drained(sampler: Sampler, timeout_s: float, poll_s: float) -> None:
    """Return once every admitted run has ended (a sample taken after the call shows none
    placed at the desk or hosted by an actor) or ``timeout_s`` passed."""
    first = sampler.samples
    deadline = time.monotonic() + timeout_s
    while sampler.samples <= first or sampler.desk or sampler.actors:
        if time.monotonic() > deadline:
            return
        await asyncio.sleep(poll_s)


def classify(response: httpx.Response | BaseException) -> str:
    """The class of an answer to an async create, as the tables count them."""
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


async def collect_runs(
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
