"""The user's own world: the logs, database and runbooks a diagnosis reads instead of the demo.

A workspace is named by flags of ``harness diagnose`` or by one small file, ``harness.toml``
(this module is its only reader; stdlib ``tomllib``)::

    as_of = 2026-03-10T10:30:00Z        # optional: "now" of the investigation

    [logs]
    paths = ["logs"]                    # files or folders; any format of the catalog, .gz
    format = "auto"                     # auto | a format's name (harness.logformats) | a pattern
    formats = { "edge/*.log" = "nginx-access" }   # optional: a format per path (glob)
    service = "invoice-consumer"        # optional: service of lines that name none
    timezone = "Europe/Berlin"          # optional: zone of times written without one (UTC)

    [database]
    url = "sqlite:///billing.db"        # SQLAlchemy URL: sqlite, mysql+pymysql, mariadb+pymysql
    policy = "sql-policy.json"          # from `harness sql-policy init`, reviewed
    datasource = "billing"              # optional: the policy's only datasource by default

    [runbooks]
    path = "runbooks"                   # a folder of markdown files

Relative paths (and a relative SQLite file) are relative to the file that names them. The
parts a workspace leaves out are not filled from the bundled demo: a world without a database
offers no ``query_mysql`` (unless ``HARNESS_MYSQL_URL`` names one). Resolution checks what can
be checked before a run starts — the files exist, the log formats named exist, the time zone
is known, the policy validates and names the datasource — and refuses anything else with a
:class:`~harness.contracts.errors.WorkspaceError` (WORKSPACE_INVALID) whose ``context["reason"]`` is a
:class:`WorkspaceReason` and whose message says what to fix. Messages never hold the URL.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from datetime import UTC, datetime
from enum import Enum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator

from harness.backends.logs_files import discover_log_files
from harness.contracts.errors import WorkspaceError
from harness.logformats import AUTO, choose_format, resolve_zone
from harness.sql.policy import SqlPolicy
from harness.stepcheck import Allowlist, CommandEntry, judged_entries

__all__ = [
    "WORKSPACE_FILE",
    "DatabaseSource",
    "LogSource",
    "RunbookSource",
    "Workspace",
    "WorkspaceReason",
    "absolute_sqlite_url",
    "load_workspace",
    "merge_sections",
    "read_workspace_file",
    "resolve_workspace",
]

WORKSPACE_FILE = "harness.toml"

_DATABASE_SCHEMES = ("sqlite", "mysql", "mariadb")
_URL_SCHEME = re.compile(r"^(?P<dialect>[a-z][a-z0-9]*)(?:\+[a-z0-9_]+)?://", re.IGNORECASE)
_SQLITE_FILE = re.compile(
    r"^(?P<prefix>sqlite(?:\+[a-z0-9_]+)?:///)(?P<path>[^?]+)(?P<query>\?.*)?$"
)


class WorkspaceReason(str, Enum):
    """Why a workspace was refused (``WorkspaceError.context["reason"]``)."""

    UNREADABLE = "UNREADABLE"
    INVALID = "INVALID"
    EMPTY = "EMPTY"
    NOT_FOUND = "NOT_FOUND"
    NO_LOGS = "NO_LOGS"
    NO_RUNBOOKS = "NO_RUNBOOKS"
    DATABASE = "DATABASE"
    POLICY = "POLICY"


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class LogSource(_Section):
    """``[logs]``: where the log lines are and how to read them."""

    paths: list[Path] = Field(min_length=1, description="Log files or folders.")
    format: str = Field(
        default=AUTO,
        description="auto (detected per file), a format's name (postgresql, nginx-access, "
        "json, …) or a pattern (a regex with named groups, or '<Date> <Time> <Level> <Content>').",
    )
    formats: dict[str, str] = Field(
        default_factory=dict,
        description="A format per path: a glob of the file's path or name, and its format.",
    )
    service: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z0-9._-]{1,64}$",
        description="Service of lines that name none (else the file name gives it).",
    )
    year: int | None = Field(
        default=None, ge=1970, le=2200, description="Year of BSD syslog timestamps."
    )
    timezone: str | None = Field(
        default=None,
        description="Zone of times written without one (Europe/Berlin, UTC, +02:00); "
        "default UTC, and the check says it was assumed.",
    )

    @field_validator("format")
    @classmethod
    def _known_format(cls, value: str) -> str:
        choose_format(value)
        return value

    @field_validator("formats")
    @classmethod
    def _known_formats(cls, value: dict[str, str]) -> dict[str, str]:
        for choice in value.values():
            choose_format(choice)
        return value

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str | None) -> str | None:
        if value is not None:
            resolve_zone(value)
        return value


class DatabaseSource(_Section):
    """``[database]``: the business database and the reviewed policy that guards it."""

    url: SecretStr = Field(description="SQLAlchemy URL (sqlite, mysql+pymysql, mariadb+pymysql).")
    policy: Path = Field(description="SqlPolicy JSON (harness sql-policy init).")
    datasource: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z0-9_.-]{1,64}$",
        description="Logical datasource; the policy's only one when omitted.",
    )

    @field_validator("url")
    @classmethod
    def _supported(cls, value: SecretStr) -> SecretStr:
        found = _URL_SCHEME.match(value.get_secret_value().strip())
        if found is None or found["dialect"].lower() not in _DATABASE_SCHEMES:
            raise ValueError(
                "must be a SQLAlchemy URL of sqlite, mysql or mariadb "
                "(e.g. sqlite:///billing.db, mysql+pymysql://user@host/db)"
            )
        return SecretStr(value.get_secret_value().strip())


class RunbookSource(_Section):
    """``[runbooks]``: a folder of markdown runbooks (``index.json`` optional)."""

    path: Path = Field(description="Folder of markdown files.")


class ReleaseSection(_Section):
    """``[release]``: the operator's additions to what released text may say and link."""

    allowed_hosts: list[str] = Field(
        default_factory=list,
        description="Hosts (and their subdomains) whose links and names stay as written.",
    )
    commands: list[CommandEntry] = Field(
        default_factory=list, description="The operator's own tools, added to the allowlist."
    )

    def allowlist(self) -> Allowlist:
        return Allowlist([entry.rule() for entry in self.commands])

    @field_validator("commands")
    @classmethod
    def _examples_released(cls, value: list[CommandEntry]) -> list[CommandEntry]:
        return judged_entries(value)


