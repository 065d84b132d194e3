"""Text checks: injected instructions and dangerous commands, recognised in released text.

Before anything the agent wrote is released, :func:`injection` looks for text addressed to a
model (planted in logs, database rows or runbooks), and :func:`dangerous_command`,
:func:`prescribed_command` and :func:`advised_command` for commands that pipe a download into
a shell, switch a security control off or destroy data. Each returns the class it found (the
audit and the release policy name it), or None.

- :mod:`.tables`: the rules, as data: one :class:`TextRule` per class of attack, with the
  inputs it must match (examples) and must not (look-alikes), one module per class;
- :mod:`.rulebook`: the engine, which runs each rule only where the words it needs occur;
- :mod:`.injections`, :mod:`.commands`: the checks, which return the class of the first rule
  that decides (the command checks after their negation, narration and advice filters);
- :mod:`.readings` (with :mod:`.decodings` and :mod:`.runtogether`): the ways a text is read
  (as shown, with look-alikes folded, decoded, deciphered), each of which is judged.
"""

from harness.textcheck.commands import advised_command, dangerous_command, prescribed_command
from harness.textcheck.injections import injection
from harness.textcheck.rulebook import TextRule
from harness.textcheck.tables import COMMAND_RULES, INJECTION_RULES

__all__ = [
    "COMMAND_RULES",
    "INJECTION_RULES",
    "TextRule",
    "advised_command",
    "dangerous_command",
    "injection",
    "prescribed_command",
]
