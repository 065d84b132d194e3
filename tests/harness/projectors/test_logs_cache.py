"""The cache of mined batches never changes an observation, stays bounded and keeps no raw line.

A batch's key is the digest of its distinct first lines in mining order, so a hit is exactly the
input mining would see again. The tests compare every projection made with a warm cache (shared
by many inputs that share lines) with the same input projected cold and with the per-event
reference, check the bounds by entries and by bytes and the order of eviction, and look into the
cache for any raw text.
"""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from functools import cache
from typing import Any

from harness.backends.logs_embedded import EmbeddedLogBackend
from harness.contracts.observation import Projection
from harness.embedded.demo import WINDOW_START
from harness.logmining import MinerConfig
from harness.projectors._logs_cache import MinedBatchCache, batch_digest, shared_cache
from harness.projectors.logs import LogsProjector, LogsProjectorLimits
from harness.redaction import Pseudonyms, Redactor
from harness.testing.tools import RAW_CAP
from harness.tools.arguments import QueryLogsRequest
from tests.harness.projectors.logs_reference import reference_project


def _request(start_min: int, length_min: int, **filters: Any) -> QueryLogsRequest:
    start = WINDOW_START + timedelta(minutes=start_min)
    return QueryLogsRequest(start=start, end=start + timedelta(minutes=length_min), **filters)


# Windows that overlap (so their batches share most lines) and filters over the same minutes.
REQUESTS = [
    _request(60, 4),
    _request(61, 4),
    _request(60, 5),
    _request(60, 4, services=["checkout-api"]),
    _request(60, 4, level="WARN"),
    _request(64, 2),
]


@cache
def _raw(index: int) -> dict[str, Any]:
    raw = EmbeddedLogBackend(max_events=5000).fetch(REQUESTS[index], max_raw_bytes=RAW_CAP).value()
    assert not raw["limit_hit"]  # each request its own events, none cut to the same first ones
    return raw


def _json(projection: Projection) -> str:
    # Each projection marks with its own nonce; a fresh run numbers both the same way.
    return projection.resolved(Pseudonyms()).model_dump_json()


def _cold(index: int, limits: LogsProjectorLimits | None = None) -> Projection:
    return LogsProjector(limits, cache=MinedBatchCache()).project("c", REQUESTS[index], _raw(index))


def test_a_warm_cache_never_changes_an_observation() -> None:
    shared = MinedBatchCache()
    projector = LogsProjector(cache=shared)
    order = [0, 1, 0, 2, 3, 1, 4, 5, 0, 5, 2, 3, 4]
    cold = {i: _cold(i) for i in set(order)}
    for i in order:
        warm = projector.project("c", REQUESTS[i], _raw(i))
        assert _json(warm) == _json(cold[i])
        assert warm.facts == cold[i].facts
    assert (shared.misses, shared.hits) == (len(cold), len(order) - len(cold))
    for i in (0, 4):
        assert _json(cold[i]) == _json(reference_project("c", REQUESTS[i], _raw(i)))


def test_the_same_lines_in_another_order_are_another_batch() -> None:
    raw = _raw(5)
    events = raw["events"]
    messages = [e["message"] for e in reversed(events)]
    mirrored = {
        **raw,
        "events": [{**e, "message": m} for e, m in zip(events, messages, strict=True)],
    }
    shared = MinedBatchCache()
    projector = LogsProjector(cache=shared)
    for candidate in (raw, mirrored, raw, mirrored):
        warm = projector.project("c", REQUESTS[5], candidate)
        cold = LogsProjector(cache=MinedBatchCache()).project("c", REQUESTS[5], candidate)
        assert _json(warm) == _json(cold)
    assert (shared.misses, shared.hits) == (2, 2)


def test_other_limits_share_a_batch_and_still_answer_as_if_cold() -> None:
    shared = MinedBatchCache()
    for limits in (LogsProjectorLimits(), LogsProjectorLimits(max_events=3, max_templates=2)):
        warm = LogsProjector(limits, cache=shared).project("c", REQUESTS[0], _raw(0))
        assert _json(warm) == _json(_cold(0, limits))
    assert (shared.misses, shared.hits) == (1, 1)


def test_another_miner_config_or_redactor_mines_its_own_batch() -> None:
    class NoCheckout(Redactor):
        __slots__ = ()

        def redact(self, text: str) -> str:
            return super().redact(text).replace("checkout", "<C>")

    shared = MinedBatchCache()
    strict = MinerConfig(similarity_threshold=0.95)
    default = LogsProjector(cache=shared).project("c", REQUESTS[0], _raw(0))
    other_config = LogsProjector(miner_config=strict, cache=shared).project(
        "c", REQUESTS[0], _raw(0)
    )
    other_redactor = LogsProjector(redactor=NoCheckout(), cache=shared).project(
        "c", REQUESTS[0], _raw(0)
    )
    assert shared.misses == 3 and shared.hits == 0
    assert _json(other_config) == _json(
        reference_project("c", REQUESTS[0], _raw(0), miner_config=strict)
    )
    assert _json(other_redactor) == _json(
        LogsProjector(redactor=NoCheckout(), cache=MinedBatchCache()).project(
            "c", REQUESTS[0], _raw(0)
        )
    )
    assert "checkout" in _json(default)
    assert "checkout" not in _json(other_redactor)


