"""How a runbook's markdown becomes what BM25 indexes: chunks along headings and paragraphs
(:func:`chunk_markdown`), and the tokens of a text (:func:`tokenize`)."""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = ["chunk_markdown", "tokenize"]

# A word list reads best as text.
_STOPWORDS = frozenset(
    """
    a an and are as at be but by can do does for from has have how i if in into is it its not of
    on or our out so such than that the their then there these this to was we were what when
    where which who why will with you your
    """.split()  # noqa: SIM905
)
# A compound token keeps its inner punctuation (``hikaripool-1``, ``10.0.0.7``, ``user_id``);
# its alphanumeric parts and camelCase words are indexed as sub-tokens as well.
_COMPOUND = re.compile(r"[A-Za-z0-9]+(?:[-_.:/][A-Za-z0-9]+)*")
_PART = re.compile(r"[A-Za-z0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_HEADING = re.compile(r"^#{1,6}\s+\S")
_FENCE = re.compile(r"^\s*(```|~~~)")


def _normalize(word: str) -> str:
    # A minimal plural fold so "connections" meets "connection"; heavier stemming would merge
    # identifiers that operators search for verbatim.
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def tokenize(text: str) -> list[str]:
    """Lower-case BM25 tokens of ``text``: compounds, their parts and camelCase words.

    ``"HikariPool-1 5xx"`` yields ``hikaripool-1``, ``hikaripool``, ``hikari``, ``pool``,
    ``5xx``. Stopwords and one-character sub-tokens are dropped; a compound is kept whole.
    """
    tokens: list[str] = []
    for match in _COMPOUND.finditer(text):
        compound = match.group(0)
        seen: set[str] = set()
        candidates = [compound.lower()]
        for part in _PART.findall(compound):
            candidates.append(part.lower())
            if any(c.isupper() for c in part[1:]):  # camelCase or ACRONYMWord, not "5xx"
                candidates.extend(word.lower() for word in _CAMEL.findall(part))
        for index, raw in enumerate(candidates):
            word = _normalize(raw)
            if word in seen or word in _STOPWORDS or (index > 0 and len(word) < 2):
                continue
            seen.add(word)
            tokens.append(word)
    return tokens


# ---------------------------------------------------------------- chunking


def _blocks(markdown: str) -> Iterator[tuple[bool, str]]:
    """Yield ``(is_heading, text)`` blocks: headings, paragraphs and whole code fences."""
    paragraph: list[str] = []
    in_fence = False
    for line in markdown.splitlines():
        if _FENCE.match(line):
            paragraph.append(line)
            in_fence = not in_fence
            if not in_fence:
                yield False, "\n".join(paragraph)
                paragraph = []
            continue
        if in_fence:
            paragraph.append(line)
        elif _HEADING.match(line):
            if paragraph:
                yield False, "\n".join(paragraph)
                paragraph = []
            yield True, line.strip()
        elif not line.strip():
            if paragraph:
                yield False, "\n".join(paragraph)
                paragraph = []
        else:
            paragraph.append(line.rstrip())
    if paragraph:
        yield False, "\n".join(paragraph)


def _split_long(text: str, chunk_chars: int) -> list[str]:
    # Prefer line breaks, then spaces; a single unbroken run is hard-cut.
    pieces: list[str] = []
    rest = text
    while len(rest) > chunk_chars:
        cut = rest.rfind("\n", 0, chunk_chars + 1)
        if cut <= 0:
            cut = rest.rfind(" ", 0, chunk_chars + 1)
        if cut <= 0:
            cut = chunk_chars
        pieces.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    if rest:
        pieces.append(rest)
    return pieces


def chunk_markdown(markdown: str, chunk_chars: int = 800) -> list[str]:
    """Split markdown into chunks of at most ``chunk_chars`` characters.

    A heading starts a new chunk; paragraphs under it are packed until the next one would
    overflow. The first line (``# Title``) is dropped since the title is indexed separately.
    """
    chunks: list[str] = []
    current: list[str] = []

    def flush() -> None:
        text = "\n\n".join(current).strip()
        if text:
            chunks.append(text)
        current.clear()

    blocks = list(_blocks(markdown))
    if blocks and blocks[0][0] and blocks[0][1].startswith("# "):
        blocks = blocks[1:]
    heading_only = False
    for is_heading, text in blocks:
        # An overlong heading is packed like a paragraph, so that no chunk exceeds the limit.
        if is_heading and len(text) <= chunk_chars // 2:
            flush()
            current.append(text)
            heading_only = True
            continue
        if len("\n\n".join([*current, text])) > chunk_chars and not heading_only:
            flush()
        # A long paragraph right after its heading shares the heading's chunk, so that no
        # chunk is a bare heading.
        room = chunk_chars - (len(current[0]) + 2 if current else 0)
        if room < chunk_chars // 2:
            flush()
            room = chunk_chars
        for piece in _split_long(text, room):
            if current and len("\n\n".join([*current, piece])) > chunk_chars:
                flush()
            current.append(piece)
        heading_only = False
    flush()
    return chunks
