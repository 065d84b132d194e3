"""The bulk evaluation runner: case runs mapped over a Ray Data actor pool.

The plan is pure: the selected cases (by tag) times ``repeat``, minus the runs already on disk
(or, with ``retry_failed``, minus only the passed ones). Ray Data maps the pending runs with
``map_batches`` over :class:`EvalWorker` actors (``compute=ActorPoolStrategy``); each worker
hosts a :class:`~actors.eval_executor.CaseExecutor` and runs up to ``slots`` case runs at once
on its event loop (an async UDF: runs are I/O-bound on models, so they overlap), writing every
finished run's row to ``DIR/runs`` itself — the durable record survives the driver. The driver
consumes the stream once (Ray Data is lazy: nothing runs twice), reports progress, stops after
``max_errors`` ERROR rows, and finally assembles the outputs in case order.

Resource choices (in :func:`actors.factory.eval_worker_options`): workers reserve a fraction
of a CPU, never a whole one, and wait on nothing that holds a CPU (tools run inline), so the
pool cannot deadlock on a two-core node.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from actors.eval_executor import DEFAULT_CASE_TIMEOUT_S, CaseExecutor, ModelSpec
from harness.eval.case import Case, LoadedCase
from harness.eval.outputs import EvalSummary, write_outputs
from harness.eval.result import CaseOutcome, CaseRunResult
from harness.eval.store import EvalManifest, RunStore

__all__ = ["EvalOptions", "EvalOutcome", "EvalWorker", "pending_runs", "run_eval"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class EvalOptions:
    """How to run an evaluation (the CLI's flags)."""

    model: ModelSpec = field(default_factory=ModelSpec)
    concurrency: int = 8
    """Case runs in flight at once, over all workers."""
    workers: int = 2
    """UDF actors of the pool (at most ``concurrency``)."""
    repeat: int = 1
    tags: frozenset[str] = frozenset()
    """Only cases carrying one of these tags (all cases when empty)."""
    max_errors: int | None = None
    """Stop once more case runs than this ended ERROR."""
    retry_failed: bool = False
    timeout_s: float = DEFAULT_CASE_TIMEOUT_S
    """Per case run, in the runner (the run's own deadline is the case's)."""
    grader: ModelSpec | None = None
    """The grader model for cases with ``expect.grader`` (never the model under test)."""
    no_progress_timeout_s: float | None = None
    """Ray Data's execution_no_progress_timeout_s (tests set it: a stall fails, not hangs)."""


@dataclass(frozen=True, kw_only=True)
class EvalOutcome:
    """What a run command did."""

    summary: EvalSummary
    ran: int
    """Case runs executed by this command."""
    skipped: int
    """Planned case runs found finished on disk."""
    stopped: bool
    """The error threshold stopped the command before every pending run was done."""


def pending_runs(
    cases: Sequence[LoadedCase],
    done: dict[tuple[str, int], CaseRunResult],
    *,
    repeat: int,
    retry_failed: bool,
) -> list[tuple[LoadedCase, int]]:
    """The planned runs that still have to run, in case order."""
    pending = []
    for loaded in cases:
        for k in range(repeat):
            found = done.get((loaded.case_id, k))
            if found is None or (retry_failed and found.outcome is not CaseOutcome.PASSED):
                pending.append((loaded, k))
    return pending


def select(cases: Sequence[LoadedCase], tags: frozenset[str]) -> list[LoadedCase]:
    return [c for c in cases if not tags or tags & set(c.case.tags)]


class EvalWorker:
    """The Ray Data UDF: runs a batch of case runs concurrently and records each one."""

    def __init__(
        self, out_dir: str, model: str, timeout_s: float, slots: int, grader: str | None = None
    ) -> None:
        self.store = RunStore(Path(out_dir))
        self.executor = CaseExecutor(
            ModelSpec.model_validate_json(model),
            timeout_s,
            grader=ModelSpec.model_validate_json(grader) if grader else None,
        )
        self.slots = slots
        self._free: asyncio.Semaphore | None = None

    async def __call__(self, batch: dict[str, Any]) -> AsyncIterator[dict[str, list[Any]]]:
        if self._free is None:  # created on the loop Ray Data runs async UDFs on
            self._free = asyncio.Semaphore(self.slots)
        rows = [
            (
                LoadedCase(
                    case_id=str(case_id),
                    case=Case.model_validate_json(str(case)),
                    base_dir=Path(str(base)),
                    order=int(order),
                ),
                int(repeat),
            )
            for case_id, case, base, order, repeat in zip(
                batch["case_id"],
                batch["case"],
                batch["base_dir"],
                batch["order"],
                batch["repeat"],
                strict=True,
            )
        ]
        results = await asyncio.gather(*(self._one(loaded, k) for loaded, k in rows))
        yield {
            "case_id": [r.case_id for r in results],
            "repeat": [r.repeat for r in results],
            "outcome": [r.outcome.value for r in results],
        }

    async def _one(self, loaded: LoadedCase, repeat: int) -> CaseRunResult:
        assert self._free is not None
        async with self._free:
            result = await self.executor.run(loaded, repeat)
        # The fsync waits on the disk, not on the loop: the other runs go on meanwhile.
        await asyncio.to_thread(self.store.write, result)
        return result


def run_eval(
    cases: Sequence[LoadedCase],
    out_dir: Path,
    options: EvalOptions,
    *,
    cases_label: str,
    on_result: Callable[[str, int, CaseOutcome], None] | None = None,
    on_plan: Callable[[int, int], None] | None = None,
) -> EvalOutcome:
    """Run the pending case runs on Ray Data (Ray must be initialised) and write the outputs.

    Raises:
        ValueError: ``out_dir`` holds an evaluation of another model or repetition count.
    """
    import ray.data

    from actors.factory import eval_worker_options

    store = RunStore(out_dir)
    other = store.check_manifest(
        EvalManifest(cases=cases_label, model=options.model.label, repeat=options.repeat)
    )
    if other is not None:
        raise ValueError(
            f"{out_dir} holds an evaluation of {other.model} x{other.repeat}; "
            "use another --out folder"
        )
    selected = select(cases, options.tags)
    done = store.done()
    pending = pending_runs(selected, done, repeat=options.repeat, retry_failed=options.retry_failed)
    planned = len(selected) * options.repeat
    if on_plan is not None:
        on_plan(planned, planned - len(pending))
    errors = 0
    ran = 0
    stopped = False
    if pending:
        # The command draws its own progress; Ray Data's bars and INFO lines would garble it.
        logging.getLogger("ray.data").setLevel(logging.WARNING)
        context = ray.data.DataContext.get_current()
        context.enable_progress_bars = False
        context.print_on_execution_start = False
        if options.no_progress_timeout_s is not None:
            context.execution_no_progress_timeout_s = options.no_progress_timeout_s
        workers = max(1, min(options.workers, options.concurrency, len(pending)))
        slots = max(1, -(-options.concurrency // workers))
        items = [
            {
                "case_id": loaded.case_id,
                "case": loaded.case.model_dump_json(),
                "base_dir": str(loaded.base_dir),
                "order": loaded.order,
                "repeat": k,
            }
            for loaded, k in pending
        ]
        compute, remote, batch_size = eval_worker_options(workers, slots)
        dataset = ray.data.from_items(
            items, override_num_blocks=min(len(items), workers * 4)
        ).map_batches(
            EvalWorker,
            fn_constructor_kwargs={
                "out_dir": str(out_dir),
                "model": options.model.model_dump_json(),
                "timeout_s": options.timeout_s,
                "slots": slots,
                "grader": options.grader.model_dump_json() if options.grader else None,
            },
            batch_size=batch_size,
            compute=compute,
            **remote,
        )
        for row in dataset.iter_rows():
            ran += 1
            outcome = CaseOutcome(row["outcome"])
            errors += outcome is CaseOutcome.ERROR
            if on_result is not None:
                on_result(str(row["case_id"]), int(row["repeat"]), outcome)
            if options.max_errors is not None and errors > options.max_errors:
                stopped = True
                break
    summary = assemble(out_dir, selected, options)
    return EvalOutcome(summary=summary, ran=ran, skipped=planned - len(pending), stopped=stopped)


def assemble(out_dir: Path, selected: Sequence[LoadedCase], options: EvalOptions) -> EvalSummary:
    """Write results.jsonl, results.csv and summary.json from the run files, in case order."""
    done = RunStore(out_dir).done()
    rows = [
        done[(loaded.case_id, k)]
        for loaded in selected
        for k in range(options.repeat)
        if (loaded.case_id, k) in done
    ]
    return write_outputs(out_dir, rows, options.model.label)
