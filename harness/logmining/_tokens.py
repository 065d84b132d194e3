"""Masking and tokenising of message contents (private to the miner)."""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterable, Sequence

from harness.logformats import MESSAGE_KEYS
from harness.logmining.config import DEFAULT_MASKS, VALUE_SHAPES, WILDCARD, MinerConfig

__all__ = [
    "PURE_WILDCARDS",
    "Masker",
    "is_delimiter",
    "is_punct",
    "is_var",
    "render",
    "shape",
    "wildcard_like",
]

# A token that looks variable (it holds a masked value or a digit, or sits where values sit)
# carries this prefix. It keeps its text, so a value that never varies stays readable in the
# template, but it neither routes lines through the parse tree nor counts towards similarity.
_VAR = "\x00"

_DIGIT_WORD = re.compile(r"(?<!\S)[^\s\d]*+\d\S*+")
_WORD_CACHE_SIZE = 65536

# Every mask treats the ten ASCII digits alike (``\d``, ``[0-9a-fA-F]``, ``\w``), except that a
# hex literal starts with ``0x``: so two contents that differ only in which digits they hold
# (not in how many) are masked at the same spans. A content's *digit key* writes every digit
# as ``0`` (in its UTF-8 bytes, where a digit is never part of another character); what
# masking found for one content is reused for every content with its key (``_Recipe``).
# Every default mask starts where no word character (nor a wildcard's ``>``) comes before, and
# with a sign, a bracket, a brace, a digit (of any script, as ``\d`` has it) or a hex letter:
# tried first, this fails the combined alternation at most positions of a word at once
# instead of once per mask.
_MASK_START = r"(?<![>\w])(?=[-+\[{\da-fA-F])"
_ZEROS = bytes.maketrans(b"123456789", b"000000000")
_RECIPE_CACHE_SIZE = 1 << 16
_OUTPUTS_PER_RECIPE = 64
_ASCII_DIGIT = re.compile("[0-9]")
# Values whose letters never change how a content is masked, ending their word (no mask reads
# across ``=`` or whitespace):
# * an id, written as a word of its own or as the value after ``=``: a UUID, or a run of eight
#   or more hex digits holding a letter, either holding a digit (a word without one is never
#   masked). At its first character the first mask that can match (the UUID's, or
#   ``LONG_HEX_MASK``: the others need a ``:``, ``.``, ``x`` or a two-digit group) takes it
#   whole, so it is one span whatever hex digits it holds;
# * a name holding a digit, as the value after ``=`` (``payment_id=pi_3QoUh…``): a run of
#   ASCII letters, digits and ``_`` that starts with a letter or ``_`` and is not all hex
#   digits. No mask starts at its first character (only ``LONG_HEX_MASK`` could, and it needs
#   the whole run to be hex) nor after it (a word character comes before), so it is never
#   part of a span.
# A content's digit key writes each as ``_ID`` or ``_NAME`` bytes of its length, so that
# contents that differ only in such values share a recipe (request, trace and payment ids make
# most lines of a service distinct otherwise). A name is left in the masked text, so contents
# of a key with a name are cut at the recipe's spans without remembering outputs (see
# ``_Recipe``: its outputs assume contents that differ only in their digits).
_IDS_IN_KEY = re.compile(
    rb"(?:(?<![^\s=])(?P<id>(?=[-a-fA-F]*0)(?:[0a-fA-F]{8}-[0a-fA-F]{4}-[0a-fA-F]{4}-"
    rb"[0a-fA-F]{4}-[0a-fA-F]{12}|(?=0*[a-fA-F])[0a-fA-F]{8,}))"
    rb"|(?<==)(?P<name>(?=[A-Za-z_]+0)(?=[0a-fA-F]*[g-zG-Z_])[A-Za-z0_]+))(?!\S)"
)
_ID, _NAME = 0x01, 0x02


