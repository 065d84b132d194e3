"""Merging by the line's own words and phrases (private to the miner's merge passes).

The token-level passes of :mod:`._merge` compare templates token by token, so they never meet
two templates whose variable part is cut into a different number of tokens. Passes here
take larger units, each on the evidence of many distinct values in one place (the idea behind
Brain and Drain's similarity threshold), and, as every pass, never the first word (unless it
is a tag, below), which names the event's subject or action far more often than it carries a
value:

* **word siblings** — templates equal but for one word written between spaces, where many
  different words occur: a value whose punctuation varies (``+E(0)K``, ``+EDC``, ``-T``) is
  cut at its delimiters into templates of different shapes;
* **tails** — templates equal up to a ``key:`` (a word with a colon, then a space) and
  different after it, where many different rests occur: free text that runs to the end of
  the message (a reason, a statement, a command) in words, values and punctuation alike;
* **runs** — templates equal but for one run of words (values among them), where many
  different runs occur: a value of several words (a reason, a title) that no template has
  a variable for.

A first word that is a tag naming the emitter (``nginx[812]:``, ``unit.service:``,
``(root)``) is a label, not the event's subject: word siblings may take it for a value.

Both work on token lists and return a partition of them with each part's covering tokens;
:mod:`._merge` turns it into groups.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from harness.logmining._tokens import PURE_WILDCARDS, is_delimiter, is_var, wildcard_like

__all__ = [
    "Partition",
    "first_word",
    "key_of",
    "opens_with_tag",
    "positionwise",
    "runs",
    "tails",
    "word_siblings",
]

Partition = list[tuple[list[int], list[str]]]
"""Parts of a list of templates: each part's indices (ascending, parts ordered by their first
index) and a template covering every member."""


def key_of(token: str) -> str:
    """A token as it is compared: variables alike whatever text they kept, with the leading
    space (part of the shape) kept."""
    if is_var(token):
        return " \x00" if token[1:2] == " " else "\x00"
    return token


def first_word(tokens: Sequence[str]) -> int:
    """The position of the first token that is not a delimiter (0 when there is none)."""
    return next((i for i, t in enumerate(tokens) if not is_delimiter(t)), 0)


_CLOSERS = {"(": ")", "[": "]", "<": ">", "{": "}"}


def opens_with_tag(tokens: Sequence[str]) -> bool:
    """Whether the message opens with a tag naming its emitter rather than a word of the
    event: a first spaced word that ends in ``:`` after a name (``man-db.service:``,
    ``nginx[812]:``) or that is a name in brackets (``(root)``, ``[worker]``).

    Such a first word is a label, like the header's service or process name, so the passes
    may take it for a value where many different ones occur; a bare first word (``cupsd
    startup succeeded``) names the event's subject and stays exempt.
    """
    size = len(tokens)
    end = 1
    while end < size and tokens[end][:1] != " " and tokens[end][1:2] != " ":
        end += 1
    if end == size or end < 2:
        return False  # the whole message, or a first word without punctuation
    head = [t.lstrip(" ") for t in tokens[:end]]
    if head[-1] == ":":
        return not is_delimiter(tokens[0]) and all(
            is_delimiter(t) or is_var(t) for t in tokens[1 : end - 1]
        )
    closer = _CLOSERS.get(head[0])
    return end == 3 and closer is not None and head[-1] == closer and _is_word(tokens[1])


def _is_word(token: str) -> bool:
    return not is_var(token) and not is_delimiter(token)


def positionwise(members: list[list[str]]) -> list[str]:
    """The covering template of equally long templates: where they differ, a wildcard."""
    out = list(members[0])
    for other in members[1:]:
        for i, (mine, theirs) in enumerate(zip(out, other, strict=True)):
            if mine != theirs and mine not in PURE_WILDCARDS:
                out[i] = wildcard_like(mine)
    return out


def spaced_words(tokens: Sequence[str]) -> list[list[str]]:
    """The template's tokens cut into the words the line had: a word starts at a token
    written after whitespace (the first token starts the first word)."""
    words: list[list[str]] = []
    for token in tokens:
        if token[:1] == " " or token[1:2] == " " or not words:
            words.append([token])
        else:
            words[-1].append(token)
    return words


class _Chains:
    """Ids of sequences: two prefixes (or two suffixes) get the same id exactly when they are
    equal. A prefix's id is never compared with a suffix's, so one trie holds both.

    One node a step, so the ids of every prefix (or every suffix) of a sequence cost one
    dictionary step each. Keyed by the prefixes and suffixes themselves as tuples, a
    template of ``n`` tokens cost ``n`` tuples of up to ``n`` tokens to build and hash: a
    long line (``[a][a][a]…``) took time quadratic in its length.
    """

    def __init__(self) -> None:
        self._ids: dict[tuple[int, object], int] = {}

    def prefixes(self, items: Sequence[object]) -> list[int]:
        """The id of ``items[:i]`` at ``i``, for ``i`` from 0 to ``len(items)``."""
        node, ids = 0, [0]
        for item in items:
            node = self._ids.setdefault((node, item), len(self._ids) + 1)
            ids.append(node)
        return ids

    def suffixes(self, items: Sequence[object]) -> list[int]:
        """The id of ``items[j:]`` at ``j``, for ``j`` from 0 to ``len(items)``."""
        node, ids = 0, [0]
        for item in reversed(items):
            node = self._ids.setdefault((node, item), len(self._ids) + 1)
            ids.append(node)
        return ids[::-1]


def word_siblings(templates: Sequence[list[str]], min_distinct: int) -> Partition | None:
    """Join templates equal but for one spaced word (not the first) where ``min_distinct``
    different words occur; a word of punctuation alone (``+``) may be one of them, but those
    that make the place a variable hold a letter or a digit. None when nothing joins."""
    by_count: dict[int, list[int]] = {}
    split: list[list[tuple[str, ...]]] = []
    for number, tokens in enumerate(templates):
        words = [tuple(key_of(t) for t in word) for word in spaced_words(tokens)]
        split.append(words)
        by_count.setdefault(len(words), []).append(number)
    places: dict[tuple[int, int, int], list[int]] = {}
    chains = _Chains()
    for count, numbers in by_count.items():
        if len(numbers) < min_distinct:
            continue
        for number in numbers:
            words = split[number]
            before, after = chains.prefixes(words), chains.suffixes(words)
            for i in range(0 if opens_with_tag(templates[number]) else 1, count):
                if not all(t.startswith("\x00") for t in words[i]):
                    places.setdefault((i, before[i], after[i + 1]), []).append(number)
    cuts: dict[int, tuple[int, int]] = {}
    joins: list[list[int]] = []
    for (position, _, _), numbers in places.items():
        distinct = {split[n][position] for n in numbers}
        if sum(1 for word in distinct if not all(is_delimiter(t) for t in word)) < min_distinct:
            continue
        if any(n in cuts for n in numbers):
            continue  # one variable place per template and pass
        for n in numbers:
            start = sum(len(word) for word in split[n][:position])
            cuts[n] = (start, start + len(split[n][position]))
        joins.append(numbers)
    return _partition(templates, joins, cuts)


def runs(templates: Sequence[list[str]], min_distinct: int) -> Partition | None:
    """Join templates equal but for one maximal run of words (not the first word) where
    ``min_distinct`` different runs occur. None when nothing joins.

    A run starts at a constant word and goes on through words and values up to a delimiter:
    a description of several words may hold a value (``Discard unused blocks from
    /etc/fstab``) and is still one value in the event's place."""
    places: dict[tuple[int, int], list[tuple[int, int, int]]] = {}
    chains = _Chains()
    for number, tokens in enumerate(templates):
        keys = [key_of(t) for t in tokens]
        before, after = chains.prefixes(keys), chains.suffixes(keys)
        first = first_word(tokens)
        i, size = 0, len(tokens)
        while i < size:
            if i == first or is_var(tokens[i]) or is_delimiter(tokens[i]):
                i += 1
                continue
            j = i
            while j < size and not is_delimiter(tokens[j]):
                j += 1
            places.setdefault((before[i], after[j]), []).append((number, i, j))
            i = j
    cuts: dict[int, tuple[int, int]] = {}
    joins: list[list[int]] = []
    for members in places.values():
        if len(members) < min_distinct:
            continue
        if len({tuple(templates[n][i:j]) for n, i, j in members}) < min_distinct:
            continue
        if any(n in cuts for n, _, _ in members):
            continue
        for n, i, j in members:
            cuts[n] = (i, j)
        joins.append([n for n, _, _ in members])
    return _partition(templates, joins, cuts)


