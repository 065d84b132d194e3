"""The engine that applies a table of redaction rules (private to :mod:`harness.redaction`).

A :class:`Rule` is a row of data: an id, the placeholder it writes, the :class:`Gate` a text
must pass before its matcher runs, the matcher (a function ``str -> str``), whether it spans
lines, and its examples. :class:`Engine` applies an ordered table of rules and knows none of
them by name:

- a *line* gets every rule whose gate passes, in table order, each on the text as the rules
  before it left it; the pass repeats until nothing changes (a fixpoint: one rule's
  placeholder can expose a match to a rule that already ran), and the result is cached, since
  log lines and stack frames repeat heavily;
- a *block* (text with line breaks) gets the rules that span lines on the whole text, behind
  the same gates and in the same order, then the line pass on each of its lines; the block
  repeats to a fixpoint as well.

A gate's parts are tested cheapest first, and its costly facts are computed on first use and
kept while the text is unchanged: the lower-cased text and the key-hint test are computed at
most once per text however many gates ask for them.
"""

from __future__ import annotations

import linecache
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import NamedTuple, cast

from harness.redaction._keys import has_hint

__all__ = ["Engine", "Gate", "Rule", "Words"]

# Passes until a fixpoint; real text settles after one or two (a third never changed the
# corpora); the bound only guards against a future rule that could oscillate.
_MAX_PASSES = 6
# Redacted lines cached per engine (stack frames and repeated log lines).
_LINE_CACHE_SIZE = 65536

Words = tuple[str | tuple[str, ...], ...]
"""Words a text must hold: each entry must occur; a tuple entry is met by any one of its words."""


@dataclass(frozen=True, kw_only=True)
class Gate:
    """What a text must hold before a rule's matcher runs on it; every declared part must pass.

    A gate is a cheap test that lets most text skip a rule. A gate that is a necessary
    condition of its matcher (a word the pattern cannot match without) leaves the output as
    the ungated matcher would give it, and only saves time.

    Attributes:
        words: Words that must occur in the text, case-sensitively; a tuple entry is met by any
            one of its words.
        lower: Words that must occur in the lower-cased text, in the same form (lower case).
        pattern: A cheap pattern that must be found (``search``) in the text.
        hint: Whether a secret key's hint word (``pass``, ``token``, ``密码``, ...) must occur in
            the text's key skeleton (:func:`harness.redaction._keys.has_hint`).
    """

    words: Words = ()
    lower: Words = ()
    pattern: re.Pattern[str] | None = None
    hint: bool = False

    def __post_init__(self) -> None:
        for entry in self.lower:
            for word in (entry,) if isinstance(entry, str) else entry:
                if word != word.lower():
                    raise ValueError(
                        f"a word of a gate's lower list must be in lower case: {word!r}"
                    )

    def admits(self, text: str) -> bool:
        """Whether ``text`` passes this gate."""
        return self._admits(text)

    @cached_property
    def _admits(self) -> Callable[[str], bool]:
        lines = ["def admits(text):", "    low = hint = None"]
        for test in _tests(self, 0, hint_first=False):
            if test.prelude:
                lines.append(f"    {test.prelude}")
            lines.append(f"    if not ({test.condition}):")
            lines.append("        return False")
        lines.append("    return True")
        env: dict[str, object] = {"has_hint": has_hint}
        if self.pattern is not None:
            env["search_0"] = self.pattern.search
        return cast(Callable[[str], bool], _compile(lines, env, "admits", "redaction gate"))


@dataclass(frozen=True, kw_only=True)
class Rule:
    """One row of a redaction table.

    Attributes:
        id: A stable name in kebab case (``sql-literal``, ``key-value``).
        replacement: The placeholder the rule writes (``<SECRET>``, ``<HOST>``, ``?``, ...).
        gate: What a text must hold before :attr:`rewrite` runs on it.
        rewrite: The matcher: the text with what the rule matches replaced.
        spans_lines: Whether a match may continue over lines (the rule then also runs on whole
            blocks, before the line pass).
        description: What the rule takes and why, in a sentence or two.
        examples: Inputs this rule alone changes.
        lookalikes: Near-misses this rule alone leaves unchanged.
    """

    id: str
    replacement: str
    gate: Gate
    rewrite: Callable[[str], str]
    spans_lines: bool = False
    description: str
    examples: tuple[str, ...]
    lookalikes: tuple[str, ...]

    def apply(self, text: str) -> str:
        """This rule alone on ``text``: its rewrite when its gate passes, else ``text``."""
        return self.rewrite(text) if self.gate.admits(text) else text


