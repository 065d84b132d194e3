"""The durable record of an evaluation in progress: one JSON file per finished case run.

``DIR/runs/<case>#<repeat>.json`` is written atomically (a temporary file, fsync, rename) the
moment a case run ends, by the worker that ran it: a crash — of a worker or of the driver —
loses at most the runs in flight, and what is on disk always parses. A rerun reads these
files to skip what is done; the outputs (``results.jsonl`` and the rest) are assembled from
them, in case order, so their order never depends on which worker finished first.

``DIR/eval.json`` pins what the folder evaluates (the model, the repetitions): resuming a
folder with another model would mix two evaluations, and is refused.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from harness.eval.result import CaseRunResult

__all__ = ["EvalManifest", "RunStore"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
MANIFEST_FILE = "eval.json"


class EvalManifest(BaseModel):
    """What an output folder evaluates; equal manifests may share (resume) a folder."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int = Field(default=1, description="Manifest format.")
    cases: str = Field(description="The case root, as given.")
    model: str = Field(description="Label of the model under test.")
    repeat: int = Field(ge=1, description="Runs per case.")


class RunStore:
    """Per-run result files under ``DIR/runs``."""

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = out_dir
        self.runs_dir = out_dir / "runs"

    def file_of(self, case_id: str, repeat: int) -> Path:
        # Readable and unique: the id made filename-safe plus a short hash of the exact id.
        digest = hashlib.sha256(case_id.encode()).hexdigest()[:8]
        return self.runs_dir / f"{_UNSAFE.sub('_', case_id)[:120]}-{digest}#{repeat}.json"

    def write(self, result: CaseRunResult) -> None:
        """Write one run's row atomically (replacing an earlier attempt of the same run)."""
        self.runs_dir.mkdir(parents=True, exist_ok=True)
        target = self.file_of(result.case_id, result.repeat)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        with tmp.open("w", encoding="utf-8") as handle:
            handle.write(result.model_dump_json())
            handle.flush()
            os.fsync(handle.fileno())
        tmp.replace(target)

    def results(self) -> Iterator[CaseRunResult]:
        """Every readable row on disk (a torn or foreign file is skipped: it reruns)."""
        if not self.runs_dir.is_dir():
            return
        for file in sorted(self.runs_dir.glob("*.json")):
            try:
                yield CaseRunResult.model_validate_json(file.read_bytes())
            except (OSError, ValidationError):
                continue

    def done(self) -> dict[tuple[str, int], CaseRunResult]:
        return {r.key: r for r in self.results()}

    def check_manifest(self, manifest: EvalManifest) -> EvalManifest | None:
        """Write the manifest of a new folder; return the other one when it differs."""
        file = self.out_dir / MANIFEST_FILE
        if file.is_file():
            try:
                found = EvalManifest.model_validate_json(file.read_bytes())
            except ValidationError:
                found = None
            if found is not None and (found.model, found.repeat) != (
                manifest.model,
                manifest.repeat,
            ):
                return found
        self.out_dir.mkdir(parents=True, exist_ok=True)
        file.write_text(json.dumps(manifest.model_dump(), indent=1) + "\n", encoding="utf-8")
        return None
