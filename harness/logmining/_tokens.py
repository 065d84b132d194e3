"""Masking and tokenising of message contents (private to the miner)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from harness.logmining.config import DEFAULT_MASKS, WILDCARD, MinerConfig

__all__ = [
    "PURE_WILDCARDS",
    "Masker",
    "is_var",
    "render",
    "wildcard_like",
]

# A token that looks variable (it holds a masked value or a digit) carries this prefix. It keeps
# its text, so a value that never varies stays readable in the template, but it neither routes
# lines through the parse tree nor counts towards similarity.
_VAR = "\x00"


_DIGIT_WORD = re.compile(r"(?<!\S)[^\s\d]*+\d\S*+")
_WORD_CACHE_SIZE = 65536


class Masker:
    """Compiled masks and tokeniser for one configuration (built once, reused per line).

    ``guard`` (a redactor, when the miner serves a projector) sees a word before a mask cuts
    it into pieces: masking ``xoxb-123456789012-AbCd…`` to ``xoxb-<*>-AbCd…`` would leave a
    fragment no redactor recognises as part of a token, so such a word is redacted whole
    first. Words a mask replaces whole, or leaves alone, need no guard.
    """

    def __init__(self, config: MinerConfig, guard: Callable[[str], str] | None = None) -> None:
        self._guard = guard
        self._mask = re.compile("|".join(f"(?:{p})" for p in DEFAULT_MASKS))
        # Caller-supplied masks may match words without digits, so they scan the whole line.
        self._extra = (
            re.compile("|".join(f"(?:{p})" for p in config.extra_masks))
            if config.extra_masks
            else None
        )
        self._words: dict[str, str] = {}
        # A token is a wildcard, a delimiter or a run of other non-space characters; the leading
        # whitespace is captured so that rendering restores single spaces where there were any.
        if config.delimiters:
            delims = re.escape(config.delimiters)
            self._token = re.compile(rf"(\s*)([{delims}]|[^\s{delims}]+)")
        else:
            self._token = re.compile(r"(\s*)(\S+)")
        self._variable = re.compile(r"\d|<\*>" if config.mask_digit_tokens else r"<\*>")

    def mask(self, content: str) -> str:
        """Replace every masked value in ``content`` by ``<*>``."""
        if _VAR in content:
            # The marker must stay unambiguous; a NUL carries no meaning in a log message.
            content = content.replace(_VAR, "")
        if self._extra is not None:
            content = self._extra.sub(WILDCARD, content)
        # Every default mask needs a digit and none spans whitespace, so only the whitespace-
        # delimited words holding a digit are handed to the (slow) combined mask; the rest of
        # the line is never scanned by it. Masks of repeated words are remembered.
        return _DIGIT_WORD.sub(self._mask_word, content)

    def _mask_word(self, found: re.Match[str]) -> str:
        word = found.group()
        if word.isdecimal():
            return WILDCARD
        masked = self._words.get(word)
        if masked is None:
            masked = self._mask.sub(WILDCARD, word)
            if self._guard is not None and masked != word and _leaves_fragment(masked):
                guarded = self._guard(word)
                if guarded != word:
                    masked = self._mask.sub(WILDCARD, guarded)
            if len(self._words) < _WORD_CACHE_SIZE:
                self._words[word] = masked
        return masked

    def tokens(self, masked: str) -> tuple[str, ...]:
        """Split a masked content into tokens (see ``_VAR`` for how variables are marked)."""
        out: list[str] = []
        append = out.append
        variable = self._variable.search
        first = True
        for space, text in self._token.findall(masked):
            token = " " + text if space and not first else text
            first = False
            append(_VAR + token if variable(text) else token)
        return tuple(out)


# A long run of token characters and a wildcard inside one token (no delimiter between);
# slashes split runs, so paths (``/api/v1/orders/<*>``) are words, not fragments.
_ADJACENT = re.compile(
    r"([A-Za-z0-9+_]{8,})[^=:,;()\[\]{}\"'|<]*<\*>|<\*>[^=:,;()\[\]{}\"'|]*?([A-Za-z0-9+_]{8,})"
)
_WORDS = re.compile(r"(?:[A-Z]?[a-z]{2,})+\d*|[A-Z]{2,}\d*|\d+")


def _leaves_fragment(masked: str) -> bool:
    """Whether masking left a long, non-word run beside a wildcard inside one token: the
    shape of a token cut into pieces (``xoxb-<*>-<*>-AbCd…``, ``gX69…/<*>/sVjz…``)."""
    for found in _ADJACENT.finditer(masked):
        run = found.group(1) or found.group(2)
        if not _WORDS.fullmatch(run):
            return True
    return False


def is_var(token: str) -> bool:
    """Whether a token is variable (masked, holding a digit, or a wildcard)."""
    return token[:1] == _VAR


def wildcard_like(token: str) -> str:
    """The wildcard token that replaces ``token``, keeping its leading space."""
    return _VAR + " " + WILDCARD if token[1:2] == " " or token[:1] == " " else _VAR + WILDCARD


PURE_WILDCARDS = frozenset({_VAR + WILDCARD, _VAR + " " + WILDCARD})

_ADJACENT_WILDCARDS = re.compile(r"(?:<\*>){2,}")


def render(tokens: Iterable[str]) -> str:
    """Template text of a token sequence."""
    # Adjacent wildcards say nothing more than one; collapsing them lets clusters that differ
    # only in how a variable value was split share one template.
    return _ADJACENT_WILDCARDS.sub(WILDCARD, "".join(tokens).replace(_VAR, "").strip())
