"""Loghub-style header formats and whole-batch mining of raw log lines."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

from harness.logmining.config import MinerConfig, template_id_of
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
    *,
    redact: Callable[[str], str] | None = None,
    pseudonymize: Callable[[str, str], str] | None = None,
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
        redact: A redactor for what is shown, used as the logs projector uses it: the miner's
            guard redacts a word whole before a mask would cut it into pieces, and each
            template is redacted before it is named (its id is then computed from the redacted
            text). ``pseudonymize`` (``Pseudonyms.apply`` of the caller's run) then numbers the
            hosts, pods and IPs of the text shown, never of the text the id is computed from.
            Lines are not redacted before mining: placeholders would make values that
            vary look constant and split or merge events (measured on the fixture systems). A
            command that prints templates passes one; without it templates are raw (for
            measuring the miner against labelled corpora).

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
    miner = TemplateMiner(config, guard=redact)
    shown: dict[str, tuple[str, str]] = {}
    for number, mined in enumerate(miner.mine_batch(contents), start=1):
        if redact is None:
            yield {"line": number, "template_id": mined.template_id, "template": mined.template}
            continue
        named = shown.get(mined.template)
        if named is None:
            text = redact(mined.template)
            shown_text = text if pseudonymize is None else pseudonymize(mined.template, text)
            named = shown[mined.template] = (template_id_of(text), shown_text)
        yield {"line": number, "template_id": named[0], "template": named[1]}
