"""Held-out lines from other projects' format definitions, read with the catalog as it stands.

None of these lines was used to write a row; they check that the rows are written for the
class (a grammar, a time notation, a level notation), not for the catalog's own examples.
Source: tstack/lnav, ``src/formats/*.json`` sample lines (BSD-2-Clause): postgres_log.json
@ 1b27201885b6, redis_log.json @ 2fb0e318c2d7.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from harness.logformats import ReadOptions, detect, read_events

REFERENCE = datetime(2024, 1, 1)

SAMPLES = [
    (
        ["2025-08-13 01:45:01.127 PDT [12347] LOG:  database system was shut down at "
         "2025-08-13 01:44:58 PDT"],
        "postgresql",
        [("2025-08-13T01:45:01.127000-07:00", "INFO")],
    ),
    (
        ["1:M 29 Aug 2023 13:47:38.984 * monotonic clock: POSIX clock_gettime",
         "1:signal-handler (1693279182) Received SIGTERM scheduling shutdown..."],
        "redis",
        [("2023-08-29T13:47:38.984000+00:00", "INFO"), ("2023-08-29T03:19:42+00:00", None)],
    ),
    (
        ["[3574] 13 Apr 12:52:30.731 # Sentinel runid is 2e3b1eed9e95d760e1853e047a33bf4f8ac16c59"],
        "redis",
        [("2023-04-13T12:52:30.731000+00:00", "WARN")],
    ),
]  # fmt: skip


@pytest.mark.parametrize(("lines", "name", "expected"), SAMPLES, ids=lambda v: str(v)[:20])
def test_public_sample_lines_are_read(
    lines: list[str], name: str, expected: list[tuple[str, str | None]]
) -> None:
    detection = detect(lines)
    events = list(read_events(lines, detection.format, ReadOptions(reference=REFERENCE)))
    assert detection.name == name
    assert [(e.time.isoformat() if e.time else None, e.level) for e in events] == expected
