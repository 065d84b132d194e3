"""Deployment settings, read once from the environment (prefix ``HARNESS_``) and validated.

Nothing else in the code base reads environment variables. Every field has a safe embedded
default: with no variables set the harness runs on an in-process canonical store, SQLite, the
bundled logs and the bundled runbooks, with no servers and no keys.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from harness.audit.writer import AuditWriterPolicy
from harness.contracts.model_profiles import (
    DEFAULT_MAX_TOKENS,
    PROFILES,
    ModelProfile,
    ProfileName,
    StructuredOutput,
)
from harness.contracts.models import Component
from harness.contracts.principal import Permission
from harness.run.budget import Budgets
from harness.stepcheck import CommandEntry, judged_entries
from harness.store.ttl import check_ttl_covers

__all__ = [
    "APP_NAME",
    "AUDIT_FILE",
    "ApiKeyEntry",
    "ComponentModelSettings",
    "ModelEndpoint",
    "ServeSettings",
    "Settings",
    "StructuredOutput",
    "default_data_dir",
]

APP_NAME = "diagnosis-harness"
"""Names the per-user data directory (the embedded audit database lives there)."""
AUDIT_FILE = "audit.sqlite"
"""The embedded audit database's file in the data directory."""


class ComponentModelSettings(BaseModel):
    """Per-component model overrides; an unset field falls back to the deployment default."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    base_url: str | None = Field(default=None, description="OpenAI-compatible base URL.")
    api_key: SecretStr | None = Field(default=None, description="API key for that endpoint.")
    model: str | None = Field(default=None, min_length=1, description="Model name.")
    timeout_s: float | None = Field(default=None, gt=0, le=600, description="Call timeout.")
    structured_output: StructuredOutput | None = Field(
        default=None, description="How this endpoint constrains JSON replies."
    )
    profile: ProfileName | None = Field(
        default=None, description="The server family of this endpoint (see model_profile)."
    )
    max_tokens: int | None = Field(
        default=None, ge=1, le=32_768, description="Output tokens per call of this component."
    )


@dataclass(frozen=True, kw_only=True)
class ModelEndpoint:
    """Where one component's model calls go. ``base_url`` None = the offline demo model."""

    base_url: str | None
    api_key: SecretStr | None
    model: str
    timeout_s: float
    profile: ModelProfile = PROFILES["openai"]
    structured_output: StructuredOutput = "json_schema"
    max_tokens: int = 1024
    temperature: float | None = 0.0
    seed: int | None = 0

    @property
    def offline(self) -> bool:
        return self.base_url is None


