"""The operator's allowlist entries, as configuration: ``[[release.commands]]`` in harness.toml
or ``HARNESS_RELEASE_COMMANDS`` (JSON) for a service.

An entry names the operator's own tool (``configctl``, an internal refresh endpoint) and what it
does; its examples are judged when the configuration loads, so that a typo does not silently
allow nothing and an argument hazard is never waved through (docs/architecture.md, "Next steps:
parsed commands and an allowlist"). Nothing the evidence says ever adds an entry.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.stepcheck.classify import Allowlist
from harness.stepcheck.rules import CommandRule

__all__ = ["CommandEntry", "judged_entries"]


class CommandEntry(BaseModel):
    """One operator allowlist entry (see :class:`~harness.stepcheck.rules.CommandRule`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_.\-]{0,63}$", description="Rule name.")
    program: str = Field(pattern=r"^[a-z0-9][\w.+\-]{0,63}$", description="The program.")
    subcommands: list[list[str]] = Field(
        default_factory=list, description="Positional prefixes; none = any use."
    )
    effect: Literal["DIAGNOSTIC", "CHANGE"] = Field(description="What the command does.")
    arguments: str | None = Field(default=None, description="Regex the arguments must match.")
    forbidden_options: list[str] = Field(default_factory=list)
    required_options: list[str] = Field(default_factory=list)
    examples: list[str] = Field(min_length=1, description="Commands the entry releases.")

    def rule(self) -> CommandRule:
        return CommandRule(
            name=self.name,
            program=self.program,
            subcommands=tuple(tuple(s) for s in self.subcommands) or ((),),
            effect=self.effect,
            arguments=self.arguments,
            forbidden_options=tuple(self.forbidden_options),
            required_options=tuple(self.required_options),
            examples=tuple(self.examples),
        )


def judged_entries(entries: Sequence[CommandEntry]) -> list[CommandEntry]:
    """``entries`` when every example of each is released with its effect by its own rule.

    Raises:
        ValueError: A duplicate name, or an example the classifier would judge otherwise.
    """
    names = [entry.name for entry in entries]
    if len(names) != len(set(names)):
        raise ValueError("command entry names must be unique")
    allowlist = Allowlist([entry.rule() for entry in entries])
    for entry in entries:
        for example in entry.examples:
            verdict = allowlist.classify_command(example)
            if (verdict.outcome, verdict.reason) != (entry.effect, entry.name):
                raise ValueError(
                    f"entry {entry.name}: example {example!r} is {verdict.outcome} "
                    f"({verdict.reason}), not {entry.effect}"
                )
    return list(entries)
