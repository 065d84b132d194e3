"""``harness eval``: bulk offline evaluation of diagnosis runs (Ray Data).

* ``harness eval run CASES --out DIR`` runs every case (a case folder, a ``*.cases.jsonl``
  file, or a folder of both) and writes ``DIR/results.jsonl``, ``results.csv`` and
  ``summary.json`` (and ``report.html`` when :mod:`harness.eval.report` is installed).
  Rerunning the same command skips finished case runs; ``--retry-failed`` reruns the failed
  and errored ones. Exit 0 when every planned case run passed, 1 otherwise, 2 for bad input.
* ``harness eval compare A B`` prints per-case differences of B against A, regressions first;
  exit 1 when there is a regression (for CI), else 0.
* ``harness eval record "QUESTION" --out CASE_DIR`` turns one live run into a replay case.
* ``harness eval report DIR`` rebuilds ``DIR/report.html`` from ``DIR/results.jsonl``.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import importlib.util
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.markup import escape

from serve.cli.audit import report_unrecorded
from serve.cli.workspace_args import add_workspace_arguments, workspace_from_args

if TYPE_CHECKING:
    from actors.eval_executor import ModelSpec

__all__ = ["register"]

REPORT_MODULE = "harness.eval.report"
"""Hook: a module with ``write_report(out_dir: Path) -> Path`` renders report.html."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("eval", help="bulk offline evaluation of diagnosis runs")
    commands = parser.add_subparsers(dest="eval_command", metavar="EVAL_COMMAND")
    parser.set_defaults(handler=lambda args: (parser.print_help(), 2)[1])

    run = commands.add_parser("run", help="run evaluation cases on Ray Data")
    run.add_argument("cases", type=Path, help="a case folder, a *.cases.jsonl file, or a folder")
    run.add_argument("--out", type=Path, required=True, metavar="DIR", help="output folder")
    _model_arguments(run)
    run.add_argument("--concurrency", type=_positive, default=8, metavar="N",
                     help="case runs in flight at once (default 8)")  # fmt: skip
    run.add_argument("--workers", type=_positive, default=2, metavar="N",
                     help="Ray Data UDF actors (default 2)")  # fmt: skip
    run.add_argument("--repeat", type=_positive, default=1, metavar="K",
                     help="runs per case (pass@k)")  # fmt: skip
    run.add_argument("--tag", action="append", default=[], metavar="T",
                     help="only cases with this tag; repeatable")  # fmt: skip
    run.add_argument("--max-errors", type=int, default=None, metavar="N",
                     help="stop once more than N case runs ended ERROR")  # fmt: skip
    run.add_argument("--retry-failed", action="store_true",
                     help="rerun failed and errored case runs too")  # fmt: skip
    run.add_argument("--timeout-s", type=float, default=120.0, metavar="S",
                     help="per case run (default 120)")  # fmt: skip
    run.add_argument("--grader-model", default=None, metavar="NAME",
                     help="grader model for cases with expect.grader (at --grader-url)")  # fmt: skip
    run.add_argument("--grader-url", default=None, metavar="URL",
                     help="the grader's OpenAI-compatible base URL (key: HARNESS_GRADER_API_KEY)")  # fmt: skip
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    run.set_defaults(handler=_run)

    cmp = commands.add_parser("compare", help="per-case differences of B against A")
    cmp.add_argument("a", type=Path, help="the baseline output folder")
    cmp.add_argument("b", type=Path, help="the candidate output folder")
    cmp.set_defaults(handler=_compare)

    rec = commands.add_parser("record", help="turn one live run into a replay case")
    rec.add_argument("question")
    rec.add_argument("--out", type=Path, required=True, metavar="CASE_DIR")
    rec.add_argument("--as-of", default=None, metavar="ISO", help="'now' of the investigation")
    _model_arguments(rec)
    add_workspace_arguments(rec)
    rec.set_defaults(handler=_record)

    rep = commands.add_parser("report", help="rebuild DIR/report.html from DIR/results.jsonl")
    rep.add_argument("out", type=Path, metavar="DIR", help="an evaluation output folder")
    rep.set_defaults(handler=_report)


