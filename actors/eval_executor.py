"""CaseExecutor: runs one evaluation case through the whole harness, in this process.

Each case run is a :class:`~harness.diagnosis.DiagnosisRun` on the tool plane of the case's
world — the same router, agent, ToolBoundary, projectors, canonical store, guards and release
as a production run; tools run inline (the executor already is one of many parallel workers).
Planes are built once per world and process and shared by the runs in it, as a RunActor
shares its deps. Models: the model under test (:class:`ModelSpec`), or the case's scripted
misbehaving model. Plain Python: the Ray Data runner hosts it in its UDF actors, and the
benchmark's sequential baseline calls it directly.
"""

from __future__ import annotations

import asyncio
import logging
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from harness.adapters.embedded import ToolPlane
from harness.adapters.eval_world import build_case_plane, with_down, world_key
from harness.clock import SystemClock
from harness.contracts.errors import WorkspaceError
from harness.contracts.ids import new_run_id
from harness.contracts.ingress import RunRequest
from harness.contracts.models import Component, ModelClient
from harness.contracts.results import ReleasedResult
from harness.diagnosis import DiagnosisRun, RunDeps
from harness.eval.case import LoadedCase
from harness.eval.checks import error_result, evaluate, released_text
from harness.eval.grading import Grader
from harness.eval.result import CaseRunError, CaseRunResult, ExpectationCheck
from harness.eval.slowed import SlowedModel
from harness.settings import Settings

__all__ = ["CaseExecutor", "ModelSpec"]

log = logging.getLogger(__name__)

DEFAULT_CASE_TIMEOUT_S = 120.0


