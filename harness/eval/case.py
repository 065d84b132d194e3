"""Evaluation cases: a question, the world it is asked in, budgets, and what must come out.

A case is a folder holding ``case.toml`` (plus the world's files beside it) or one row of a
JSONL file; both parse into :class:`Case` (``extra="forbid"``, ``schema_version`` 1). The
world is either

* ``demo``: the bundled demo incident;
* ``files``: fixture backends — log files, a SQL script (DDL and rows) with its reviewed SQL
  policy, a folder of markdown runbooks — fed through the same tools as ``harness diagnose
  --workspace``;
* ``replay``: backend raw responses recorded per normalised request (``harness eval record``);
  the boundary, projectors, store and guards still run on them, and a request that was not
  recorded answers BACKEND_ERROR, never a guess.

``down`` takes tools' backends down (they answer BACKEND_ERROR). A case may pin a scripted
model (``model = "misbehaving:<name>"``) instead of the model under test. Case ids are stable:
the folder's path under the root, or ``<file path>/<row id>`` (the row's ``id``, else its
1-based line number).
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from harness.contracts.draft import ConclusionKind
from harness.contracts.errors import CaseError, ErrorCode
from harness.contracts.ingress import RunLimits
from harness.contracts.intent import Intent
from harness.contracts.results import FailureStage, ResultKind

__all__ = [
    "CASES_SUFFIX",
    "CASE_FILE",
    "Case",
    "CaseError",
    "ConclusionExpectation",
    "DatabaseFixture",
    "DemoWorld",
    "Expectations",
    "FilesWorld",
    "GraderExpectation",
    "LoadedCase",
    "LogsFixture",
    "ReplayWorld",
    "ToolName",
    "World",
    "load_cases",
]

CASE_FILE = "case.toml"
CASES_SUFFIX = ".cases.jsonl"
"""A JSONL file of cases in a folder of cases ends so (world data may be JSON lines too)."""
_ID = r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,199}$"

ToolName = Literal["query_logs", "query_mysql", "search_knowledge"]


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class LogsFixture(_Strict):
    """Recorded log lines: files or folders, as a workspace's ``[logs]``."""

    paths: list[str] = Field(min_length=1, description="Files or folders, relative to the case.")
    format: str = Field(default="auto", description="auto, a format's name or a pattern.")
    service: str | None = Field(default=None, description="Service of lines that name none.")
    year: int | None = Field(default=None, description="Year of BSD syslog timestamps.")


class DatabaseFixture(_Strict):
    """A SQL script (DDL and rows, SQLite dialect) built into a fresh database per world."""

    script: str = Field(description="The .sql file, relative to the case.")
    policy: str = Field(description="The reviewed SqlPolicy JSON, relative to the case.")
    datasource: str | None = Field(default=None, description="The policy's only one by default.")


class DemoWorld(_Strict):
    """The bundled demo incident (checkout-api, HTTP 500 since 14:05)."""

    kind: Literal["demo"] = Field(default="demo", description="Discriminator.")


class FilesWorld(_Strict):
    """Fixture backends: the parts given are the world (none is filled from the demo)."""

    kind: Literal["files"] = Field(default="files", description="Discriminator.")
    logs: LogsFixture | None = Field(default=None, description="Log lines.")
    database: DatabaseFixture | None = Field(default=None, description="DDL and rows.")
    runbooks: str | None = Field(default=None, description="Folder of markdown documents.")


class ReplayWorld(_Strict):
    """Backend raw responses recorded per normalised request (see ``harness.eval.recording``)."""

    kind: Literal["replay"] = Field(default="replay", description="Discriminator.")
    recording: str = Field(description="The recording JSON file, relative to the case.")


World = Annotated[DemoWorld | FilesWorld | ReplayWorld, Field(discriminator="kind")]


class GraderExpectation(_Strict):
    """A rubric for the optional grader model (a separate endpoint from the model under test)."""

    rubric: str = Field(min_length=1, max_length=2000, description="What a good answer does.")