def _blank(found: re.Match[bytes]) -> bytes:
    return bytes([_ID if found.lastgroup == "id" else _NAME]) * (found.end() - found.start())


# A name as the value after ``=`` (as ``_IDS_IN_KEY`` has it, in masked text), and what it
# is blanked to for splitting (a character no log text holds; a content that does is split as
# it is).
_NAME_VALUE = re.compile(r"(?<==)(?=[A-Za-z_]+[0-9])(?=[0-9a-fA-F]*[g-zG-Z_])[A-Za-z0-9_]+(?!\S)")
_BLANK = "\x02"
_BLANKS = re.compile(_BLANK + "+")


def _blank_name(found: re.Match[str]) -> str:
    return _BLANK * (found.end() - found.start())


class _Recipe:
    """How contents of one digit key are masked: the spans replaced by a wildcard.

    Outside the spans such contents differ only in the digits left there (``v1``,
    ``Pool-2``); ``residue`` reads those digits, and ``outputs`` remembers the masked text
    for each residue seen, so a content is masked by one C-level read and a lookup. Many
    keys are seen once (a line with a random token), so a key's first content is cut at
    its spans without a recipe (see ``Masker.mask``), and the residue is found only when a
    second content of the key comes.
    """

    __slots__ = ("outputs", "residue", "spans")

    def __init__(self, spans: tuple[int, ...]) -> None:
        self.spans = spans
        self.residue: Callable[[str], object] | bool | None = False
        self.outputs: dict[object, str] = {}

    def apply(self, content: str) -> str:
        residue = self.residue
        if residue is False:
            self.residue = residue = self._residue_of(content)
        read = residue(content) if callable(residue) else None
        masked = self.outputs.get(read)
        if masked is None:
            masked = _cut(content, self.spans)
            if len(self.outputs) < _OUTPUTS_PER_RECIPE:
                self.outputs[read] = masked
        return masked

    def _residue_of(self, content: str) -> Callable[[str], object] | None:
        outside: list[int] = []
        bounds = [0, *self.spans, len(content)]
        for k in range(0, len(bounds), 2):
            outside.extend(
                m.start() for m in _ASCII_DIGIT.finditer(content, bounds[k], bounds[k + 1])
            )
        return operator.itemgetter(*outside) if outside else None


def _cut(content: str, spans: Sequence[int]) -> str:
    """Mask ``content`` by replacing each span (start and end offsets, in turn) by a wildcard."""
    parts = [content[: spans[0]]]
    for i in range(1, len(spans) - 1, 2):
        parts.append(content[spans[i] : spans[i + 1]])
    parts.append(content[spans[-1] :])
    return WILDCARD.join(parts)


# The recipe of a key whose words a guard must see, and of one with nothing to mask.
_GUARDED = "guarded"
_NOTHING = "nothing"

_QUOTES = "\"'"
# What a token's text is by itself (compared by identity).
_VARIABLE, _DELIMITER, _WORD = "variable", "delimiter", "word"
# Printed values of a boolean or an empty reference, and the words of a printed date: whatever
# the event, they are values.
_CALENDAR = [
    "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun",
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    "January", "February", "March", "April", "June", "July", "August", "September",
    "October", "November", "December",
]  # fmt: skip
_VALUE_WORDS = frozenset(
    ["true", "false", "True", "False", "TRUE", "FALSE", "null", "nil", *_CALENDAR]
)
# A unit written after a number belongs to the value (``3.5 s``, ``1.2 GB``, ``512 bytes``):
# systems that humanise sizes and durations pick the unit by magnitude.
_UNITS = frozenset(
    {
        "ns", "us", "µs", "ms", "s", "sec", "secs", "second", "seconds", "min", "mins",
        "minute", "minutes", "h", "hr", "hrs", "hour", "hours", "day", "days",
        "B", "KB", "kB", "MB", "GB", "TB", "PB", "KiB", "MiB", "GiB", "TiB", "byte", "bytes",
    }
)  # fmt: skip


