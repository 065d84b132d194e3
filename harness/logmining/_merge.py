"""Merging mined clusters into events: the passes after the parse tree (private to the miner).

The parse tree decides a line's cluster from the line and the clusters seen before it, so one
event can end up in several clusters: a variable that looks constant (a user name, a host
without digits) splits it wherever it routes lines or outweighs the constant words, a
variable of varying length changes the token count, and a cluster made early is not
revisited once another one has generalised enough to take its lines. Once every line is in,
three passes merge such clusters, each on evidence the whole batch gives and no single line
does, and repeat until nothing changes:

* **skeletons** — clusters whose constant words coincide once the runs of variables between
  them are dropped (an empty or repeated variable, a list of varying length);
* **cover** — a cluster whose constant words another cluster of the same shape (token count
  and delimiters) all has at the same positions: its lines would have joined that cluster
  had they come later;
* **siblings** — clusters of the same shape that agree everywhere but at one word position
  where at least ``min_distinct`` different words occur (Brain's and Drain's idea: a position
  with many distinct values is a variable). The first word of a message is exempt: it
  names the event's subject or action far more often than it carries a value (``cupsd
  startup succeeded``, ``tickTime set to 2000``), so a value there is recognised by its
  shape only, unless it is a tag naming the emitter (``nginx[812]:``, ``(root)``; see
  ``opens_with_tag``).

Three more passes (:mod:`._phrases`) take the line's own words and runs of words as the
unit: word siblings (one spaced word where ``min_distinct`` different words occur, whatever
its punctuation), tails (the rest of the message after a ``key:``, or inside the brackets
that end it, where ``min_distinct`` different rests occur: a reason, a statement or a
command of any words and punctuation) and, after the
gaps, runs (one run of words where more than ``min_distinct`` different runs occur: a reason
or a title of several words, which may hold a value).

Every pass is deterministic: groups are kept in the order of their first cluster, and a
group's template is built from its members' templates alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.logmining._phrases import (
    Partition,
    first_word,
    key_of,
    opens_with_tag,
    positionwise,
    runs,
    tails,
    word_siblings,
)
from harness.logmining._tokens import (
    is_delimiter,
    is_punct,
    is_var,
    shape,
    wildcard_like,
)

__all__ = ["merge_clusters"]

# How many times more distinct contents a template needs than a group it takes in through a
# gap that mixes words and variables.
_RARE = 10

# Separators inside a run of variables (``[1.5, 2.5, 3.0]``, ``a; b; c``) belong to the run.
_LIST_SEPARATORS = frozenset({",", ";"})


_UNSET: Any = object()


class _Group:
    """Clusters taken for one event: their indices and a template covering all of them.

    A group is never changed, only replaced by a join, so what the passes derive from its
    template is computed once and kept (a group that nothing takes in lives through rounds).
    """

    __slots__ = (
        "_anchors",
        "_items",
        "_shape",
        "_siblings",
        "_skeleton",
        "_texts",
        "_words",
        "members",
        "tokens",
        "weight",
    )

    def __init__(
        self,
        members: list[int],
        tokens: list[str],
        weight: int,
        layer: tuple[int | str, ...] | None = None,
    ) -> None:
        self.members = members
        self.tokens = tokens
        self.weight = weight
        self._skeleton: tuple[str, ...] | None = None
        self._shape = layer
        self._words: list[tuple[int, str]] | None = None
        self._items: list[str | None] | None = _UNSET
        self._anchors: tuple[tuple[str, ...], str, str] | None = None
        self._siblings: list[tuple[int, int, int]] | None = None
        self._texts: frozenset[str] | None = None

    def skeleton(self) -> tuple[str, ...]:
        if self._skeleton is None:
            self._skeleton = _skeleton(self.tokens)
        return self._skeleton

    def shape(self) -> tuple[int | str, ...]:
        if self._shape is None:
            self._shape = shape(self.tokens)
        return self._shape

    def words(self) -> list[tuple[int, str]]:
        if self._words is None:
            self._words = _words(self.tokens)
        return self._words

    def texts(self) -> frozenset[str]:
        """The texts of the template's constant tokens (leading space dropped)."""
        if self._texts is None:
            self._texts = frozenset(t.lstrip(" ") for t in self.tokens if not is_var(t))
        return self._texts

    def items(self) -> list[str | None] | None:
        if self._items is _UNSET:
            self._items = _items(self.tokens)
        return self._items

    def siblings(self, interned: _Interned) -> list[tuple[int, int, int]]:
        """The group's sibling keys (see ``_Interned``), with the merge's one interning."""
        if self._siblings is None:
            self._siblings = interned.sibling_keys(self.tokens)
        return self._siblings

    def anchors(self) -> tuple[tuple[str, ...], str, str]:
        """The template's delimiters and its first and last tokens (see ``_anchors``)."""
        if self._anchors is None:
            self._anchors = _anchors(self.tokens, self.shape())
        return self._anchors