class ConclusionExpectation(_Strict):
    """What the released conclusions of one kind must (and must not) state.

    Unlike ``facts``, which count anywhere in the released words, these look only at the
    statements of conclusions of ``kind``: "a ROOT_CAUSE must say X" is not met by a next step
    that quotes X from a runbook title.
    """

    kind: ConclusionKind = Field(description="ROOT_CAUSE, CONTRIBUTING_FACTOR, OBSERVATION, …")
    facts: list[list[str]] = Field(
        default_factory=list,
        description="Each a list of alternatives, one of which one conclusion of the kind states.",
    )
    absent: list[str] = Field(
        default_factory=list, description="Texts no conclusion of the kind may state."
    )
    count: int | None = Field(
        default=None, ge=0, description="Exactly this many conclusions of the kind (0: none)."
    )

    @field_validator("facts", mode="before")
    @classmethod
    def _alternatives(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [[item] if isinstance(item, str) else item for item in value]
        return value


class Expectations(_Strict):
    """What the released result must be; every field left out is not checked."""

    release: list[ResultKind] = Field(
        min_length=1, description="Accepted kinds of the released result (one of them)."
    )
    failure_stage: FailureStage | None = Field(default=None, description="For a SafeFallback.")
    error_code: ErrorCode | None = Field(default=None, description="For a StableFailure.")
    intent: Intent | None = Field(default=None, description="The route (an Answer's intent).")
    facts: list[list[str]] = Field(
        default_factory=list,
        description=(
            "Facts the released result must state: each is a list of alternatives, one of "
            "which must occur (case-insensitive, whitespace-normalised) in its released text."
        ),
    )
    absent: list[str] = Field(
        default_factory=list,
        description="Text that must not occur anywhere in the released result (e.g. secrets).",
    )
    tools_called: list[ToolName] = Field(
        default_factory=list, description="Tools the run must execute at least once."
    )
    tools_not_called: list[ToolName] = Field(
        default_factory=list, description="Tools the run must not execute."
    )
    max_tokens: int | None = Field(default=None, ge=1, description="Total tokens at most.")
    conclusions: list[ConclusionExpectation] = Field(
        default_factory=list,
        description="Facts scoped to the released conclusions of a kind (see the class).",
    )
    grader: GraderExpectation | None = Field(default=None, description="Optional rubric.")

    @field_validator("release", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("facts", mode="before")
    @classmethod
    def _alternatives(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [[item] if isinstance(item, str) else item for item in value]
        return value


class Case(_Strict):
    """One evaluation case."""

    schema_version: Literal[1] = Field(default=1, description="Case format.")
    id: str | None = Field(
        default=None, pattern=_ID, description="A JSONL row's id (a folder's path names it)."
    )
    question: str = Field(min_length=1, max_length=4000, description="The operator's question.")
    as_of: datetime | None = Field(
        default=None, description="'Now' of the investigation (naive = UTC)."
    )
    world: World = Field(default_factory=DemoWorld, description="Where the question is asked.")
    down: list[ToolName] = Field(
        default_factory=list, description="Tools whose backend is down (BACKEND_ERROR)."
    )
    model: str | None = Field(
        default=None,
        pattern=r"^misbehaving:[a-z_]+$",
        description="A scripted model instead of the model under test: misbehaving:<name>.",
    )
    budgets: RunLimits | None = Field(default=None, description="Budget limits of the run.")
    deadline_s: float | None = Field(default=None, gt=0, le=3600, description="Run deadline.")
    tags: list[str] = Field(default_factory=list, description="Free labels for filtering.")
    expect: Expectations = Field(description="What must come out.")

    @field_validator("as_of")
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        if value is None:
            return None
        return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)


@dataclass(frozen=True, kw_only=True)
class LoadedCase:
    """A parsed case, its stable id, and the folder its relative paths start from."""

    case_id: str
    case: Case
    base_dir: Path
    order: int
    """Position in the sorted case list: the output order."""

    def path(self, relative: str) -> Path:
        return (self.base_dir / relative).resolve()


def load_cases(root: Path) -> list[LoadedCase]:
    """Every case under ``root`` (a case folder, a JSONL file, or a folder of both), sorted.

    Raises:
        CaseError: A case does not parse, or two cases share an id.
    """
    root = root.resolve()
    found: list[tuple[str, Case, Path]] = []
    if root.is_file():
        found += _rows(
            root, root.parent, root.name.removesuffix(CASES_SUFFIX).removesuffix(".jsonl")
        )
    elif (root / CASE_FILE).is_file():
        found.append((root.name, _folder_case(root), root))
    elif root.is_dir():
        for file in sorted(root.rglob("*")):
            relative = file.relative_to(root)
            if file.name == CASE_FILE:
                found.append((relative.parent.as_posix(), _folder_case(file.parent), file.parent))
            elif file.name.endswith(CASES_SUFFIX) and not _inside_case(file, root):
                stem = relative.as_posix().removesuffix(CASES_SUFFIX)
                found += _rows(file, file.parent, stem)
    else:
        raise CaseError(message=f"no cases at {root}", context={"case": str(root)})
    found.sort(key=lambda item: item[0])
    seen: set[str] = set()
    for case_id, _, _ in found:
        if case_id in seen:
            raise CaseError(message=f"duplicate case id {case_id}", context={"case": case_id})
        seen.add(case_id)
    return [
        LoadedCase(case_id=case_id, case=case, base_dir=base, order=n)
        for n, (case_id, case, base) in enumerate(found)
    ]


def _inside_case(file: Path, root: Path) -> bool:
    """A JSONL file inside a case folder is world data, not cases."""
    return any(
        (parent / CASE_FILE).is_file() for parent in file.parents if parent.is_relative_to(root)
    )


def _folder_case(folder: Path) -> Case:
    file = folder / CASE_FILE
    try:
        with file.open("rb") as handle:
            data = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise CaseError(
            message=f"cannot read {file}: {type(exc).__name__}", context={"case": str(file)}
        ) from None
    return _parse(data, str(file))


def _rows(file: Path, base: Path, stem: str) -> list[tuple[str, Case, Path]]:
    rows = []
    for n, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{file}:{n}"
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            raise CaseError(message=f"{where} is not JSON", context={"case": where}) from None
        case = _parse(data, where)
        rows.append((f"{stem}/{case.id or f'line-{n}'}", case, base))
    return rows


def _parse(data: Any, where: str) -> Case:
    try:
        return Case.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'case'}: {e['msg']}" for e in exc.errors()
        )
        raise CaseError(
            message=f"invalid case {where}: {problems}", context={"case": where}
        ) from None