class Masker:
    """Compiled masks and tokeniser for one configuration (built once, reused per line).

    ``guard`` (a redactor, when the miner serves a projector) sees a word before a mask cuts
    it into pieces: masking ``xoxb-123456789012-AbCd…`` to ``xoxb-<*>-AbCd…`` would leave a
    fragment no redactor recognises as part of a token, so such a word is redacted whole
    first. Words a mask replaces whole, or leaves alone, need no guard.
    """

    def __init__(self, config: MinerConfig, guard: Callable[[str], str] | None = None) -> None:
        self._guard = guard
        self._mask = re.compile(
            _MASK_START + "(?:" + "|".join(f"(?:{p})" for p in DEFAULT_MASKS) + ")"
        )
        # Caller-supplied masks may match any word, so they scan the whole line.
        self._extra = (
            re.compile("|".join(f"(?:{p})" for p in config.extra_masks))
            if config.extra_masks
            else None
        )
        self._words: dict[str, str] = {}
        self._recipes: dict[bytes, _Recipe | tuple[int, ...] | str] = {}
        self._word_spans: dict[bytes, tuple[int, ...] | None] = {}
        # Whether a masked word leaves a fragment (see ``_leaves_fragment``), remembered: a
        # random id masks to one shape many times over (``request_id=<*>``). Kept per masker,
        # as its other caches are, so no word of a line outlives the batch it was mined in.
        self._fragments: dict[str, bool] = {}
        # A token is a quoted string, a URL or Windows path (delimiters and all), a delimiter
        # or a run of other non-space characters; the leading whitespace is captured so that
        # rendering restores single spaces where there were any. A quote opens a string only
        # where a word does not go on (``can't``). The alternatives for quotes, URLs and
        # Windows paths are costly to try at every token, so each line is split by the
        # variant holding only those its text can need (see ``_splitter``). An escaped quote
        # (``\"``) opens no string: tried at every one of a line's escaped quotes (JSON
        # inside a message, cut off before its end), the scan to the end of the line made
        # splitting quadratic in its length.
        spans = (
            r"\"(?<!\\\")(?:[^\"\\]|\\.)*\"|(?<![\w'])'[^']*'(?![\w'])",
            r"[A-Za-z][A-Za-z0-9+.-]*://[^\s\"'\[\]{}|()]*[^\s\"'\[\]{}|().,;:]",
            r"(?:[A-Za-z]:\\|\\\\[\w.$-])[^\s\"'|*?,;()\[\]{}=]*",
        )
        if config.delimiters:
            delims = re.escape(config.delimiters)
            # An apostrophe between word characters is part of the word (``O'Brien``).
            word = (
                rf"[^\s{delims}]+(?:'[^\s{delims}]+)*"
                if "'" in config.delimiters
                else (rf"[^\s{delims}]+")
            )
            self._splitters = tuple(
                re.compile(
                    "(\\s*)("
                    + "|".join(
                        [p for p, wanted in zip(spans, (q, u, w), strict=True) if wanted]
                        + [word, f"[{delims}]"]
                    )
                    + ")"
                )
                for q in (False, True)
                for u in (False, True)
                for w in (False, True)
            )
        else:
            self._splitters = (re.compile(r"(\s*)(\S+)"),) * 8
        self._variable = re.compile(r"\d|<\*>" if config.mask_digit_tokens else r"<\*>")
        self._values = config.value_tokens
        self._shapes = re.compile("|".join(f"(?:{p})" for p in VALUE_SHAPES))
        self._delimiters = frozenset(config.delimiters)
        self._kinds: dict[str, str] = {}
        # Splits of masked contents with their names blanked (see ``split``); only where a
        # name after ``=`` is a value token whatever it holds.
        self._blanked_splits: dict[str, tuple[tuple[str, ...], tuple[int | str, ...]]] | None = (
            {} if config.value_tokens and "=" in config.delimiters else None
        )

    def mask(self, content: str) -> str:
        """Replace every masked value in ``content`` by ``<*>``."""
        if _VAR in content:
            # The marker must stay unambiguous; a NUL carries no meaning in a log message.
            content = content.replace(_VAR, "")
        if self._extra is not None:
            content = self._extra.sub(WILDCARD, content)
        # Contents that differ only in their digits are masked at the same spans (see
        # ``_ZEROS``): the spans are found once per digit key, and a content is then cut and
        # joined without any regex. A ``0x`` in the key may be a hex literal in one content
        # and not in another (``1x2``), so such contents are masked word by word.
        key = content.encode("utf-8", "surrogatepass").translate(_ZEROS)
        recipe = self._recipes.get(key)
        if recipe is None and _ID not in key and _NAME not in key:
            # A key with ids or names in it is kept with them blanked out (``_IDS_IN_KEY``).
            key = _IDS_IN_KEY.sub(_blank, key)
            recipe = self._recipes.get(key)
        if recipe is None:
            if b"0x" in key or b"0X" in key:
                return _DIGIT_WORD.sub(self._mask_word, content)
            recipe = self._recipe(content, key if len(key) == len(content) else None)
            if len(self._recipes) < _RECIPE_CACHE_SIZE:
                self._recipes[key] = recipe
            if type(recipe) is tuple:
                return _cut(content, recipe)
        elif type(recipe) is tuple:
            if _NAME in key:
                return _cut(content, recipe)
            # A key seen once keeps only its spans: a tuple of ints, which the garbage
            # collector stops tracking, where a recipe object stays tracked. Most keys are seen
            # once, and ~17k recipe objects of a 100k-line result cost a fresh process a full
            # collection or two. The second content of a key makes it a recipe.
            recipe = self._recipes[key] = _Recipe(recipe)
        if recipe is _NOTHING:
            return content
        if recipe is _GUARDED:
            return _DIGIT_WORD.sub(self._mask_word, content)
        assert isinstance(recipe, _Recipe)
        return recipe.apply(content)

    def _recipe(self, content: str, ascii_key: bytes | None) -> tuple[int, ...] | str:
        """How masking treats ``content`` and every content of its digit key: the spans a
        wildcard replaces, or ``_NOTHING`` or ``_GUARDED``.

        ``ascii_key`` is that key when the content is ASCII (one byte a character), so that a
        word's own key is a slice of it.

        Every default mask needs a digit and none spans whitespace, so only the whitespace-
        delimited words holding a digit are handed to the (slow) combined mask, each by
        itself; the rest of the line is never scanned by it. ``_GUARDED`` when the guard must
        see one of the words (see ``_mask_word``): what it does depends on more than the key.
        """
        spans: list[int] = []
        words = self._word_spans
        for found in _DIGIT_WORD.finditer(content):
            word = found.group()
            start, end = found.span()
            if word.isdecimal():
                spans += (start, end)
                continue
            # Words have digit keys too: a word seen with other digits is not scanned again.
            key = (
                ascii_key[start:end]
                if ascii_key is not None
                else word.encode("utf-8", "surrogatepass").translate(_ZEROS)
            )
            relative = words.get(key)
            if relative is None:
                relative = self._spans_of_word(word, key)
                if len(words) < _WORD_CACHE_SIZE:
                    words[key] = relative
            if relative is None:
                return _GUARDED
            for offset in relative:
                spans.append(start + offset)
        return tuple(spans) if spans else _NOTHING

    def _spans_of_word(self, word: str, key: bytes) -> tuple[int, ...] | None:
        """The spans the masks replace in one word; None when the guard must see it."""
        if b"0x" in key or b"0X" in key:
            return None  # a hex literal in one word of this key need not be one in another
        spans: list[int] = []
        for found in self._mask.finditer(word):
            spans += found.span()
        if self._guard is not None and spans and self._leaves_fragment(_cut(word, spans)):
            return None
        return tuple(spans)

    def _leaves_fragment(self, masked: str) -> bool:
        known = self._fragments.get(masked)
        if known is None:
            known = _leaves_fragment(masked)
            if len(self._fragments) < _WORD_CACHE_SIZE:
                self._fragments[masked] = known
        return known

    def _mask_word(self, found: re.Match[str]) -> str:
        word = found.group()
        if word.isdecimal():
            return WILDCARD
        masked = self._words.get(word)
        if masked is None:
            masked = self._mask.sub(WILDCARD, word)
            if self._guard is not None and masked != word and self._leaves_fragment(masked):
                guarded = self._guard(word)
                if guarded != word:
                    masked = self._mask.sub(WILDCARD, guarded)
            if len(self._words) < _WORD_CACHE_SIZE:
                self._words[word] = masked
        return masked

    def tokens(self, masked: str) -> tuple[str, ...]:
        """Split a masked content into tokens (see :meth:`split`)."""
        return self.split(masked)[0]

    def split(self, masked: str) -> tuple[tuple[str, ...], tuple[int | str, ...]]:
        """Split a masked content into tokens and their shape (see :meth:`_split`).

        A content with names after ``=`` (``payment_id=pi_3QoUh…``, see ``_NAME_VALUE``) is
        split with each name blanked to ``_BLANK`` characters, once for all contents that
        differ only in such names, and the names are put back into the tokens that hold the
        blanks, in order. That is the content's own split: a name after ``=`` is one value
        token (or inside one: a quoted string, a URL) whatever its characters, the blanks are
        word characters to the splitter as the name's are, and no rule looks at the text of a
        token before or after it across the whitespace that ends it.
        """
        cache = self._blanked_splits
        if cache is None or "=" not in masked or _BLANK in masked:
            return self._split(masked)
        names = _NAME_VALUE.findall(masked)
        if not names:
            return self._split(masked)
        blanked = _NAME_VALUE.sub(_blank_name, masked)
        known = cache.get(blanked)
        if known is None:
            known = self._split(blanked)
            if len(cache) < _WORD_CACHE_SIZE:
                cache[blanked] = known
        tokens, layer = known
        put = iter(names).__next__
        return (
            tuple(_BLANKS.sub(lambda _: put(), t) if _BLANK in t else t for t in tokens),
            layer,
        )

    def _split(self, masked: str) -> tuple[tuple[str, ...], tuple[int | str, ...]]:
        """Split a masked content into tokens (see ``_VAR`` for how variables are marked),
        and return them with their ``shape`` (found on the way, as it is needed at once).

        Besides tokens holding a digit or a wildcard, these are variable when
        ``value_tokens`` is set: a path, URL, host name, email, file name or hex-letter run
        (``VALUE_SHAPES``), a hyphenated or dotted name before ``:port``, the value of an
        attached ``key=value`` or ``key:value`` pair, the
        text of a quoted string (one token, however many words it has, unless it is a key
        followed by ``:``) and a boolean or ``null``; a unit written after a number joins the
        number's token.
        """
        out: list[str] = []
        append = out.append
        # Delimiter positions and tokens, as ``shape`` has them; None when a quoted key was
        # split word by word (its own delimiters are counted at the end instead).
        marks: list[int | str] | None = []
        values = self._values
        kinds = self._kinds
        delimiters = self._delimiters
        # The two tokens before this one, without their leading space, and whether each was
        # attached to the token before it.
        prev = prev2 = ""
        prev_attached = False
        masked = masked.lstrip()
        quotes = '"' in masked or "'" in masked
        found = self._splitter(masked, quotes).findall(masked)
        for index, (space, text) in enumerate(found):
            if quotes and text[0] in _QUOTES and len(text) > 1 and text[-1] == text[0]:
                lead = " " if space else ""
                quote = text[0]
                following = found[index + 1] if index + 1 < len(found) else ("", "")
                if (
                    not values
                    or index == 0
                    or (following[1] == ":" and not following[0])
                    or (prev == "=" and not space and prev2 in MESSAGE_KEYS)
                ):
                    # A key (``"name": …``) is not a value, and neither is the message of a
                    # logfmt line (``msg="slow query"``) nor a quoted text that opens the
                    # message (``"Started container" pod="…"``, as structured loggers write
                    # it): that is the event's own text.
                    self._append_inner(out, lead, text)
                    marks = None
                else:
                    if marks is not None:
                        marks += [len(out), lead + quote, len(out) + 2, quote]
                    append(lead + quote)
                    append(_VAR + text[1:-1])
                    append(quote)
                prev2, prev, prev_attached = "", quote, not space
                continue
            # What the text alone makes a token (a variable: a digit, a wildcard, a shape, a
            # value word; a delimiter; a word), remembered per text: most tokens are words
            # seen on many lines.
            kind = kinds.get(text)
            if kind is None:
                kind = self._own_kind(text)
                if len(kinds) < _WORD_CACHE_SIZE:
                    kinds[text] = kind
            token = " " + text if space else text
            if kind is _VARIABLE:
                if (
                    values
                    and prev == ":"
                    and text == WILDCARD
                    and prev_attached
                    and not space
                    and _HOST_LABELS.fullmatch(prev2)
                    and out[-2][:1] != _VAR
                ):
                    # A name joined by ``-`` or ``.`` before ``:port`` is a host
                    # (``cache-primary:6379``), however few of them a log has.
                    out[-2] = _VAR + out[-2]
                append(_VAR + token)
            elif values and space and prev == WILDCARD and text in _UNITS:
                # The unit joins the number's token: ``1.2 GB`` and ``512K`` are one token
                # each, so the words after them stay at the same positions.
                out[-1] += token
                prev2, prev, prev_attached = prev, text, False
                continue
            elif (
                values
                and not space
                and (prev == "=" or (prev == ":" and prev_attached and _is_key(prev2)))
                and text not in delimiters
            ):
                append(_VAR + token)
            else:
                if kind is _DELIMITER and marks is not None:
                    marks += [len(out), token]
                append(token)
            prev2, prev, prev_attached = prev, text, not space
        if values and ("," in masked or ";" in masked) and _OPENERS.intersection(masked):
            _mark_list_elements(out)
        tokens = tuple(out)
        return tokens, (len(tokens), *marks) if marks is not None else shape(tokens)

    def _splitter(self, masked: str, quotes: bool) -> re.Pattern[str]:
        return self._splitters[4 * quotes + 2 * ("://" in masked) + ("\\" in masked)]

    def _own_kind(self, text: str) -> str:
        """What ``text`` is whatever stands around it: a variable, a delimiter or a word."""
        if self._variable.search(text) or (
            self._values and (text in _VALUE_WORDS or self._shapes.fullmatch(text) is not None)
        ):
            return _VARIABLE
        return _DELIMITER if is_punct(text) else _WORD

    def _append_inner(self, out: list[str], lead: str, text: str) -> None:
        """Tokens of a quoted string that is not a value: the quotes and the words inside."""
        out.append(lead + text[0])
        out.extend(self.tokens(text[1:-1]))
        out.append(text[-1])