def test_projectors_share_the_process_cache_by_default() -> None:
    shared_cache().clear()
    first = LogsProjector().project("c", REQUESTS[5], _raw(5))
    again = LogsProjector().project("c", REQUESTS[5], _raw(5))
    assert (shared_cache().misses, shared_cache().hits) == (1, 1)
    assert _json(first) == _json(again)


def test_concurrent_projections_on_one_cache_answer_as_if_cold() -> None:
    shared = MinedBatchCache(max_entries=3)  # fewer entries than inputs: evictions race too
    projector = LogsProjector(cache=shared)
    expected = {i: _json(_cold(i)) for i in range(len(REQUESTS))}
    jobs = [i for i in range(len(REQUESTS)) for _ in range(6)]
    random.Random(11).shuffle(jobs)

    def project(i: int) -> tuple[int, str]:
        return i, _json(projector.project("c", REQUESTS[i], _raw(i)))

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(project, jobs))
    assert [json for i, json in results] == [expected[i] for i, _ in results]
    assert len(shared) <= 3


# ----------------------------------------------------------------------------- bounds


def test_the_least_recently_used_batch_goes_first_beyond_max_entries() -> None:
    shared = MinedBatchCache(max_entries=2)
    projector = LogsProjector(cache=shared)

    def project(i: int) -> None:
        projector.project("c", REQUESTS[i], _raw(i))

    project(0)
    project(1)
    project(0)  # a hit: 0 is now the most recently used
    project(2)  # evicts 1
    assert (len(shared), shared.misses, shared.hits) == (2, 3, 1)
    project(0)
    assert shared.hits == 2
    project(1)
    assert shared.misses == 4


def test_the_cache_holds_at_most_max_bytes() -> None:
    sizes = []
    for i in (0, 1, 2):
        probe = MinedBatchCache()
        LogsProjector(cache=probe).project("c", REQUESTS[i], _raw(i))
        sizes.append(probe.size_bytes)
    bound = sizes[1] + sizes[2]  # room for the last two batches, not for all three
    shared = MinedBatchCache(max_bytes=bound)
    projector = LogsProjector(cache=shared)
    for i in (0, 1, 2):
        projector.project("c", REQUESTS[i], _raw(i))
        assert shared.size_bytes <= bound
    assert (len(shared), shared.size_bytes) == (2, bound)
    for i in (1, 2):
        projector.project("c", REQUESTS[i], _raw(i))
    assert shared.hits == 2
    tiny = MinedBatchCache(max_bytes=sizes[0] - 1)
    LogsProjector(cache=tiny).project("c", REQUESTS[0], _raw(0))
    assert (len(tiny), tiny.size_bytes) == (0, 0)
    off = MinedBatchCache(max_entries=0)
    again = LogsProjector(cache=off).project("c", REQUESTS[0], _raw(0))
    assert len(off) == 0 and _json(again) == _json(_cold(0))


# ----------------------------------------------------------------------------- no raw text


def test_the_cache_keeps_no_raw_line() -> None:
    secrets = ["hunter2xyz", "10.0.3.17", "alice@example.com", "sk_live_51OuEMLAlTWGaDypq4P5c"]
    events = [
        {
            "ts": f"2026-11-02T14:00:{i:02d}Z",
            "service": "checkout-api",
            "level": "ERROR",
            "message": f"login {i} failed password={secrets[0]} from {secrets[1]} "
            f"mail {secrets[2]} key {secrets[3]}",
        }
        for i in range(40)
    ]
    raw = {"format": "embedded-jsonl/v1", "events": events, "matched": 40, "limit_hit": False}
    shared = MinedBatchCache()
    LogsProjector(cache=shared).project("c", REQUESTS[0], raw)
    held = repr(list(shared._entries.items()))
    assert len(shared) == 1
    assert [s for s in secrets if s in held] == []
    assert "login" in held  # the redacted template is what the cache holds


def test_the_digest_tells_apart_order_split_and_lone_surrogates() -> None:
    digests = {
        batch_digest(lines)
        for lines in (["a", "b"], ["b", "a"], ["ab"], ["a", "", "b"], ["\ud800"], ["\udc00"], [])
    }
    assert len(digests) == 7