class Workspace(_Section):
    """A user's world: the parts given replace the bundled demo's."""

    logs: LogSource | None = Field(default=None, description="Log files and folders.")
    database: DatabaseSource | None = Field(default=None, description="Business database.")
    runbooks: RunbookSource | None = Field(default=None, description="Markdown runbooks.")
    release: ReleaseSection = Field(
        default_factory=ReleaseSection, description="The operator's allowlist additions."
    )
    as_of: datetime | None = Field(
        default=None, description="'Now' of investigations (naive = UTC); default: the clock."
    )

    @field_validator("as_of")
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        if value is None:
            return None
        return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)

    @property
    def datasource(self) -> str | None:
        """The logical datasource of the database (resolved), or None without one."""
        return self.database.datasource if self.database else None

    def describe(self) -> list[str]:
        """One line per part, for the operator (no URL: it may hold a password)."""
        lines = []
        if self.logs:
            lines.append(f"logs: {', '.join(str(p) for p in self.logs.paths)}")
        if self.database:
            lines.append(
                f"database: datasource {self.database.datasource}, policy {self.database.policy}"
            )
        if self.runbooks:
            lines.append(f"runbooks: {self.runbooks.path}")
        return lines


def read_workspace_file(path: Path) -> dict[str, Any]:
    """The TOML table of a ``harness.toml`` (or of the one inside a folder)."""
    file = path / WORKSPACE_FILE if path.is_dir() else path
    try:
        with file.open("rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError as exc:
        raise _refuse(WorkspaceReason.UNREADABLE, f"no workspace file at {file}") from exc
    except OSError as exc:
        raise _refuse(
            WorkspaceReason.UNREADABLE, f"cannot read {file}: {type(exc).__name__}"
        ) from exc
    except tomllib.TOMLDecodeError as exc:
        raise _refuse(WorkspaceReason.UNREADABLE, f"{file} is not valid TOML: {exc}") from exc


def load_workspace(path: Path) -> Workspace:
    """Read, validate and resolve a ``harness.toml`` (paths relative to its folder)."""
    file = path / WORKSPACE_FILE if path.is_dir() else path
    return resolve_workspace(read_workspace_file(file), base=file.resolve().parent)


def merge_sections(base: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` with ``overrides`` laid over it, table by table (flags over a file)."""
    merged: dict[str, Any] = {key: value for key, value in base.items()}
    for key, value in overrides.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
    return merged


def resolve_workspace(data: Mapping[str, Any], *, base: Path) -> Workspace:
    """Validate ``data`` (a harness.toml table or flags) into a checked, absolute Workspace.

    Raises:
        WorkspaceError: WORKSPACE_INVALID, with the reason and a message naming what to fix.
    """
    try:
        workspace = Workspace.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in error['loc']) or 'workspace'}: {error['msg']}"
            for error in exc.errors()
        )
        raise _refuse(WorkspaceReason.INVALID, f"invalid workspace: {problems}") from None
    if not (workspace.logs or workspace.database or workspace.runbooks):
        raise _refuse(
            WorkspaceReason.EMPTY,
            "a workspace names at least one of [logs], [database], [runbooks]",
        )
    return workspace.model_copy(
        update={
            "logs": _logs(workspace.logs, base),
            "database": _database(workspace.database, base),
            "runbooks": _runbooks(workspace.runbooks, base),
        }
    )


def absolute_sqlite_url(url: str, base: Path) -> str:
    """``url`` with a relative SQLite file made absolute against ``base``; others unchanged."""
    found = _SQLITE_FILE.match(url.strip())
    if found is None:
        return url
    raw = found["path"]
    if raw.startswith(("/", "file:")) or raw == ":memory:":
        return url
    return f"{found['prefix']}{(base / raw).resolve()}{found['query'] or ''}"


def _absolute(path: Path, base: Path) -> Path:
    return (base / path.expanduser()).resolve()


def _logs(source: LogSource | None, base: Path) -> LogSource | None:
    if source is None:
        return None
    paths = [_absolute(p, base) for p in source.paths]
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise _refuse(WorkspaceReason.NOT_FOUND, f"log paths not found: {', '.join(missing)}")
    # A file of no recognised format is still read (its lines as text) and named by
    # `harness workspace check`; only a source without any file is refused.
    files = discover_log_files(paths)
    if not files:
        raise _refuse(
            WorkspaceReason.NO_LOGS,
            "no log file found (looked for *.log, *.txt, *.jsonl, *.json, *.ndjson, *.out, "
            "*.err, syslog, messages, optionally .gz)",
        )
    return source.model_copy(update={"paths": paths})


def _database(source: DatabaseSource | None, base: Path) -> DatabaseSource | None:
    if source is None:
        return None
    url = absolute_sqlite_url(source.url.get_secret_value(), base)
    sqlite_file = _SQLITE_FILE.match(url)
    local = sqlite_file["path"] if sqlite_file else None
    if (
        local
        and not local.startswith("file:")
        and local != ":memory:"
        and not Path(local).is_file()
    ):
        raise _refuse(
            WorkspaceReason.NOT_FOUND, f"SQLite database not found: {local} (it is never created)"
        )
    policy_path = _absolute(source.policy, base)
    try:
        policy = SqlPolicy.load(policy_path)
    except FileNotFoundError:
        raise _refuse(
            WorkspaceReason.NOT_FOUND,
            f"SQL policy not found: {policy_path} (write one with `harness sql-policy init`)",
        ) from None
    except (OSError, ValueError) as exc:
        raise _refuse(
            WorkspaceReason.POLICY, f"the SQL policy {policy_path} is not valid: {_first_line(exc)}"
        ) from None
    names = sorted(policy.datasources)
    datasource = source.datasource
    if datasource is None:
        if len(names) != 1:
            raise _refuse(
                WorkspaceReason.POLICY,
                f"the SQL policy has {len(names)} datasources ({', '.join(names)}); name one",
            )
        datasource = names[0]
    elif datasource not in policy.datasources:
        raise _refuse(
            WorkspaceReason.POLICY,
            f"datasource {datasource!r} is not in the SQL policy ({', '.join(names)})",
        )
    return source.model_copy(
        update={"url": SecretStr(url), "policy": policy_path, "datasource": datasource}
    )


def _runbooks(source: RunbookSource | None, base: Path) -> RunbookSource | None:
    if source is None:
        return None
    path = _absolute(source.path, base)
    if not path.is_dir():
        raise _refuse(WorkspaceReason.NOT_FOUND, f"runbook folder not found: {path}")
    if not (path / "index.json").is_file() and not any(path.rglob("*.md")):
        raise _refuse(WorkspaceReason.NO_RUNBOOKS, f"no markdown runbook (*.md) in {path}")
    return source.model_copy(update={"path": path})


def _first_line(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        return f"{where}: {first['msg']}" if where else str(first["msg"])
    return type(exc).__name__


def _refuse(reason: WorkspaceReason, message: str) -> WorkspaceError:
    return WorkspaceError(message=message, context={"reason": reason.value})
