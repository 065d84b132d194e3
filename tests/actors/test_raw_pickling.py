"""A raw response crosses Ray's serialiser as its compressed frame and a named function."""

from __future__ import annotations

import pickle
import pickletools

from ray import cloudpickle

from harness.contracts.raw import RawResponse


def test_a_raw_response_pickles_by_reference_under_cloudpickle() -> None:
    raw = RawResponse.from_json(b'{"rows": [' + b",".join(b"[%d]" % i for i in range(200)) + b"]}")
    body = cloudpickle.dumps(raw, protocol=5)
    opcodes = {op.name for op, _, _ in pickletools.genops(body)}
    # Code pickled by value shows as cloudpickle's function builder; a reference as a global.
    assert b"_make_function" not in body and "STACK_GLOBAL" in opcodes
    assert len(body) < len(raw.compressed) + 100
    copy = pickle.loads(body)
    assert (copy, copy.json) == (raw, raw.json)
