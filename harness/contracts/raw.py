"""A backend's raw response, serialised once and compressed once, each form made when needed.

A log query's raw response can be megabytes. It is measured (the RAW byte budget), stored in the
canonical record and handed to a projector — uses that each used to serialise or copy it.
:class:`RawResponse` holds up to three forms of one response and derives each at most once:

- the **value** (Python data), kept where the backend made it and parsed elsewhere on demand;
- the **JSON** bytes (compact UTF-8), computed once where the backend ran — their length is what
  the RAW budget and the record size count;
- the **compressed** bytes (a zstd frame of the JSON), what the canonical store keeps and what
  crosses a process boundary: pickling sends only them (a 7.9 MB log query is ~90 KB), so a Ray
  tool task compresses in its own process, the run's actor stores the frame as it came, and a
  projector elsewhere decompresses and parses where it runs.

A record read back from the store carries the frame only; nothing is decompressed unless the
raw is actually looked at (EvidenceGuard never does).

**By reference.** A raw made of a store's shared items (the events of a log store, each event's
JSON kept by the store) can cross to a process that holds *the same store* without its bytes:
what is pickled is the store's identity (a SHA-256 of its content), the positions of the items
and the object around them, and the receiver rebuilds the parts from its own copy (one
reference per item, no compression, no copy). The sender pickles so only inside
:func:`by_reference`, naming the stores the receiver declared it holds (:func:`held_sources`),
so a receiver never meets a reference it cannot resolve; a raw of any other store, or with no
such declaration, still travels as its frame. A log query's frame costs ~13 ms of CPU to make
for the demo's two log calls (9.6 MB of JSON), the reference a few hundred bytes.
"""

from __future__ import annotations

import threading
import weakref
from array import array
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from itertools import accumulate
from typing import Any, Protocol

import pydantic_core
import zstandard
from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema

from harness.contracts.errors import BackendError, ErrorCode

__all__ = ["RawResponse", "SharedSource", "by_reference", "held_sources", "share_source"]

_UNSET: Any = object()
# Level 1: log JSON compresses ~11x at it (the demo's log queries); faster levels gain little
# CPU here and lose ratio.
_COMPRESS_LEVEL = 1
# Parts are compressed in chunks of about this many bytes (well inside a core's L2 cache).
_CHUNK_BYTES = 128 * 1024


