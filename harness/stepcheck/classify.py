"""A next step's outcome: its commands parsed as bash and judged against the allowlist.

:meth:`Allowlist.classify_step` finds every command a step holds (fenced blocks, code spans,
and shell text in the prose: a known program's name with shell syntax after it, or a program
after a colon or ``run`` followed by options), parses each with ``bashlex`` into commands,
pipes, redirections and substitutions, and judges every command against the allowlist
(:mod:`harness.stepcheck.rules`). A step is released as DIAGNOSTIC when all it asks is reading,
as CHANGE when it changes production the way an allowlisted command does, and WITHHELD
otherwise: an unknown program, a pipe into an interpreter or onto the network, a nested
command, a file written, an environment set, credentials, security switched off, SQL that is
not read-only, or text that does not parse. A step without a command gets its outcome from
its verbs and objects (:data:`~harness.stepcheck.rules.PROSE_RULES`); hazard words withhold a
step with commands too. The blocklist checks (:mod:`harness.textcheck`) still run: defence
in depth. Reasons are codes and rule names, never the step's text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

import bashlex
import sqlglot
from sqlglot import exp

from harness.stepcheck.rules import (
    ARGUMENT_HAZARDS,
    COMMAND_ALLOWLIST,
    INTERPRETERS,
    KNOWN_PROGRAMS,
    NEGATION,
    PROSE_RULES,
    CommandRule,
    ProseRule,
)
from harness.textcheck import dangerous_command
from harness.textcheck.rulebook import Located

__all__ = ["Allowlist", "Outcome", "StepVerdict", "read_only_sql"]

Outcome = Literal["DIAGNOSTIC", "CHANGE", "WITHHELD"]
_RANK: dict[Outcome, int] = {"DIAGNOSTIC": 0, "CHANGE": 1, "WITHHELD": 2}

_FENCE = re.compile(r"```[^\n]*\n?(.*?)(?:```|$)", re.S)
_SPAN = re.compile(r"`([^`\n]+)`")
# ``<pod>``, ``<service>``: a runbook's placeholder, not a redirection.
_PLACEHOLDER = re.compile(r"<([A-Za-z][\w.\-]*)>")
_PROGRAM_SHAPED = re.compile(r"(?:[a-z][a-z0-9_+\-]*|(?:\.{0,2}/)[\w./\-]+)")
_ASSIGNMENT = re.compile(r"[A-Za-z_]\w*=\S*")
_SQL_START = re.compile(
    r"^\s*(select|show|explain|describe|desc|with|insert|update|delete|drop|truncate|alter|"
    r"create|grant|revoke|replace|load|set|call|kill|flush|rename|lock)\b",
    re.I,
)
# Programs whose name is also an English word count in prose only with shell syntax after it.
_AMBIGUOUS = frozenset(
    [
        "kill",
        "env",
        "find",
        "free",
        "less",
        "sort",
        "head",
        "tail",
        "watch",
        "cat",
        "top",
        "source",
        "eval",
        "exec",
        "apply",
        "free",
        "cut",
        "join",
        "nice",
        "time",
        "sleep",
        "ping",
        "host",
        "dig",
        "mount",
        "tee",
        "mv",
        "cp",
        "ln",
        "sc",
        "reg",
        "cmd",
        "apt",
        "su",
        "zip",
        "tar",
        "ps",
        "ss",
        "du",
        "df",
        "wc",
        "uniq",
        "grep",
        "jq",
        "more",
        "gem",
        "pin",
        "yarn",
        "brew",
        "uptime",
        "node",
    ]
)
_SHELL_SIGNAL = re.compile(r"\s-{1,2}[\w@]|[|><`]|\$\(|\$\{?\w|\s/[\w.]|=|\s@")
_CLAUSE_END = re.compile(r"[.!?](?=\s|$)|\s\((?=runbook|see)|,\s")
# A word that may name a program: a lower-case letter that no word character, ``.``, ``/``,
# ``-`` or ``@`` stands before (tested after it, so that the compiler skips to letters), then
# what a program's name holds, up to a space or the end.
_BARE_WORD = re.compile(r"([a-z](?<![\w./\-@][a-z])[\w.+\-]*)(?=\s|$)")
_INTRODUCED = re.compile(
    r"(?:^|:\s+|\b(?:run|execute|type|use|via|with)\s+)(?P<cmd>[a-z][\w+\-]*\s+(?:[^\s,]+\s+){0,3}--?[a-z][^\n]*)",
    re.I,
)
_NETWORK = frozenset(
    [
        "curl",
        "wget",
        "nc",
        "ncat",
        "netcat",
        "socat",
        "telnet",
        "ssh",
        "scp",
        "sftp",
        "rsync",
        "ftp",
        "tftp",
    ]
)
_UNSAFE_SQL_FUNCTIONS = frozenset({"load_file", "sleep", "benchmark", "sys_exec", "sys_eval"})
_SAFE_REDIRECT_TARGETS = frozenset({"/dev/null"})
_DIRECTIVES = frozenset(
    {"SECURITY_OFF", "SILENCES_ALERTS", "CREDENTIALS_MOVED", "DISMISSES_INCIDENT"}
)


@dataclass(frozen=True, kw_only=True)
class StepVerdict:
    """A step's outcome, why (a rule name or a reason code), the commands it held, and the
    dangerous-command class the blocklist found in its text (None: none), which the release
    names on its own."""

    outcome: Outcome
    reason: str
    commands: tuple[str, ...] = ()
    blocklisted: str | None = None

    @property
    def released(self) -> bool:
        return self.outcome != "WITHHELD"


def _worst(verdicts: Iterable[StepVerdict]) -> StepVerdict | None:
    found = list(verdicts)
    if not found:
        return None
    return max(found, key=lambda v: _RANK[v.outcome])


def read_only_sql(text: str) -> bool:
    """Whether ``text`` parses as MySQL statements that only read (SELECT, SHOW, EXPLAIN,
    DESCRIBE; no locking read, no file read, no sleep)."""
    try:
        statements = sqlglot.parse(text, dialect="mysql", error_level=sqlglot.ErrorLevel.RAISE)
    except (sqlglot.errors.ParseError, sqlglot.errors.TokenError, ValueError):
        return False
    if not statements:
        return False
    for statement in statements:
        if statement is None:
            continue
        if not isinstance(statement, exp.Select | exp.Union | exp.Show | exp.Describe):
            return False
        for node in statement.walk():
            if isinstance(node, exp.Lock | exp.Into):
                return False
            if isinstance(node, exp.Func) and node.sql_name().lower() in _UNSAFE_SQL_FUNCTIONS:
                return False
            if isinstance(node, exp.Anonymous) and str(node.this).lower() in _UNSAFE_SQL_FUNCTIONS:
                return False
    return True


class Allowlist:
    """The command allowlist (defaults plus the operator's entries) and the step classifier."""

    def __init__(self, extra: Sequence[CommandRule] = (), *, defaults: bool = True) -> None:
        self.rules: tuple[CommandRule, ...] = (*extra, *(COMMAND_ALLOWLIST if defaults else ()))
        self._by_program: dict[str, list[CommandRule]] = {}
        for rule in self.rules:
            self._by_program.setdefault(rule.program, []).append(rule)
        self._known = KNOWN_PROGRAMS | set(self._by_program)

    # ------------------------------------------------------------------ steps

    def classify_step(self, text: str) -> StepVerdict:
        """The outcome of one next step (see the module docstring)."""
        commands = list(self.commands_in(text))
        verdicts = [self.classify_command(c) for c in commands]
        prose = _prose(_without_code(text), commands_found=bool(commands))
        if prose is not None:
            verdicts.append(prose)
        blocklisted = dangerous_command(text)
        if blocklisted is not None:
            verdicts.append(StepVerdict(outcome="WITHHELD", reason=f"BLOCKLIST_{blocklisted}"))
        worst = _worst(verdicts)
        if worst is None:
            worst = StepVerdict(outcome="WITHHELD", reason="NO_KNOWN_ACTION")
        return StepVerdict(
            outcome=worst.outcome,
            reason=worst.reason,
            commands=tuple(commands),
            blocklisted=blocklisted,
        )

    def directive(self, text: str) -> str | None:
        """The prose hazard a claim carries that tells its reader to act against safety
        (security off, alerts silenced, credentials moved, the incident dismissed), or None:
        a conclusion states what happened, it never tells anyone to do that."""
        lower = text.lower()
        for rule, located in _prose_rules():
            if rule.name not in _DIRECTIVES:
                continue
            for match in located.finditer(text, lower):
                if not NEGATION.search(text, 0, match.start()):
                    return rule.name
        return None

    def commands_in(self, text: str) -> Iterator[str]:
        """The commands a step holds: fenced lines, code spans that read as commands, and shell
        text in its prose."""
        for block in _FENCE.finditer(text):
            body = block.group(1).replace("\\\n", " ")
            if _SQL_START.match(body):
                yield " ".join(body.split())  # one statement over several lines
                continue
            for line in body.splitlines():
                if line.strip() and not line.lstrip().startswith("#") and self._is_command(line):
                    yield line.strip()
        rest = _FENCE.sub(" ", text)
        for span in _SPAN.finditer(rest):
            if self._is_command(span.group(1)):
                yield span.group(1).strip()
        yield from self._bare(_SPAN.sub(" ", rest))

    def _is_command(self, span: str) -> bool:
        span = span.strip()
        if _SQL_START.match(span):
            return True
        words = span.split()
        if words and _ASSIGNMENT.fullmatch(words[0]):
            # An environment set before a known program is a command; ``key=value`` pairs
            # alone are a quoted log line.
            rest = [w for w in words if not _ASSIGNMENT.fullmatch(w)]
            return bool(rest) and rest[0] in self._known
        if not words:
            return False
        first = words[1] if words[0] == "sudo" and len(words) > 1 else words[0]
        if first in self._known:
            return True
        if not _PROGRAM_SHAPED.fullmatch(first):
            return False
        return len(words) > 1 or bool(re.search(r"[|;&><]", span))

    def _bare(self, prose: str) -> Iterator[str]:
        taken: list[tuple[int, int]] = []
        for match in _BARE_WORD.finditer(prose):
            word = match.group(1)
            if word not in self._known or any(a <= match.start() < b for a, b in taken):
                continue
            end = _CLAUSE_END.search(prose, match.end())
            candidate = prose[match.start() : end.start() if end else len(prose)].strip()
            if word in _AMBIGUOUS and not _SHELL_SIGNAL.search(candidate[len(word) :]):
                continue
            if word not in _AMBIGUOUS and candidate == word and word not in INTERPRETERS:
                continue
            taken.append((match.start(), match.start() + len(candidate)))
            yield candidate
        for match in _INTRODUCED.finditer(prose):
            start = match.start("cmd")
            if any(a <= start < b for a, b in taken):
                continue
            end = _CLAUSE_END.search(prose, start)
            candidate = prose[start : end.start() if end else len(prose)].strip()
            taken.append((start, start + len(candidate)))
            yield candidate

    # ------------------------------------------------------------------ commands

    def classify_command(self, command: str) -> StepVerdict:
        """The outcome of one command: SQL by its statements, shell by its parse."""
        if _SQL_START.match(command) and not self._is_shell_first(command):
            if read_only_sql(command):
                return StepVerdict(outcome="DIAGNOSTIC", reason="sql-read-only")
            return StepVerdict(outcome="WITHHELD", reason="SQL_NOT_READ_ONLY")
        source = _PLACEHOLDER.sub(r"\1", command.strip().rstrip(".,;:"))
        try:
            parts = bashlex.parse(source)
        except Exception:  # bashlex raises its own errors and NotImplementedError alike
            return StepVerdict(outcome="WITHHELD", reason="UNPARSEABLE")
        verdicts: list[StepVerdict] = []
        for part in parts:
            verdicts.extend(self._node(part, piped=False))
        return _worst(verdicts) or StepVerdict(outcome="WITHHELD", reason="UNPARSEABLE")

    def _is_shell_first(self, command: str) -> bool:
        return command.split(maxsplit=1)[0] in self._known

    def _node(self, node: Any, *, piped: bool) -> Iterator[StepVerdict]:
        kind = node.kind
        if kind == "list":
            for part in node.parts:
                if part.kind != "operator":
                    yield from self._node(part, piped=False)
        elif kind == "pipeline":
            commands = [p for p in node.parts if p.kind != "pipe"]
            found = [v for i, p in enumerate(commands) for v in self._node(p, piped=i > 0)]
            # A withheld pipeline names what the pipe feeds first (into an interpreter, onto
            # the network: it says more than the reader's reason); a released one its reader.
            withheld = [v for v in found if v.outcome == "WITHHELD"]
            yield from reversed(withheld) if withheld else found
        elif kind == "command":
            yield self._command(node, piped=piped)
        else:  # compound commands, functions, loops: nothing the allowlist can judge
            yield StepVerdict(outcome="WITHHELD", reason="COMPOUND_COMMAND")

    def _command(self, node: Any, *, piped: bool) -> StepVerdict:
        words: list[str] = []
        for part in node.parts:
            if part.kind == "assignment":
                return _withheld("SETS_ENVIRONMENT")
            if part.kind == "redirect":
                problem = _redirect_problem(part)
                if problem is not None:
                    return _withheld(problem)
                continue
            if part.kind != "word":
                return _withheld("COMPOUND_COMMAND")
            if _nested(part):
                return _withheld("NESTED_COMMAND")
            words.append(part.word)
        if words and words[0] == "sudo":
            words = words[1:]
            if words and words[0].startswith("-"):
                return _withheld("NOT_ALLOWLISTED")
        if not words:
            return _withheld("UNPARSEABLE")
        program = words[0].rsplit("/", 1)[-1]
        args = words[1:]
        if program in INTERPRETERS:
            return _withheld("PIPE_TO_INTERPRETER" if piped else "RUNS_INTERPRETER")
        if piped and program in _NETWORK:
            return _withheld("SENDS_DATA")
        for hazard in ARGUMENT_HAZARDS:
            if any(hazard.regex.search(arg) for arg in args):
                return _withheld(hazard.name)
        rules = self._by_program.get(program)
        if not rules:
            return _withheld("NOT_ALLOWLISTED" if program in self._known else "UNKNOWN_PROGRAM")
        options = [
            a.split("=", 1)[0] if a.startswith("--") else a for a in args if a.startswith("-")
        ]
        positionals = _positionals(args)
        for rule in rules:
            if not rule.admits(positionals, options, args):
                continue
            if rule.sql_options:
                sql = _option_value(args, rule.sql_options)
                if sql is None:
                    return _withheld("INTERACTIVE_CLIENT")
                if not read_only_sql(sql):
                    return _withheld("SQL_NOT_READ_ONLY")
            return StepVerdict(outcome=rule.effect, reason=rule.name)
        return _withheld("NOT_ALLOWLISTED")


def _withheld(reason: str) -> StepVerdict:
    return StepVerdict(outcome="WITHHELD", reason=reason)


def _nested(word: Any) -> bool:
    return any(
        p.kind in ("commandsubstitution", "processsubstitution") for p in getattr(word, "parts", [])
    )


def _redirect_problem(node: Any) -> str | None:
    target = node.output
    if node.type in (">&", "<&") and isinstance(target, int):
        return None  # 2>&1
    if hasattr(target, "parts") and _nested(target):
        return "NESTED_COMMAND"
    if str(getattr(target, "word", "")).startswith(("/dev/tcp/", "/dev/udp/")):
        return "SENDS_DATA"
    if (
        node.type in (">", ">>", ">|", "&>")
        and getattr(target, "word", None) in _SAFE_REDIRECT_TARGETS
    ):
        return None
    if node.type in (">", ">>", ">|", "&>", ">&"):
        return "WRITES_FILE"
    return "READS_INPUT"


def _positionals(args: list[str]) -> list[str]:
    """The positional words, skipping the value that may follow an option without ``=``."""
    found: list[str] = []
    after_option = False
    for arg in args:
        if arg.startswith("-"):
            after_option = "=" not in arg
            continue
        if after_option:
            after_option = False
            continue
        found.append(arg)
    return found


def _option_value(args: list[str], names: tuple[str, ...]) -> str | None:
    for index, arg in enumerate(args):
        for name in names:
            if arg == name and index + 1 < len(args):
                return args[index + 1]
            if name.startswith("--") and arg.startswith(name + "="):
                return arg[len(name) + 1 :]
            if not name.startswith("--") and arg.startswith(name) and len(arg) > len(name):
                return arg[len(name) :]
    return None


def _without_code(text: str) -> str:
    return _SPAN.sub(" ", _FENCE.sub(" ", text))


def _prose(text: str, *, commands_found: bool) -> StepVerdict | None:
    """The outcome the step's words give it: a hazard withholds it whatever else it holds; a
    change or a check counts only in a step without a command of its own."""
    outcomes: list[StepVerdict] = []
    lower = text.lower()
    for rule, located in _prose_rules():
        if rule.outcome != "WITHHELD" and commands_found:
            continue  # whatever its words, a step with commands is judged by them
        for match in located.finditer(text, lower):
            if rule.outcome == "WITHHELD" and NEGATION.search(text, 0, match.start()):
                continue
            outcomes.append(StepVerdict(outcome=rule.outcome, reason=rule.name))
            break
    return _worst(outcomes)


@cache
def _prose_rules() -> tuple[tuple[ProseRule, Located], ...]:
    """Each prose rule with its pattern, matched only where its words begin."""
    return tuple((rule, Located(rule.regex)) for rule in PROSE_RULES)