class ModelSpec(BaseModel):
    """The model under test: the offline demo model, or an OpenAI-compatible endpoint."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["offline", "endpoint"] = Field(default="offline", description="Which.")
    base_url: str | None = Field(default=None, description="Endpoint base URL (endpoint).")
    model: str | None = Field(default=None, description="Model name (endpoint).")
    api_key: SecretStr | None = Field(default=None, description="Endpoint key, if any.")
    latency_s: float = Field(default=0.0, ge=0, le=60, description="Added to every call.")

    @property
    def label(self) -> str:
        name = "offline-demo-model" if self.kind == "offline" else f"{self.model}@{self.base_url}"
        return name if not self.latency_s else f"{name}+{round(self.latency_s * 1000)}ms"

    def settings(self) -> Settings:
        """Deployment settings of an evaluation: this model, and tool timeouts at their maximum.

        An evaluation runs many cases at once on one machine, and the first call of a world
        loads its data: production's tool timeouts would let the machine's load, not the case,
        decide outcomes. The per-case timeout of the runner bounds a case instead.
        """
        common: dict[str, Any] = {"execute_timeout_s": 120.0, "project_timeout_s": 60.0}
        if self.kind == "offline":
            return Settings(model_base_url=None, **common)
        return Settings(
            model_base_url=self.base_url,
            model_name=self.model,
            model_api_key=self.api_key,
            **common,
        )


@dataclass
class CaseExecutor:
    """Runs case runs; one per process (or per UDF actor), many runs at once on its loop."""

    model: ModelSpec = field(default_factory=ModelSpec)
    timeout_s: float = DEFAULT_CASE_TIMEOUT_S
    cache_dir: Path | None = None
    grader: ModelSpec | None = None
    """The grader's endpoint (for cases with ``expect.grader``); separate from ``model``."""
    _grader: Grader | None = None
    _settings: Settings | None = None
    _models: Mapping[Component, ModelClient] | None = None
    _planes: dict[tuple[str, ...], ToolPlane] = field(default_factory=dict)

    async def run(self, loaded: LoadedCase, repeat: int) -> CaseRunResult:
        """One run of ``loaded``: its row, whatever happens (errors become ERROR rows)."""
        started = time.perf_counter()
        label = loaded.case.model or self.model.label

        def elapsed_ms() -> float:
            return (time.perf_counter() - started) * 1000

        run_id = new_run_id()
        case = loaded.case
        request = RunRequest(
            question=case.question,
            as_of=case.as_of,
            deadline_s=case.deadline_s,
            limits=case.budgets,
            analysis_id=f"an-{run_id.removeprefix('run-')}",
        )
        try:
            deps = self._deps(loaded)
            if case.model is not None:
                deps = self._scripted(deps, case.model, request.analysis_id or "")
        except WorkspaceError as error:
            log.warning("case world invalid case=%s reason=%s", loaded.case_id, error.message)
            return error_result(
                loaded, CaseRunError.WORLD_INVALID, repeat=repeat, model=label, latency_ms=0.0
            )
        run = DiagnosisRun(request, deps, run_id=run_id)
        try:
            result = await asyncio.wait_for(run.execute(), self.timeout_s)
        except TimeoutError:
            run.cancel()
            return error_result(
                loaded,
                CaseRunError.CASE_TIMEOUT,
                repeat=repeat,
                model=label,
                latency_ms=elapsed_ms(),
                run_id=run_id,
            )
        except Exception as exc:  # a runner bug must cost one row, not the evaluation
            log.warning("case run failed case=%s error=%s", loaded.case_id, type(exc).__name__)
            return error_result(
                loaded,
                CaseRunError.RUNNER_ERROR,
                repeat=repeat,
                model=label,
                latency_ms=elapsed_ms(),
                run_id=run_id,
            )
        latency_ms = elapsed_ms()
        extra = [await self._grade(loaded, result)] if case.expect.grader else []
        return evaluate(
            loaded,
            result,
            run.trace.events,
            repeat=repeat,
            model=label,
            latency_ms=latency_ms,
            extra_checks=extra,
        )

    async def _grade(self, loaded: LoadedCase, result: ReleasedResult) -> ExpectationCheck:
        rubric = loaded.case.expect.grader
        assert rubric is not None
        if self.grader is None:
            return ExpectationCheck(
                name="grader", passed=False, expected=rubric.rubric[:500], actual="no grader"
            )
        if self._grader is None:
            from harness.adapters.openai_model import build_model_clients

            clients = build_model_clients(self.grader.settings())
            self._grader = Grader(clients[Component.SEMANTIC_GUARD])
        return await self._grader.grade(
            question=loaded.case.question, rubric=rubric.rubric, released=released_text(result)
        )

    # ------------------------------------------------------------------ building

    def _deps(self, loaded: LoadedCase) -> RunDeps:
        settings = self._settings or self.model.settings()
        self._settings = settings
        key = world_key(loaded)
        plane = self._planes.get(key)
        if plane is None:
            cache = self.cache_dir or Path(tempfile.gettempdir()) / "harness-eval-worlds"
            plane = build_case_plane(loaded, settings, cache)
            self._planes[key] = plane
        plane = with_down(plane, loaded.case.down)
        from harness.adapters.openai_model import build_model_clients, component_call_settings

        if self._models is None:
            models = build_model_clients(settings)
            if self.model.latency_s:
                clock = SystemClock()
                models = {c: SlowedModel(m, self.model.latency_s, clock) for c, m in models.items()}
            self._models = models
        return RunDeps(
            models=self._models,
            registry=plane.registry,
            store=plane.store,
            executor=plane.executor(),
            clock=plane.clock,
            policy=plane.policy(),
            component_settings=component_call_settings(settings),
            datasource=plane.datasource,
            default_deadline_s=settings.run_deadline_s,
        )

    def _scripted(self, deps: RunDeps, name: str, analysis_id: str) -> RunDeps:
        from dataclasses import replace

        from harness.testing.misbehaving import MISBEHAVIOURS

        build = MISBEHAVIOURS.get(name.removeprefix("misbehaving:"))
        if build is None:
            raise WorkspaceError(message=f"unknown scripted model {name}")
        model = build(analysis_id, deps.clock)
        return replace(deps, models=dict.fromkeys(Component, model))
