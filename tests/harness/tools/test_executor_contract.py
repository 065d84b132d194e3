"""InlineToolExecutor against the shared executor contract (tests/executor_contract.py)."""

from __future__ import annotations

import time
from typing import Any

from pydantic import BaseModel

from harness.adapters.embedded import build_run_deps, build_tool_plane
from harness.settings import Settings
from harness.testing.tools import DocsProjector, RecordingBackend, docs_raw
from harness.tools import SEARCH_KNOWLEDGE, InlineToolExecutor, default_inline_slots
from tests.executor_contract import check_burst_beyond_slots

BACKEND_S = 0.05


def _fast_but_not_instant(request: BaseModel) -> Any:
    time.sleep(BACKEND_S)  # the backend's work: 48 calls of it outlast the timeout tenfold
    return docs_raw("a")


def test_slots_are_the_setting_or_the_default() -> None:
    backends = {SEARCH_KNOWLEDGE: RecordingBackend()}
    projectors = {SEARCH_KNOWLEDGE: DocsProjector()}
    assert InlineToolExecutor(backends, projectors, slots=3).slots.capacity == 3
    assert InlineToolExecutor(backends, projectors).slots.capacity == default_inline_slots()


def test_a_burst_beyond_the_slots_queues_instead_of_timing_out() -> None:
    executor = InlineToolExecutor(
        {SEARCH_KNOWLEDGE: RecordingBackend(raw=_fast_but_not_instant)},
        {SEARCH_KNOWLEDGE: DocsProjector()},
        slots=2,
    )
    check_burst_beyond_slots(executor, query="pool", calls=48, execute_timeout_s=0.5)


def test_the_embedded_plane_shares_one_pool_among_its_runs() -> None:
    plane = build_tool_plane(Settings(tool_slots=3))
    first, second = plane.open_run(), plane.open_run()
    assert first.executor is second.executor is plane.executor()
    assert plane.executor().slots.capacity == 3
    assert build_run_deps(plane.settings, plane=plane).executor is plane.executor()