class Engine:
    """Applies an ordered table of rules to lines and blocks (see the module docstring).

    Args:
        rules: The table, in the order its rules apply.
    """

    def __init__(self, rules: Sequence[Rule]) -> None:
        self.rules = tuple(rules)
        spanning = tuple(rule for rule in self.rules if rule.spans_lines)
        self.source = "\n".join(_pass_lines(self.rules))
        """The line pass as the engine runs it (generated from the table)."""
        self._line_pass = _compile_pass(self.rules, "redaction line pass")
        self._block_pass = _compile_pass(spanning, "redaction block pass")
        self.line: Callable[[str], str] = lru_cache(maxsize=_LINE_CACHE_SIZE)(self._line)
        """One line to its fixpoint (cached)."""

    def redact(self, text: str) -> str:
        """``text`` with every rule applied to a fixpoint: as a line, or as a block."""
        if "\n" not in text:
            return self.line(text)
        for _ in range(_MAX_PASSES):
            redacted = self._block(text)
            if redacted == text:
                return text
            text = redacted
        return text

    def _line(self, text: str) -> str:
        if not text:
            return text
        for _ in range(_MAX_PASSES):
            redacted = self._line_pass(text)
            if redacted == text:
                return text
            text = redacted
        return text

    def _block(self, text: str) -> str:
        """One pass over a block: the rules that span lines, then each line (cached).

        Every other rule sees one line at a time, so the frames of a stack trace, repeated
        across messages, are redacted once.
        """
        text = self._block_pass(text)
        return "\n".join(self.line(line) for line in text.split("\n"))


# ----------------------------------------------------------------------------- compiled passes
#
# A pass is generated as the source of one function, as dataclasses generates ``__init__``:
# each rule becomes an inline test of its gate's parts and a call of its rewrite. A loop over
# the table that calls a test per gate part measured a third slower per line than the
# hand-written pass it replaced; the generated pass runs what a hand-written one would, and
# reads like one (``Engine.source``). The lower-cased text and the hint are computed on first
# use and forgotten when a rewrite changes the text.


class _Test(NamedTuple):
    prelude: str  # a statement that computes what the condition reads, or ""
    condition: str


_LOWER = "if low is None: low = text.lower()"
_HINT = "if hint is None: hint = has_hint(text)"


def _pass_lines(rules: Sequence[Rule]) -> list[str]:
    hint_first = any(rule.gate == Gate(hint=True) for rule in rules)
    lines = ["def apply(text):", "    low = hint = None"]
    for index, rule in enumerate(rules):
        lines.append(f"    # {rule.id}")
        indent = "    "
        for test in _tests(rule.gate, index, hint_first=hint_first):
            if test.prelude:
                lines.append(indent + test.prelude)
            lines.append(f"{indent}if {test.condition}:")
            indent += "    "
        lines.append(f"{indent}redacted = rewrite_{index}(text)")
        lines.append(f"{indent}if redacted != text:")
        lines.append(f"{indent}    text, low, hint = redacted, None, None")
    lines.append("    return text")
    return lines


def _tests(gate: Gate, index: int, *, hint_first: bool) -> list[_Test]:
    """The gate's parts as tests, cheapest first, and conditions with no statement between
    them joined with ``and``.

    Words come first, then the pattern. The hint costs a pass over the text the first time
    and nothing after: in a pass that computes it for every text anyway (a rule gated by the
    hint alone), it is tested right after the single words; elsewhere it is computed last,
    when every other part has passed, and only a hint already known to be absent ends the
    test at once.
    """
    parts = [*((entry, False) for entry in gate.words), *((entry, True) for entry in gate.lower)]
    single = [part for part in parts if isinstance(part[0], str)]
    lists = [part for part in parts if not isinstance(part[0], str)]
    tests: list[_Test] = []
    if gate.hint and not hint_first:
        tests.append(_Test("", "hint is not False"))
    lowered = False
    for entry, lower in single:
        tests.append(_Test(_LOWER if lower and not lowered else "", _occurs(entry, lower)))
        lowered = lowered or lower
    if gate.hint and hint_first:
        tests.append(_Test(_HINT, "hint"))
    for entry, lower in lists:
        tests.append(_Test(_LOWER if lower and not lowered else "", _occurs(entry, lower)))
        lowered = lowered or lower
    if gate.pattern is not None:
        tests.append(_Test("", f"search_{index}(text) is not None"))
    if gate.hint and not hint_first:
        tests.append(_Test(_HINT, "hint"))
    joined: list[_Test] = []
    for test in tests:
        if joined and not test.prelude:
            joined[-1] = _Test(joined[-1].prelude, f"{joined[-1].condition} and {test.condition}")
        else:
            joined.append(test)
    return joined


def _occurs(entry: str | tuple[str, ...], lower: bool) -> str:
    name = "low" if lower else "text"
    if isinstance(entry, str):
        return f"{entry!r} in {name}"
    return "(" + " or ".join(f"{word!r} in {name}" for word in entry) + ")"


def _compile_pass(rules: Sequence[Rule], name: str) -> Callable[[str], str]:
    # The names the generated pass reads: each rule's rewrite and pattern, and the hint test.
    env: dict[str, object] = {"has_hint": has_hint}
    for index, rule in enumerate(rules):
        env[f"rewrite_{index}"] = rule.rewrite
        if rule.gate.pattern is not None:
            env[f"search_{index}"] = rule.gate.pattern.search
    return cast(Callable[[str], str], _compile(_pass_lines(rules), env, "apply", name))


def _compile(lines: list[str], env: dict[str, object], function: str, name: str) -> object:
    source = "\n".join(lines) + "\n"
    filename = f"<{name}>"
    # Registered with linecache, so that a traceback through the pass shows its lines.
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), env)
    return env[function]