def _model_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--model",
        default="offline",
        metavar="NAME",
        help="offline (the offline demo model, default) or a model name at --model-url",
    )
    parser.add_argument(
        "--model-url",
        default=None,
        metavar="URL",
        help="OpenAI-compatible base URL (key: HARNESS_MODEL_API_KEY)",
    )
    parser.add_argument(
        "--model-latency-ms",
        type=float,
        default=0.0,
        metavar="MS",
        help="add this latency to every model call (simulates a remote endpoint)",
    )


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _model_spec(args: argparse.Namespace) -> ModelSpec:
    from pydantic import SecretStr

    from actors.eval_executor import ModelSpec

    latency_s = args.model_latency_ms / 1000
    if args.model == "offline" and args.model_url is None:
        return ModelSpec(latency_s=latency_s)
    if args.model_url is None:
        raise ValueError("--model NAME needs --model-url")
    key = os.environ.get("HARNESS_MODEL_API_KEY")
    return ModelSpec(
        kind="endpoint",
        base_url=args.model_url,
        model=args.model,
        api_key=SecretStr(key) if key else None,
        latency_s=latency_s,
    )


def _grader_spec(args: argparse.Namespace) -> ModelSpec | None:
    from pydantic import SecretStr

    from actors.eval_executor import ModelSpec

    if args.grader_model is None and args.grader_url is None:
        return None
    if args.grader_model is None or args.grader_url is None:
        raise ValueError("--grader-model and --grader-url go together")
    key = os.environ.get("HARNESS_GRADER_API_KEY")
    return ModelSpec(
        kind="endpoint",
        base_url=args.grader_url,
        model=args.grader_model,
        api_key=SecretStr(key) if key else None,
    )


def _run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from actors.eval_runner import EvalOptions, run_eval
    from actors.factory import local_ray
    from harness.eval.case import CaseError, load_cases

    err = Console(stderr=True)
    try:
        cases = load_cases(args.cases)
        model = _model_spec(args)
        grader = _grader_spec(args)
    except (CaseError, ValueError) as error:
        err.print(f"[red]invalid cases or flags:[/red] {escape(str(error))}")
        return 2
    options = EvalOptions(
        model=model,
        concurrency=args.concurrency,
        workers=args.workers,
        repeat=args.repeat,
        tags=frozenset(args.tag),
        max_errors=args.max_errors,
        retry_failed=args.retry_failed,
        timeout_s=args.timeout_s,
        grader=grader,
    )
    progress = _Progress(quiet=args.quiet)
    try:
        with local_ray(num_cpus=os.cpu_count() or 2), progress:
            outcome = run_eval(
                cases,
                args.out,
                options,
                cases_label=str(args.cases),
                on_plan=progress.plan,
                on_result=progress.advance,
            )
    except ValueError as error:
        err.print(f"[red]refused:[/red] {escape(str(error))}")
        return 2
    summary = outcome.summary
    report = _write_report(args.out)
    console = Console()
    console.print(
        f"[bold]{summary.passed}/{summary.runs} passed[/bold] ({summary.pass_rate:.1%}) · "
        f"failed {summary.failed} · errors {summary.errors} · ran {outcome.ran}, "
        f"skipped {outcome.skipped} finished · pass@{summary.repeat} {summary.pass_at_k:.1%} · "
        f"tokens {summary.total_tokens} · p50 {summary.latency_p50_ms:.0f} ms · "
        f"p90 {summary.latency_p90_ms:.0f} ms"
    )
    console.print(f"[dim]{escape(str(args.out))}: results.jsonl results.csv summary.json"
                  f"{' report.html' if report else ''}[/dim]")  # fmt: skip
    if outcome.stopped:
        err.print(f"[red]stopped: more than {args.max_errors} case runs ended ERROR[/red]")
        return 1
    planned = (
        len([c for c in cases if not options.tags or options.tags & set(c.case.tags)])
        * options.repeat
    )
    return 0 if summary.passed == summary.runs == planned else 1


