"""The Drain-style template miner: parse tree, clusters, and the passes after mining."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from harness.logmining._merge import merge_clusters
from harness.logmining._tokens import (
    PURE_WILDCARDS,
    Masker,
    is_delimiter,
    is_var,
    render,
    shape,
    wildcard_like,
)
from harness.logmining.config import WILDCARD, MinedTemplate, MinerConfig, template_of_text

__all__ = ["TemplateMiner", "mask_content"]

# Masked lines remembered with their cluster and tokens; past this, new lines are mined
# without caching, and clusters are no longer split by their two-word positions (the lines
# that would tell them apart are not all remembered).
_SEEN_CACHE_SIZE = 1 << 20

# Distinct masked contents a cluster needs before a position that only ever held two words
# splits it: over a few lines, two values are as likely a variable's (two users, two hosts).
_SPLIT_EVIDENCE = 10

_Key = tuple[int, tuple[str, ...]]
"""A unit of a cluster: the cluster's number and its words at the cluster's split positions."""

_Entry = tuple[int, tuple[str, ...]]
"""What mining made of one masked content: its cluster's number and its tokens. Numbers, not
clusters: a tuple of an int and strings is one the garbage collector stops tracking, and a
100k-line result holds ~10k entries."""


def _word_positions(tokens: list[str]) -> tuple[int, ...]:
    # Similarity is measured on constant words; punctuation says little about the event.
    return tuple(i for i, t in enumerate(tokens) if not is_var(t) and not is_delimiter(t))


def _is_word(token: str) -> bool:
    return not is_var(token) and not is_delimiter(token)


class _Cluster:
    """A mutable Drain cluster; its template only ever generalises.

    ``words`` remembers, for each position the cluster generalised from a constant word, the
    constant words seen there, or None once a value (a variable token) or a third word was.
    A position that only ever held two words is where two events were taken for one
    (``passed``/``failed``, ``startup``/``shutdown``): the cluster is split there after mining.
    """

    __slots__ = ("constant_positions", "number", "shape", "tokens", "variants", "words")

    def __init__(self, tokens: tuple[str, ...], number: int, layer: tuple[int | str, ...]) -> None:
        self.tokens = list(tokens)
        self.number = number
        # The token count and delimiters (see ``shape``): the same for every line it takes.
        self.shape = layer
        # Distinct masked contents the cluster took in: how much evidence its template has.
        self.variants = 0
        self.constant_positions = _word_positions(self.tokens)
        self.words: dict[int, set[str] | None] = {}

    def similarity(self, tokens: tuple[str, ...]) -> float:
        positions = self.constant_positions
        if not positions:
            return 1.0
        mine = self.tokens
        equal = 0
        for i in positions:
            if mine[i] == tokens[i]:
                equal += 1
        return equal / len(positions)

    def absorb(self, tokens: tuple[str, ...]) -> None:
        mine = self.tokens
        words = self.words
        changed = False
        for i, theirs in enumerate(tokens):
            current = mine[i]
            if current == theirs:
                continue
            if current in PURE_WILDCARDS:
                # Generalised already: by a mask (untracked), or from words (tracked).
                seen = words.get(i) if words else None
                if seen is not None and theirs not in seen:
                    words[i] = seen | {theirs} if _is_word(theirs) and len(seen) < 2 else None
                continue
            words[i] = {current, theirs} if _is_word(current) and _is_word(theirs) else None
            mine[i] = wildcard_like(current)
            changed = True
        if changed:
            self.constant_positions = _word_positions(mine)

    def split_positions(self) -> tuple[int, ...]:
        """Positions that only ever held two constant words (in order), once the cluster has
        taken in enough distinct contents for two words to be evidence of two events."""
        if self.variants < _SPLIT_EVIDENCE:
            return ()
        return tuple(sorted(i for i, seen in self.words.items() if seen is not None))


class TemplateMiner:
    """Mines templates from a stream of log message contents.

    ``add`` returns the line's current template, which may still generalise as more lines
    arrive; ``templates``, ``match`` and ``mine_batch`` report final ones.

    Args:
        config: Tuning; ``MinerConfig()`` when omitted.
        guard: Applied to a word before a mask would cut it into pieces (a redactor, so that
            no template keeps a fragment of a secret; see ``Masker``).
    """

    def __init__(
        self, config: MinerConfig | None = None, guard: Callable[[str], str] | None = None
    ) -> None:
        self._config = config or MinerConfig()
        self._masker = Masker(self._config, guard)
        self._root: dict[tuple[int | str, ...], dict[str | None, Any]] = {}
        self._clusters: list[_Cluster] = []
        self._seen: dict[str, _Entry] = {}
        self._prefix_len = max(self._config.depth - 2, 0)
        self._merged = True
        # After the passes: each cluster's split positions and each unit's final template.
        self._splits: list[tuple[int, ...]] = []
        self._final: dict[_Key, MinedTemplate] = {}

    def add(self, content: str) -> MinedTemplate:
        """Mine one message content and return its cluster's current template."""
        return template_of_text(render(self._clusters[self._add(content)[0]].tokens))

    def _add(self, content: str) -> _Entry:
        masked = self._masker.mask(content)
        entry = self._seen.get(masked)
        if entry is not None:
            return entry
        tokens, layer = self._masker.split(masked)
        leaf = self._leaf(tokens, layer, create=True)
        assert leaf is not None
        cluster, similarity = self._best(leaf, tokens)
        if cluster is None or (
            similarity < self._config.similarity_threshold
            and len(leaf) < self._config.max_clusters_per_leaf
        ):
            cluster = _Cluster(tokens, len(self._clusters), layer)
            leaf.append(cluster)
            self._clusters.append(cluster)
        else:
            cluster.absorb(tokens)
        cluster.variants += 1
        entry = (cluster.number, tokens)
        if len(self._seen) < _SEEN_CACHE_SIZE:
            self._seen[masked] = entry
        self._merged = False
        return entry

    def match(self, content: str) -> MinedTemplate:
        """Return the final template ``content`` belongs to, without learning from it.

        A content no cluster accepts (or that holds a word at a cluster's split position the
        cluster never saw there) is reported as its own masked template.
        """
        self._merge()
        masked = self._masker.mask(content)
        entry = self._seen.get(masked)
        tokens = entry[1] if entry is not None else self._masker.tokens(masked)
        cluster = self._clusters[entry[0]] if entry is not None else None
        if cluster is None:
            leaf = self._leaf(tokens, shape(tokens), create=False)
            best, similarity = self._best(leaf, tokens) if leaf else (None, 0.0)
            if best is not None and similarity >= self._config.similarity_threshold:
                cluster = best
        if cluster is not None:
            mined = self._final.get(self._key(cluster, tokens))
            if mined is not None:
                return mined
        return template_of_text(render(tokens))

    def templates(self) -> list[MinedTemplate]:
        """Return the distinct final templates mined so far, sorted by text."""
        self._merge()
        texts = {m.template for m in self._final.values()}
        return [template_of_text(t) for t in sorted(texts)]

    def mine_batch(self, contents: Iterable[str]) -> list[MinedTemplate]:
        """Mine every content, then report each with its final template (two passes)."""
        entries = [self._add(c) for c in contents]
        self._merge()
        # Repeated masked contents share one entry, so each entry's template is looked up once.
        final, splits = self._final, self._splits
        known: dict[int, MinedTemplate] = {}
        out: list[MinedTemplate] = []
        append = out.append
        for entry in entries:
            mined = known.get(id(entry))
            if mined is None:
                number, tokens = entry
                positions = splits[number]
                words = tuple(tokens[i].lstrip(" ") for i in positions) if positions else ()
                mined = known[id(entry)] = final[number, words]
            append(mined)
        return out

    # ------------------------------------------------------------------ internals

    def _leaf(
        self, tokens: tuple[str, ...], layer: tuple[int | str, ...], *, create: bool
    ) -> list[_Cluster] | None:
        # The first layer holds the token count and where the delimiters are: lines of one
        # event punctuate alike, and a delimiter is never a value, so a line whose delimiters
        # fall elsewhere belongs to another event (``tty=:0 ruser=`` is not ``tty=ssh ruser=``)
        # however many of its words agree.
        node = self._root.get(layer)
        if node is None:
            if not create:
                return None
            node = self._root[layer] = {}
        max_children = self._config.max_children
        for i in range(min(self._prefix_len, len(tokens))):
            token = tokens[i]
            key = WILDCARD if is_var(token) else token
            child = node.get(key)
            if child is None:
                if not create:
                    child = node.get(WILDCARD)
                    if child is None:
                        return None
                elif len(node) < max_children or key == WILDCARD:
                    child = node[key] = {}
                else:
                    child = node.get(WILDCARD)
                    if child is None:
                        child = node[WILDCARD] = {}
            node = child
        leaf = node.get(None)
        if leaf is None:
            if not create:
                return None
            leaf = node[None] = []
        return leaf

    def _best(self, leaf: list[_Cluster], tokens: tuple[str, ...]) -> tuple[_Cluster | None, float]:
        """The leaf's cluster most similar to ``tokens`` (the first of equals) and its
        similarity, which callers compare with the threshold without computing it again."""
        best: _Cluster | None = None
        best_sim = -1.0
        for cluster in leaf:
            sim = cluster.similarity(tokens)
            if sim > best_sim:
                best, best_sim = cluster, sim
        return best, best_sim

    def _key(self, cluster: _Cluster, tokens: tuple[str, ...]) -> _Key:
        positions = self._splits[cluster.number]
        if not positions:
            return cluster.number, ()
        return cluster.number, tuple(tokens[i].lstrip(" ") for i in positions)

    def _merge(self) -> None:
        """Split clusters at their two-word positions, then merge units of one event together.

        A unit is a cluster, or the part of a cluster with one choice of words at its split
        positions; the passes of :mod:`._merge` then take the units of one event into one
        group, shown with a template that covers every member. The parse tree routes a line
        by its first words, so one event's lines may be spread over clusters too small each
        to show a two-word position (``queue emails is paused``, ``queue billing is
        resumed``): the evidence of the clusters a group joins is pooled, and where it shows
        one, those clusters are split there and folded again.
        """
        if self._merged:
            return
        self._merged = True
        clusters = self._clusters
        split = self._config.merge_templates and len(self._seen) < _SEEN_CACHE_SIZE
        self._splits = [c.split_positions() if split else () for c in clusters]
        keys, groups = self._fold_units()
        if split:
            pooled = _pooled_splits(clusters, self._splits, keys, groups)
            if pooled:
                for number, positions in pooled.items():
                    self._splits[number] = tuple(sorted({*self._splits[number], *positions}))
                keys, groups = self._fold_units()
        final: dict[_Key, MinedTemplate] = {}
        for members, covering in groups:
            mined = template_of_text(render(covering))
            for index in members:
                final[keys[index]] = mined
        self._final = final

    def _fold_units(self) -> tuple[list[_Key], list[tuple[list[int], list[str]]]]:
        """The units the current split positions make, and the groups the merge makes of them
        (member indices into the returned keys)."""
        clusters = self._clusters
        units: list[dict[tuple[str, ...], tuple[list[str], int]]] = [{} for _ in clusters]
        splits = self._splits
        for number, tokens in self._seen.values() if any(splits) else ():
            positions = splits[number]
            if not positions:
                continue
            words = tuple(tokens[i].lstrip(" ") for i in positions)
            known = units[number].get(words)
            if known is None:
                filled = list(clusters[number].tokens)
                for i in positions:
                    filled[i] = tokens[i]
                units[number][words] = (filled, 1)
            else:
                units[number][words] = (known[0], known[1] + 1)
        keys: list[_Key] = []
        templates: list[list[str]] = []
        weights: list[int] = []
        shapes: list[tuple[int | str, ...]] = []
        for cluster in clusters:
            if not units[cluster.number]:
                keys.append((cluster.number, ()))
                templates.append(cluster.tokens)
                weights.append(cluster.variants)
                shapes.append(cluster.shape)
                continue
            for words, (filled, weight) in units[cluster.number].items():
                keys.append((cluster.number, words))
                templates.append(filled)
                weights.append(weight)
                shapes.append(cluster.shape)
        if self._config.merge_templates:
            groups = merge_clusters(
                templates, weights, shapes, min_distinct=self._config.min_distinct_words
            )
        else:
            groups = [([index], tokens) for index, tokens in enumerate(templates)]
        return keys, groups