def merge_clusters(
    templates: Sequence[Sequence[str]],
    weights: Sequence[int],
    shapes: Sequence[tuple[int | str, ...]],
    *,
    min_distinct: int,
) -> list[tuple[list[int], list[str]]]:
    """Merge cluster templates (token lists) into groups.

    Args:
        templates: Each cluster's tokens, in the order the clusters were made.
        weights: Each cluster's number of distinct masked contents.
        shapes: Each cluster's ``shape`` (known from mining, so not computed again).
        min_distinct: Distinct words at one position that make it a variable (siblings pass).

    Returns:
        ``(member indices, covering tokens)`` per group, ordered by first member; member
        indices are ascending.
    """
    groups = [
        _Group([index], list(tokens), weight, layer)
        for index, (tokens, weight, layer) in enumerate(
            zip(templates, weights, shapes, strict=True)
        )
    ]
    interned = _Interned()
    while True:
        count = len(groups)
        groups = _merge_skeletons(groups)
        groups = _merge_covered(groups)
        if min_distinct > 0:
            groups = _merge_siblings(groups, min_distinct, interned)
            groups = _apply(groups, word_siblings([g.tokens for g in groups], min_distinct))
            groups = _apply(groups, tails([g.tokens for g in groups], min_distinct))
        groups = _merge_gaps(groups)
        if min_distinct > 0:
            groups = _apply(groups, runs([g.tokens for g in groups], min_distinct + 1))
        if len(groups) == count:
            return [(g.members, g.tokens) for g in groups]


# ----------------------------------------------------------------------------- skeletons


def _slots(tokens: Sequence[str]) -> tuple[list[str], list[tuple[str, ...]]]:
    """Split tokens into constants and the runs of variables around them.

    A run starts at a variable and goes on through variables and the list separators
    between them; a separator after the run's last variable is a constant again.
    """
    constants: list[str] = []
    slots: list[tuple[str, ...]] = []
    run: list[str] = []
    pending: list[str] = []  # separators seen after the run's last variable
    for token in tokens:
        if is_var(token):
            run.extend(pending)
            pending = []
            run.append(token)
        elif run and token.lstrip(" ") in _LIST_SEPARATORS:
            pending.append(token)
        else:
            slots.append(tuple(run))
            run = []
            for separator in pending:
                constants.append(separator)
                slots.append(())
            pending = []
            constants.append(token)
    slots.append(tuple(run))
    for separator in pending:
        constants.append(separator)
        slots.append(())
    return constants, slots


def _skeleton(tokens: Sequence[str]) -> tuple[str, ...]:
    constants, _ = _slots(tokens)
    return tuple(t.lstrip(" ") for t in constants)


def _merge_skeletons(groups: list[_Group]) -> list[_Group]:
    by_skeleton: dict[tuple[str, ...], list[_Group]] = {}
    for group in groups:
        by_skeleton.setdefault(group.skeleton(), []).append(group)
    if len(by_skeleton) == len(groups):
        return groups
    out = []
    for members in by_skeleton.values():
        if len(members) == 1:
            out.append(members[0])
        else:
            out.append(_join(members, _covering_skeleton([m.tokens for m in members])))
    return _ordered(out)


def _covering_skeleton(members: list[list[str]]) -> list[str]:
    """One template that every member (same constant skeleton) matches.

    Constants come from the first member; each gap between constants keeps its variable run
    when all members agree on it and becomes a single wildcard otherwise.
    """
    split = [_slots(m) for m in members]
    constants = split[0][0]
    out: list[str] = []
    for index in range(len(constants) + 1):
        runs = [slots[index] for _, slots in split]
        if len(set(runs)) == 1:
            out.extend(runs[0])
        else:
            first = next(run[0] for run in runs if run)
            out.append(wildcard_like(first))
        if index < len(constants):
            out.append(constants[index])
    return out


