"""How a canonical record is stored, size-checked before anything is written.

Format 2 (written)::

    b"DH2\\n" + <the record as JSON, without raw> + b"\\n" + <raw section>

The raw section is empty (no raw) or ``z`` + the raw's zstd frame (:class:`RawResponse`'s
compressed form, which records its content size). The record's JSON holds no raw newline (JSON
escapes them), so the first line after the tag is the envelope: a store's atomic script reads
the status from it without touching the raw, and a reader keeps the frame as it is — nothing is
decompressed until the raw is looked at (a 7.9 MB log query is a ~90 KB frame). Format 1 (read only) is
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

from harness.errors import ErrorCode, StoreError
from harness.invocation import CanonicalInvocation
from harness.raw import RawResponse

__all__ = ["FORMAT_TAG", "decode_record", "encode_record"]

FORMAT_TAG = b"DH2\n"
_RAW_ZSTD = b"z"


def encode_record(record: CanonicalInvocation, *, max_record_bytes: int, op: str) -> bytes:
    """Serialise a record and enforce the size limit before anything is written.

    Raises:
        StoreError: RECORD_TOO_LARGE over ``max_record_bytes``; STORE_ERROR when the record
            holds something JSON cannot carry.
    """
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
    section = b"" if raw is None else _RAW_ZSTD + raw.compressed
    return b"".join((FORMAT_TAG, envelope, b"\n", section))


def decode_record(payload: bytes | str, *, op: str) -> CanonicalInvocation:
    """Parse a stored record of either format; a corrupt record fails closed as STORE_ERROR."""
    data = payload.encode("utf-8") if isinstance(payload, str) else payload
    try:
        if data.startswith(FORMAT_TAG):
            return _decode_v2(data)
        return _decode_v1(data)
    except (ValidationError, ValueError):
        raise StoreError(ErrorCode.STORE_ERROR, "stored record is corrupt", {"op": op}) from None


def _decode_v2(data: bytes) -> CanonicalInvocation:
    end = data.index(b"\n", len(FORMAT_TAG))
    fields: dict[str, Any] = pydantic_core.from_json(data[len(FORMAT_TAG) : end])
    section = data[end + 1 :]
    if section:
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
