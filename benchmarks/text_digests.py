"""Digests of what redaction and the text checks decide, for before/after checks.

A change to a rule table or to the engine that applies it must leave every decision as it was
(or list what changed, with its reason). Run this on two commits and compare::

    git worktree add /tmp/before <commit>
    (cd /tmp/before && PYTHONPATH=. python benchmarks/text_digests.py --dump /tmp/b) > before.txt
    PYTHONPATH=. python benchmarks/text_digests.py --dump /tmp/a > after.txt
    diff before.txt after.txt; diff -r /tmp/b /tmp/a | head

The inputs are text nobody here wrote: every file of the corpora (``$HARNESS_CORPORA_DIR``:
loghub, log formats, secrets, SQL injection and prompt-injection payloads) and the Python
standard library's sources, plus every string the tests of these checks hold. Each set is
printed as its count of inputs and one SHA-256 (16 hex digits) of all its outputs:

- ``redact.lines``: each distinct line, redacted on its own;
- ``redact.blocks``: runs of eight lines redacted as one text (the rules that span lines);
- ``redact.cli``: each file through ``harness redact``'s record reader;
- ``checks.*``: the injection class and the dangerous-command class (as a next step, as an
  answer, as advice) of each distinct line and each test string; and what the release does
  with each beside them: the line as released (``defang``), its outcome as a next step
  (``step``: outcome, reason, commands) and the prose directive it carries (``directive``).

``--no-redaction`` skips the ``redact.*`` sets (the checks alone).

``--dump DIR`` also writes each set's outputs, one JSON line per input, to ``DIR/<set>``.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import importlib
import io
import json
import sys
import sysconfig
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from harness.redaction import Redactor  # noqa: E402
from serve.cli.redact import redact_stream  # noqa: E402
from tests.corpora import CorpusMissing, require  # noqa: E402

_BLOCK_LINES = 8
_STDLIB_FILES = 3000
# Test modules whose strings are examples of the checks (missing ones are skipped: the set of
# modules moves with the code; what counts is that both sides read the same strings).
_TEST_MODULES = (
    "tests.harness.redaction_cases",
    "tests.harness.test_redaction",
    "tests.harness.test_redaction_hostile",
    "tests.harness.redaction.cases",
    "tests.harness.redaction.test_redaction",
    "tests.harness.redaction.test_redaction_hostile",
    "tests.harness.redaction.test_redaction_table",
    "tests.harness.redaction.test_redaction_engine",
    "tests.harness.test_prompt_injection",
    "tests.harness.release.test_commands",
    "tests.harness.release.test_content",
    "tests.harness.release.test_released_words",
    "tests.harness.release.test_quality_gates",
    "tests.harness.release.test_decodings",
    "tests.harness.release.test_readings",
    "tests.harness.release.test_runtogether",
    "tests.harness.release.test_rules",
    "tests.harness.release.test_links",
    "tests.harness.textcheck.test_injection",
    "tests.harness.textcheck.test_commands",
    "tests.harness.textcheck.test_decodings",
    "tests.harness.textcheck.test_readings",
    "tests.harness.textcheck.test_runtogether",
    "tests.harness.textcheck.test_rulebook",
    "tests.harness.textcheck.test_tables",
    "harness.textcheck.tables",
    "harness.redaction.rules",
)


def _checks() -> dict[str, Callable[[str], str | None]]:
    """The text checks, wherever the checkout keeps them."""
    for module_name in ("harness.textcheck", "harness.release.content"):
        try:
            content = importlib.import_module(module_name)
        except ImportError:
            continue
        injection = content.injection
        break
    for module_name in ("harness.textcheck", "harness.release.commands"):
        try:
            commands = importlib.import_module(module_name)
        except ImportError:
            continue
        if hasattr(commands, "dangerous_command"):
            break
    checks: dict[str, Callable[[str], Any]] = {
        "injection": injection,
        "dangerous": commands.dangerous_command,
        "prescribed": commands.prescribed_command,
        "advised": commands.advised_command,
    }
    try:
        from harness.release.links import ContentPolicy
        from harness.stepcheck import Allowlist
    except ImportError:  # a checkout from before the release's links and the step allowlist
        return checks
    policy, allowlist = ContentPolicy(), Allowlist()

    def step(text: str) -> list[Any]:
        verdict = allowlist.classify_step(text)
        return [verdict.outcome, verdict.reason, list(verdict.commands)]

    checks.update(defang=policy.defang, step=step, directive=allowlist.directive)
    return checks


def _corpora_root() -> Path | None:
    try:
        return require()
    except CorpusMissing:
        return None


def _corpus_files() -> list[Path]:
    try:
        root = require()
    except CorpusMissing as missing:
        print(f"# corpora skipped: {missing}", file=sys.stderr)
        return []
    return sorted(
        path
        for path in root.rglob("*")
        if path.is_file() and path.name not in ("LICENSE", "NOTICE") and path.stat().st_size
    )


def _repo_files() -> list[Path]:
    """The bundled demo world, the test fixtures and eval worlds, and the docs: honest incident
    text the checks must leave alone (read from the checkout this file belongs to)."""
    roots = [
        REPO / "harness" / "embedded" / "demo" / "data",
        REPO / "tests" / "fixtures",
        REPO / "tests" / "eval_cases",
    ]
    suffixes = {".md", ".json", ".jsonl", ".log", ".txt", ".csv", ".yaml", ".toml", ".sql"}
    return sorted(
        path
        for root in roots
        if root.is_dir()
        for path in root.rglob("*")
        if path.is_file() and path.suffix in suffixes and path.stat().st_size < 4_000_000
    )


def _stdlib_files() -> list[Path]:
    files = sorted(Path(sysconfig.get_paths()["stdlib"]).rglob("*.py"))
    files = [path for path in files if "site-packages" not in path.parts]
    step = max(1, len(files) // _STDLIB_FILES)
    return files[::step][:_STDLIB_FILES]


def _texts(files: Iterable[Path]) -> Iterator[tuple[str, str]]:
    """(name, text) of every input file; a JSONL file of gitleaks rows gives each row's text."""
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        # Named by the path under its root, so that two checkouts name their files alike.
        name = str(path)
        for root in (REPO, Path(sysconfig.get_paths()["stdlib"]), _corpora_root()):
            if root is not None and path.is_relative_to(root):
                name = str(path.relative_to(root))
                break
        yield name, text
        if path.suffix == ".jsonl":
            for number, line in enumerate(text.splitlines()):
                try:
                    row = json.loads(line)
                except ValueError:
                    continue
                if isinstance(row, dict) and isinstance(row.get("text"), str):
                    yield f"{name}#{number}", row["text"]


