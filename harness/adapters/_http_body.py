"""An HTTP response body read with a byte count: the one way the HTTP backends read one.

Private to :mod:`harness.adapters` (Loki, the RAG service). The body is streamed and every
byte is charged to the fetch's :class:`~harness.contracts.rawcap.RawCap` as it arrives, so a body past
the cap ends the call RAW_TOO_LARGE having held at most the cap; a ``Content-Length`` that
already declares more is refused before a byte of the body is read.

The backends ask for ``Accept-Encoding: identity`` (:data:`ACCEPT_IDENTITY`). A server that
compresses anyway is decoded here, a bounded piece at a time, and the *decoded* bytes are
counted: httpx's own decoders inflate a whole network chunk at once, and a chunk of a gzip
bomb inflates a thousandfold before anything could count it. An encoding other than gzip or
deflate is refused (BACKEND_ERROR): it cannot be read within the cap.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator

import httpx

from harness.contracts.errors import BackendError, ErrorCode
from harness.contracts.rawcap import RawCap

__all__ = ["ACCEPT_IDENTITY", "read_body"]

ACCEPT_IDENTITY = {"Accept-Encoding": "identity"}
"""Request headers that ask the server not to compress the body."""

# Most bytes one inflate step may produce: the count sees each piece before the next is made.
_PIECE_BYTES = 64 * 1024
# zlib's window bits for "a gzip or a zlib stream, whichever the header says".
_GZIP_OR_ZLIB = 32 + zlib.MAX_WBITS


def read_body(response: httpx.Response, cap: RawCap) -> bytes:
    """The decoded body of a streamed response, each byte charged to ``cap``.

    Raises:
        RawTooLarge: The declared length or the bytes read passed the cap.
        BackendError: BACKEND_ERROR for a content encoding other than gzip or deflate, or a
            body that does not inflate.
        httpx.HTTPError: The transport failed while the body streamed.
    """
    if response.is_stream_consumed:
        # A transport that does not stream (httpx.MockTransport, a cache) handed over a body
        # read and decoded already: there is nothing left to bound, only to count.
        cap.charge(len(response.content))
        return response.content
    encoding = response.headers.get("content-encoding", "").strip().lower()
    if encoding in ("", "identity"):
        declared = response.headers.get("content-length", "")
        if declared.isdigit():
            cap.admit(int(declared))
        return cap.collect(response.iter_raw())
    if encoding in ("gzip", "x-gzip", "deflate"):
        # A Content-Length counts the compressed bytes: it says nothing about the body's size.
        try:
            return cap.collect(_inflated(response.iter_raw()))
        except zlib.error as exc:
            raise BackendError(
                ErrorCode.BACKEND_ERROR, "the body does not inflate", {"encoding": encoding}
            ) from exc
    raise BackendError(
        ErrorCode.BACKEND_ERROR, "unsupported content encoding", {"encoding": encoding[:32]}
    )


def _inflated(chunks: Iterable[bytes]) -> Iterator[bytes]:
    inflater = zlib.decompressobj(_GZIP_OR_ZLIB)
    for chunk in chunks:
        pending = chunk
        while pending:
            yield inflater.decompress(pending, _PIECE_BYTES)
            pending = inflater.unconsumed_tail
    yield inflater.flush()
