"""The Drain-style template miner: parse tree, clusters and the final merge pass."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from harness.logmining._tokens import PURE_WILDCARDS, Masker, is_var, render, wildcard_like
from harness.logmining.config import WILDCARD, MinedTemplate, MinerConfig, template_of_text

__all__ = ["TemplateMiner", "mask_content"]

# Masked lines remembered with their cluster; past this, new lines are mined without caching.
_SEEN_CACHE_SIZE = 1 << 20


def _word_positions(tokens: list[str]) -> tuple[int, ...]:
    # Similarity is measured on constant words; punctuation says little about the event.
    return tuple(i for i, t in enumerate(tokens) if not is_var(t) and not _is_punct(t.lstrip(" ")))


def _is_punct(word: str) -> bool:
    return len(word) == 1 and not word.isalnum()


class _Cluster:
    """A mutable Drain cluster; its template only ever generalises."""

    __slots__ = ("constant_positions", "display", "merged_into", "tokens")

    def __init__(self, tokens: tuple[str, ...]) -> None:
        self.tokens = list(tokens)
        self.constant_positions = _word_positions(self.tokens)
        self.merged_into: _Cluster | None = None
        self.display: str | None = None

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
        changed = False
        for i, theirs in enumerate(tokens):
            current = mine[i]
            if current != theirs and current not in PURE_WILDCARDS:
                mine[i] = wildcard_like(current)
                changed = True
        if changed:
            self.constant_positions = _word_positions(mine)

    def root(self) -> _Cluster:
        cluster = self
        while cluster.merged_into is not None:
            cluster = cluster.merged_into
        return cluster

    def text(self) -> str:
        return self.display if self.display is not None else render(self.tokens)


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
        self._root: dict[int, dict[str | None, Any]] = {}
        self._clusters: list[_Cluster] = []
        self._seen: dict[str, _Cluster] = {}
        self._prefix_len = max(self._config.depth - 2, 0)
        self._merged = True

    def add(self, content: str) -> MinedTemplate:
        """Mine one message content and return its cluster's current template."""
        return template_of_text(render(self._add(content).tokens))

    def _add(self, content: str) -> _Cluster:
        masked = self._masker.mask(content)
        cluster = self._seen.get(masked)
        if cluster is None:
            tokens = self._masker.tokens(masked)
            leaf = self._leaf(tokens, create=True)
            assert leaf is not None
            cluster = self._best(leaf, tokens)
            if cluster is None or (
                cluster.similarity(tokens) < self._config.similarity_threshold
                and len(leaf) < self._config.max_clusters_per_leaf
            ):
                cluster = _Cluster(tokens)
                leaf.append(cluster)
                self._clusters.append(cluster)
            else:
                cluster.absorb(tokens)
            if len(self._seen) < _SEEN_CACHE_SIZE:
                self._seen[masked] = cluster
            self._merged = False
        return cluster

    def match(self, content: str) -> MinedTemplate:
        """Return the final template ``content`` belongs to, without learning from it.

        A content no cluster accepts is reported as its own masked template.
        """
        self._merge()
        masked = self._masker.mask(content)
        cluster = self._seen.get(masked)
        tokens = self._masker.tokens(masked)
        if cluster is None:
            leaf = self._leaf(tokens, create=False)
            best = self._best(leaf, tokens) if leaf else None
            if best is not None and best.similarity(tokens) >= self._config.similarity_threshold:
                cluster = best
        if cluster is None:
            return template_of_text(render(tokens))
        return template_of_text(cluster.root().text())

    def templates(self) -> list[MinedTemplate]:
        """Return the distinct final templates mined so far, sorted by text."""
        self._merge()
        texts = {c.text() for c in self._clusters if c.merged_into is None}
        return [template_of_text(t) for t in sorted(texts)]

    def mine_batch(self, contents: Iterable[str]) -> list[MinedTemplate]:
        """Mine every content, then report each with its final template (two passes)."""
        clusters = [self._add(c) for c in contents]
        self._merge()
        cache: dict[int, MinedTemplate] = {}
        out: list[MinedTemplate] = []
        for cluster in clusters:
            key = id(cluster)
            mined = cache.get(key)
            if mined is None:
                mined = cache[key] = template_of_text(cluster.root().text())
            out.append(mined)
        return out

    # ------------------------------------------------------------------ internals

    def _leaf(self, tokens: tuple[str, ...], *, create: bool) -> list[_Cluster] | None:
        node = self._root.get(len(tokens))
        if node is None:
            if not create:
                return None
            node = self._root[len(tokens)] = {}
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

    def _best(self, leaf: list[_Cluster], tokens: tuple[str, ...]) -> _Cluster | None:
        best: _Cluster | None = None
        best_sim = -1.0
        for cluster in leaf:
            sim = cluster.similarity(tokens)
            if sim > best_sim:
                best, best_sim = cluster, sim
        return best

    def _merge(self) -> None:
        """Fold live clusters whose constant tokens coincide once variables are dropped.

        A variable may be empty (``host=`` beside ``host=web-1``) or repeat a varying number
        of times (a list of ids), which changes the token count and so lands the lines in
        different Drain clusters; their constant skeletons are still the same event. The
        group is shown with a template that covers every member.
        """
        if self._merged:
            return
        self._merged = True
        if not self._config.merge_templates:
            return
        groups: dict[tuple[str, ...], list[_Cluster]] = {}
        for cluster in self._clusters:
            cluster.merged_into = None
            cluster.display = None
            skeleton = tuple(t.lstrip(" ") for t in cluster.tokens if not is_var(t))
            groups.setdefault(skeleton, []).append(cluster)
        for members in groups.values():
            if len(members) == 1:
                continue
            owner = members[0]
            owner.display = render(_covering_tokens([m.tokens for m in members]))
            for other in members[1:]:
                other.merged_into = owner


def _slots(tokens: list[str]) -> tuple[list[str], list[tuple[str, ...]]]:
    """Split tokens into constants and the runs of variable tokens around them."""
    constants: list[str] = []
    slots: list[tuple[str, ...]] = []
    run: list[str] = []
    for token in tokens:
        if is_var(token):
            run.append(token)
        else:
            slots.append(tuple(run))
            run = []
            constants.append(token)
    slots.append(tuple(run))
    return constants, slots


def _covering_tokens(members: list[list[str]]) -> list[str]:
    """Build one template that every member template (same constant skeleton) matches.

    Constants come from the first member; each gap between constants keeps its variable run
    when all members agree on it and becomes a single wildcard otherwise.
    """
    split = [_slots(m) for m in members]
    constants = split[0][0]
    out: list[str] = []
    for index in range(len(constants) + 1):
        runs = [slots[index] for _, slots in split]
        distinct = set(runs)
        if len(distinct) == 1:
            out.extend(runs[0])
        else:
            first = next(run[0] for run in runs if run)
            out.append(wildcard_like(first))
        if index < len(constants):
            out.append(constants[index])
    return out


def mask_content(content: str, config: MinerConfig | None = None) -> str:
    """Return ``content`` with every masked value replaced by ``<*>`` (for callers and tests)."""
    return Masker(config or MinerConfig()).mask(content)
