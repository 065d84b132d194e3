"""The canonical record codec: every record round-trips; format-1 records still read."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pydantic_core
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.adapters.redis_store import fakeredis_store
from harness.contracts.errors import ErrorCode, StoreError
from harness.contracts.invocation import (
    LEGAL_STATUS_PAIRS,
    CanonicalInvocation,
    EvidenceStatus,
    InvocationStatus,
)
from harness.contracts.raw import _UNSET, RawResponse
from harness.store import decode_record, encode_record
from harness.store.codec import FORMAT_TAG, encode_record_beside
from tests.paths import FIXTURES

RECORDS = FIXTURES / "records"
LIMIT = 1 << 24

_text = st.text(st.characters(codec="utf-8"), max_size=40)
_json: st.SearchStrategy[Any] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _text,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(_text, inner, max_size=5),
    max_leaves=30,
)
_times = st.datetimes(
    min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)
)


@st.composite
def records(draw: st.DrawFn) -> CanonicalInvocation:
    status, evidence = draw(st.sampled_from(sorted(LEGAL_STATUS_PAIRS, key=str)))
    started = draw(_times)
    terminal = status is not InvocationStatus.PROJECTING
    raw = draw(st.none() | _json.map(pydantic_core.to_json)) if terminal else None
    return CanonicalInvocation(
        tool_call_id=draw(st.from_regex(r"call_[0-9a-f]{24}", fullmatch=True)),
        run_id=draw(st.from_regex(r"run-[0-9a-f]{20}", fullmatch=True)),
        tool_name=draw(st.sampled_from(["query_logs", "query_mysql", "search_knowledge"])),
        request={"arguments": draw(st.dictionaries(_text, _json, max_size=4)), "plan": None},
        raw=raw,
        agent_result=(
            draw(st.dictionaries(_text, _json, min_size=1, max_size=4))
            if status is InvocationStatus.READY
            else None
        ),
        invocation_status=status,
        evidence_status=evidence,
        error_code=(
            draw(st.sampled_from([ErrorCode.BACKEND_ERROR, ErrorCode.CANCELLED]))
            if status is InvocationStatus.ERROR
            else None
        ),
        started_at=started,
        completed_at=started + timedelta(milliseconds=draw(st.integers(0, 10**6)))
        if terminal
        else None,
    )


@settings(max_examples=300, deadline=None)
@given(records())
def test_every_record_round_trips(record: CanonicalInvocation) -> None:
    payload = encode_record(record, max_record_bytes=LIMIT, op="t")
    assert payload.startswith(FORMAT_TAG)
    # The envelope is one line: a store's script finds the status without touching the raw.
    envelope = payload[len(FORMAT_TAG) : payload.index(b"\n", len(FORMAT_TAG))]
    assert json.loads(envelope)["invocation_status"] == record.invocation_status.value
    assert decode_record(payload, op="t") == record
    if record.raw is not None:
        assert record.raw_response() == pydantic_core.from_json(record.raw.json)


@settings(max_examples=100, deadline=None)
@given(_json)
def test_a_raw_response_crosses_a_process_boundary_as_its_compressed_frame_only(value: Any) -> None:
    import pickle

    raw = RawResponse.of(value)
    received = pickle.loads(pickle.dumps(raw))
    assert received.json == raw.json and received.size == len(raw.json)
    assert received.value() == pydantic_core.from_json(raw.json)
    # Only the compressed frame travels: no JSON, no parsed value.
    assert len(pickle.dumps(raw)) <= len(raw.compressed) + 128


@pytest.mark.parametrize("name", ["ready", "error", "projecting"])
def test_a_record_written_by_format_1_still_reads(name: str) -> None:
    old = (RECORDS / f"v1_{name}.json").read_bytes()
    fields = json.loads(old)
    assert fields["schema_version"] == 1
    record = decode_record(old, op="t")
    assert record.invocation_status.value == fields["invocation_status"]
    assert record.raw_response() == fields["raw_response"]
    assert record.agent_result == fields["agent_result"]
    assert record.started_at == datetime.fromisoformat(fields["started_at"])
    # Read once, it is rewritten in format 2 and reads back equal.
    assert decode_record(encode_record(record, max_record_bytes=LIMIT, op="t"), op="t") == record


def test_a_format_1_record_in_redis_still_transitions() -> None:
    """Records begun before an upgrade finish after it: the script reads both formats."""
    old = (RECORDS / "v1_projecting.json").read_bytes()
    fields = json.loads(old)

    async def body() -> CanonicalInvocation | None:
        store = fakeredis_store()
        key = store.key(fields["run_id"], fields["tool_call_id"])
        await store._client.set(key, old, ex=60)
        await store.mark_ready(
            fields["run_id"],
            fields["tool_call_id"],
            raw=RawResponse.from_json(b'{"events":[]}'),
            agent_result={"kind": "logs", "items": []},
            evidence_status=EvidenceStatus.NO_EVIDENCE,
            completed_at=datetime.fromisoformat(fields["started_at"]) + timedelta(seconds=1),
        )
        assert (await store._client.get(key)).startswith(FORMAT_TAG)
        return await store.get(fields["run_id"], fields["tool_call_id"])

    record = asyncio.run(body())
    assert record is not None and record.invocation_status is InvocationStatus.READY
    assert record.raw_response() == {"events": []}


def test_a_large_log_raw_is_stored_compressed_but_counted_whole() -> None:
    ready = decode_record((RECORDS / "v1_ready.json").read_bytes(), op="t")
    events = [
        {"ts": f"2026-11-02T14:{i % 60:02d}:00Z", "message": f"timeout {i}"} for i in range(20_000)
    ]
    raw = RawResponse.of({"events": events})
    big = ready.model_copy(update={"raw": raw})
    payload = encode_record(big, max_record_bytes=LIMIT, op="t")
    assert len(payload) < raw.size / 10
    # Read back, the raw stays compressed until it is looked at.
    stored = decode_record(payload, op="t")
    assert stored.raw is not None and stored.raw._json is None
    assert stored.raw.size == raw.size and stored.raw_response() == {"events": events}
    logical = len(big.model_dump_json(exclude={"raw"})) + raw.size
    with pytest.raises(StoreError) as caught:
        encode_record(big, max_record_bytes=logical - 1, op="t")
    assert caught.value.error_code is ErrorCode.RECORD_TOO_LARGE
    assert caught.value.context["record_bytes"] == logical
    assert encode_record(big, max_record_bytes=logical, op="t") == payload


@pytest.mark.parametrize(
    "payload",
    [
        FORMAT_TAG + b'{"schema_version":2',
        FORMAT_TAG + b"{}\n",
        FORMAT_TAG + b'{"invocation_status":"READY"}\nzgarbage',
        b'{"schema_version":3}',
        b"not json",
        b"",
    ],
    ids=["no-envelope-end", "empty-envelope", "bad-zstd", "unknown-version", "garbage", "empty"],
)
def test_a_corrupt_record_fails_closed(payload: bytes) -> None:
    with pytest.raises(StoreError) as caught:
        decode_record(payload, op="get")
    assert caught.value.error_code is ErrorCode.STORE_ERROR


def _shared_raw(events: int = 3) -> RawResponse:
    items = [pydantic_core.to_json({"n": n, "message": "x" * 100}) for n in range(events)]
    value = {"format": "f", "events": [pydantic_core.from_json(i) for i in items]}
    return RawResponse.of_parts(value, "events", items, shared=True)


def _ready(raw: RawResponse) -> CanonicalInvocation:
    return CanonicalInvocation(
        tool_call_id="call_1",
        run_id="run-1",
        tool_name="query_logs",
        request={},
        raw=raw,
        agent_result={"tool_call_id": "call_1"},
        invocation_status=InvocationStatus.READY,
        evidence_status=EvidenceStatus.EVIDENCE_FOUND,
        started_at=datetime(2026, 11, 2, 14, 5, tzinfo=UTC),
        completed_at=datetime(2026, 11, 2, 14, 5, 1, tzinfo=UTC),
    )


def test_a_shared_raw_is_kept_beside_its_record_and_never_compressed() -> None:
    raw = _shared_raw()
    payload, beside = encode_record_beside(_ready(raw), max_record_bytes=LIMIT, op="begin")
    assert payload.endswith(b"\nk") and beside is not None
    assert raw._compressed is None and beside._value is _UNSET  # no frame; the parts alone
    first = decode_record(payload, op="get", beside=beside)
    second = decode_record(payload, op="get", beside=beside)
    assert first.raw is not None and second.raw is not None
    assert first.raw is not second.raw  # a reader's own object: what it derives stays its own
    assert first.raw.json == raw.json and first.raw.value() == raw.value()
    assert beside._json is None
    assert first.model_dump(exclude={"raw"}) == _ready(raw).model_dump(exclude={"raw"})
    # Without its raw, a record kept beside cannot be read: it fails closed.
    with pytest.raises(StoreError) as missing:
        decode_record(payload, op="get")
    assert missing.value.error_code is ErrorCode.STORE_ERROR


def test_beside_or_not_the_record_size_limit_is_the_same() -> None:
    raw = _shared_raw(events=200)
    record = _ready(raw)
    whole = len(record.model_dump_json(exclude={"raw"}).encode()) + raw.size
    for encode in (encode_record, encode_record_beside):
        encode(record, max_record_bytes=whole, op="begin")
        with pytest.raises(StoreError) as over:
            encode(record, max_record_bytes=whole - 1, op="begin")
        assert over.value.error_code is ErrorCode.RECORD_TOO_LARGE


def test_a_raw_of_its_own_bytes_is_compressed_into_the_record_as_before() -> None:
    items = [b'{"n":1}']
    own = RawResponse.of_parts({"events": [{"n": 1}]}, "events", items)  # not shared
    for raw in (own, RawResponse.of({"a": 1})):
        payload, beside = encode_record_beside(_ready(raw), max_record_bytes=LIMIT, op="begin")
        assert beside is None
        assert payload == encode_record(_ready(raw), max_record_bytes=LIMIT, op="begin")
