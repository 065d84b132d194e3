"""The text encoding of a log file, told from its first bytes.

A byte-order mark names UTF-8, UTF-16 or UTF-32; UTF-16 without one shows as a NUL in every
other byte; otherwise the bytes are UTF-8 when they decode as UTF-8, else Windows-1252 when
they decode as it (the common case of a Western Windows host), else Latin-1. A sample with
NULs or control characters that no text holds is binary: it is named, never read as text.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

__all__ = ["TextEncoding", "detect_encoding"]

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
# Control characters text holds: tab, line feed, vertical tab, form feed, carriage return, escape.
_TEXT_CONTROLS = frozenset(b"\t\n\x0b\x0c\r\x1b")
_BINARY_SHARE = 0.05


@dataclass(frozen=True, kw_only=True)
class TextEncoding:
    """How a file's bytes read as text.

    Attributes:
        name: A Python codec name, or None for a binary file.
        bom: Whether the file starts with a byte-order mark.
    """

    name: str | None
    bom: bool = False

    @property
    def is_utf8(self) -> bool:
        """Whether the file is UTF-8 (with or without a byte-order mark)."""
        return self.name in ("utf-8", "utf-8-sig")


def detect_encoding(head: bytes) -> TextEncoding:
    """The encoding of a file whose first bytes are ``head`` (see the module docstring)."""
    for bom, name in _BOMS:
        if head.startswith(bom):
            return TextEncoding(name=name, bom=True)
    if len(head) >= 4:
        even, odd = head[0::2], head[1::2]
        if odd.count(0) > 0.4 * len(odd) and even.count(0) < 0.1 * len(even):
            return TextEncoding(name="utf-16-le")
        if even.count(0) > 0.4 * len(even) and odd.count(0) < 0.1 * len(odd):
            return TextEncoding(name="utf-16-be")
    controls = sum(1 for byte in head if byte < 32 and byte not in _TEXT_CONTROLS)
    if head and (0 in head or controls > _BINARY_SHARE * len(head)):
        return TextEncoding(name=None)
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        decoder.decode(head, final=False)  # a character cut at the sample's end is no error
    except UnicodeDecodeError:
        pass
    else:
        return TextEncoding(name="utf-8")
    try:
        head.decode("cp1252")
    except UnicodeDecodeError:
        return TextEncoding(name="latin-1")
    return TextEncoding(name="cp1252")