def _test_strings() -> list[str]:
    found: list[str] = []

    def walk(value: Any, depth: int = 0) -> None:
        if depth > 6:
            return
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(key, depth + 1)
                walk(item, depth + 1)
        elif isinstance(value, (list, tuple, set, frozenset)):
            for item in value:
                walk(item, depth + 1)
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            # A rule of a table: its examples and look-alikes (and its other strings).
            for item in dataclasses.fields(value):
                walk(getattr(value, item.name), depth + 1)

    for name in _TEST_MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        for attr, value in sorted(vars(module).items()):
            if not attr.startswith("__"):
                walk(value)
    return sorted(set(found))


class _Set:
    def __init__(self, name: str, dump: Path | None) -> None:
        self.name = name
        self.count = 0
        self.hash = hashlib.sha256()
        self.sink = (dump / name).open("w", encoding="utf-8") if dump else None

    def add(self, given: str, output: object) -> None:
        line = json.dumps([given, output], ensure_ascii=False)
        self.count += 1
        self.hash.update(line.encode("utf-8", "surrogatepass") + b"\n")
        if self.sink is not None:
            self.sink.write(line + "\n")

    def close(self) -> str:
        if self.sink is not None:
            self.sink.close()
        return f"{self.name}\t{self.count}\t{self.hash.hexdigest()[:16]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dump", type=Path, help="write each set's outputs to DIR/<set>")
    parser.add_argument("--no-checks", action="store_true", help="redaction only")
    parser.add_argument("--no-stdlib", action="store_true", help="corpora only")
    parser.add_argument("--no-redaction", action="store_true", help="the checks only")
    parser.add_argument(
        "--strings",
        type=Path,
        help="read the test strings from this file (one JSON string a line) instead of the "
        "test modules, so that two checkouts whose tests moved judge the same strings",
    )
    parser.add_argument("--save-strings", type=Path, help="write the test strings to a file")
    args = parser.parse_args()
    if args.dump:
        args.dump.mkdir(parents=True, exist_ok=True)
    files = _corpus_files() + _repo_files() + ([] if args.no_stdlib else _stdlib_files())
    texts = list(_texts(files))
    redactor = Redactor()

    lines_set, blocks_set, cli_set = (
        _Set(name, args.dump) for name in ("redact.lines", "redact.blocks", "redact.cli")
    )
    distinct: dict[str, None] = {}
    for name, text in texts if not args.no_redaction else ():
        lines = text.split("\n")
        for line in lines:
            distinct.setdefault(line)
        for start in range(0, len(lines), _BLOCK_LINES):
            block = "\n".join(lines[start : start + _BLOCK_LINES])
            blocks_set.add(f"{name}:{start}", redactor.redact(block))
        sink = io.StringIO()
        redact_stream(io.StringIO(text), sink, redactor)
        cli_set.add(name, sink.getvalue())
    if args.strings:
        tests = [json.loads(line) for line in args.strings.read_text().splitlines()]
    else:
        tests = _test_strings()
    if args.save_strings:
        args.save_strings.write_text("".join(json.dumps(t) + "\n" for t in tests))
    results = []
    if not args.no_redaction:
        for line in tests:
            distinct.setdefault(line)
        for line in distinct:
            lines_set.add(line, redactor.redact(line))
        results = [lines_set.close(), blocks_set.close(), cli_set.close()]

    if not args.no_checks:
        checks = _checks()
        # Source code and long lines are many; the checks judge prose and commands, so the
        # lines they see are those of the corpora and the tests.
        corpus_lines = {
            line: None
            for name, text in texts
            if not name.endswith(".py")
            for line in text.split("\n")
            if line.strip()
        }
        inputs = list(dict.fromkeys([*corpus_lines, *tests]))
        for check_name, check in checks.items():
            decided = _Set(f"checks.{check_name}", args.dump)
            for line in inputs:
                decided.add(line, check(line))
            results.append(decided.close())
    print("\n".join(results))
    print(json.dumps({"inputs_files": len(files), "texts": len(texts)}))


if __name__ == "__main__":
    main()