_CLOSER = {"[": "]", "(": ")", "{": "}"}
_OPENERS = frozenset(_CLOSER)
_BRACKETS = frozenset("[](){}")
_LIST_SEPARATORS = frozenset(",;")


def _mark_list_elements(out: list[str]) -> None:
    """Mark the elements of bracketed lists of single words as values, in place.

    ``[dev, local]`` and ``(auth; cache; metrics)`` list values whatever the words are, as
    ``[1, 2, 3]`` does with numbers: marked, a list of any length folds into one template
    with the lists of numbers (see the skeleton pass of :mod:`._merge`). Only a list of two
    or more elements of one word each counts: ``(total=5, active=3)`` is a list of fields,
    ``(auth failed, 3 attempts)`` a phrase.
    """
    index = 0
    size = len(out)
    while index < size:
        opener = out[index].lstrip(" ")
        if opener not in _OPENERS:
            index += 1
            continue
        closer = _CLOSER[opener]
        elements: list[list[int]] = [[]]
        end = index + 1
        while end < size:
            text = out[end].lstrip(" ")
            if text == closer or text in _BRACKETS:
                break
            if text in _LIST_SEPARATORS:
                elements.append([])
            else:
                elements[-1].append(end)
            end += 1
        if (
            end < size
            and out[end].lstrip(" ") == closer
            and len(elements) >= 2
            and all(len(element) == 1 for element in elements)
        ):
            for (position,) in elements:
                token = out[position]
                if token[:1] != _VAR and not is_punct(token.lstrip(" ")):
                    out[position] = _VAR + token
        index = end if end > index + 1 else index + 1


