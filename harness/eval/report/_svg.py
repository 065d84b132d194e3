"""Inline SVG for the report's figures: groups of horizontal bars, and histograms.

Every figure has the same fixed size (``WIDTH`` x ``HEIGHT`` CSS pixels), so the page lays out
the same whatever the data, and every text drawn comes from data and is escaped here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

__all__ = ["HEIGHT", "WIDTH", "Bar", "bar_groups", "clip", "fmt", "histogram"]

WIDTH = 400
HEIGHT = 240

_LABEL_W = 150  # the label column of a bar chart
_TEXT_W = 100  # room right of the longest bar for its value
_INK = "#1565c0"
_MARKER_FONT = 10.0
_AXIS = "#607d8b"


@dataclass(frozen=True, kw_only=True)
class Bar:
    """One bar: its label, its length in the group's scale, the text shown after it."""

    label: str
    value: float
    text: str
    colour: str = _INK


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, an ellipsis marking the cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def fmt(value: float) -> str:
    """A figure for a label: thousands separated, at most one decimal under 100."""
    if value >= 100 or value == int(value):
        return f"{round(value):,}"
    return f"{value:.1f}"


def _svg(label: str, body: str) -> str:
    return (
        f'<svg role="img" aria-label="{escape(label)}" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}">{body}</svg>'
    )


def text_width(text: str, font: float) -> float:
    """A generous estimate of a text's width in pixels (an upper-case glyph is ~0.68 em)."""
    return len(text) * font * 0.68


def _text(
    x: float,
    y: float,
    text: str,
    *,
    anchor: str = "start",
    cls: str = "",
    fit: float | None = None,
    font: float = 11.0,
) -> str:
    """A text element; one wider than ``fit`` pixels is drawn narrower, never cut: its glyphs
    are squeezed into the room (``textLength``), so every label is shown whole."""
    klass = f' class="{cls}"' if cls else ""
    squeeze = ""
    if fit is not None and text_width(text, font) > fit:
        squeeze = f' textLength="{fit:.1f}" lengthAdjust="spacingAndGlyphs"'
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}"{klass}{squeeze}>'
        f"{escape(text)}</text>"
    )


def _empty(label: str, note: str) -> str:
    frame = f'<rect x="1" y="1" width="{WIDTH - 2}" height="{HEIGHT - 2}" class="frame"/>'
    return _svg(label, frame + _text(WIDTH / 2, HEIGHT / 2, note, anchor="middle", cls="note"))


def bar_groups(
    label: str,
    groups: Sequence[tuple[str, Sequence[Bar]]],
    *,
    scale_max: float | None = None,
    empty: str = "no data",
) -> str:
    """Titled groups of horizontal bars; each group scaled to its own longest bar.

    ``scale_max`` fixes one scale for every group instead (1.0 for shares).
    """
    groups = [(title, bars) for title, bars in groups if bars]
    if not groups:
        return _empty(label, empty)
    rows = sum(len(bars) + (1 if title else 0) for title, bars in groups)
    row_h = min(22.0, (HEIGHT - 8) / rows)
    bar_h = max(row_h * 0.7, 1.0)
    font = min(12.0, max(row_h * 0.8, 6.0))
    span = WIDTH - _LABEL_W - _TEXT_W

    parts = [f'<g style="font-size:{font:.1f}px">']
    y = 4.0
    for title, bars in groups:
        if title:
            parts.append(_text(4, y + row_h * 0.75, title, cls="title"))
            y += row_h
        top = scale_max if scale_max is not None else max(b.value for b in bars)
        for bar in bars:
            share = 0.0 if top <= 0 else min(bar.value / top, 1.0)
            length = max(share * span, 1.0 if bar.value > 0 else 0.0)
            parts.append(
                _text(
                    _LABEL_W - 6,
                    y + row_h * 0.72,
                    bar.label,
                    anchor="end",
                    fit=_LABEL_W - 8,
                    font=font,
                )
            )
            parts.append(
                f'<rect x="{_LABEL_W}" y="{y + (row_h - bar_h) / 2:.1f}" width="{length:.1f}" '
                f'height="{bar_h:.1f}" fill="{bar.colour}"/>'
            )
            room = WIDTH - (_LABEL_W + length + 4) - 2
            parts.append(
                _text(_LABEL_W + length + 4, y + row_h * 0.72, bar.text, fit=room, font=font)
            )
            y += row_h
    parts.append(
        f'<line x1="{_LABEL_W}" y1="2" x2="{_LABEL_W}" y2="{y:.1f}" stroke="{_AXIS}"/></g>'
    )
    return _svg(label, "".join(parts))