def _pooled_splits(
    clusters: list[_Cluster],
    splits: list[tuple[int, ...]],
    keys: list[_Key],
    groups: list[tuple[list[int], list[str]]],
) -> dict[int, tuple[int, ...]]:
    """Two-word positions that only the clusters of one group together give evidence for.

    For a group of two or more clusters of its covering template's length, a position where
    every member held constant words only, two in all over at least ``_SPLIT_EVIDENCE``
    distinct contents, is a split position of each member (returned per cluster number).
    """
    out: dict[int, tuple[int, ...]] = {}
    for members, covering in groups:
        numbers = sorted({keys[index][0] for index in members})
        if len(numbers) < 2:
            continue
        group = [clusters[n] for n in numbers]
        if any(len(c.tokens) != len(covering) for c in group):
            continue
        if sum(c.variants for c in group) < _SPLIT_EVIDENCE:
            continue
        found: list[int] = []
        for i, token in enumerate(covering):
            if token not in PURE_WILDCARDS or any(i in splits[c.number] for c in group):
                continue
            seen: set[str] = set()
            for cluster in group:
                words = _words_at(cluster, i)
                if words is None:
                    break
                seen |= words
            else:
                if len(seen) == 2:
                    found.append(i)
        for cluster in group if found else ():
            out[cluster.number] = tuple(found)
    return out


def _words_at(cluster: _Cluster, position: int) -> set[str] | None:
    """The constant words a cluster held at a position (None once it held a value)."""
    token = cluster.tokens[position]
    if _is_word(token):
        return {token}
    return cluster.words.get(position)


def mask_content(content: str, config: MinerConfig | None = None) -> str:
    """Return ``content`` with every masked value replaced by ``<*>`` (for callers and tests)."""
    return Masker(config or MinerConfig()).mask(content)