# ----------------------------------------------------------------------------- cover


def _words(tokens: Sequence[str]) -> list[tuple[int, str]]:
    """The constant words of a template with their positions (delimiters left out)."""
    return [(i, t) for i, t in enumerate(tokens) if not is_var(t) and not is_delimiter(t)]


def _covers(general: list[str], specific: list[str]) -> bool:
    """Whether every constant word of ``general`` (it has one) is at its position in ``specific``,
    and ``specific`` has no constant first word where ``general`` has a variable (unless it is
    a tag, see ``opens_with_tag``).

    Both templates have the same shape, so their delimiters agree already.
    """
    if not specific:
        return False
    first = first_word(specific)
    if is_var(general[first]) and not is_var(specific[first]) and not opens_with_tag(specific):
        return False
    words = 0
    for mine, theirs in zip(general, specific, strict=True):
        if is_var(mine) or is_delimiter(mine):
            continue
        if mine != theirs:
            return False
        words += 1
    return words > 0


def _merge_covered(groups: list[_Group]) -> list[_Group]:
    by_shape: dict[tuple[int | str, ...], list[_Group]] = {}
    for group in groups:
        by_shape.setdefault(group.shape(), []).append(group)
    if len(by_shape) == len(groups):
        return groups
    out: list[_Group] = []
    for members in by_shape.values():
        if len(members) == 1:
            out.extend(members)
            continue
        out.extend(_merge_covered_shape(members))
    return _ordered(out)


def _merge_covered_shape(members: list[_Group]) -> list[_Group]:
    """Cover within one shape: each group joins the first kept group it covers or that
    covers it. Kept groups are indexed by their words, so a group is compared only with
    those that share a word with it at the same position."""
    kept: list[_Group] = []
    # The first word of each kept group, and every word of each kept group.
    anchored: dict[tuple[int, str], set[int]] = {}
    having: dict[tuple[int, str], set[int]] = {}

    def index(number: int, words: list[tuple[int, str]], add: bool) -> None:
        buckets = [anchored.setdefault(words[0], set())] if words else []
        buckets.extend(having.setdefault(word, set()) for word in words)
        for bucket in buckets:
            if add:
                bucket.add(number)
            else:
                bucket.discard(number)

    for group in members:
        words = group.words()
        candidates: set[int] = set()
        for word in words:
            candidates |= anchored.get(word, set())
        if words:
            candidates |= having.get(words[0], set())
        found = min(
            (
                k
                for k in candidates
                if _covers(kept[k].tokens, group.tokens) or _covers(group.tokens, kept[k].tokens)
            ),
            default=None,
        )
        if found is None:
            kept.append(group)
            index(len(kept) - 1, words, add=True)
            continue
        other = kept[found]
        index(found, other.words(), add=False)
        kept[found] = _join([other, group], positionwise([other.tokens, group.tokens]))
        index(found, kept[found].words(), add=True)
    return kept


# ----------------------------------------------------------------------------- siblings


class _Interned:
    """Prefixes and suffixes of token sequences as small ints, for the whole merge.

    A sibling key (a position and the tokens before and after it) is then built in constant
    time and compared exactly, whatever the length of the line; the ids only ever grow, so
    a group's keys, once computed, hold through every round.
    """

    __slots__ = ("prefixes", "suffixes")

    def __init__(self) -> None:
        self.prefixes: dict[tuple[int, str], int] = {}
        self.suffixes: dict[tuple[int, str], int] = {}

    def sibling_keys(self, tokens: list[str]) -> list[tuple[int, int, int]]:
        """One key per word position (the first word and delimiters left out)."""
        keys = [key_of(t) for t in tokens]
        prefixes, suffixes = self.prefixes, self.suffixes
        before = [0] * (len(tokens) + 1)
        for i, key in enumerate(keys):
            before[i + 1] = prefixes.setdefault((before[i], key), len(prefixes) + 1)
        after = [0] * (len(tokens) + 1)
        for i in range(len(tokens) - 1, -1, -1):
            after[i] = suffixes.setdefault((after[i + 1], keys[i]), len(suffixes) + 1)
        first = -1 if opens_with_tag(tokens) else first_word(tokens)
        return [
            (i, before[i], after[i + 1])
            for i, token in enumerate(tokens)
            if i != first and not is_var(token) and not is_delimiter(token)
        ]