def histogram(
    label: str,
    values: Sequence[float],
    *,
    unit: str,
    markers: Sequence[tuple[str, float]] = (),
    bins: int = 20,
    empty: str = "no case runs",
) -> str:
    """Counts of ``values`` in ``bins`` equal bins between their min and max.

    ``markers`` draws a labelled dashed line at each value (p50, p90).
    """
    if not values:
        return _empty(label, empty)
    low, high = min(values), max(values)
    if high - low <= 0:
        high = low + 1.0
    width = (high - low) / bins
    counts = [0] * bins
    for value in values:
        counts[min(int((value - low) / width), bins - 1)] += 1
    # Two rows above the plot hold the markers' labels.
    left, right, top, bottom = 44.0, WIDTH - 10.0, 34.0, HEIGHT - 34.0
    peak = max(counts)
    step = (right - left) / bins
    parts = ['<g style="font-size:11px">']
    for index, count in enumerate(counts):
        if count:
            h = max((bottom - top) * count / peak, 1.0)
            parts.append(
                f'<rect x="{left + index * step + 0.5:.1f}" y="{bottom - h:.1f}" '
                f'width="{max(step - 1, 0.5):.1f}" height="{h:.1f}" fill="{_INK}"/>'
            )
    parts.append(
        f'<path d="M{left},{top} V{bottom} H{right}" fill="none" stroke="{_AXIS}"/>'
        + _text(left - 4, top + 8, fmt(peak), anchor="end")
        + _text(left - 4, bottom, "0", anchor="end")
        + _text(left, bottom + 14, fmt(low), anchor="middle")
        + _text((left + right) / 2, bottom + 14, fmt((low + high) / 2), anchor="middle")
        + _text(right, bottom + 14, fmt(high), anchor="end")
        + _text(
            (left + right) / 2,
            bottom + 28,
            f"{unit} · {len(values):,} case runs",
            anchor="middle",
            cls="note",
        )
    )
    taken: list[tuple[float, float, float]] = []  # (row y, start x, end x) of placed labels
    for name, value in markers:
        if math.isfinite(value):
            x = left + (min(max(value, low), high) - low) / (high - low) * (right - left)
            label = f"{name} {fmt(value)}"
            anchor, at, start, end = _marker_span(x, text_width(label, _MARKER_FONT))
            # A label that would overlap one already placed goes to the row above it.
            row = next(
                (y for y in (top - 8, top - 20)
                 if all(r != y or end < s - 2 or start > e + 2 for r, s, e in taken)),
                top - 20,
            )  # fmt: skip
            taken.append((row, start, end))
            parts.append(
                f'<line x1="{x:.1f}" y1="{row + 2}" x2="{x:.1f}" y2="{bottom}" class="marker"/>'
                + _text(
                    at, row, label, anchor=anchor, cls="marker", fit=end - start, font=_MARKER_FONT
                )
            )
    parts.append("</g>")
    return _svg(label, "".join(parts))


def _marker_span(x: float, width: float) -> tuple[str, float, float, float]:
    """How a marker's label stays inside the figure: (anchor, text x, start, end)."""
    if x + 3 + width <= WIDTH - 2:
        return "start", x + 3, x + 3, x + 3 + width
    if x - 3 - width >= 2:
        return "end", x - 3, x - 3 - width, x - 3
    return "start", 2.0, 2.0, WIDTH - 2.0  # squeezed across the whole width
