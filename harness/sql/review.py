"""The review record of a drafted SQL policy: which sensitive columns were guessed, and why.

``harness sql-policy init`` writes a policy whose ``review`` says where it came from and lists
every column it *guessed* sensitive (:mod:`harness.sql.sensitivity`), so that a reviewer can
confirm each one — and look for what the rules missed — before setting ``status`` to
``CONFIRMED``. The validator ignores the record: what it enforces is the allowlist and the
``sensitive`` lists themselves.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["PolicyReview", "ReviewedGuess"]


class ReviewedGuess(BaseModel):
    """One column the drafter guessed sensitive."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    datasource: str = Field(description="Logical datasource of the column.")
    table: str = Field(description="schema.table, as the policy names it.")
    column: str = Field(description="The column, as the policy names it.")
    category: str = Field(description="What it was guessed to hold (CREDENTIAL, CONTACT, …).")
    reason: str = Field(description="The rule that fired: 'name: email', 'type: BLOB'.")


class PolicyReview(BaseModel):
    """Provenance and review state of a generated policy."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    status: Literal["PENDING", "CONFIRMED"] = Field(
        default="PENDING",
        description="PENDING until a person has checked every guess and the whole allowlist.",
    )
    generated_by: str = Field(description="The command that drafted the policy.")
    source: str = Field(description="The database it was reflected from (password hidden).")
    sensitive_guesses: list[ReviewedGuess] = Field(
        default_factory=list, description="Columns marked sensitive by guess, to confirm."
    )
    note: str = Field(default="", description="What the reviewer is asked to do.")
