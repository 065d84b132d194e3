"""Third-party corpora for tests and benchmarks: where they are, and the loghub helpers.

The corpora are not part of the repository. One setting says where they lie: the environment
variable ``HARNESS_CORPORA_DIR``, by default ``<repo>/../shared/data``. It holds ``loghub/``,
``secrets/``, ``sqli/`` and ``prompt_injection/`` (see the README of that folder).

Tests reach them only through the ``corpus`` fixture of ``tests/conftest.py``, which skips (or,
under ``CI=true``, fails) when a corpus is absent; benchmarks call :func:`require`.
"""

from __future__ import annotations

import csv
import os
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

__all__ = [
    "DRAIN_PUBLISHED_GA",
    "ENV",
    "LOGHUB_FORMATS",
    "LOGHUB_GA_FLOORS",
    "CorpusMissing",
    "corpora_dir",
    "grouping_accuracy",
    "load_loghub",
    "require",
]

ENV = "HARNESS_CORPORA_DIR"
REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPORA_DIR = REPO.parent / "shared" / "data"


def corpora_dir() -> Path:
    """The corpora folder: ``$HARNESS_CORPORA_DIR``, or ``<repo>/../shared/data`` when unset."""
    value = os.environ.get(ENV, "")
    return Path(value).expanduser() if value else DEFAULT_CORPORA_DIR


class CorpusMissing(Exception):
    """A corpus (or the whole corpora folder) is not where the setting points."""


def require(*parts: str) -> Path:
    """The path of a corpus under :func:`corpora_dir`; :class:`CorpusMissing` when absent."""
    root = corpora_dir()
    setting = f"{ENV}={os.environ[ENV]}" if os.environ.get(ENV) else f"{ENV} unset"
    if not root.is_dir():
        raise CorpusMissing(
            f"corpora folder not found: {root} ({setting}; set it to the folder holding "
            f"loghub/, secrets/, sqli/ and prompt_injection/)"
        )
    path = root.joinpath(*parts)
    if not path.exists():
        raise CorpusMissing(
            f"corpus {'/'.join(parts)} not found: {path} ({setting}; default {DEFAULT_CORPORA_DIR})"
        )
    return path


# ----------------------------------------------------------------------------- loghub
#
# Grouping accuracy on the loghub-2k benchmark sets (logparser's definition), used by the
# accuracy tests and benchmarks/bench_log_mining.py.

# Header formats of logparser's Drain benchmark (benchmark.py), per loghub-2k set.
LOGHUB_FORMATS: dict[str, str] = {
    "HDFS": "<Date> <Time> <Pid> <Level> <Component>: <Content>",
    "Apache": r"\[<Time>\] \[<Level>\] <Content>",
    "OpenSSH": r"<Date> <Day> <Time> <Component> sshd\[<Pid>\]: <Content>",
    "Linux": r"<Month> <Date> <Time> <Level> <Component>(\[<PID>\])?: <Content>",
    "Zookeeper": r"<Date> <Time> - <Level>  \[<Node>:<Component>@<Id>\] - <Content>",
}
# Drain's published grouping accuracy (logparser's Drain README) for the same sets.
DRAIN_PUBLISHED_GA: dict[str, float] = {
    "HDFS": 0.9975,
    "Apache": 1.0,
    "OpenSSH": 0.7875,
    "Linux": 0.69,
    "Zookeeper": 0.9665,
}


# Our miner's grouping accuracy per set before the miner's rework (commit c2620f5): a change to the
# miner may not take any set below it.
LOGHUB_GA_FLOORS: dict[str, float] = {
    "HDFS": 1.0,
    "Apache": 1.0,
    "OpenSSH": 0.9945,
    "Linux": 0.813,
    "Zookeeper": 0.9885,
}


def grouping_accuracy(predicted: Sequence[str], truth: Sequence[str]) -> float:
    """logparser's GA: a line counts when its predicted group equals its true group exactly."""
    predicted_groups: dict[str, set[int]] = defaultdict(set)
    truth_groups: dict[str, set[int]] = defaultdict(set)
    for index, (p, t) in enumerate(zip(predicted, truth, strict=True)):
        predicted_groups[p].add(index)
        truth_groups[t].add(index)
    correct = sum(
        len(members)
        for members in truth_groups.values()
        if predicted_groups[predicted[next(iter(members))]] == members
    )
    return correct / len(truth)


def load_loghub(root: Path, name: str) -> tuple[list[str], list[str]]:
    """Raw lines and ground-truth EventIds of one loghub-2k set under ``root``."""
    folder = root / name
    lines = (folder / f"{name}_2k.log").read_text(encoding="utf-8").splitlines()
    with (folder / f"{name}_2k.log_structured.csv").open(encoding="utf-8", newline="") as f:
        truth = [row["EventId"] for row in csv.DictReader(f)]
    return lines, truth
