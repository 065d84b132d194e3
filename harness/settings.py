"""Deployment settings, read once from the environment (prefix ``HARNESS_``) and validated.

Nothing else in the code base reads environment variables. Every field has a safe embedded
default: with no variables set the harness runs on fakeredis, SQLite, the bundled logs and the
bundled runbooks, with no servers and no keys.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["Settings"]


class Settings(BaseSettings):
    """Typed settings of one deployment."""

    model_config = SettingsConfigDict(env_prefix="HARNESS_", extra="ignore")

    redis_url: str | None = Field(default=None, description="Canonical store; None = in-process fakeredis.")
    store_prefix: str = Field(default="dh", pattern=r"^[A-Za-z0-9_.-]{1,32}$")
    store_ttl_s: int = Field(default=3600, ge=60, description="Canonical record TTL, never renewed.")
    max_record_bytes: int = Field(default=4 * 1024 * 1024, ge=1024)
    mysql_url: str | None = Field(
        default=None, description="SQLAlchemy URL of the business DB; None = bundled demo DB on SQLite."
    )
    mysql_datasource: str = Field(default="shop-primary")
    sql_policy_path: Path | None = Field(default=None, description="SqlPolicy JSON; None = the demo policy.")
    statement_timeout_s: float = Field(default=5.0, gt=0, le=60)
    loki_url: str | None = Field(default=None, description="Loki base URL; None = bundled demo logs.")
    rag_url: str | None = Field(default=None, description="RAG service base URL; None = bundled runbooks.")
    run_deadline_s: float = Field(default=120.0, gt=0, le=3600)
    ttl_margin_s: float = Field(default=300.0, ge=0)
    execute_timeout_s: float = Field(default=10.0, gt=0, le=120)
    project_timeout_s: float = Field(default=5.0, gt=0, le=60)

    @model_validator(mode="after")
    def _ttl_covers_runs(self) -> Settings:
        # EvidenceGuard must still read every record at the end of the longest run (§6).
        if self.store_ttl_s <= self.run_deadline_s + self.ttl_margin_s:
            raise ValueError(
                f"store_ttl_s ({self.store_ttl_s}) must exceed run_deadline_s + ttl_margin_s "
                f"({self.run_deadline_s + self.ttl_margin_s:g})"
            )
        return self
