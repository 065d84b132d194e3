"""``harness eval record``: one live run turned into a replay case.

The run goes through the whole harness on a live world — the bundled demo, a workspace, or
whatever ``HARNESS_*`` systems the settings name — with every backend wrapped in a
:class:`~harness.eval.replay.RecordingBackend`. What the backends answered is redacted as it
is recorded, so a secret in a log line or a row never lands in the case files. The case
written expects what the live run released (its kind, stage or code, the tools it used);
review it and add the facts it must state. The run is an operator's live run, so it is on the
durable audit like any other (written before the command returns); evaluation runs of cases are
not (see docs/eval.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from actors.eval_executor import ModelSpec
from harness.adapters.embedded import build_audit_writer, build_tool_plane
from harness.adapters.openai_model import build_model_clients, component_call_settings
from harness.contracts.ingress import RunRequest
from harness.contracts.results import ReleasedResult, SafeFallback, StableFailure
from harness.diagnosis import DiagnosisRun, RunDeps
from harness.eval.case import CASE_FILE
from harness.eval.checks import run_facts
from harness.eval.replay import RECORDING_FILE, Recording, RecordingBackend
from harness.eval.slowed import SlowedModel
from harness.workspace import Workspace

__all__ = ["RecordedCase", "record_case"]


@dataclass(frozen=True, kw_only=True)
class RecordedCase:
    folder: Path
    result: ReleasedResult
    responses: int
    unrecorded: int = 0
    """Records the audit could not write before the command returned (0 or 1)."""


async def record_case(
    question: str,
    out_dir: Path,
    *,
    workspace: Workspace | None = None,
    as_of: datetime | None = None,
    model: ModelSpec | None = None,
    tags: tuple[str, ...] = ("recorded",),
) -> RecordedCase:
    """Run ``question`` live and write ``out_dir/case.toml`` and ``out_dir/recording.json``."""
    model = model or ModelSpec()
    settings = model.settings()
    plane = build_tool_plane(settings, workspace=workspace)
    recorders = {name: RecordingBackend(name, backend) for name, backend in plane.backends.items()}
    plane.backends.update(recorders)
    models = build_model_clients(settings)
    if model.latency_s:
        models = {c: SlowedModel(m, model.latency_s, plane.clock) for c, m in models.items()}
    audit = build_audit_writer(settings) if settings.audit_enabled else None
    deps = RunDeps(
        models=models,
        registry=plane.registry,
        store=plane.store,
        executor=plane.executor(),
        clock=plane.clock,
        policy=plane.policy(),
        component_settings=component_call_settings(settings),
        datasource=plane.datasource,
        default_deadline_s=settings.run_deadline_s,
        audit=audit,
    )
    run = DiagnosisRun(RunRequest(question=question, as_of=as_of), deps)
    result = await run.execute()
    unrecorded = 0
    if audit is not None:
        unrecorded = await audit.drain(settings.audit_timeout_s)
        await audit.close()
    responses = [r for recorder in recorders.values() for r in recorder.responses]
    policy = plane.validator.policy
    recording = Recording(
        tools=sorted(recorders),
        datasource=plane.datasource,
        sql_policy=policy.model_dump(mode="json") if policy.datasources else None,
        responses=responses,
    )
    out_dir.mkdir(parents=True, exist_ok=True)
    recording.save(out_dir / RECORDING_FILE)
    facts = run_facts(run.trace.events)
    (out_dir / CASE_FILE).write_text(
        _case_toml(question, as_of, result, sorted(facts.tools_executed), tags), encoding="utf-8"
    )
    return RecordedCase(
        folder=out_dir, result=result, responses=len(responses), unrecorded=unrecorded
    )


def _case_toml(
    question: str,
    as_of: datetime | None,
    result: ReleasedResult,
    tools: list[str],
    tags: tuple[str, ...],
) -> str:
    # TOML basic strings accept JSON's escapes for everything json.dumps writes here.
    lines = [
        "# Recorded by `harness eval record`: review the expectations, add the facts it must state.",
        f"question = {json.dumps(question)}",
    ]
    if as_of is not None:
        lines.append(f"as_of = {as_of.isoformat().replace('+00:00', 'Z')}")
    lines += [
        f"tags = {json.dumps(list(tags))}",
        "",
        "[world]",
        'kind = "replay"',
        f"recording = {json.dumps(RECORDING_FILE)}",
        "",
        "[expect]",
        f"release = {json.dumps(result.kind)}",
    ]
    if isinstance(result, SafeFallback):
        lines.append(f"failure_stage = {json.dumps(result.failure_stage)}")
    if isinstance(result, StableFailure):
        lines.append(f"error_code = {json.dumps(result.error_code.value)}")
    if tools:
        lines.append(f"tools_called = {json.dumps(tools)}")
    return "\n".join(lines) + "\n"