class RawResponse:
    """One raw response; build it with :meth:`of`, :meth:`from_json` or :meth:`from_compressed`."""

    __slots__ = (
        "__weakref__",
        "_compressed",
        "_json",
        "_parts",
        "_shared",
        "_source",
        "_value",
        "size",
    )

    def __init__(
        self,
        *,
        size: int,
        json: bytes | None = None,
        compressed: bytes | None = None,
        value: Any = _UNSET,
        parts: _Parts | None = None,
        shared: bool = False,
        source: tuple[SharedSource, array[int]] | None = None,
    ) -> None:
        if json is None and compressed is None and parts is None:
            raise ValueError("a raw response needs its JSON, its parts or its compressed form")
        self.size = size
        """Bytes of the JSON form."""
        self._json = json
        self._compressed = compressed
        self._value = value
        self._parts = parts
        self._shared = shared and parts is not None
        # The store the parts are items of, and their positions in it (see "By reference").
        self._source = source if self._shared else None

    @classmethod
    def of(cls, value: Any) -> RawResponse:
        """Serialise a backend's JSON-compatible value once (a RawResponse is itself).

        Raises:
            BackendError: BACKEND_ERROR when the value has no JSON form.
        """
        if isinstance(value, RawResponse):
            return value
        try:
            json = pydantic_core.to_json(value)
        except pydantic_core.PydanticSerializationError:
            raise BackendError(ErrorCode.BACKEND_ERROR, "raw response is not JSON") from None
        return cls(size=len(json), json=json, value=value)

    @classmethod
    def of_parts(
        cls,
        value: dict[str, Any],
        key: str,
        items: Sequence[bytes],
        *,
        shared: bool = False,
        source: tuple[SharedSource, Sequence[int]] | None = None,
    ) -> RawResponse:
        """The raw response of ``value`` whose list ``value[key]`` is already serialised.

        ``items`` holds the list's elements, each serialised (what a store that keeps each
        record's JSON has at hand); every other member is serialised here, and the object is
        written member by member as ``of`` writes it (compact), so the bytes equal
        ``of(value).json``. They are not joined here: the compressed form is made from the
        parts, a chunk at a time, so a multi-megabyte response is never laid out whole unless
        its JSON is asked for.

        ``shared``: the items are kept anyway by an owner that outlives any record (the
        embedded log store keeps each event's JSON), so holding them costs references, not
        bytes: a store in this process may keep such a raw as its parts (:meth:`shared_parts`)
        instead of compressing it.

        ``source``: the store the items come from and their positions in it, when ``shared``;
        such a raw may cross to a process holding the same store by reference (see the module
        docstring).

        Raises:
            BackendError: BACKEND_ERROR when the rest of the value has no JSON form.
        """
        to_json = pydantic_core.to_json
        head: list[bytes] = [b"{"]
        tail: list[bytes] = []
        pieces, found = head, False
        try:
            for index, (k, v) in enumerate(value.items()):
                pieces.append(b"," + to_json(k) if index else to_json(k))
                if k == key:
                    pieces.append(b":[")
                    pieces, found = tail, True
                    pieces.append(b"]")
                else:
                    pieces.append(b":" + to_json(v))
        except pydantic_core.PydanticSerializationError:
            raise BackendError(ErrorCode.BACKEND_ERROR, "raw response is not JSON") from None
        pieces.append(b"}")
        if not found:  # no such member: nothing to splice
            json = b"".join(head)
            return cls(size=len(json), json=json, value=value)
        parts = _Parts(b"".join(head), tuple(items), b"".join(tail))
        held = None if source is None else (source[0], array("q", source[1]))
        return cls(size=parts.size, parts=parts, value=value, shared=shared, source=held)

    @property
    def shared(self) -> bool:
        """Whether this raw is made of shared parts (see :meth:`of_parts`)."""
        return self._shared

    def shared_parts(self) -> RawResponse | None:
        """A new raw made of this one's shared parts alone (no value, no JSON, no frame), or
        None when this raw is not made of shared parts (see :meth:`of_parts`).

        What an in-process store keeps instead of the compressed frame: a few bytes per item.
        Each call makes a new object, so whatever a reader derives from one (its JSON, its
        value) is never kept by the store."""
        if not self._shared:
            return None
        assert self._parts is not None
        return RawResponse(size=self.size, parts=self._parts, shared=True, source=self._source)

    @classmethod
    def from_json(cls, json: bytes) -> RawResponse:
        """Wrap JSON bytes; the value is parsed only when asked for."""
        return cls(size=len(json), json=json)

    @classmethod
    def from_compressed(cls, compressed: bytes) -> RawResponse:
        """Wrap a zstd frame (as stored or received); nothing is decompressed yet.

        Raises:
            ValueError: The bytes are not a zstd frame that records its content size.
        """
        try:
            size = zstandard.frame_content_size(compressed)
        except zstandard.ZstdError as exc:
            raise ValueError("not a zstd frame") from exc
        if size < 0:  # unknown or invalid: every frame this module writes records its size
            raise ValueError("zstd frame without a content size")
        return cls(size=size, compressed=compressed)

    @property
    def json(self) -> bytes:
        """The JSON bytes (decompressed on first use).

        Raises:
            ValueError: The compressed form is corrupt.
        """
        parts = self._parts
        if self._json is None and parts is not None:
            self._json = parts.joined()
        if self._json is None:
            assert self._compressed is not None
            try:
                json = zstandard.ZstdDecompressor().decompress(
                    self._compressed, max_output_size=self.size
                )
            except zstandard.ZstdError as exc:
                raise ValueError("corrupt zstd frame") from exc
            if len(json) != self.size:
                raise ValueError("zstd frame does not match its content size")
            self._json = json
        return self._json

    @property
    def compressed(self) -> bytes:
        """The zstd frame of the JSON (compressed on first use)."""
        if self._compressed is None:
            # A compressor is not safe to share between threads; one per call costs µs.
            compressor = zstandard.ZstdCompressor(level=_COMPRESS_LEVEL, write_content_size=True)
            parts = self._parts
            if parts is not None:
                self._compressed = parts.compressed(compressor)
            else:
                self._compressed = compressor.compress(self.json)
        return self._compressed

    def value(self) -> Any:
        """The response as Python data (parsed on first use, then kept)."""
        if self._value is _UNSET:
            self._value = pydantic_core.from_json(self.json)
        return self._value

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Only the compressed frame (or a reference, see the module docstring) crosses a
        # process boundary, rebuilt by a module-level function: cloudpickle (Ray's serialiser)
        # cannot find a bound classmethod under its qualified name, so it would pickle the
        # method's code by value with every response (a sys.modules scan and ~1 KB per pickle,
        # and a function built per unpickle).
        source = self._source
        if source is not None and source[0].identity in _REFERENCES.get():
            parts = self._parts
            assert parts is not None
            positions = source[1].tobytes()
            return (
                _from_source,
                (source[0].identity, parts.head, positions, parts.tail, self.size),
            )
        return (_from_compressed, (self.compressed,))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, RawResponse) and other.size == self.size and other.json == self.json
        )

    def __hash__(self) -> int:
        return hash((self.size, self.json))

    def __repr__(self) -> str:
        return f"RawResponse({self.size} bytes)"

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        # In a pydantic model: a RawResponse, or JSON bytes wrapped as one; serialised (when a
        # model is dumped whole) as the JSON text.
        return core_schema.no_info_before_validator_function(
            _coerce,
            core_schema.is_instance_schema(cls),
            serialization=core_schema.plain_serializer_function_ser_schema(
                lambda raw: raw.json.decode("utf-8"), when_used="json"
            ),
        )


