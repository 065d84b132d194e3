"""Deciding a ``query_logs`` query on redacted text, the same way in every log backend.

A substring filter over raw text is an oracle: ``api_key=sk_live_51u8`` matching and
``…51u9`` not tells the model one more character of a key it was never shown. So a query is
decided on the *match view* of a message: the redacted text, folded to lower case, with every
placeholder replaced by a NUL (which no query may hold), so that a query can neither reach
into a redacted value nor into the placeholder that stands for it.

Backends still want a cheap filter over raw text (a log system's own line filter, or a scan
of a large in-memory store). :attr:`LogQuery.prefilter` is one that matches a *superset* of
the lines the match view accepts, by this argument:

* the redactor only ever replaces spans; what it puts in their place is a placeholder, or
  ``?`` for an SQL literal; every other character of ``redact(x)`` is copied from ``x``, in
  order, and each stretch between two replacements is a contiguous substring of ``x``;
* :func:`lower_chars` lowers case one character at a time (no context rule such as Greek final
  sigma), so the lowered form of a substring is a substring of the lowered whole;
* so a piece of the query that holds no ``?`` (and no NUL), found in the match view, lies in
  one such stretch and is found in the lowered raw text as well.

The prefilter is the longest such piece. Pushed down as a case-insensitive raw filter it
returns every line the redacted decision could accept, and more; the redacted decision then
decides, so no outcome, count or error depends on a masked value. (RE2's ``(?i)``, which
Loki uses, folds at least what :func:`lower_chars` lowers: both follow Unicode simple case
mappings.
The one multi-character lower-case mapping, ``İ`` to ``i̇``, is kept out of the prefilter by
splitting at the combining dot as well.)
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.redaction import PLACEHOLDERS

__all__ = ["LogQuery", "lower_chars", "match_view"]

_NUL = "\x00"
_FOLDED_PLACEHOLDERS = tuple(p.lower() for p in PLACEHOLDERS)
# Characters at which the prefilter is cut: a masked SQL literal, a placeholder mark, and the
# combining dot that lower-casing ``İ`` produces.
_CUTS = ("?", _NUL, "\u0307")


def lower_chars(text: str) -> str:
    """Lower-case ``text`` character by character (capital sigma always becomes ``σ``)."""
    if "Σ" in text:
        text = text.replace("Σ", "σ")
    return text.lower()


def match_view(redacted: str) -> str:
    """The text a query is matched against: folded, each placeholder a NUL."""
    view = lower_chars(redacted)
    if "<" in view:
        for placeholder in _FOLDED_PLACEHOLDERS:
            if placeholder in view:
                view = view.replace(placeholder, _NUL)
    return view


@dataclass(frozen=True, kw_only=True)
class LogQuery:
    """A ``query_logs`` substring filter, decided on redacted text.

    Attributes:
        needle: The folded query; a message matches when its match view holds it.
        prefilter: The longest piece of ``needle`` free of ``?`` (and the other cut
            characters); every message whose match view holds ``needle`` holds this piece
            in its folded *raw* text. Empty when the query is nothing but cut characters.
    """

    needle: str
    prefilter: str

    @classmethod
    def of(cls, query: str) -> LogQuery:
        """The filter for one query text."""
        needle = lower_chars(query)
        pieces = [needle]
        for cut in _CUTS:
            pieces = [part for piece in pieces for part in piece.split(cut)]
        return cls(needle=needle, prefilter=max(pieces, key=len))

    def matches(self, view: str) -> bool:
        """Whether a message with this match view (see :func:`match_view`) matches."""
        return self.needle in view

    def may_match(self, folded_raw: str) -> bool:
        """Whether a message whose folded raw text is ``folded_raw`` may match (superset)."""
        return self.prefilter in folded_raw
