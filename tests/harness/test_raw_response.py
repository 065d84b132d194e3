"""RawResponse built from pre-serialised parts is byte for byte the one serialised whole."""

from __future__ import annotations

import hashlib
import json
import pickle
from collections.abc import Sequence
from typing import Any

import pydantic_core
import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.contracts.errors import BackendError
from harness.contracts.raw import (
    _CHUNK_BYTES,
    RawResponse,
    by_reference,
    held_sources,
    share_source,
)

_scalars = st.none() | st.booleans() | st.integers() | st.text() | st.floats(allow_nan=False)
_json = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@given(
    head=st.dictionaries(st.text(), _json, max_size=4),
    items=st.lists(_json, max_size=6),
    tail=st.dictionaries(st.text(), _json, max_size=3),
    key=st.text(),
)
def test_parts_splice_into_the_same_bytes_as_the_whole(
    head: dict[str, Any], items: list[Any], tail: dict[str, Any], key: str
) -> None:
    value = {**head, key: items, **{k: v for k, v in tail.items() if k != key}}
    spliced = RawResponse.of_parts(value, key, [pydantic_core.to_json(i) for i in items])
    whole = RawResponse.of(value)
    assert spliced.json == whole.json
    assert spliced.size == whole.size
    assert spliced.value() is value
    assert RawResponse.from_compressed(spliced.compressed).value() == pydantic_core.from_json(
        whole.json
    )


@given(
    items=st.lists(
        st.binary(min_size=0, max_size=40_000).map(lambda b: pydantic_core.to_json(b.hex())),
        max_size=40,
    ),
    before=st.booleans(),
)
def test_parts_compress_to_the_whole_without_being_joined(items: list[bytes], before: bool) -> None:
    """The frame made from the parts (in chunks; up to ~3 MB here, so across chunk borders)
    holds exactly the whole's bytes and records their size, whether or not the JSON was
    asked for first."""
    value = {"format": "f", "events": [pydantic_core.from_json(i) for i in items], "n": 1}
    if not before:
        value = {"events": value["events"], "format": "f", "n": 1}
    whole = RawResponse.of(value).json
    spliced = RawResponse.of_parts(value, "events", items)
    frame = spliced.compressed
    received = RawResponse.from_compressed(frame)
    assert (received.size, received.json, spliced.json) == (len(whole), whole, whole)


def test_parts_under_a_key_the_value_lacks_are_the_value_alone() -> None:
    value = {"format": "f", "matched": 0}
    raw = RawResponse.of_parts(value, "events", [])
    assert (raw.json, RawResponse.from_compressed(raw.compressed).json) == (
        RawResponse.of(value).json,
        RawResponse.of(value).json,
    )


def test_the_list_goes_under_its_key_whatever_the_other_members_hold() -> None:
    value = {"format": '"events":[]', "x": {"events": []}, "events": [1, 2], "note": "]"}
    raw = RawResponse.of_parts(value, "events", [b"1", b"2"])
    assert raw.json == RawResponse.of(value).json


def test_a_raw_response_is_its_own_raw() -> None:
    raw = RawResponse.of({"a": 1})
    assert RawResponse.of(raw) is raw


def test_parts_that_are_not_json_are_a_backend_error() -> None:
    with pytest.raises(BackendError):
        RawResponse.of_parts({"events": [], "bad": object()}, "events", [])


@pytest.mark.parametrize(
    "sizes",
    [
        [_CHUNK_BYTES],  # one item, exactly a chunk
        [_CHUNK_BYTES - 2, 1, 1],  # a chunk that ends on an item, then one more
        [_CHUNK_BYTES * 3, 5],  # one item larger than several chunks
        [7] * 50_000,  # many small items, many chunks
        [_CHUNK_BYTES // 2] * 5,  # chunks of two items each, the last alone
    ],
)
def test_chunk_borders_lose_and_add_nothing(sizes: list[int]) -> None:
    items = [pydantic_core.to_json("x" * max(size - 2, 0)) for size in sizes]
    value = {"events": [pydantic_core.from_json(i) for i in items], "n": len(items)}
    raw = RawResponse.of_parts(value, "events", items)
    assert RawResponse.from_compressed(raw.compressed).json == RawResponse.of(value).json


class _Items:
    """A store of items, as a SharedSource: the raw's items are its items."""

    def __init__(self, items: list[bytes]) -> None:
        self.items = items
        self.identity = hashlib.sha256(b"\n".join(items)).hexdigest()

    def json_at(self, positions: Sequence[int]) -> list[bytes]:
        return [self.items[p] for p in positions]


def _shared_raw(store: _Items, positions: list[int]) -> RawResponse:
    value = {"format": "x", "events": [json.loads(store.items[p]) for p in positions], "n": 2}
    items = store.json_at(positions)
    return RawResponse.of_parts(value, "events", items, shared=True, source=(store, positions))


def test_a_shared_raw_crosses_by_reference_only_to_a_holder_that_declared_its_store() -> None:
    store = _Items([json.dumps({"i": i, "msg": "x" * i}).encode() for i in range(50)])
    share_source(store)
    raw = _shared_raw(store, [3, 7, 8, 41])
    assert store.identity in held_sources()
    plain = pickle.dumps(raw)  # no declaration: the compressed frame
    with by_reference(frozenset({store.identity})):
        referred = pickle.dumps(raw)
    assert b"_from_source" in referred and b"_from_compressed" in plain
    back = pickle.loads(referred)
    assert back.json == raw.json == pickle.loads(plain).json
    assert back.shared and back.shared_parts() is not None  # made of this process's items
    # A declaration naming other stores changes nothing.
    with by_reference(frozenset({"0" * 64})):
        assert b"_from_compressed" in pickle.dumps(raw)


def test_a_reference_to_a_store_this_process_does_not_hold_is_refused() -> None:
    store = _Items([b'{"a":1}', b'{"b":2}'])  # never shared here
    raw = _shared_raw(store, [1, 0])
    with by_reference(frozenset({store.identity})):
        referred = pickle.dumps(raw)
    with pytest.raises(ValueError, match="does not hold"):
        pickle.loads(referred)
