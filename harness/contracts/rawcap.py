"""RawCap: the raw bytes one backend fetch may fill, counted while the response streams.

A raw response over the limit ends its call in ERROR, never truncated (a truncated raw could
not be told from what the backend returned), and a fetch must find that out before it holds the response, not after: a backend
that materialises a result and measures it afterwards has already spent the memory. So the
executor hands every fetch the bytes it may fill (``ToolBackend.fetch(request,
max_raw_bytes=…)``), and the backend makes one :class:`RawCap` of them and charges it with
every piece it reads — a database row, a chunk of a file, a chunk of an HTTP body — so that
the fetch stops with :class:`~harness.contracts.errors.RawTooLarge` the moment the count passes the cap.

The count is a guard on memory, not the booking: what a run's budget books is the size of
the serialised raw (:attr:`harness.contracts.raw.RawResponse.size`), which the boundary checks after the
fetch as before. A backend counts what it can count cheaply while it reads (the bytes of a
file, of a body, a row's JSON); those are never fewer than the bytes the raw will carry of
them, so a response the count lets through may still be refused by the exact check, while a
response the count stops could never have fitted.
"""

from __future__ import annotations

from collections.abc import Iterable

from harness.contracts.errors import RawTooLarge

__all__ = ["RawCap"]


class RawCap:
    """A running byte count that raises :class:`~harness.contracts.errors.RawTooLarge` past its cap.

    One per fetch; not shared between threads.

    Args:
        max_raw_bytes: The bytes the fetch may fill; a count of exactly this many passes,
            one byte more does not.

    Raises:
        ValueError: ``max_raw_bytes`` is negative.
    """

    __slots__ = ("max_raw_bytes", "used")

    def __init__(self, max_raw_bytes: int) -> None:
        if max_raw_bytes < 0:
            raise ValueError("max_raw_bytes must be >= 0")
        self.max_raw_bytes = max_raw_bytes
        self.used = 0
        """Bytes charged so far."""

    @property
    def remaining(self) -> int:
        """Bytes that may still be charged before the cap is passed."""
        return max(0, self.max_raw_bytes - self.used)

    def charge(self, n_bytes: int) -> None:
        """Count ``n_bytes`` more.

        Raises:
            RawTooLarge: The count passed the cap (the bytes are counted all the same).
        """
        self.used += n_bytes
        if self.used > self.max_raw_bytes:
            raise self.too_large(self.used)

    def admit(self, declared_bytes: int) -> None:
        """Refuse, before reading, a size declared up front (an HTTP ``Content-Length``, the
        size of the files to read) that would pass the cap; nothing is charged.

        Raises:
            RawTooLarge: ``declared_bytes`` more would pass the cap.
        """
        if self.used + declared_bytes > self.max_raw_bytes:
            raise self.too_large(self.used + declared_bytes)

    def collect(self, chunks: Iterable[bytes]) -> bytes:
        """The chunks of a stream joined, each charged as it arrives.

        Raises:
            RawTooLarge: The stream passed the cap; what was read so far is dropped.
        """
        # Kept as the chunks that came (a growing buffer would copy itself as it grows)
        # and joined once: at most the cap while reading.
        received: list[bytes] = []
        for chunk in chunks:
            self.charge(len(chunk))
            received.append(chunk)
        return b"".join(received)

    def too_large(self, read_bytes: int) -> RawTooLarge:
        """The error for a response known to be at least ``read_bytes`` long without reading
        it (a database that refused to hand over a value longer than the cap, say)."""
        return RawTooLarge(
            message="the fetch passed the raw byte cap",
            context={"max_raw_bytes": self.max_raw_bytes, "read_bytes": read_bytes},
        )

    def __repr__(self) -> str:
        return f"RawCap({self.used}/{self.max_raw_bytes} bytes)"