# Labels of a host name joined by hyphens or dots (at least one of them).
_HOST_LABELS = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-.][A-Za-z0-9]+)+")


def _is_key(text: str) -> bool:
    """Whether a token can be the key of an attached ``key:value`` pair (it starts a name)."""
    return text[:1].isalpha()


# A long run of token characters and a wildcard inside one token (no delimiter between);
# slashes split runs, so paths (``/api/v1/orders/<*>``) are words, not fragments.
_ADJACENT = re.compile(
    r"([A-Za-z0-9+_]{8,})[^=:,;()\[\]{}\"'|<]*<\*>|<\*>[^=:,;()\[\]{}\"'|]*?([A-Za-z0-9+_]{8,})"
)
_WORDS = re.compile(r"(?:[A-Z]?[a-z]{2,})+\d*|[A-Z]{2,}\d*|\d+")


# A Deployment's pod name whose template hash a mask took: the pod's own 5-character suffix
# is left beside the wildcard (``checkout-api-<*>-x2x9q``), a piece of an identifier that
# redaction names whole (``<POD>``).
_CUT_POD = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*-<\*>-[a-z0-9]{5}")


def _leaves_fragment(masked: str) -> bool:
    """Whether masking left a long, non-word run beside a wildcard inside one token: the
    shape of a token cut into pieces (``xoxb-<*>-<*>-AbCd…``, ``gX69…/<*>/sVjz…``), or a
    pod's suffix beside its masked hash (``checkout-api-<*>-x2x9q``)."""
    if "-<*>-" in masked and _CUT_POD.search(masked):
        return True
    for found in _ADJACENT.finditer(masked):
        run = found.group(1) or found.group(2)
        if not _WORDS.fullmatch(run):
            return True
    return False


def is_punct(word: str) -> bool:
    """Whether a token's text (without its leading space) is a single delimiter character."""
    return len(word) == 1 and not word.isalnum() and word != _VAR


# Whether a short token is a delimiter, remembered: short tokens are few and very frequent.
_SHORT_TOKENS: dict[str, bool] = {}


def is_delimiter(token: str) -> bool:
    """Whether a token (with its leading space, if any) is a single delimiter character."""
    if len(token) > 2:
        return False
    known = _SHORT_TOKENS.get(token)
    if known is None:
        known = is_punct(token.lstrip(" "))
        if len(_SHORT_TOKENS) < _WORD_CACHE_SIZE:
            _SHORT_TOKENS[token] = known
    return known


def shape(tokens: Sequence[str]) -> tuple[int | str, ...]:
    """The token count and the delimiters with their positions (a variable is never one)."""
    out: list[int | str] = [len(tokens)]
    short = _SHORT_TOKENS
    for index, token in enumerate(tokens):
        if len(token) <= 2 and (short.get(token) or is_delimiter(token)):
            out.append(index)
            out.append(token)
    return tuple(out)


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