class _Parts:
    """A JSON object whose one list is held as its serialised items: ``head`` (up to the
    list's ``[``), the items (to be separated by commas) and ``tail`` (from its ``]``)."""

    __slots__ = ("head", "items", "size", "tail")

    def __init__(self, head: bytes, items: tuple[bytes, ...], tail: bytes) -> None:
        self.head, self.items, self.tail = head, items, tail
        self.size = len(head) + sum(map(len, items)) + max(len(items) - 1, 0) + len(tail)

    def joined(self) -> bytes:
        return b"".join((self.head, b",".join(self.items), self.tail))

    def compressed(self, compressor: zstandard.ZstdCompressor) -> bytes:
        """One zstd frame (recording its content size) of the joined bytes, fed in chunks of
        about ``_CHUNK_BYTES``: each chunk is joined while it fits in cache, compressed and
        dropped, instead of writing the whole JSON out and reading it back. Where each chunk
        ends is found on the running total of the items' sizes (``bisect``), so the items are
        visited at C speed, not one by one in Python."""
        stream = compressor.compressobj(size=self.size)
        out = [stream.compress(self.head)]
        items = self.items
        count = len(items)
        ends = list(accumulate(map(len, items)))
        start = 0
        while start < count:
            # The chunk runs to the first item that brings it to _CHUNK_BYTES, inclusive.
            base = ends[start - 1] if start else 0
            stop = min(bisect_left(ends, base + _CHUNK_BYTES, start), count - 1) + 1
            # A chunk ends with the comma that separates it from the next item.
            chunk = (*items[start:stop], b"") if stop < count else items[start:stop]
            out.append(stream.compress(b",".join(chunk)))
            start = stop
        out.append(stream.compress(self.tail))
        out.append(stream.flush())
        return b"".join(out)


def _from_compressed(compressed: bytes) -> RawResponse:
    return RawResponse.from_compressed(compressed)


def _from_source(
    identity: str, head: bytes, positions: bytes, tail: bytes, size: int
) -> RawResponse:
    """A raw pickled by reference, rebuilt from this process's copy of its store.

    Raises:
        ValueError: This process holds no store of that identity, or the rebuilt raw is not
            the size it was (never, for a sender that honoured the receiver's declaration).
    """
    with _LOCK:
        source = _SOURCES.get(identity)
    if source is None:
        raise ValueError("a raw refers to a store this process does not hold")
    at = array("q")
    at.frombytes(positions)
    parts = _Parts(head, tuple(source.json_at(at)), tail)
    if parts.size != size:
        raise ValueError("a raw rebuilt by reference does not match its size")
    return RawResponse(size=size, parts=parts, shared=True, source=(source, at))


class SharedSource(Protocol):
    """A store whose items a raw may be made of, and be pickled by reference to
    (:mod:`harness.backends._log_store`'s LogStore)."""

    @property
    def identity(self) -> str:
        """A digest of the store's content: equal identities, equal items at every position."""
        ...

    def json_at(self, positions: Sequence[int]) -> list[bytes]:
        """The JSON of the items at ``positions``, in order."""
        ...


# The stores of this process (weakly: a store goes with its backend), and those whose
# identity was asked for, by identity.
_CANDIDATES: weakref.WeakSet[SharedSource] = weakref.WeakSet()
_SOURCES: weakref.WeakValueDictionary[str, SharedSource] = weakref.WeakValueDictionary()
_LOCK = threading.Lock()
# The identities a pickle in this context may refer to (what the receiver holds).
_REFERENCES: ContextVar[frozenset[str]] = ContextVar("raw_references", default=frozenset())


def share_source(source: SharedSource) -> None:
    """Make ``source`` a store raws may refer to in this process (see :func:`held_sources`).
    Its identity is computed only when a sender asks what this process holds."""
    with _LOCK:
        _CANDIDATES.add(source)


def held_sources() -> frozenset[str]:
    """The identities of the stores this process holds: what a sender may refer to in the raws
    it sends here (each store's identity is computed on the first ask)."""
    with _LOCK:
        candidates = list(_CANDIDATES)
    identities = {source.identity: source for source in candidates}
    with _LOCK:
        _SOURCES.update(identities)
    return frozenset(identities)


@contextmanager
def by_reference(identities: frozenset[str]) -> Iterator[None]:
    """Within the block, a raw of a store named in ``identities`` pickles as a reference."""
    token = _REFERENCES.set(identities)
    try:
        yield
    finally:
        _REFERENCES.reset(token)


def _coerce(value: Any) -> Any:
    if isinstance(value, bytes | bytearray):
        return RawResponse.from_json(bytes(value))
    return value
