"""Loghub-style header formats and whole-batch mining of raw log lines."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from harness.logmining.config import MinerConfig
from harness.logmining.headers import DetectedFormat
from harness.logmining.miner import TemplateMiner

__all__ = ["mine_lines", "parse_log_format"]

_FORMAT_FIELD = re.compile(r"<([^<>]+)>")


def parse_log_format(fmt: str) -> re.Pattern[str]:
    """Turn a loghub-style header format into a regex with one named group per field.

    As logparser's ``generate_logformat_regex``: text between fields is literal except that a
    run of spaces matches any whitespace run; the text inside the format may already contain
    regex syntax (``\\[<Pid>\\]``, ``(...)?``) and is kept as written. ``Content`` takes the rest
    of the line.

    Args:
        fmt: e.g. ``'<Date> <Time> <Level> <Component>: <Content>'``.

    Returns:
        A compiled, anchored pattern.
    """
    parts = _FORMAT_FIELD.split(fmt)
    regex = ""
    for index, part in enumerate(parts):
        if index % 2 == 0:
            regex += re.sub(r" +", r"\\s+", part)
        else:
            name = part.strip()
            regex += f"(?P<{name}>.*?)" if name != "Content" else f"(?P<{name}>.*)"
    return re.compile("^" + regex + "$")


def mine_lines(
    lines: Iterable[str],
    fmt: str | DetectedFormat | None = None,
    config: MinerConfig | None = None,
) -> Iterator[dict[str, object]]:
    """Mine a batch of raw log lines and yield each line's final template.

    Every line is mined first; then each is reported with the template its cluster ended
    with, so a line's template never depends on where in the batch it came.

    Args:
        lines: Raw lines (trailing newlines are ignored).
        fmt: How to split headers off: a loghub-style header format (only its ``Content``
            field is mined), or a format from :func:`~harness.logmining.detect_format`.
            Lines that do not fit are mined whole; without ``fmt`` every line is.
        config: Miner tuning.

    Yields:
        ``{"line": N, "template_id": ..., "template": ...}`` with N counted from 1.
    """
    pattern = parse_log_format(fmt) if isinstance(fmt, str) else None
    detected = fmt if isinstance(fmt, DetectedFormat) else None
    contents: list[str] = []
    for raw in lines:
        line = raw.rstrip("\r\n")
        if pattern is not None:
            found = pattern.match(line.strip())
            if found is not None:
                line = found.group("Content")
        elif detected is not None:
            line = detected.split(line)
        contents.append(line)
    miner = TemplateMiner(config)
    for number, mined in enumerate(miner.mine_batch(contents), start=1):
        yield {"line": number, "template_id": mined.template_id, "template": mined.template}