def _merge_siblings(groups: list[_Group], min_distinct: int, interned: _Interned) -> list[_Group]:
    # Siblings share a shape (the position where they differ holds a word, not a delimiter),
    # so only groups whose shape enough others share are keyed.
    shapes: dict[tuple[int | str, ...], int] = {}
    for group in groups:
        shapes[group.shape()] = shapes.get(group.shape(), 0) + 1
    siblings: dict[tuple[int, int, int], list[int]] = {}
    for number, group in enumerate(groups):
        if shapes[group.shape()] < min_distinct:
            continue
        for key in group.siblings(interned):
            siblings.setdefault(key, []).append(number)
    parent = list(range(len(groups)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    joined = False
    for (position, _, _), numbers in siblings.items():
        if len(numbers) < min_distinct:
            continue
        words = {groups[n].tokens[position].lstrip(" ") for n in numbers}
        if len(words) < min_distinct:
            continue
        joined = True
        root = find(numbers[0])
        for n in numbers[1:]:
            other = find(n)
            if other != root:
                parent[max(other, root)] = min(other, root)
                root = min(other, root)
    if not joined:
        return groups
    by_root: dict[int, list[_Group]] = {}
    for number, group in enumerate(groups):
        by_root.setdefault(find(number), []).append(group)
    out = [
        members[0]
        if len(members) == 1
        else _join(members, positionwise([m.tokens for m in members]))
        for members in by_root.values()
    ]
    return _ordered(out)


# ----------------------------------------------------------------------------- gaps


def _merge_gaps(groups: list[_Group]) -> list[_Group]:
    """Merge a group into another whose template it matches with words in a variable's place.

    ``User <*> logged in from <*>`` covers ``User Mary Ann Smith logged in from <*>``: a run
    of variables stands for one or more words. The words in such a gap must all be constant
    words or all variables; a mix (``for invalid user <*> from``) is another event's own
    structure, not a value.
    """
    if len(groups) < 2:
        return groups
    # A group fits another only with the same delimiters in the same order.
    delimiters: dict[tuple[str, ...], int] = {}
    for group in groups:
        delimiters[group.anchors()[0]] = delimiters.get(group.anchors()[0], 0) + 1
    general: dict[tuple[tuple[str, ...], str, str], list[int]] = {}
    items_of: dict[int, list[str | None]] = {}
    needs: dict[int, frozenset[str]] = {}
    for number, group in enumerate(groups):
        if delimiters[group.anchors()[0]] < 2:
            continue
        items = group.items()
        if items is None:
            continue
        items_of[number] = items
        needs[number] = frozenset(item for item in items if item is not None)
        general.setdefault(_general_key(group.anchors()), []).append(number)
    if not general:
        return groups

    def fits(template: int, number: int) -> bool:
        # Words and variables may share a gap (``<*> van der Berg``) only when the template
        # has far more evidence than the group it takes in: a phrase around a value that
        # recurs as often as the template (``invalid user <*>``) is structure, not a value.
        if not needs[template] <= groups[number].texts():
            return False  # a constant of the template is missing: no need to align them
        mixed = groups[number].weight * _RARE <= groups[template].weight
        return _matches(items_of[template], groups[number].tokens, mixed=mixed)

    links: dict[int, int] = {}
    for number, group in enumerate(groups):
        if delimiters[group.anchors()[0]] < 2:
            continue
        delimiters_of, first, last = group.anchors()
        candidates = sorted(
            {
                c
                for key in (
                    (delimiters_of, first, last),
                    (delimiters_of, "*", last),
                    (delimiters_of, first, "*"),
                    (delimiters_of, "*", "*"),
                )
                for c in general.get(key, ())
                if c != number
            }
        )
        found = next((c for c in candidates if fits(c, number)), None)
        if found is not None:
            links[number] = found
    if not links:
        return groups
    parent = list(range(len(groups)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for number, found in links.items():
        a, b = find(number), find(found)
        if a != b:
            parent[max(a, b)] = min(a, b)
    by_root: dict[int, list[int]] = {}
    for number in range(len(groups)):
        by_root.setdefault(find(number), []).append(number)
    out: list[_Group] = []
    for numbers in by_root.values():
        templates = sorted({links[n] for n in numbers if n in links})
        while numbers:
            # The set's template is the one most of its members fit (the first on a tie);
            # members it does not take stay groups of their own.
            best = max(
                (t for t in templates if t in numbers),
                key=lambda t: sum(1 for m in numbers if m == t or fits(t, m)),
                default=numbers[0],
            )
            taken = [m for m in numbers if m == best or (best in templates and fits(best, m))]
            out.append(
                groups[best]
                if len(taken) == 1
                else _join([groups[m] for m in taken], groups[best].tokens)
            )
            numbers = [m for m in numbers if m not in taken]
    return _ordered(out)


def _items(tokens: Sequence[str]) -> list[str | None] | None:
    """A template as constants (stripped text) and slots (None, one per run of variables).

    None when the template cannot stand for others: it has no slot, or fewer than two
    constant words.
    """
    items: list[str | None] = []
    words = 0
    for token in tokens:
        if is_var(token):
            if not items or items[-1] is not None:
                items.append(None)
        else:
            text = token.lstrip(" ")
            items.append(text)
            if not is_punct(text):
                words += 1
    if words < 2 or None not in items:
        return None
    return items


def _anchors(
    tokens: Sequence[str], layer: tuple[int | str, ...]
) -> tuple[tuple[str, ...], str, str]:
    """Delimiters in order (from the template's ``shape``), and the first and last tokens
    (``\x00`` for a variable)."""
    delimiters = tuple(str(t).lstrip(" ") for t in layer[2::2])

    def end(token: str) -> str:
        return "\x00" if is_var(token) else token.lstrip(" ")

    if not tokens:  # an empty message
        return delimiters, "", ""
    return delimiters, end(tokens[0]), end(tokens[-1])


def _general_key(anchors: tuple[tuple[str, ...], str, str]) -> tuple[tuple[str, ...], str, str]:
    """The anchors of a template that stands for others: a variable end takes any token."""
    delimiters, first, last = anchors
    return delimiters, "*" if first == "\x00" else first, "*" if last == "\x00" else last


def _matches(items: list[str | None], tokens: Sequence[str], *, mixed: bool = False) -> bool:
    """Whether ``tokens`` fit ``items``: constants equal, each slot one or more tokens that
    are all constant words or all variables (or any words and variables, when ``mixed``)."""
    size = len(tokens)
    # As elsewhere, the first word of a message is never taken for a value's words.
    first = first_word(tokens)
    frontier = [(0, 0)]
    seen = set(frontier)
    while frontier:
        i, j = frontier.pop()
        if i == len(items):
            if j == size:
                return True
            continue
        if j == size:
            continue
        item = items[i]
        token = tokens[j]
        if item is not None:
            if not is_var(token) and token.lstrip(" ") == item:
                step = (i + 1, j + 1)
                if step not in seen:
                    seen.add(step)
                    frontier.append(step)
            continue
        variable = is_var(token)
        if j == first and not variable:
            continue
        k = j
        while k < size and _fills(tokens[k], variable, mixed):
            k += 1
            step = (i + 1, k)
            if step not in seen:
                seen.add(step)
                frontier.append(step)
    return False


def _fills(token: str, variable: bool, mixed: bool) -> bool:
    """Whether ``token`` may go on a gap whose first token is (or is not) ``variable``."""
    if is_var(token):
        return variable or mixed
    return (mixed or not variable) and not is_delimiter(token)


# ----------------------------------------------------------------------------- helpers


def _apply(groups: list[_Group], partition: Partition | None) -> list[_Group]:
    """Groups joined as a pass of :mod:`._phrases` found them (unchanged on None)."""
    if partition is None:
        return groups
    out = [
        groups[numbers[0]] if len(numbers) == 1 else _join([groups[n] for n in numbers], tokens)
        for numbers, tokens in partition
    ]
    return _ordered(out)


def _join(groups: list[_Group], tokens: list[str]) -> _Group:
    members = sorted(m for g in groups for m in g.members)
    return _Group(members, tokens, sum(g.weight for g in groups))


def _ordered(groups: list[_Group]) -> list[_Group]:
    return sorted(groups, key=lambda g: g.members[0])
