"""A backend's raw response, serialised once: JSON bytes that travel, a value parsed on demand.

A log query's raw response can be megabytes. It is measured (the RAW byte budget), stored in the
canonical record and handed to a projector — three uses that each used to serialise or copy it.
:class:`RawResponse` is made where the backend runs: the JSON bytes are computed there once, and
they are all that crosses a process boundary (pickling drops the parsed value), so a Ray tool task
ships one bytes object, the run's actor stores those bytes as they are, and a projector in another
process parses them where it runs. In the process that fetched it, the original value is kept and
never parsed back.
"""

from __future__ import annotations

from typing import Any

import pydantic_core

from harness.errors import BackendError, ErrorCode

__all__ = ["RawResponse"]

_UNSET: Any = object()


class RawResponse:
    """One raw response as compact UTF-8 JSON, with its value when this process made it.

    Build it with :meth:`of` (from a backend's value) or :meth:`from_json` (stored bytes).
    """

    __slots__ = ("_value", "json")

    def __init__(self, json: bytes, value: Any = _UNSET) -> None:
        self.json = json
        self._value = value

    @classmethod
    def of(cls, value: Any) -> RawResponse:
        """Serialise a backend's JSON-compatible value once.

        Raises:
            BackendError: BACKEND_ERROR when the value has no JSON form.
        """
        try:
            return cls(pydantic_core.to_json(value), value)
        except pydantic_core.PydanticSerializationError:
            raise BackendError(ErrorCode.BACKEND_ERROR, "raw response is not JSON") from None

    @classmethod
    def from_json(cls, json: bytes) -> RawResponse:
        """Wrap stored or received JSON bytes; the value is parsed only when asked for."""
        return cls(json)

    @property
    def size(self) -> int:
        """Bytes of the JSON form (what the RAW budget and the record size count)."""
        return len(self.json)

    def value(self) -> Any:
        """The response as Python data (parsed from the bytes on first use, then kept)."""
        if self._value is _UNSET:
            self._value = pydantic_core.from_json(self.json)
        return self._value

    def __reduce__(self) -> tuple[Any, tuple[bytes]]:
        # Only the bytes cross a process boundary; the receiver parses them if it needs to.
        return (RawResponse.from_json, (self.json,))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RawResponse) and other.json == self.json

    def __hash__(self) -> int:
        return hash(self.json)

    def __repr__(self) -> str:
        return f"RawResponse({self.size} bytes)"