def _write_report(out_dir: Path) -> Path | None:
    if importlib.util.find_spec(REPORT_MODULE) is None:
        return None
    module = importlib.import_module(REPORT_MODULE)
    path: Path = module.write_report(out_dir)
    return path


class _Progress:
    """A rich progress bar over the planned case runs (finished ones count from the start)."""

    def __init__(self, *, quiet: bool) -> None:
        self.quiet = quiet
        self._bar: Any = None
        self._task: Any = None

    def __enter__(self) -> _Progress:
        if not self.quiet:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

            self._bar = Progress(
                "[progress.description]{task.description}",
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                transient=True,
            )
            self._bar.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.__exit__(*exc)

    def plan(self, planned: int, finished: int) -> None:
        if self._bar is not None:
            self._task = self._bar.add_task("case runs", total=planned, completed=finished)

    def advance(self, case_id: str, repeat: int, outcome: Any) -> None:
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, advance=1, description=f"{outcome.value:<6} {case_id}")


def _compare(args: argparse.Namespace) -> int:
    from rich.console import Console

    from harness.eval.compare import compare
    from harness.eval.outputs import read_results

    err = Console(stderr=True)
    try:
        a, b = read_results(args.a), read_results(args.b)
    except (OSError, ValueError) as error:
        err.print(f"[red]cannot read results:[/red] {escape(type(error).__name__)}")
        return 2
    result = compare(a, b)
    console = Console()
    for diff in result.diffs:
        colour = {"REGRESSION": "red", "IMPROVEMENT": "green"}.get(diff.kind.value, "yellow")
        console.print(
            f"[{colour}]{diff.kind.value:<11}[/{colour}] {escape(diff.case_id)}#{diff.repeat}: "
            f"{escape(diff.before)} → {escape(diff.after)}"
        )
    console.print(
        f"{len(result.regressions)} regressions, {len(result.improvements)} improvements, "
        f"{result.common} case runs in both"
    )
    return 1 if result.regressions else 0


def _record(args: argparse.Namespace) -> int:
    from datetime import UTC, datetime

    from rich.console import Console

    from actors.eval_record import record_case
    from harness.contracts.errors import WorkspaceError

    err = Console(stderr=True)
    try:
        workspace = workspace_from_args(args)
        model = _model_spec(args)
        as_of = datetime.fromisoformat(args.as_of) if args.as_of else None
    except (WorkspaceError, ValueError) as error:
        err.print(f"[red]invalid input:[/red] {escape(str(error))}")
        return 2
    if as_of is not None and as_of.tzinfo is None:
        as_of = as_of.replace(tzinfo=UTC)
    if as_of is None and workspace is None:
        from serve.cli.diagnose import DEFAULT_AS_OF

        as_of = DEFAULT_AS_OF
    elif as_of is None and workspace is not None:
        as_of = workspace.as_of
    recorded = asyncio.run(
        record_case(args.question, args.out, workspace=workspace, as_of=as_of, model=model)
    )
    Console().print(
        f"recorded {recorded.result.kind} with {recorded.responses} backend responses "
        f"into {escape(str(recorded.folder))}"
    )
    report_unrecorded([recorded.result.run_id], pool_unrecorded=recorded.unrecorded)
    return 0


def _report(args: argparse.Namespace) -> int:
    from rich.console import Console

    from harness.eval.report import write_report

    try:
        path = write_report(args.out)
    except (OSError, ValueError) as error:
        Console(stderr=True).print(
            f"[red]cannot read {escape(str(args.out / 'results.jsonl'))}:[/red] "
            f"{escape(type(error).__name__)}"
        )
        return 2
    Console().print(f"wrote {escape(str(path))}")
    return 0
