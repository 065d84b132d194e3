"""Choosing what a logs observation shows: sampling, trimming, clipping, dropping (private)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from harness.observation import LogEvent, LogTemplate
from harness.projectors._logs_raw import RANK, Event

__all__ = ["ELLIPSIS", "TemplateGroup", "clip", "lowest_event", "sample", "trim_stack"]


@dataclass(kw_only=True)
class TemplateGroup:
    """The events of one mined template in a result: count, services, worst level, range."""

    template_id: str
    template: str
    count: int
    services: set[str]
    rank: int
    first: datetime
    last: datetime


ELLIPSIS = "…"
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
    if len(text) <= max_chars:
        return text, False
    return text[: max(max_chars - 1, 0)] + ELLIPSIS, True


def sample(
    events: list[Event], template_ids: list[str], groups: dict[str, TemplateGroup], count: int
) -> list[int]:
    """Positions (in time order) of up to ``count`` events spread over the whole range.

    The range ``[first, last]`` is cut into ``count`` equal strata; each stratum contributes
    its best event: a template not shown yet first, then the higher level, then the rarer
    template, then the earlier event. Slots of empty strata go to the best remaining
    representative of each unseen template, then to evenly spaced leftovers.
    """
    if count <= 0:
        return []
    if len(events) <= count:
        return list(range(len(events)))
    start = events[0].ts.timestamp()
    span = events[-1].ts.timestamp() - start
    picked: list[int] = []
    chosen_templates: set[str] = set()
    position = 0
    total = len(events)
    for stratum in range(count):
        best: tuple[int, int, int] | None = None
        best_position = -1
        while position < total:
            offset = events[position].ts.timestamp() - start
            bucket = min(count - 1, int(offset / span * count)) if span > 0 else 0
            if bucket > stratum:
                break
            template_id = template_ids[position]
            key = (
                0 if template_id in chosen_templates else 1,
                RANK[events[position].level],
                -groups[template_id].count,
            )
            if best is None or key > best:
                best, best_position = key, position
            position += 1
        if best_position >= 0:
            picked.append(best_position)
            chosen_templates.add(template_ids[best_position])
    if len(picked) < count:
        taken = set(picked)
        representatives: dict[str, int] = {}
        for index, template_id in enumerate(template_ids):
            if template_id in chosen_templates or index in taken:
                continue
            current = representatives.get(template_id)
            if current is None or RANK[events[index].level] > RANK[events[current].level]:
                representatives[template_id] = index
        extra = sorted(
            representatives.values(),
            key=lambda i: (-RANK[events[i].level], -groups[template_ids[i]].count, i),
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
