"""The engine on tables of its own: gates, order, fixpoints, blocks and the line cache."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from harness.redaction import Gate, Rule
from harness.redaction._engine import Engine


def _rule(
    rule_id: str,
    rewrite: Callable[[str], str],
    gate: Gate | None = None,
    *,
    spans_lines: bool = False,
) -> Rule:
    return Rule(
        id=rule_id,
        replacement="<SECRET>",
        gate=gate or Gate(),
        rewrite=rewrite,
        spans_lines=spans_lines,
        description="",
        examples=(),
        lookalikes=(),
    )


def _sub(pattern: str, replacement: str) -> Callable[[str], str]:
    compiled = re.compile(pattern)
    return lambda text: compiled.sub(replacement, text)


@pytest.mark.parametrize(
    ("gate", "admitted", "refused"),
    [
        (Gate(words=("a", "b")), ["ab", "ba"], ["a", "b", "AB"]),
        (Gate(words=(("a", "b"),)), ["a", "b"], ["c", "A"]),
        (Gate(lower=("ab",)), ["ab", "AB", "xAbx"], ["a b"]),
        (Gate(words=("x",), lower=(("ab", "cd"),)), ["x AB", "x cd"], ["AB", "x"]),
        (Gate(pattern=re.compile(r"\d{3}")), ["a123"], ["a12"]),
        (Gate(hint=True), ["password=x", "p4ssw0rd", "PASS_WORD"], ["user=bob"]),
        (Gate(), ["", "anything"], []),
    ],
)
def test_a_gate_admits_a_text_when_every_part_passes(
    gate: Gate, admitted: list[str], refused: list[str]
) -> None:
    assert [text for text in admitted if not gate.admits(text)] == []
    assert [text for text in refused if gate.admits(text)] == []


def test_a_lower_case_gate_word_must_be_lower_case() -> None:
    with pytest.raises(ValueError, match="lower case"):
        Gate(lower=(("ok", "NotOk"),))


def test_rules_apply_in_table_order_each_on_the_text_the_rules_before_left() -> None:
    engine = Engine([_rule("a-to-b", _sub("a", "b")), _rule("b-to-c", _sub("b", "c"))])
    assert engine.redact("a") == "c"


def test_the_line_pass_repeats_until_nothing_changes() -> None:
    # "y" only appears after the first pass has run past the rule that takes it.
    engine = Engine(
        [_rule("y-to-z", _sub("y", "z"), Gate(words=("y",))), _rule("x-to-y", _sub("x", "y"))]
    )
    assert engine.redact("x") == "z"


def test_a_gate_is_judged_on_the_text_as_it_is_now() -> None:
    # The lower-cased text is forgotten when a rewrite changes the text: "Foo" is gone when
    # the second rule's gate is tested, so that rule must not run.
    engine = Engine(
        [
            _rule("foo", _sub("Foo", "bar")),
            _rule("after-foo", lambda text: text + "!", Gate(lower=("foo",))),
        ]
    )
    assert engine.redact("Foo") == "bar"


def test_rules_that_span_lines_see_the_whole_block_and_the_others_each_line() -> None:
    seen: list[str] = []

    def spanning(text: str) -> str:
        seen.append(text)
        return text.replace("key:\n  v", "key:\n  <SECRET>")

    def per_line(text: str) -> str:
        assert "\n" not in text
        return text.replace("x", "y")

    engine = Engine([_rule("block", spanning, spans_lines=True), _rule("line", per_line)])
    assert engine.redact("x\nkey:\n  v") == "y\nkey:\n  <SECRET>"
    assert seen[0] == "x\nkey:\n  v"


def test_a_line_is_redacted_once_and_then_read_from_the_cache() -> None:
    calls: list[str] = []

    def counted(text: str) -> str:
        calls.append(text)
        return text

    engine = Engine([_rule("count", counted)])
    assert engine.redact("same line") == engine.redact("same line") == "same line"
    assert engine.redact("a\nsame line") == "a\nsame line"
    assert calls == ["same line", "a"]  # the block's second line came from the cache


def test_the_source_names_each_rule_and_reads_each_gate() -> None:
    engine = Engine(
        [_rule("first", str, Gate(words=("a",))), _rule("second", str, Gate(lower=("b",)))]
    )
    assert "    # first\n    if 'a' in text:\n" in engine.source
    assert (
        "    # second\n    if low is None: low = text.lower()\n    if 'b' in low:\n"
        in engine.source
    )


def test_the_hint_is_computed_last_unless_the_pass_computes_it_for_every_text() -> None:
    gated = _rule("gated", str, Gate(words=("a",), hint=True, pattern=re.compile("b")))
    assert (
        "    if hint is not False and 'a' in text and search_0(text) is not None:\n"
        "        if hint is None: hint = has_hint(text)\n"
    ) in Engine([gated]).source
    anyway = Engine([gated, _rule("hint-alone", str, Gate(hint=True))])
    assert (
        "    if 'a' in text:\n"
        "        if hint is None: hint = has_hint(text)\n"
        "        if hint and search_0(text) is not None:\n"
    ) in anyway.source
