"""Regex pieces the catalog's grammars are written with (private to the format layer).

Each piece is a class of text, not an instance: a time in one notation family, a level word, a
bracketed thread, a qualified logger. Pieces that name a group say so in their name (``_G``).
"""

from __future__ import annotations

__all__ = [
    "BARE_LEVEL",
    "BSD_TIME",
    "CLOCK",
    "CTIME",
    "FIELD",
    "ISO_TIME",
    "LEVEL_G",
    "LEVEL_WORDS",
    "LOGGER",
    "QUALIFIED",
    "THREAD",
]

LEVEL_WORDS = (
    "TRACE|FINEST|FINER|DEBUG|FINE|INFO|INFORMATION|NOTICE|WARN|WARNING|ERROR|ERR|SEVERE|"
    "CRITICAL|CRIT|ALERT|EMERG|FATAL|PANIC"
)
ISO_TIME = (
    r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?(?:\s?(?:Z|[+-]\d{2}:?\d{2}|UTC))?"
)
BSD_TIME = r"[A-Z][a-z]{2} {1,2}\d{1,2} \d{2}:\d{2}:\d{2}(?:\.\d{1,6})?"
CTIME = r"[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}(?:\.\d+)? \d{4}"
# A time of day, in any of the usual separators (``09:41:07``, ``09.41.07``).
CLOCK = r"\d{1,2}[:.]\d{2}[:.]\d{2}"
# A level word: any case in brackets or as level=…, upper case when bare, title case only in a
# padded column or before a colon (prose such as "Error while …" at the start of a message
# is not a level).
LEVEL_G = (
    rf"(?P<level>(?i:level=(?:{LEVEL_WORDS}))|(?i:\[\s*(?:{LEVEL_WORDS})\s*\])"
    rf"|(?:{LEVEL_WORDS})(?=[\s:|]|$)|(?:{LEVEL_WORDS.title()})(?=\s{{2}}|:))"
)
BARE_LEVEL = rf"(?:{LEVEL_WORDS}|{LEVEL_WORDS.title()})"
# A bracketed thread name, which may hold spaces and one level of nested brackets.
THREAD = r"\[(?:[^\[\]]|\[[^\[\]]*\])*\]"
QUALIFIED = r"[A-Za-z_$][\w$]*(?:\.[\w$]+)+"
# A logger after a thread: a qualified name, or a class name with an inner part (``Foo$Bar``).
# Taken whole (possessive parts, ``$`` only inside a part): ``a$a$a$…`` used to split
# every way there is before the line was refused, exponential in its length.
LOGGER = r"(?:(?=[A-Za-z_$][\w$]*[.$][\w$])[A-Za-z_$][\w$]*+(?:\.[\w$]++)*+)"
# A header field: a word holding a digit (a date, a time, a pid, a node) or one without a
# lower-case letter (``-``, an alert tag, a type or component in capitals).
# Each field is taken whole (``\S++``: possessive), so a line that has no level in its first
# fields is refused in linear time.
FIELD = r"(?:(?=\S*\d)|(?=[^\sa-z]+\s))\S++"
