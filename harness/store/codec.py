"""How a canonical record is stored, size-checked before anything is written.

Format 2 (written)::

    b"DH2\\n" + <the record as JSON, without raw> + b"\\n" + <raw section>

The raw section is empty (no raw) or ``z`` + the raw's zstd frame (:class:`RawResponse`'s
compressed form, which records its content size). A store in this process may keep a raw made
of shared parts (:meth:`RawResponse.shared_parts`) beside the payload instead: its section is
then ``k`` alone, and only that store can read the record back (:func:`encode_record_beside`).
The record's JSON holds no raw newline (JSON escapes them), so the first line after the tag is
the envelope: a store's atomic script reads the status from it without touching the raw, and a
reader keeps the frame as it is — nothing is decompressed until the raw is looked at (a 7.9 MB
log query is a ~90 KB frame). Format 1 (read only) is
the whole record as one JSON document with the raw value inline as ``raw_response``; records of
that format written before an upgrade stay readable until their TTL ends.

The size limit counts the logical record — envelope plus the raw JSON — not the compressed bytes,
so that RECORD_TOO_LARGE does not depend on how well a response compresses.
"""

from __future__ import annotations

import json
from typing import Any

import pydantic_core
from pydantic import ValidationError
from pydantic_core import PydanticSerializationError

from harness.contracts.errors import ErrorCode, StoreError
from harness.contracts.invocation import CanonicalInvocation
from harness.contracts.raw import RawResponse

__all__ = ["FORMAT_TAG", "decode_record", "encode_record", "encode_record_beside"]

FORMAT_TAG = b"DH2\n"
_RAW_ZSTD = b"z"
_RAW_BESIDE = b"k"


def encode_record(record: CanonicalInvocation, *, max_record_bytes: int, op: str) -> bytes:
    """Serialise a record and enforce the size limit before anything is written.

    Raises:
        StoreError: RECORD_TOO_LARGE over ``max_record_bytes``; STORE_ERROR when the record
            holds something JSON cannot carry.
    """
    envelope = _envelope(record, max_record_bytes=max_record_bytes, op=op)
    raw = record.raw
    section = b"" if raw is None else _RAW_ZSTD + raw.compressed
    return b"".join((FORMAT_TAG, envelope, b"\n", section))


def encode_record_beside(
    record: CanonicalInvocation, *, max_record_bytes: int, op: str
) -> tuple[bytes, RawResponse | None]:
    """:func:`encode_record` for a store in this process, which may keep the raw beside.

    A raw made of shared parts is not compressed: the payload's section says ``k`` and the raw
    (its parts alone) is returned second, for the store to keep and hand back to
    :func:`decode_record`. Any other raw is encoded as :func:`encode_record` does (second:
    None). The size limit is the same either way.
    """
    raw = record.raw
    beside = None if raw is None else raw.shared_parts()
    if beside is None:
        return encode_record(record, max_record_bytes=max_record_bytes, op=op), None
    envelope = _envelope(record, max_record_bytes=max_record_bytes, op=op)
    return b"".join((FORMAT_TAG, envelope, b"\n", _RAW_BESIDE)), beside


def _envelope(record: CanonicalInvocation, *, max_record_bytes: int, op: str) -> bytes:
    try:
        envelope = record.model_dump_json(exclude={"raw"}).encode("utf-8")
    except PydanticSerializationError:
        raise StoreError(ErrorCode.STORE_ERROR, "record is not serialisable", {"op": op}) from None
    raw = record.raw
    size = len(envelope) + (raw.size if raw is not None else 0)
    if size > max_record_bytes:
        raise StoreError(
            ErrorCode.RECORD_TOO_LARGE,
            "record exceeds max_record_bytes",
            {"op": op, "record_bytes": size, "max_record_bytes": max_record_bytes},
        )
    return envelope


def decode_record(
    payload: bytes | str, *, op: str, beside: RawResponse | None = None
) -> CanonicalInvocation:
    """Parse a stored record of either format; a corrupt record fails closed as STORE_ERROR.

    ``beside`` is the raw :func:`encode_record_beside` returned with the payload (a record
    whose raw was kept beside cannot be read without it).
    """
    data = payload.encode("utf-8") if isinstance(payload, str) else payload
    try:
        if data.startswith(FORMAT_TAG):
            return _decode_v2(data, beside)
        return _decode_v1(data)
    except (ValidationError, ValueError):
        raise StoreError(ErrorCode.STORE_ERROR, "stored record is corrupt", {"op": op}) from None


def _decode_v2(data: bytes, beside: RawResponse | None) -> CanonicalInvocation:
    end = data.index(b"\n", len(FORMAT_TAG))
    fields: dict[str, Any] = pydantic_core.from_json(data[len(FORMAT_TAG) : end])
    section = data[end + 1 :]
    if section == _RAW_BESIDE:
        kept = None if beside is None else beside.shared_parts()
        if kept is None:
            raise ValueError("the raw kept beside the record is missing")
        fields["raw"] = kept  # a new object per read: nothing a reader derives stays kept
    elif section:
        if not section.startswith(_RAW_ZSTD):
            raise ValueError("unknown raw section")
        fields["raw"] = RawResponse.from_compressed(section[1:])
    return CanonicalInvocation.model_validate(fields)


def _decode_v1(data: bytes) -> CanonicalInvocation:
    fields = json.loads(data)
    if not isinstance(fields, dict) or fields.get("schema_version") != 1:
        raise ValueError("not a canonical record")
    raw = fields.pop("raw_response", None)
    fields["schema_version"] = 2
    fields["raw"] = None if raw is None else RawResponse.of(raw)
    return CanonicalInvocation.model_validate(fields)