class Settings(BaseSettings):
    """Typed settings of one deployment."""

    model_config = SettingsConfigDict(env_prefix="HARNESS_", extra="ignore")

    redis_url: str | None = Field(
        default=None, description="Canonical store; None = the in-process local store."
    )
    redis_max_connections: int = Field(
        default=64,
        ge=1,
        le=10_000,
        description="Connections per process to Redis; more concurrent operations wait for one.",
    )
    store_prefix: str = Field(default="dh", pattern=r"^[A-Za-z0-9_.-]{1,32}$")
    store_ttl_s: int = Field(
        default=3600, ge=60, description="Canonical record TTL, never renewed."
    )
    max_record_bytes: int = Field(
        default=20 * 1024 * 1024, ge=1024, description="Largest canonical record."
    )
    log_store_max_bytes: int = Field(
        default=64 * 1024 * 1024,
        ge=1024,
        description=(
            "Most bytes of a workspace's log files (after gunzipping) a process reads and keeps "
            "to query; a larger source ends every query_logs call RAW_TOO_LARGE. The store holds "
            "about nine times what it reads."
        ),
    )
    mysql_url: str | None = Field(
        default=None,
        description="SQLAlchemy URL of the business DB; None = bundled demo DB on SQLite.",
    )
    mysql_datasource: str = Field(default="shop-primary")
    sql_policy_path: Path | None = Field(
        default=None, description="SqlPolicy JSON; None = the demo policy."
    )
    statement_timeout_s: float = Field(default=5.0, gt=0, le=60)
    loki_url: str | None = Field(
        default=None, description="Loki base URL; None = bundled demo logs."
    )
    rag_url: str | None = Field(
        default=None, description="RAG service base URL; None = bundled runbooks."
    )
    pool_size: int = Field(default=1, ge=1, le=64, description="Pre-warmed RunActors per pool.")
    runs_per_actor: int = Field(
        default=1,
        ge=1,
        le=64,
        description="Runs one RunActor hosts at once (dense deployments: >1).",
    )
    tool_execution: Literal["ray", "inline"] = Field(
        default="ray", description="Tools as Ray tasks, or inline in the RunActor's threads."
    )
    run_actor_resources: dict[str, float] = Field(
        default_factory=dict,
        description=(
            "Custom Ray resources each RunActor and the run desk require (JSON, e.g. "
            '{"runs": 1}): keeps them, and the runs they hold, on the nodes started with them. '
            "Empty = any node."
        ),
    )
    tool_task_resources: dict[str, float] = Field(
        default_factory=dict,
        description=(
            'Custom Ray resources each tool task requires (JSON, e.g. {"tools": 1}): keeps '
            "tool work on the nodes started with those resources. Empty = any node."
        ),
    )
    tool_slots: int | None = Field(
        default=None,
        ge=1,
        le=4096,
        description=(
            "Tool calls one process (a RunActor) runs at once, shared by all its runs; more "
            "wait for a slot, as long as their run lasts, and the backend timeout starts once "
            "the slot is held. None = as many tool tasks as the cluster's CPUs (and "
            "tool_task_resources) run at once under Ray; the CPUs plus four threads inline."
        ),
    )
    run_deadline_s: float = Field(default=120.0, gt=0, le=3600)
    ttl_margin_s: float = Field(default=300.0, ge=0)
    execute_timeout_s: float = Field(default=10.0, gt=0, le=120)
    project_timeout_s: float = Field(default=5.0, gt=0, le=60)
    model_base_url: str | None = Field(
        default=None,
        description="OpenAI-compatible endpoint for every component; None = offline demo model.",
    )
    model_api_key: SecretStr | None = Field(default=None, description="Key for model_base_url.")
    model_name: str | None = Field(
        default=None, min_length=1, description="Model name; required with a base URL."
    )
    model_timeout_s: float = Field(default=60.0, gt=0, le=600)
    model_profile: ProfileName = Field(
        default="openai",
        description=(
            "The server family of model_base_url: openai, vllm, llama-cpp-python, ollama "
            "(its tool calling, JSON mode, output-cap field and streaming; see "
            "harness/contracts/model_profiles.py and `harness models check`)."
        ),
    )
    model_structured_output: StructuredOutput | None = Field(
        default=None,
        description=(
            "How the endpoint constrains JSON replies: json_schema (OpenAI, vLLM, Ollama), "
            "json_object_schema (llama-cpp-python's server), json_object, none; None = the "
            "profile's."
        ),
    )
    model_max_tokens: int | None = Field(
        default=None,
        ge=1,
        le=32_768,
        description=(
            "Output tokens per call for every component; None = per-component defaults "
            "(router 64, chat 400, knowledge 600, agent and repair 1200, judge 400)."
        ),
    )
    model_temperature: float | None = Field(
        default=0.0,
        ge=0,
        le=2,
        description="Sampling temperature sent where the profile takes it; None = not sent.",
    )
    model_seed: int | None = Field(
        default=0, description="Sampling seed sent where the profile takes it; None = not sent."
    )
    data_dir: Path | None = Field(
        default=None,
        description=(
            "The one directory for every file the harness writes (the embedded audit database, "
            "the reasoning keys, caches); None = the user data directory."
        ),
    )
    reasoning_keys: dict[str, SecretStr] = Field(
        default_factory=dict,
        description=(
            "Key id → Fernet key sealing provider reasoning (JSON in the environment). Load the "
            "old keys beside a new one to rotate; empty = a key file in the data directory."
        ),
    )
    reasoning_key_id: str | None = Field(
        default=None, description="The key id new reasoning is sealed with (required with keys)."
    )
    reasoning_retention_days: float = Field(
        default=30.0, gt=0, le=3650, description="How long sealed reasoning is kept."
    )
    release_url_allowlist: list[str] = Field(
        default_factory=list,
        description=(
            "Hosts whose URLs stay clickable in released text (a domain admits its subdomains); "
            "every other URL is defanged. JSON list in the environment."
        ),
    )
    release_commands: list[CommandEntry] = Field(
        default_factory=list,
        description=(
            "The operator's own tools added to the next-step allowlist (JSON list of entries: "
            "name, program, subcommands, effect, arguments, examples); a workspace's "
            "[[release.commands]] add to these."
        ),
    )
    otel_exporter: Literal["off", "console", "otlp"] = Field(
        default="off",
        description=(
            "OpenTelemetry export of each run's timeline as GenAI spans (metadata only): off, "
            "console, or otlp (OTLP over HTTP to otel_endpoint)."
        ),
    )
    otel_endpoint: str | None = Field(
        default=None,
        description="OTLP/HTTP traces URL; None = the SDK's default (OTEL_EXPORTER_OTLP_*).",
    )
    audit_enabled: bool = Field(
        default=True, description="Keep the durable audit of every run (metadata only)."
    )
    audit_url: str | None = Field(
        default=None,
        description=(
            "SQLAlchemy URL of the audit database (mysql+pymysql://… for MySQL/MariaDB); "
            "None = a SQLite file in the user's data directory."
        ),
    )
    audit_retention_days: float = Field(
        default=90.0,
        gt=0,
        le=36_500,
        description=(
            "How long run metadata is kept (runs, tool calls, agent steps, timelines, reads of "
            "reasoning); `harness purge` deletes older rows."
        ),
    )
    audit_timeout_s: float = Field(
        default=30.0, gt=0, le=600, description="Audit database connect/read/write timeout."
    )
    audit_batch_rows: int = Field(
        default=2_000, ge=1, le=100_000, description="Rows per audit write (one transaction)."
    )
    audit_flush_interval_s: float = Field(
        default=1.0, gt=0, le=300, description="Longest a finished run's record waits unwritten."
    )
    audit_max_queued_rows: int = Field(
        default=200_000,
        ge=1,
        description="Audit rows a node's writer queues; beyond, the oldest records are dropped.",
    )
    component_models: dict[str, ComponentModelSettings] = Field(
        default_factory=dict,
        description=(
            "Per-component overrides keyed by component (ROUTER, SYSTEM_CHAT, KNOWLEDGE_ANSWER, "
            "DIAGNOSIS_AGENT, EVIDENCE_REPAIR, SEMANTIC_GUARD); JSON in the environment."
        ),
    )

    @field_validator("release_commands")
    @classmethod
    def _judged(cls, value: list[CommandEntry]) -> list[CommandEntry]:
        return judged_entries(value)

    @field_validator("release_url_allowlist")
    @classmethod
    def _hosts(cls, value: list[str]) -> list[str]:
        hosts = [h.strip().lower().rstrip(".") for h in value if h.strip()]
        bad = [
            h for h in hosts if not re.fullmatch(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9-]+)*", h)
        ]
        if bad:
            raise ValueError(f"not host names: {bad}")
        return hosts

    @field_validator("run_actor_resources", "tool_task_resources")
    @classmethod
    def _positive_resources(cls, value: dict[str, float]) -> dict[str, float]:
        bad = sorted(name for name, amount in value.items() if not amount > 0 or not name)
        if bad:
            raise ValueError(f"resource amounts must be positive: {bad}")
        return value

    @field_validator("component_models")
    @classmethod
    def _known_components(
        cls, value: dict[str, ComponentModelSettings]
    ) -> dict[str, ComponentModelSettings]:
        known = {c.value for c in Component}
        normalized = {key.upper(): item for key, item in value.items()}
        unknown = sorted(set(normalized) - known)
        if unknown:
            raise ValueError(f"unknown components {unknown}; known: {sorted(known)}")
        return normalized

    def resolved_data_dir(self) -> Path:
        """The one directory every file the harness writes lives in: the audit database
        (``audit.sqlite``, unless ``audit_url`` names another database), the reasoning keys
        (``reasoning-keys.json``) and caches (``cache/``). ``data_dir``, else the platform's
        user data directory for the harness."""
        return self.data_dir if self.data_dir is not None else default_data_dir()

    def stranded_audit_database(self) -> Path | None:
        """An audit database left at the default data directory while ``data_dir`` names
        another one that holds none: its runs are not read or written any more. None when
        there is no such file (or no second directory)."""
        if self.audit_url is not None or self.data_dir is None:
            return None
        old = default_data_dir() / AUDIT_FILE
        new = self.data_dir / AUDIT_FILE
        if old.resolve() == new.resolve() or not old.is_file() or new.exists():
            return None
        return old

    def model_endpoint(self, component: Component) -> ModelEndpoint:
        """The resolved endpoint of ``component``: its override, else the default."""
        # Imported here: the offline package is only needed to name its model.
        from harness.embedded.offline import OFFLINE_MODEL_NAME

        override = self.component_models.get(component.value) or ComponentModelSettings()
        base_url = override.base_url or self.model_base_url
        max_tokens = override.max_tokens or self.model_max_tokens or DEFAULT_MAX_TOKENS[component]
        if base_url is None:
            offline = PROFILES["offline"]
            return ModelEndpoint(
                base_url=None,
                api_key=None,
                model=OFFLINE_MODEL_NAME,
                timeout_s=override.timeout_s or self.model_timeout_s,
                profile=offline,
                structured_output=offline.structured_output,
                max_tokens=max_tokens,
                temperature=self.model_temperature,
                seed=self.model_seed,
            )
        profile = PROFILES[override.profile or self.model_profile]
        return ModelEndpoint(
            base_url=base_url,
            api_key=override.api_key or self.model_api_key,
            model=override.model or self.model_name or "",
            timeout_s=override.timeout_s or self.model_timeout_s,
            profile=profile,
            structured_output=(
                override.structured_output
                or self.model_structured_output
                or profile.structured_output
            ),
            max_tokens=max_tokens,
            temperature=self.model_temperature if profile.sampling else None,
            seed=self.model_seed if profile.sampling else None,
        )

    def audit_database_url(self) -> str:
        """The audit database: ``audit_url``, else ``audit.sqlite`` in the data directory."""
        return self.audit_url or f"sqlite:///{self.resolved_data_dir() / AUDIT_FILE}"

    def audit_writer_policy(self) -> AuditWriterPolicy:
        """The batching writer's limits and timings."""
        return AuditWriterPolicy(
            batch_rows=self.audit_batch_rows,
            flush_interval_s=self.audit_flush_interval_s,
            max_queued_rows=self.audit_max_queued_rows,
        )

    @model_validator(mode="after")
    def _audit_queue_holds_a_batch(self) -> Settings:
        if self.audit_max_queued_rows < self.audit_batch_rows:
            raise ValueError("audit_max_queued_rows must be at least audit_batch_rows")
        return self

    @model_validator(mode="after")
    def _endpoints_name_a_model(self) -> Settings:
        # A real endpoint without a model name would fail on the first call; fail at start-up.
        missing = [c.value for c in Component if not self.model_endpoint(c).model]
        if missing:
            raise ValueError(
                f"model_name (or component_models[...].model) is required with a model base URL "
                f"for {missing}"
            )
        return self

    @model_validator(mode="after")
    def _current_reasoning_key_is_loaded(self) -> Settings:
        if self.reasoning_keys and self.reasoning_key_id not in self.reasoning_keys:
            raise ValueError(
                f"reasoning_key_id must name one of reasoning_keys ({sorted(self.reasoning_keys)})"
            )
        return self

    @model_validator(mode="after")
    def _ttl_covers_runs(self) -> Settings:
        # EvidenceGuard must still read every record at the end of the longest run.
        check_ttl_covers(
            self.store_ttl_s, deadline_s=self.run_deadline_s, margin_s=self.ttl_margin_s
        )
        return self


