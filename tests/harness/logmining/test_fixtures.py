"""Grouping accuracy on the synthetic systems nobody tuned for (tests/fixtures/logmining)."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from harness.logmining import TemplateMiner, detect_format, mask_content, mine_lines
from tests.corpora import grouping_accuracy
from tests.fixtures.logmining import generate_headers, generate_more, generate_shapes
from tests.fixtures.logmining.generate import SYSTEMS, VALIDATION, build, load, write_all
from tests.fixtures.logmining.generate_headers import HEADERS_TUNING, HEADERS_VALIDATION
from tests.fixtures.logmining.generate_more import MORE_TUNING, MORE_VALIDATION
from tests.fixtures.logmining.generate_shapes import SHAPES_LATE, SHAPES_TUNING, SHAPES_VALIDATION

SHAPES = {**SHAPES_TUNING, **SHAPES_VALIDATION, **SHAPES_LATE}
HEADERS = {**HEADERS_TUNING, **HEADERS_VALIDATION}
ALL = [*SYSTEMS, *VALIDATION, *MORE_TUNING, *MORE_VALIDATION, *SHAPES, *HEADERS]

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "logmining"


@cache
def _ga(name: str) -> float:
    """GA of ``harness logs mine``'s path: detect the header shape, mine the messages."""
    lines, truth = load(name, FIXTURES)
    predicted = [str(r["template_id"]) for r in mine_lines(lines, detect_format(lines))]
    return grouping_accuracy(predicted, truth)


def _contents(name: str) -> list[str]:
    if name in MORE_TUNING or name in MORE_VALIDATION:
        lines = generate_more.build(name)
    elif name in SHAPES:
        lines = generate_shapes.build(name)
    elif name in HEADERS:
        lines = generate_headers.build(name)
    else:
        lines = build(name)
    return [line.content for line in lines]


def test_fixture_files_are_what_the_generators_write(tmp_path: Path) -> None:
    write_all(tmp_path)
    generate_more.write_all(tmp_path)
    generate_shapes.write_all(tmp_path)
    generate_headers.write_all(tmp_path)
    for name in ALL:
        for suffix in (".log", ".events"):
            written = (tmp_path / f"{name}{suffix}").read_bytes()
            assert written == (FIXTURES / f"{name}{suffix}").read_bytes(), f"{name}{suffix}"


def test_grouping_accuracy_on_the_fixture_systems_reaches_the_goal() -> None:
    scores = {name: _ga(name) for name in SYSTEMS}
    assert sum(scores.values()) / len(scores) >= 0.90, scores
    assert {name: ga for name, ga in scores.items() if ga < 0.70} == {}


def test_grouping_accuracy_on_the_validation_systems_does_not_regress() -> None:
    # Written after tuning and not tuned on; the floor is below today's figures (mean 0.9490,
    # lowest 0.7887) by a small margin, so that a change that costs them shows.
    scores = {name: _ga(name) for name in VALIDATION}
    assert sum(scores.values()) / len(scores) >= 0.93, scores
    assert {name: ga for name, ga in scores.items() if ga < 0.77} == {}


def test_grouping_accuracy_on_the_second_tuning_systems_reaches_the_goal() -> None:
    scores = {name: _ga(name) for name in MORE_TUNING}
    assert sum(scores.values()) / len(scores) >= 0.95, scores
    assert {name: ga for name, ga in scores.items() if ga < 0.90} == {}


def test_grouping_accuracy_on_the_second_validation_systems_does_not_regress() -> None:
    # Written with the second tuning systems and never tuned on (mean 0.8281, lowest 0.4675
    # when written); held at today's figures (mean 0.9612, lowest 0.8450) less a margin.
    scores = {name: _ga(name) for name in MORE_VALIDATION}
    assert sum(scores.values()) / len(scores) >= 0.94, scores
    assert {name: ga for name, ga in scores.items() if ga < 0.82} == {}


def test_grouping_accuracy_on_the_third_tuning_systems_reaches_the_goal() -> None:
    scores = {name: _ga(name) for name in SHAPES_TUNING}
    assert sum(scores.values()) / len(scores) >= 0.95, scores
    assert {name: ga for name, ga in scores.items() if ga < 0.90} == {}


def test_grouping_accuracy_on_the_third_validation_systems_does_not_regress() -> None:
    # Written with the third tuning systems, before the miner changed for them (mean 0.7181,
    # lowest 0.7050 then); held at today's figures (both 1.0) less a margin.
    scores = {name: _ga(name) for name in SHAPES_VALIDATION}
    assert sum(scores.values()) / len(scores) >= 0.95, scores
    assert {name: ga for name, ga in scores.items() if ga < 0.90} == {}


def test_grouping_accuracy_on_the_late_systems_does_not_regress() -> None:
    # Written after the miner had changed for the third systems and measured once (mesh
    # 0.91, warehouse 1.0; 0.86 and 0.9075 at a3fd5f3); held there less a margin.
    scores = {name: _ga(name) for name in SHAPES_LATE}
    assert sum(scores.values()) / len(scores) >= 0.93, scores
    assert {name: ga for name, ga in scores.items() if ga < 0.89} == {}


def test_grouping_accuracy_on_the_header_tuning_systems_reaches_the_goal() -> None:
    # Their headers were mined whole before the shapes were added (GA 0.0112 to 1.0, mean
    # 0.6454); their events are earlier systems', so each reaches its content's own GA.
    scores = {name: _ga(name) for name in HEADERS_TUNING}
    assert sum(scores.values()) / len(scores) >= 0.97, scores
    assert {name: ga for name, ga in scores.items() if ga < 0.95} == {}


def test_grouping_accuracy_on_the_header_validation_systems_does_not_regress() -> None:
    # Not tuned on (compute 1.0, cluster 0.7575, fabric 0.5675 when written and after: fabric
    # has no header shape, neither a level nor a usual time); held there less a margin.
    scores = {name: _ga(name) for name in HEADERS_VALIDATION}
    assert sum(scores.values()) / len(scores) >= 0.76, scores
    assert {name: ga for name, ga in scores.items() if ga < 0.55} == {}


def _covers(template: str, masked: str) -> bool:
    parts = [re.escape(p) for p in re.sub(r"\s+", "", template).split("<*>")]
    return re.fullmatch(".*?".join(parts), re.sub(r"\s+", "", masked), re.DOTALL) is not None


@pytest.mark.parametrize("name", ALL)
def test_every_fixture_line_matches_its_final_template(name: str) -> None:
    contents = _contents(name)
    mined = TemplateMiner().mine_batch(contents)
    uncovered = [
        (content, m.template)
        for content, m in zip(contents, mined, strict=True)
        if not _covers(m.template, mask_content(content))
    ]
    assert uncovered == []


@pytest.mark.parametrize("name", ALL)
def test_matching_a_fixture_is_consistent_and_templates_are_fixed_points(name: str) -> None:
    contents = _contents(name)
    miner = TemplateMiner()
    mined = miner.mine_batch(contents)
    assert [miner.match(c) for c in contents] == mined
    templates = miner.templates()
    assert [miner.match(t.template) for t in templates] == templates
    assert {m.template_id for m in mined} == {t.template_id for t in templates}
