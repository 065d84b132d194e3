"""RawCap: a byte count that stops a fetch past its cap, at the exact edge."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.contracts.errors import ErrorCode, RawTooLarge
from harness.contracts.rawcap import RawCap


def test_exactly_the_cap_passes_and_one_byte_more_is_raw_too_large() -> None:
    cap = RawCap(10)
    cap.charge(4)
    cap.charge(6)
    assert (cap.used, cap.remaining) == (10, 0)
    with pytest.raises(RawTooLarge) as caught:
        cap.charge(1)
    assert (caught.value.error_code, caught.value.context) == (
        ErrorCode.RAW_TOO_LARGE,
        {"max_raw_bytes": 10, "read_bytes": 11},
    )


def test_a_declared_size_is_refused_before_anything_is_charged() -> None:
    cap = RawCap(10)
    cap.charge(3)
    cap.admit(7)
    with pytest.raises(RawTooLarge) as caught:
        cap.admit(8)
    assert caught.value.context == {"max_raw_bytes": 10, "read_bytes": 11}
    assert cap.used == 3  # admitting counts nothing


def test_collect_joins_what_fits_and_stops_in_the_chunk_that_passes() -> None:
    assert RawCap(6).collect([b"ab", b"cd", b"ef"]) == b"abcdef"
    handed: list[bytes] = []

    def chunks() -> object:
        for chunk in (b"ab", b"cd", b"ef", b"gh"):
            handed.append(chunk)
            yield chunk

    with pytest.raises(RawTooLarge):
        RawCap(5).collect(chunks())  # type: ignore[arg-type]
    assert handed == [b"ab", b"cd", b"ef"]  # the fourth chunk is never asked for


def test_a_zero_cap_refuses_the_first_byte_and_a_negative_one_is_a_bug() -> None:
    RawCap(0).charge(0)
    with pytest.raises(RawTooLarge):
        RawCap(0).charge(1)
    with pytest.raises(ValueError):
        RawCap(-1)


@given(st.lists(st.integers(min_value=0, max_value=50)), st.integers(min_value=0, max_value=500))
def test_the_count_stops_exactly_when_the_sum_passes_the_cap(sizes: list[int], limit: int) -> None:
    cap = RawCap(limit)
    total = 0
    for size in sizes:
        total += size
        if total > limit:
            with pytest.raises(RawTooLarge):
                cap.charge(size)
            return
        cap.charge(size)
    assert cap.used == total <= limit


def test_the_error_crosses_a_process_boundary_with_its_context() -> None:
    with pytest.raises(RawTooLarge) as caught:
        RawCap(1).charge(2)
    clone = pickle.loads(pickle.dumps(caught.value))
    assert (type(clone), clone.error_code, clone.context) == (
        RawTooLarge,
        ErrorCode.RAW_TOO_LARGE,
        {"max_raw_bytes": 1, "read_bytes": 2},
    )
