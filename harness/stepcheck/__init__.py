"""Next steps judged by what they ask: parsed commands against an allowlist, prose by its words.

- :mod:`.rules`: the tables, as data (allowlisted commands, argument hazards, prose rules),
  each entry with examples and look-alikes;
- :mod:`.entries`: the operator's entries as configuration, their examples judged on load;
- :mod:`.classify`: the classifier (:class:`Allowlist`), which parses every command of a step
  with a bash parser and returns the step's outcome: DIAGNOSTIC, CHANGE or WITHHELD.

See docs/architecture.md, "Next steps: parsed commands and an allowlist".
"""

from harness.stepcheck.classify import Allowlist, Outcome, StepVerdict, read_only_sql
from harness.stepcheck.entries import CommandEntry, judged_entries
from harness.stepcheck.rules import (
    ARGUMENT_HAZARDS,
    COMMAND_ALLOWLIST,
    PROSE_RULES,
    CommandRule,
    Effect,
    HazardRule,
    ProseRule,
)

__all__ = [
    "ARGUMENT_HAZARDS",
    "COMMAND_ALLOWLIST",
    "PROSE_RULES",
    "Allowlist",
    "CommandEntry",
    "CommandRule",
    "Effect",
    "HazardRule",
    "Outcome",
    "ProseRule",
    "StepVerdict",
    "judged_entries",
    "read_only_sql",
]
