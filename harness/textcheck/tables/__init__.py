"""The rule tables of the text checks, one module per class, in the order the checks apply.

Each module holds the :class:`~harness.textcheck.rulebook.TextRule` s of one class, with
their examples and look-alikes beside them. The order is behaviour: a check returns the class
of the first rule that matches, so the classes stand in the order below and the pipe-to-shell
rules, which both checks hold, come last for injections and first for commands.
"""

from __future__ import annotations

from harness.textcheck.rulebook import TextRule
from harness.textcheck.tables import (
    addressed_to_model,
    credential_request,
    destroys_data,
    disables_security,
    exfiltration,
    forged_result,
    hidden_instruction,
    outcome_directive,
    override,
    pipe_to_shell,
    reply_directive,
    role_marker,
    role_play,
    tool_steering,
)

__all__ = ["COMMAND_RULES", "INJECTION_RULES"]

INJECTION_RULES: tuple[TextRule, ...] = (
    *override.RULES,
    *role_marker.RULES,
    *hidden_instruction.RULES,
    *reply_directive.RULES,
    *role_play.RULES,
    *tool_steering.RULES,
    *exfiltration.RULES,
    *credential_request.RULES,
    *addressed_to_model.RULES,
    *forged_result.RULES,
    *outcome_directive.RULES,
    *pipe_to_shell.RULES,
)
"""Instruction-shaped text: what :func:`~harness.textcheck.injection` looks for."""

COMMAND_RULES: tuple[TextRule, ...] = (
    *pipe_to_shell.RULES,
    *destroys_data.RULES,
    *disables_security.RULES,
)
"""Dangerous commands: what the command checks look for."""
