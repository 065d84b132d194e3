"""Choosing what a logs observation shows: sampling, trimming, clipping, dropping (private)."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from harness.contracts.observation import LogEvent, LogTemplate
from harness.projectors._logs_raw import RANK
from harness.redaction import without_partial_mark

__all__ = ["ELLIPSIS", "RANKS", "TemplateGroup", "clip", "lowest_event", "sample", "trim_stack"]


@dataclass(kw_only=True)
class TemplateGroup:
    """The events of one mined template in a result: count, services, worst level, range."""

    template_id: str
    template: str
    identifiers: tuple[str | None, ...] | None
    count: int
    services: set[str]
    rank: int
    first: datetime
    last: datetime


ELLIPSIS = "…"
# Level ranks fit below this; an event's code is ``template * RANKS + rank``.
RANKS = 8
assert len(RANK) <= RANKS
# Stack frame lines of Java (``at ...``, ``... 12 more``) and Python (``File "..."``, code).
_FRAME = re.compile(r"^\s+(?:at\s|\.\.\.\s*\d+\s+(?:more|common)|File\s\")|^\s{4,}\S")
_CAUSE = re.compile(r"^\s*(?:Caused by:|During handling|The above exception|Suppressed:)")


def trim_stack(message: str, max_frames: int) -> tuple[str, bool]:
    """Keep the first line, the first ``max_frames`` frames and every cause line.

    Returns:
        The trimmed text (ending with ``... N more frames trimmed`` when frames were dropped)
        and whether anything was dropped.
    """
    lines = message.split("\n")
    if len(lines) == 1:
        return message, False
    kept = [lines[0]]
    frames = dropped = 0
    for line in lines[1:]:
        if _CAUSE.match(line) or not _FRAME.match(line):
            kept.append(line)
        elif frames < max_frames:
            kept.append(line)
            frames += 1
        else:
            dropped += 1
    if not dropped:
        return message, False
    kept.append(f"\t... {dropped} more frames trimmed")
    return "\n".join(kept), True


def lowest_event(events: list[LogEvent], templates: list[LogTemplate]) -> int:
    """Index of the event to drop first (events are in time order).

    Lowest level first; then one whose template other shown events share; then the one in
    the most crowded stretch of time, so that what stays still spans the range.
    """
    shared: dict[str, int] = {}
    for event in events:
        shared[event.template_ref] = shared.get(event.template_ref, 0) + 1
    stamps = [e.ts.timestamp() for e in events]

    def crowding(i: int) -> float:
        before = stamps[i] - stamps[i - 1] if i > 0 else float("inf")
        after = stamps[i + 1] - stamps[i] if i + 1 < len(stamps) else float("inf")
        # The first and last events anchor the range; they are dropped last.
        return -min(before, after)

    def priority(i: int) -> tuple[int, int, float]:
        return (RANK[events[i].level], -shared[events[i].template_ref], -crowding(i))

    return min(range(len(events)), key=priority)


def clip(text: str, max_chars: int) -> tuple[str, bool]:
    """``text`` cut to ``max_chars`` (ellipsis included), never inside a pseudonym mark."""
    if len(text) <= max_chars:
        return text, False
    return without_partial_mark(text[: max(max_chars - 1, 0)]) + ELLIPSIS, True


def sample(
    ts: Sequence[datetime], codes: list[int], counts: Sequence[int], count: int
) -> list[int]:
    """Positions (in time order) of up to ``count`` events spread over the whole range.

    The range ``[first, last]`` is cut into ``count`` equal strata; each stratum contributes
    its best event: a template not shown yet first, then the higher level, then the rarer
    template, then the earlier event. Slots of empty strata go to the best remaining
    representative of each unseen template, then to evenly spaced leftovers.

    An event's standing depends on its template and level only, so a stratum is decided by
    its distinct codes (a set, built at C speed) and the first event of the winning code;
    strata are found by bisection (an event's stratum never decreases with its position).
    Only the last resort (evenly spaced leftovers, when fewer templates than slots remain) loops
    over the events in Python.

    Args:
        ts: Event times, in time order.
        codes: Each event's template index and level rank as ``template * RANKS + rank``.
        counts: Each template's number of events.
        count: Events to pick.

    Returns:
        The picked positions, ascending.
    """
    total = len(ts)
    if count <= 0:
        return []
    if total <= count:
        return list(range(total))
    start = ts[0].timestamp()
    span = ts[-1].timestamp() - start

    def stratum_of(position: int) -> int:
        if span <= 0:
            return 0
        return min(count - 1, int((ts[position].timestamp() - start) / span * count))

    picked: list[int] = []
    chosen: set[int] = set()

    def standing(code: int) -> tuple[int, int, int]:
        template, rank = divmod(code, RANKS)
        return (0 if template in chosen else 1, rank, -counts[template])

    low = 0
    for stratum in range(count):
        high = bisect_right(range(total), stratum, lo=low, key=stratum_of)
        if high == low:
            continue
        window = set(codes[low:high])
        best = max(map(standing, window))
        position = min(codes.index(c, low, high) for c in window if standing(c) == best)
        picked.append(position)
        chosen.add(codes[position] // RANKS)
        low = high
    if len(picked) < count:
        taken = set(picked)
        # An unseen template's representative: its first event of its highest level.
        highest: dict[int, int] = {}
        for code in set(codes):
            template, rank = divmod(code, RANKS)
            if template not in chosen and rank >= highest.get(template, -1):
                highest[template] = rank
        representatives = [codes.index(t * RANKS + r) for t, r in highest.items()]
        extra = sorted(
            representatives,
            key=lambda i: (-(codes[i] % RANKS), -counts[codes[i] // RANKS], i),
        )
        for index in extra[: count - len(picked)]:
            picked.append(index)
            taken.add(index)
        need = count - len(picked)
        if need > 0:
            remaining = [i for i in range(total) if i not in taken]
            step = len(remaining) / need
            picked.extend(remaining[int((slot + 0.5) * step)] for slot in range(need))
    return sorted(picked)