def tails(templates: Sequence[list[str]], min_distinct: int) -> Partition | None:
    """Join templates equal up to a key and different after it, where ``min_distinct``
    different rests of the message occur: the key's value is free text (a reason, a
    statement, a command) in any words and punctuation. None when nothing joins.

    A key is a constant word followed by ``:`` and a space (``failed: …``, to the end of the
    message) or by a spaced opening bracket that the message's last token closes (``CMD
    (…)``). A ``:`` key needs a constant word before its own: one that opens the message
    (``error:``, or a logger's name after a bracketed value) is followed by the event itself.
    """
    # (key length, key, closer) -> (template, rest's start, rest's end, rest's id)
    places: dict[tuple[int, int, str], list[tuple[int, int, int, int]]] = {}
    chains = _Chains()
    for number, tokens in enumerate(templates):
        keys = [key_of(t) for t in tokens]
        before = chains.prefixes(keys)
        size = len(tokens)
        closer = keys[-1] if size else ""
        to_end = chains.suffixes(keys)
        to_closer = chains.suffixes(keys[:-1])
        words = 0
        for i in range(1, size - 1):
            if not _is_word(tokens[i - 1]):
                continue
            after = tokens[i + 1]
            if words and keys[i] == ":" and (after[:1] == " " or after[1:2] == " "):
                places.setdefault((i + 1, before[i + 1], ""), []).append(
                    (number, i + 1, size, to_end[i + 1])
                )
            elif _CLOSERS.get(keys[i][1:]) == closer and keys[i][:1] == " " and i + 2 < size:
                places.setdefault((i + 1, before[i + 1], closer), []).append(
                    (number, i + 1, size - 1, to_closer[i + 1])
                )
            words += 1
    cuts: dict[int, tuple[int, int]] = {}
    joins: list[list[int]] = []
    # The longest keys first: a rest that holds another key is cut after the inner one.
    for place in sorted(places, key=lambda p: p[0], reverse=True):
        members = [(n, i, j) for n, i, j, _ in places[place]]
        if len(members) < min_distinct:
            continue
        if len({rest for _, _, _, rest in places[place]}) < min_distinct:
            continue
        if any(n in cuts for n, _, _ in members):
            continue
        for n, i, j in members:
            cuts[n] = (i, j)
        joins.append([n for n, _, _ in members])
    return _partition(templates, joins, cuts)


