"""Recorded backend responses: the recording format, the replay backend and the recorder.

A recording holds, per tool, the raw response (or the stable error) a backend gave for one
normalised request — the tool's plan as canonical JSON (``scope_of``), the same identity the
boundary uses for duplicate scopes. Replaying puts :class:`ReplayBackend` where the live
backend was: the boundary, projectors, canonical store and guards run on the recorded raw
exactly as they ran live. A request that was not recorded answers BACKEND_ERROR (context
``reason`` NOT_RECORDED) — never a guess and never a near match.

:class:`RecordingBackend` wraps a live backend and keeps what it answered, every string
redacted at recording time, so a secret the backend returned never reaches the case files.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.contracts.errors import BackendError, ErrorCode, HarnessError
from harness.contracts.raw import RawResponse
from harness.contracts.rawcap import RawCap
from harness.ports import ToolBackend
from harness.redaction import Redactor
from harness.tools.registry import scope_of

__all__ = [
    "RECORDING_FILE",
    "DownBackend",
    "RecordedResponse",
    "Recording",
    "RecordingBackend",
    "ReplayBackend",
    "redacted_value",
]

RECORDING_FILE = "recording.json"

ToolName = Literal["query_logs", "query_mysql", "search_knowledge"]


class RecordedResponse(BaseModel):
    """What one backend answered to one normalised request."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tool: ToolName = Field(description="The tool whose backend answered.")
    scope: str = Field(description="The normalised request (tool plan as canonical JSON).")
    raw: Any = Field(default=None, description="The raw response, redacted; None on error.")
    error_code: ErrorCode | None = Field(default=None, description="The backend's stable error.")


class Recording(BaseModel):
    """The backends of one live world, as far as a run asked them."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Literal[1] = Field(default=1, description="Recording format.")
    tools: list[ToolName] = Field(description="The tools the live world offered.")
    datasource: str = Field(default="default", description="The logical datasource.")
    sql_policy: dict[str, Any] | None = Field(
        default=None, description="The SqlPolicy the live world planned SQL with."
    )
    responses: list[RecordedResponse] = Field(default_factory=list, description="In call order.")

    @classmethod
    def load(cls, path: Path) -> Recording:
        return cls.model_validate_json(path.read_bytes())

    def save(self, path: Path) -> None:
        text = json.dumps(self.model_dump(mode="json"), indent=1, sort_keys=True)
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(text + "\n", encoding="utf-8")
        tmp.replace(path)


class ReplayBackend:
    """Answers a tool's requests from a recording; an unrecorded request is BACKEND_ERROR."""

    def __init__(self, tool: str, recording: Recording) -> None:
        self.tool = tool
        self._answers = {r.scope: r for r in recording.responses if r.tool == tool}

    def fetch(self, request: BaseModel, *, max_raw_bytes: int) -> Any:
        found = self._answers.get(scope_of(self.tool, request))
        if found is None:
            raise BackendError(
                ErrorCode.BACKEND_ERROR,
                "request not recorded",
                context={"reason": "NOT_RECORDED", "tool": self.tool},
                retryable=False,
            )
        if found.error_code is not None:
            raise BackendError(found.error_code, "recorded backend error", retryable=False)
        # The recording is held whole already; its size is counted as the live fetch would
        # have counted it, so a smaller cap ends the replayed call as it ended the live one.
        raw = RawResponse.of(found.raw)
        RawCap(max_raw_bytes).charge(raw.size)
        return raw


class DownBackend:
    """A backend that is down: every request answers BACKEND_ERROR."""

    def __init__(self, tool: str) -> None:
        self.tool = tool

    def fetch(self, request: BaseModel, *, max_raw_bytes: int) -> Any:
        raise BackendError(
            ErrorCode.BACKEND_ERROR, "backend down", context={"reason": "DOWN"}, retryable=False
        )


class RecordingBackend:
    """Wraps a live backend; keeps each answer (redacted) for :class:`Recording`."""

    def __init__(self, tool: str, inner: ToolBackend, redactor: Redactor | None = None) -> None:
        self.tool = tool
        self.inner = inner
        self.redactor = redactor or Redactor()
        self.responses: list[RecordedResponse] = []
        self._lock = threading.Lock()  # backends run in executor threads

    def fetch(self, request: BaseModel, *, max_raw_bytes: int) -> Any:
        scope = scope_of(self.tool, request)
        try:
            value = self.inner.fetch(request, max_raw_bytes=max_raw_bytes)
        except HarnessError as error:
            self._keep(RecordedResponse(tool=self.tool, scope=scope, error_code=error.error_code))
            raise
        raw = value.value() if isinstance(value, RawResponse) else value
        self._keep(
            RecordedResponse(tool=self.tool, scope=scope, raw=redacted_value(raw, self.redactor))
        )
        return value

    def _keep(self, response: RecordedResponse) -> None:
        with self._lock:
            if all(r.scope != response.scope for r in self.responses):
                self.responses.append(response)


def redacted_value(value: Any, redactor: Redactor) -> Any:
    """``value`` with every string redacted (keys too), structure and other types kept."""
    if isinstance(value, str):
        return redactor.redact(value)
    if isinstance(value, dict):
        return {redactor.redact(str(k)): redacted_value(v, redactor) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redacted_value(v, redactor) for v in value]
    return value
