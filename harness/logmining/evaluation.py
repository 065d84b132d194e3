"""Grouping accuracy on the loghub-2k benchmark sets (logparser's definition).

Used by the accuracy tests and ``benchmarks/bench_log_mining.py``; the corpora themselves are
third-party data read from a folder the caller names, never bundled.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

__all__ = ["DRAIN_PUBLISHED_GA", "LOGHUB_FORMATS", "grouping_accuracy", "load_loghub"]

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