def _partition(
    templates: Sequence[list[str]], joins: Iterable[list[int]], cuts: dict[int, tuple[int, int]]
) -> Partition | None:
    """The parts that ``joins`` make, each member's cut span made one wildcard; a part whose
    members do not then line up token by token stays apart."""
    if not cuts:
        return None
    parent = list(range(len(templates)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for numbers in joins:
        root = find(numbers[0])
        for n in numbers[1:]:
            other = find(n)
            if other != root:
                parent[max(other, root)] = min(other, root)
                root = min(other, root)
    parts: dict[int, list[int]] = {}
    for number in range(len(templates)):
        parts.setdefault(find(number), []).append(number)
    out: Partition = []
    for numbers in parts.values():
        if len(numbers) == 1:
            out.append((numbers, list(templates[numbers[0]])))
            continue
        covering = []
        for n in numbers:
            tokens = templates[n]
            start, end = cuts.get(n, (0, 0))
            covering.append(
                [*tokens[:start], wildcard_like(tokens[start]), *tokens[end:]]
                if end > start
                else list(tokens)
            )
        if len({len(c) for c in covering}) != 1:
            out.extend(([n], list(templates[n])) for n in numbers)
            continue
        out.append((numbers, positionwise(covering)))
    return sorted(out, key=lambda part: part[0][0])
