"""What a run holds while it waits on a model (issue 11: a waiting run holds only what it needs).

The demo run is stopped at its SemanticGuard call: every tool call has been made and its record
is READY, the draft is written and has passed EvidenceGuard, so the run holds everything it
will ever hold. At that moment no raw response of the run may still be alive (raw goes to the
store, compressed — or, made of the log store's shared event JSON, kept by reference — and is
dropped once the record is READY), and the Python memory the run
retains, measured by ``tracemalloc`` against the same process before the run, stays far below
the 2 MiB per waiting run the deployment is sized for.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import tracemalloc
from typing import Any

from harness.adapters.embedded import build_run_deps, build_tool_plane
from harness.contracts.ingress import RunRequest
from harness.contracts.models import Component
from harness.contracts.raw import _UNSET, RawResponse
from harness.diagnosis import DiagnosisRun, RunDeps
from harness.embedded.demo import INCIDENT_QUESTION, WINDOW_END
from harness.settings import Settings
from harness.store.local import LocalCanonicalStore

# Python memory a waiting demo run may retain (measured ~0.3 MiB, the store's records included).
RETAINED_LIMIT_BYTES = 1024 * 1024


@dataclasses.dataclass
class _HeldJudge:
    """Holds the SemanticGuard call until released; calls ``reached`` when it is held."""

    inner: Any
    reached: Any

    async def complete(self, request: Any) -> Any:
        if request.component is Component.SEMANTIC_GUARD:
            await self.reached()
        return await self.inner.complete(request)


def _live_raw(store: LocalCanonicalStore) -> int:
    """Raw responses alive besides those the store keeps beside its records, which must be
    their shared parts alone (no value, no JSON, no frame)."""
    gc.collect()
    kept = [e.beside for e in store._entries.values() if e.beside is not None]
    for raw in kept:
        assert (raw._value, raw._json, raw._compressed) == (_UNSET, None, None)
    ids = {id(raw) for raw in kept}
    return sum(1 for o in gc.get_objects() if isinstance(o, RawResponse) and id(o) not in ids)


def _held(deps: RunDeps, reached: Any) -> RunDeps:
    return dataclasses.replace(
        deps, models={c: _HeldJudge(m, reached) for c, m in deps.models.items()}
    )


def _request() -> RunRequest:
    return RunRequest(question=INCIDENT_QUESTION, as_of=WINDOW_END)


def test_a_run_waiting_on_its_judge_holds_no_raw_and_little_memory() -> None:
    settings = Settings()
    deps = build_run_deps(settings, plane=build_tool_plane(settings), audit=None)
    store = deps.store
    assert isinstance(store, LocalCanonicalStore)
    seen: dict[str, Any] = {}

    async def held_run() -> str:
        baseline_raw = _live_raw(store)
        release = asyncio.Event()
        measured = asyncio.Event()

        async def reached() -> None:
            gc.collect()
            seen["raw"] = _live_raw(store) - baseline_raw
            seen["retained"] = tracemalloc.take_snapshot()
            measured.set()
            await release.wait()

        gc.collect()
        tracemalloc.start()
        before = tracemalloc.take_snapshot()
        run = DiagnosisRun(_request(), _held(deps, reached))
        task = asyncio.create_task(run.execute())
        await asyncio.wait_for(measured.wait(), 60)
        seen["before"] = before
        release.set()
        result = await task
        tracemalloc.stop()
        return str(result.kind)

    async def scenario() -> str:
        # Warm: every lazy part of the tool plane and the process caches are built, and so is
        # whatever the measuring itself imports the first time (under pytest's plugins a first
        # snapshot window has been seen to load pyarrow and numpy: ~30 MB that are the
        # process's, not the run's). The second held run is the one measured.
        assert (await DiagnosisRun(_request(), deps).execute()).kind == "DiagnosisReport"
        assert await held_run() == "DiagnosisReport"
        return await held_run()

    assert asyncio.run(scenario()) == "DiagnosisReport"
    assert seen["raw"] == 0, "raw responses are still alive while the run waits"
    stats = seen["retained"].compare_to(seen["before"], "filename")
    retained = sum(s.size_diff for s in stats)
    assert 0 < retained < RETAINED_LIMIT_BYTES, f"a waiting run retains {retained} bytes"
