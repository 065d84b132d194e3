"""Template miner: grouping accuracy on loghub-2k, masking, formats, stable ids, idempotence."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from collections import defaultdict
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.logmining import (
    MinedTemplate,
    MinerConfig,
    TemplateMiner,
    detect_format,
    mask_content,
    mine_lines,
    parse_log_format,
    template_id_of,
)
from harness.logmining._tokens import _DIGIT_WORD, Masker
from harness.logmining.config import DEFAULT_MASKS
from harness.redaction import Redactor
from tests.backtracking import finishes
from tests.corpora import (
    DRAIN_PUBLISHED_GA,
    LOGHUB_FORMATS,
    LOGHUB_GA_FLOORS,
    grouping_accuracy,
    load_loghub,
)
from tests.paths import REPO

FORMATS = LOGHUB_FORMATS
DRAIN_GA = DRAIN_PUBLISHED_GA


@pytest.fixture(scope="module")
def loghub(corpus: Callable[..., Path]) -> Path:
    """The loghub-2k corpus folder (the test skips when it is absent)."""
    return corpus("loghub")


@cache
def _corpus(loghub: Path, name: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    lines, truth = load_loghub(loghub, name)
    return tuple(lines), tuple(truth)


@cache
def _mined(loghub: Path, name: str) -> tuple[dict[str, object], ...]:
    return tuple(mine_lines(_corpus(loghub, name)[0], FORMATS[name]))


def _ga(loghub: Path, name: str) -> float:
    predicted = [str(record["template_id"]) for record in _mined(loghub, name)]
    return grouping_accuracy(predicted, _corpus(loghub, name)[1])


# ----------------------------------------------------------------------------- accuracy


def test_grouping_accuracy_helper_follows_logparser_definition() -> None:
    # Group {0,1} is split, so neither of its lines counts; {2} and {3} are exact.
    assert grouping_accuracy(["a", "b", "c", "d"], ["x", "x", "y", "z"]) == 0.5
    # Merging two true groups makes all of their lines wrong.
    assert grouping_accuracy(["a", "a", "a"], ["x", "x", "y"]) == 0.0


@pytest.mark.parametrize("name", sorted(DRAIN_GA))
def test_grouping_accuracy_at_least_drain_published(loghub: Path, name: str) -> None:
    assert _ga(loghub, name) >= DRAIN_GA[name]


@pytest.mark.parametrize("name", sorted(LOGHUB_GA_FLOORS))
def test_grouping_accuracy_stays_at_or_above_its_floor(loghub: Path, name: str) -> None:
    assert _ga(loghub, name) >= LOGHUB_GA_FLOORS[name]


def test_mean_grouping_accuracy_reaches_goal(loghub: Path) -> None:
    mean = sum(_ga(loghub, name) for name in DRAIN_GA) / len(DRAIN_GA)
    assert mean >= 0.95


@pytest.mark.parametrize("name", sorted(LOGHUB_GA_FLOORS))
def test_detected_headers_keep_grouping_accuracy_at_its_floor(loghub: Path, name: str) -> None:
    # What ``harness logs mine FILE`` does without --format: detect the header, mine the rest.
    lines, truth = _corpus(loghub, name)
    predicted = [str(r["template_id"]) for r in mine_lines(lines, detect_format(lines))]
    assert grouping_accuracy(predicted, truth) >= LOGHUB_GA_FLOORS[name]


# ----------------------------------------------------------------------------- masking


def test_numbers_and_identifiers_are_masked() -> None:
    samples = [
        "took 3000ms after 2 retries",
        "ratio 0.75 at offset -12",
        "from 10.251.43.21:50010 to 192.168.0.1",
        "peer [fe80::1ff:fe23:4567:890a]:8080 and 2001:db8::8a2e:370:7334",
        "session 0x14ed93111f20027 opened",
        "request 123e4567-e89b-12d3-a456-426614174000 done",
        "sha 9f86d081884c7d65 checked",
        "retry_count=5 size=64KB",
        "version 2.6.5-1 built 12:04:59",
        "jk2_init() kept, ssh2 kept",
    ]
    assert [mask_content(s) for s in samples] == [
        "took <*> after <*> retries",
        "ratio <*> at offset <*>",
        "from <*>:<*> to <*>",
        "peer <*>:<*> and <*>",
        "session <*> opened",
        "request <*> done",
        "sha <*> checked",
        "retry_count=<*> size=<*>",
        "version <*>-<*> built <*>:<*>:<*>",
        "jk2_init() kept, ssh2 kept",
    ]


def test_lines_differing_only_in_numbers_share_a_template() -> None:
    miner = TemplateMiner()
    mined = miner.mine_batch(
        [
            "Connection to 10.0.0.1:5432 timed out after 30s (attempt 1/5)",
            "Connection to 10.0.7.9:5433 timed out after 5s (attempt 4/5)",
            "Connection to db-3.internal:5432 timed out after 120s (attempt 2/5)",
        ]
    )
    text = "Connection to <*>:<*> timed out after <*> (attempt <*>/<*>)"
    expected = MinedTemplate(template_id=template_id_of(text), template=text)
    assert mined == [expected, expected, expected]


def test_extra_masks_apply_to_words_without_digits() -> None:
    config = MinerConfig(extra_masks=(r"\bpod-[a-z]+\b",))
    assert mask_content("restarted pod-alpha on node", config) == "restarted <*> on node"
    assert mask_content("restarted pod-alpha on node") == "restarted pod-alpha on node"


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80))
def test_masking_is_idempotent(text: str) -> None:
    once = mask_content(text)
    assert mask_content(once) == once


_COMBINED = re.compile("|".join(f"(?:{p})" for p in DEFAULT_MASKS))


def _masked_word_by_word(text: str) -> str:
    # The masks' definition: each whitespace-delimited word holding a digit, masked alone.
    return re.sub(r"(?<!\S)[^\s\d]*\d\S*", lambda m: _COMBINED.sub("<*>", m.group()), text)


_MASKABLE = "0123456789abcdefxXgms.:-+/=[]{}_ Ké٣"


def test_a_guarded_word_is_guarded_in_every_content_of_its_digit_key() -> None:
    # The guard sees a word a mask would cut into pieces; what it makes of the word depends on
    # its letters too, so such contents are never masked from a shared recipe.
    redactor = Redactor()
    masker = Masker(MinerConfig(), redactor.redact)
    tokens = [
        "xoxb-123456789012-AbCdEfGhIjKlMnOpQrStUvWx",
        "xoxb-987654321098-AbCdEfGhIjKlMnOpQrStUvWx",
    ]
    for token in tokens:
        masked = masker.mask(f"posting with {token} to 10.0.0.1")
        assert "AbCd" not in masked and masked.endswith("to <*>"), masked


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=_MASKABLE, max_size=60),
    st.lists(st.integers(min_value=0, max_value=2**64), min_size=1, max_size=6),
)
def test_masking_by_digit_key_equals_masking_word_by_word(base: str, seeds: list[int]) -> None:
    # Contents that differ only in their digits share a recipe in the masker's cache; every
    # one of them must still be masked exactly as its words are, one by one.
    masker = Masker(MinerConfig())
    for seed in seeds:
        digits = iter(str(seed * 7919 + 13) * 60)
        variant = "".join(next(digits) if c in "0123456789" else c for c in base)
        assert masker.mask(variant) == _masked_word_by_word(variant), variant


_ID_PIECES = [
    "hhhhhhhh-hhhh-hhhh-hhhh-hhhhhhhhhhhh",  # a UUID
    "hhhhhhhhhh",  # a long hex run
    "hhhhhhh",
    "h",
    "pi_www", "evt_wwwwww", "wwww", "w", "GET", "Q", "ms", "_",
    "=", " ", "\t", "-", "{", "}", ".", ",", ":", "x", "<*>", "id", "0x", "g", "\x01", "\u00a0",
]  # fmt: skip
_HEX = "0123456789abcdefABCDEF"
_WORD = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"


def _variants(base: str, seeds: list[int]) -> Iterator[str]:
    """One content per seed: each ``h`` of ``base`` a hex digit, each ``w`` a word character,
    drawn from a set the seed picks (digits only, letters only, or mixed)."""
    for seed in seeds:
        rng = random.Random(seed)
        hexes = rng.choice(["0123456789", "abcdef", _HEX])
        word = rng.choice([_WORD, "GETPUT", "0123456789"])
        yield "".join(
            rng.choice(hexes) if c == "h" else rng.choice(word) if c == "w" else c for c in base
        )


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(_ID_PIECES), max_size=12),
    st.lists(st.integers(min_value=0, max_value=2**64), min_size=1, max_size=6),
)
def test_masking_by_key_equals_masking_word_by_word_whatever_the_ids_hold(
    pieces: list[str], seeds: list[int]
) -> None:
    # Contents that differ only in their ids (UUIDs, long hex runs) or names (``pi_3Qo…``,
    # ``GET``) share a recipe, those blanked out of the key; each must still be masked exactly
    # as its words are, one by one, whichever digits and letters they hold.
    masker = Masker(MinerConfig())
    for variant in _variants("".join(pieces), seeds):
        assert masker.mask(variant) == _masked_word_by_word(variant), variant


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.sampled_from([*_ID_PIECES, "xoxb-", "ghp_", "wwwwwwwwwwww", "token="]), max_size=12
    ),
    st.lists(st.integers(min_value=0, max_value=2**64), min_size=1, max_size=4),
)
def test_a_guarded_masker_masks_by_key_as_it_masks_word_by_word(
    pieces: list[str], seeds: list[int]
) -> None:
    # With a guard, a word a mask would cut into pieces goes to the redactor first: contents
    # that share a key must still each be masked as a fresh masker masks them word by word.
    guard = Redactor().redact
    masker = Masker(MinerConfig(), guard)
    for variant in _variants("".join(pieces), seeds):
        fresh = Masker(MinerConfig(), guard)
        assert masker.mask(variant) == _DIGIT_WORD.sub(fresh._mask_word, variant), variant


_SPLIT_PIECES = [
    "pi_www", "evt_wwww", "w", "ww", "GET", "ms", "msg", "a", "x-y", "db-1", "<*>",
    "=", " ", "  ", "\t", ":", ",", ";", "[", "]", "(", ")", "{", "}", '"', "'", "|", "/", ".",
    "https://h/", "C:\\", "\x02", "\u00a0",
]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(_SPLIT_PIECES), max_size=14),
    st.lists(st.integers(min_value=0, max_value=2**64), min_size=1, max_size=5),
)
def test_splitting_with_names_blanked_equals_splitting_each_content(
    pieces: list[str], seeds: list[int]
) -> None:
    # Contents that differ only in the names after "=" are split once, with the names
    # blanked, and the names put back: the tokens and shape must be each content's own.
    masker = Masker(MinerConfig())
    for variant in _variants("".join(pieces), seeds):
        assert masker.split(variant) == Masker(MinerConfig())._split(variant), variant


# ----------------------------------------------------------------------------- formats


def test_parse_log_format_builds_named_groups() -> None:
    pattern = parse_log_format(FORMATS["Zookeeper"])
    line = (
        "2015-07-29 19:04:12,394 - INFO  [/10.10.34.11:3888:QuorumCnxManager$Listener@493] "
        "- Received connection request /10.10.34.11:45307"
    )
    found = pattern.match(line)
    assert found is not None
    assert found.groupdict() == {
        "Date": "2015-07-29",
        "Time": "19:04:12,394",
        "Level": "INFO",
        "Node": "/10.10.34.11",
        "Component": "3888:QuorumCnxManager$Listener",
        "Id": "493",
        "Content": "Received connection request /10.10.34.11:45307",
    }


def test_parse_log_format_accepts_optional_groups_and_any_whitespace() -> None:
    pattern = parse_log_format(FORMATS["Linux"])
    with_pid = pattern.match(
        "Jun 14 15:16:01 combo sshd(pam_unix)[19939]: check pass; user unknown"
    )
    without_pid = pattern.match("Jun  9 06:06:20 combo syslogd 1.4.1: restart.")
    assert with_pid is not None and without_pid is not None
    assert (with_pid.group("PID"), with_pid.group("Content")) == (
        "19939",
        "check pass; user unknown",
    )
    assert (without_pid.group("Component"), without_pid.group("Content")) == (
        "syslogd 1.4.1",
        "restart.",
    )


def test_mine_lines_numbers_lines_and_mines_unmatched_lines_whole() -> None:
    fmt = "<Level> <Component>: <Content>"
    records = list(
        mine_lines(["INFO db: pool size 5", "no header 7 here", "WARN api: pool size 9\n"], fmt)
    )
    assert records == [
        {"line": 1, "template_id": template_id_of("pool size <*>"), "template": "pool size <*>"},
        {
            "line": 2,
            "template_id": template_id_of("no header <*> here"),
            "template": "no header <*> here",
        },
        {"line": 3, "template_id": template_id_of("pool size <*>"), "template": "pool size <*>"},
    ]


# ----------------------------------------------------------------------------- identity


def test_template_ids_are_stable_across_miner_instances(loghub: Path) -> None:
    lines, _ = _corpus(loghub, "OpenSSH")
    first = list(mine_lines(lines, FORMATS["OpenSSH"]))
    second = list(mine_lines(lines, FORMATS["OpenSSH"]))
    assert first == second
    assert all(r["template_id"] == template_id_of(str(r["template"])) for r in first)


def test_template_ids_are_stable_across_processes(loghub: Path) -> None:
    # Different hash seeds change set and dict-of-str iteration; the output must not move.
    script = (
        "import json, sys; from harness.logmining import mine_lines; "
        "lines = open(sys.argv[1], encoding='utf-8').read().splitlines(); "
        "print(json.dumps([r['template_id'] for r in mine_lines(lines, sys.argv[2])]))"
    )
    path = str(loghub / "Linux" / "Linux_2k.log")
    outputs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", script, path, FORMATS["Linux"]],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        outputs.append(json.loads(done.stdout))
    in_process = [r["template_id"] for r in _mined(loghub, "Linux")]
    assert outputs == [in_process, in_process]


def test_streaming_add_generalises_and_final_templates_are_reported() -> None:
    miner = TemplateMiner()
    first = miner.add("session opened for alice from web-1")
    second = miner.add("session opened for bob from web-7")
    assert (first.template, second.template) == (
        "session opened for alice from web-<*>",
        "session opened for <*> from web-<*>",
    )
    final = MinedTemplate(
        template_id=template_id_of("session opened for <*> from web-<*>"),
        template="session opened for <*> from web-<*>",
    )
    assert miner.match("session opened for alice from web-1") == final
    assert miner.templates() == [final]


def test_empty_and_repeated_variables_fold_into_one_template() -> None:
    miner = TemplateMiner()
    mined = miner.mine_batch(
        [
            "connection from 10.0.0.1 () at start",
            "connection from 10.0.0.2 (db.example.org) at start",
            "connection from 10.0.0.3 (cache.example.org) at start",
            "delete blk_1 blk_2 blk_3 now",
            "delete blk_4 now",
        ]
    )
    assert [m.template for m in mined] == [
        "connection from <*> (<*>) at start",
        "connection from <*> (<*>) at start",
        "connection from <*> (<*>) at start",
        "delete <*> now",
        "delete <*> now",
    ]


# ----------------------------------------------------------------------------- invariants


def _covers(template: str, masked: str) -> bool:
    parts = [re.escape(p) for p in re.sub(r"\s+", "", template).split("<*>")]
    return re.fullmatch(".*?".join(parts), re.sub(r"\s+", "", masked), re.DOTALL) is not None


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_every_line_matches_its_final_template(loghub: Path, name: str) -> None:
    pattern = parse_log_format(FORMATS[name])
    contents = []
    for line in _corpus(loghub, name)[0]:
        found = pattern.match(line.strip())
        contents.append(found.group("Content") if found else line)
    uncovered = [
        (content, str(record["template"]))
        for content, record in zip(contents, _mined(loghub, name), strict=True)
        if not _covers(str(record["template"]), mask_content(content))
    ]
    assert uncovered == []


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_matching_is_consistent_and_templates_are_fixed_points(loghub: Path, name: str) -> None:
    pattern = parse_log_format(FORMATS[name])
    miner = TemplateMiner()
    contents = []
    for line in _corpus(loghub, name)[0]:
        found = pattern.match(line.strip())
        contents.append(found.group("Content") if found else line)
    mined = miner.mine_batch(contents)
    assert [miner.match(c) for c in contents] == mined
    templates = miner.templates()
    assert [miner.match(t.template) for t in templates] == templates
    assert {m.template_id for m in mined} == {t.template_id for t in templates}


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["open", "close", "retry"]), st.integers(0, 10**6)),
        min_size=1,
        max_size=30,
    )
)
def test_number_only_differences_never_split_a_template(events: list[tuple[str, int]]) -> None:
    mined = TemplateMiner().mine_batch([f"{verb} file handle {n} ok" for verb, n in events])
    by_verb: dict[str, set[str]] = defaultdict(set)
    for (verb, _), m in zip(events, mined, strict=True):
        by_verb[verb].add(m.template_id)
    assert all(len(ids) == 1 for ids in by_verb.values())


# Lines built to cost time quadratic in their length in one stage of the miner: many words
# keyed by their whole prefix and suffix (the phrase passes), escaped quotes that each open
# a string to the end of the line (splitting) — as in escaped JSON cut off before its end.
_LONG = 60_000
_SLOW_LINES = [
    "[a]" * (_LONG // 3),
    "k=v, " * (_LONG // 5),
    "key: " * (_LONG // 5),
    '\\"' * (_LONG // 2),
    'msg="{' + '\\"a\\":\\"b\\",' * (_LONG // 12),
]


def _mine_with_a_sibling(line: str) -> None:
    TemplateMiner().mine_batch([line, line + " x", line + " y"])


def test_mining_time_is_not_quadratic_in_a_line_s_length() -> None:
    finishes("tests.harness.logmining.test_logmining:_mine_with_a_sibling", _SLOW_LINES)