def default_data_dir() -> Path:
    """The platform's user data directory for the harness (``~/.local/share/diagnosis-harness``
    on Linux)."""
    import platformdirs  # Imported here: only the embedded default needs it.

    return Path(platformdirs.user_data_dir(APP_NAME))


_DEFAULT_BUDGETS = Budgets()


class ApiKeyEntry(BaseModel):
    """One API key of the HTTP API, stored as its SHA-256 (never the key itself)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    principal: str = Field(
        pattern=r"^[A-Za-z0-9_.@-]{1,128}$", description="The principal the key authenticates."
    )
    key_sha256: str = Field(
        pattern=r"^[0-9a-f]{64}$", description="Lower-case hex SHA-256 of the key's text."
    )
    permissions: frozenset[Permission] = Field(
        min_length=1, description="What the principal may do (ADMIN implies every permission)."
    )
    rate_limit: int | None = Field(
        default=None,
        ge=1,
        description="Requests per rate window for this principal; None = the deployment's.",
    )


class ServeSettings(BaseSettings):
    """Settings of the HTTP API and its Ray Serve deployment (prefix ``HARNESS_`` as well).

    Read by ``serve/`` only; the runs themselves take :class:`Settings`.
    """

    model_config = SettingsConfigDict(env_prefix="HARNESS_", extra="ignore")

    api_keys: list[ApiKeyEntry] = Field(
        default_factory=list,
        description="API keys (JSON list of {principal, key_sha256, permissions, rate_limit}).",
    )
    api_keys_file: Path | None = Field(
        default=None, description="A JSON file holding the same list (read at start-up)."
    )
    api_rate_limit: int = Field(
        default=600, ge=1, description="Requests one principal may make per rate window."
    )
    api_rate_window_s: int = Field(
        default=60, ge=1, le=86_400, description="Length of the rate-limit window."
    )
    api_max_body_bytes: int = Field(
        default=16 * 1024, ge=1024, le=1024 * 1024, description="Largest request body accepted."
    )
    api_max_deadline_s: float = Field(
        default=600.0, gt=0, le=3600, description="Longest run deadline a caller may ask for."
    )
    api_max_wait_s: float = Field(
        default=300.0,
        gt=0,
        le=3600,
        description="Longest a waiting create holds the request before answering 202.",
    )
    api_max_tool_calls: int = Field(
        default=_DEFAULT_BUDGETS.max_tool_calls, ge=0, description="Largest tool-call budget."
    )
    api_max_model_calls: int = Field(
        default=_DEFAULT_BUDGETS.max_model_calls, ge=1, description="Largest model-call budget."
    )
    api_max_total_tokens: int = Field(
        default=_DEFAULT_BUDGETS.max_total_tokens, ge=1, description="Largest token budget."
    )
    api_idempotency_ttl_s: float = Field(
        default=24 * 3600.0, gt=0, description="How long an Idempotency-Key names its run."
    )
    api_max_runs_remembered: int = Field(
        default=10_000, ge=100, description="Runs the desk remembers (ownership, results)."
    )
    api_sse_heartbeat_s: float = Field(
        default=15.0, gt=0, le=300, description="Heartbeat interval of an idle progress stream."
    )
    api_max_stream_s: float = Field(
        default=900.0,
        gt=0,
        le=7200,
        description="Longest one progress stream stays open (the client resumes after it).",
    )
    serve_host: str = Field(default="127.0.0.1", description="Address the HTTP proxy binds.")
    serve_port: int = Field(default=8000, ge=1, le=65535, description="HTTP port.")
    serve_replicas: int = Field(default=1, ge=1, le=64, description="HTTP replicas.")
    serve_replica_num_cpus: float = Field(
        default=0.0,
        ge=0,
        le=64,
        description="CPU each HTTP replica reserves (0: I/O-bound; leaves the CPUs to tools).",
    )
    serve_max_ongoing_requests: int = Field(
        default=1000,
        ge=1,
        description="Requests one replica serves at once (an open stream counts for its life).",
    )
    serve_max_queued_requests: int = Field(
        default=1000, ge=1, description="Requests waiting for a replica; beyond: 429."
    )
    serve_retry_after_s: int = Field(
        default=1, ge=0, le=3600, description="Retry-After of a 429 for an overloaded service."
    )
    serve_max_waiting_runs: int | None = Field(
        default=None,
        ge=0,
        description=(
            "Runs that may wait for a free slot of the run pool; beyond them a create answers "
            "429 OVERLOADED (None: no limit)."
        ),
    )

    @property
    def request_timeout_s(self) -> float:
        """The proxy's end-to-end timeout: above the longest wait and the longest stream, so
        that the proxy never cuts what the app bounds itself."""
        return max(self.api_max_wait_s, self.api_max_stream_s, self.api_max_deadline_s) + 60.0

    def all_api_keys(self) -> list[ApiKeyEntry]:
        """``api_keys`` and the entries of ``api_keys_file``.

        Raises:
            ValueError: The file cannot be read or does not hold a list of entries.
        """
        entries = list(self.api_keys)
        if self.api_keys_file is not None:
            from pydantic import TypeAdapter

            try:
                text = self.api_keys_file.read_text(encoding="utf-8")
            except OSError as exc:
                raise ValueError(f"api_keys_file unreadable: {type(exc).__name__}") from None
            entries += TypeAdapter(list[ApiKeyEntry]).validate_json(text)
        return entries
