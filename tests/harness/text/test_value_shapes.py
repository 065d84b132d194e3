"""The table of value shapes, walked: each shape matches its examples whole and none of its
look-alikes, whatever digits its examples hold."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.text.shapes import SHAPES, Shape, ipv4_octets_valid

_BY_NAME = {shape.name: shape for shape in SHAPES}


def test_names_are_unique_and_every_shape_has_examples_and_lookalikes() -> None:
    assert len(_BY_NAME) == len(SHAPES)
    for shape in SHAPES:
        assert shape.examples and shape.lookalikes, shape.name


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.name)
def test_a_shape_matches_its_examples_and_not_its_lookalikes(shape: Shape) -> None:
    pattern = re.compile(shape.pattern)
    assert [e for e in shape.examples if not pattern.fullmatch(e)] == []
    assert [e for e in shape.lookalikes if pattern.fullmatch(e)] == []


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.name)
def test_a_shape_combines_into_an_alternation(shape: Shape) -> None:
    # No named group and no anchor: readers join shapes into one pattern with their own
    # boundaries around each.
    assert re.compile(shape.pattern).groupindex == {}
    assert not shape.pattern.startswith(("^", r"\A")) and not shape.pattern.endswith(("$", r"\Z"))


@given(st.data())
def test_a_shape_treats_the_ten_digits_alike(data: st.DataObject) -> None:
    # The miner reuses how one content was masked for every content with digits at the same
    # places; a shape that told digits apart would make that reuse wrong.
    shape = data.draw(st.sampled_from(SHAPES))
    example = data.draw(st.sampled_from(shape.examples))
    changed = "".join(
        data.draw(st.sampled_from("0123456789")) if c.isdigit() else c for c in example
    )
    assert re.fullmatch(shape.pattern, changed), (shape.name, example, changed)


@pytest.mark.parametrize(
    ("address", "valid"),
    [
        ("10.0.3.17", True),
        ("255.255.255.255", True),
        ("010.000.003.017", True),
        ("256.1.1.1", False),
        ("1.2.3.999", False),
        ("::ffff:10.0.0.1", True),
        ("[::ffff:300.0.0.1]:80", False),
        ("fe80::1", True),
        ("10.0.3.17:5432", True),
    ],
)
def test_octets_tell_a_real_address_from_its_look(address: str, valid: bool) -> None:
    assert ipv4_octets_valid(address) is valid
