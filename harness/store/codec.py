"""How a canonical record is stored: JSON bytes, size-checked before anything is written."""

from __future__ import annotations

from pydantic import ValidationError
from pydantic_core import PydanticSerializationError

from harness.errors import ErrorCode, StoreError
from harness.invocation import CanonicalInvocation

__all__ = ["decode_record", "encode_record"]


def encode_record(record: CanonicalInvocation, *, max_record_bytes: int, op: str) -> bytes:
    """Serialise a record and enforce the size limit before anything is written.

    Raises:
        StoreError: RECORD_TOO_LARGE over ``max_record_bytes``; STORE_ERROR when the record
            holds something JSON cannot carry.
    """
    try:
        payload = record.model_dump_json().encode("utf-8")
    except PydanticSerializationError:
        raise StoreError(ErrorCode.STORE_ERROR, "record is not serialisable", {"op": op}) from None
    if len(payload) > max_record_bytes:
        raise StoreError(
            ErrorCode.RECORD_TOO_LARGE,
            "record exceeds max_record_bytes",
            {"op": op, "record_bytes": len(payload), "max_record_bytes": max_record_bytes},
        )
    return payload


def decode_record(payload: bytes | str, *, op: str) -> CanonicalInvocation:
    """Parse a stored record; a corrupt record fails closed as STORE_ERROR."""
    try:
        return CanonicalInvocation.model_validate_json(payload)
    except ValidationError:
        raise StoreError(ErrorCode.STORE_ERROR, "stored record is corrupt", {"op": op}) from None
