"""The text vocabulary every check shares: invisible characters, value shapes, normal forms.

- :mod:`.invisible`: the one set of characters that render as nothing (zero-width spaces and
  joiners, direction marks and embeddings, invisible operators, variation selectors, Hangul
  fillers, tag characters); every check that skips, drops or shows them uses this set;
- :mod:`.shapes`: the table of value shapes (IP addresses, UUIDs, MAC addresses, e-mail
  addresses, host names, hex ids) that redaction and log mining both build on (import it as
  ``harness.text.shapes``);
- :mod:`.normal`: the forms a reader sees (:func:`visible`, :func:`plain`,
  :func:`plain_lower`).
"""

from harness.text.invisible import INVISIBLE, INVISIBLE_CLASS, drop_invisible, is_invisible
from harness.text.normal import plain, plain_lower, visible

__all__ = [
    "INVISIBLE",
    "INVISIBLE_CLASS",
    "drop_invisible",
    "is_invisible",
    "plain",
    "plain_lower",
    "visible",
]
