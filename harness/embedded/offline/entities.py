"""The entities the offline demo model links evidence by: names of things, found in text.

An *entity* is a name an operator would recognise as one thing of the world: a service, a host,
a topic, a certificate's common name, a table or column, a volume or path, a flag or config
key. The model never knows them in advance; it takes them from what it reads:

* from rows, the values of the columns whose role is an entity (:mod:`harness.embedded.offline.tables`)
  and the identifier-shaped tokens of descriptive values (``invoices.tax_region``);
* from log text, identifier-shaped tokens (``payouts.bankgw.example``, ``/var/lib/pgdata``,
  ``orders-events``), ``key=value`` values and quoted names.

Two texts are linked through an entity when one *names* it: its folded value occurs in the
other's folded text between boundaries (a ``-`` or ``_`` continues a name, so ``db-1`` is not
named by ``db-10`` and ``ledger-sync`` not by ``ledger-sync-worker``; a ``.``, ``/`` or ``:``
ends one, so ``/var/lib/pgdata`` is named by ``/var/lib/pgdata/pg_wal``). A value too common
to mean one thing (``true``, ``main``, ``error``, a bare number) is never an entity.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from harness.text import plain_lower

__all__ = [
    "distinctive",
    "fold",
    "named_in",
    "names",
    "text_entities",
]

# Values that name no one thing: states, levels, environments, placeholders, generic nouns.
_GENERIC = frozenset(
    """
    true false null none nil yes no on off enabled disabled enable disable default prod
    production staging stage dev test main primary master replica local global all any
    error errors warn warning info debug trace fatal failed failure success succeeded ok
    up down active inactive unknown pending running stopped healthy unhealthy degraded
    service server host node system admin root user users data value values name key
    type status state level message event events config app application api web http https
    tcp udp json text true1 false0 utc gmt
    """.split()  # noqa: SIM905
)
# Identifier-shaped: two or more runs of letters/digits joined by . _ - / or :, or a path.
_COMPOUND = re.compile(r"/?[a-z0-9]+(?:[._\-/:][a-z0-9]+)+/?")
# ``key=value`` pairs (a colon is prose as often as a separator), and quoted names.
_PAIR = re.compile(r"\b[a-z][a-z0-9_.-]*=([a-z0-9][a-z0-9._\-/:]*[a-z0-9])")
_QUOTED = re.compile(r"[`'\"]([a-z0-9][a-z0-9._\-/: ]{2,62}[a-z0-9])[`'\"]")
# A name continues through these characters; anything else ends it.
_NAME_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_-"
_PORT = re.compile(r":\d+$")
_MIN_CHARS = 4


def fold(text: object) -> str:
    """``text`` as names are compared: visible form, lower case, spaces collapsed."""
    return " ".join(plain_lower("" if text is None else str(text)).split())


def distinctive(value: str) -> bool:
    """Whether a folded value can name one thing: long enough, not generic, mostly letters
    (not a number, a time or a version), and no mined placeholder."""
    if len(value) < _MIN_CHARS or value in _GENERIC or "<" in value or "*" in value:
        return False
    letters = sum(c.isalpha() for c in value)
    digits = sum(c.isdigit() for c in value)
    return letters >= 3 and letters >= digits and value.count(" ") <= 2


@functools.lru_cache(maxsize=8192)
def text_entities(text: str) -> frozenset[str]:
    """The entity-shaped names of a text (folded): compounds, pair values, quoted names.

    A dotted or pathed compound also yields its last part (``a.b.maximum-pool-size`` →
    ``maximum-pool-size``), the part people write on its own.
    """
    folded = fold(text)
    found: set[str] = set()
    for pattern in (_COMPOUND, _PAIR, _QUOTED):
        for match in pattern.finditer(folded):
            value = (match.group(1) if match.groups() else match.group(0)).strip("/.:-_ ")
            found.add(value)
            found.add(_PORT.sub("", value))  # a host named with its port is the host
            last = re.split(r"[./:]", value)[-1]
            if last != value:
                found.add(last)
    return frozenset(v for v in found if distinctive(v))


def names(text: str, value: str) -> bool:
    """Whether folded ``text`` names the folded entity ``value`` between name boundaries."""
    if not distinctive(value):
        return False
    start = text.find(value)
    while start >= 0:
        end = start + len(value)
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        if before not in _NAME_CHARS and after not in _NAME_CHARS:
            return True
        start = text.find(value, start + 1)
    return False


def named_in(text: str, values: Iterable[str]) -> list[str]:
    """The values of ``values`` that folded ``text`` names, longest first, each once."""
    found = {v for v in values if names(text, v)}
    return sorted(found, key=lambda v: (-len(v), v))
