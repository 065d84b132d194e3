"""The world's catalog: the services, hosts, tables and runbook subjects the tools expose.

Defined once per tool plane and used for every model: the router is told the catalog (a
summary in its system message, so that any model — the offline one included — can route a
question that names the world's state to diagnosis), and a chat or knowledge answer is held to
what it may say. Only the diagnosis path may make claims about the world's state, because only
there is every claim checked against evidence; a SYSTEM_CHAT answer speaks of the assistant
itself, a KNOWLEDGE_QA answer of runbook content with citations. An answer that names a
service, host or table of the catalog is therefore not released as an Answer (docs/
architecture.md §12).

Host names are matched but never put into a prompt: the model sees hosts only as per-run
pseudonyms.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = ["AnswerTrigger", "WorldCatalog"]

AnswerTrigger = Literal["QUESTION_NAMES_CATALOG", "ANSWER_NAMES_CATALOG", "ANSWER_UNCITED"]
"""Why a chat or knowledge route is unfit for a question or its answer."""

_MAX_LISTED = 40
"""Items per kind in the router's summary; the rest are counted, not named."""


def _pattern(name: str) -> re.Pattern[str]:
    # A name is matched as a whole word, in any case.
    return re.compile(rf"(?<![\w-]){re.escape(name.lower())}(?![\w-])")


def _table_pattern(name: str) -> re.Pattern[str]:
    # A table named by a plain word ("orders", "services") is that word in ordinary prose too,
    # so it counts only where it is plainly the table: schema-qualified or beside "table".
    # A name with an underscore is an identifier wherever it appears.
    if "_" in name:
        return _pattern(name)
    word = re.escape(name.lower())
    return re.compile(rf"(?<![\w-])(?:\w+\.{word}|{word}\s+table|table\s+[`'\"]?{word})(?![\w-])")


@dataclass(frozen=True, kw_only=True)
class WorldCatalog:
    """What the world knows, as names.

    Attributes:
        services: Services the logs name.
        hosts: Hosts the logs name (matched in answers, never told to a model).
        tables: Readable tables, bare names (``orders``) — the schema-qualified form matches too.
        runbooks: Titles of the runbooks.
    """

    services: frozenset[str] = frozenset()
    hosts: frozenset[str] = frozenset()
    tables: frozenset[str] = frozenset()
    runbooks: frozenset[str] = frozenset()

    @classmethod
    def of(
        cls,
        *,
        services: Iterable[str] = (),
        hosts: Iterable[str] = (),
        tables: Iterable[str] = (),
        runbooks: Iterable[str] = (),
    ) -> WorldCatalog:
        """A catalog from names; blanks dropped, whitespace trimmed."""

        def clean(items: Iterable[str]) -> frozenset[str]:
            return frozenset(" ".join(i.split()) for i in items if i and i.strip())

        return cls(
            services=clean(services),
            hosts=clean(hosts),
            tables=clean(t.rsplit(".", 1)[-1] for t in tables),
            runbooks=clean(runbooks),
        )

    @property
    def empty(self) -> bool:
        return not (self.services or self.hosts or self.tables or self.runbooks)

    def summary(self) -> str:
        """The catalog as the router is told it: one ``kind: a, b`` list a line, hosts left out.

        Commas inside a runbook title become spaces, so that every list splits on commas.
        """
        lines = []
        for kind, items in (
            ("services", self.services),
            ("tables", self.tables),
            ("runbooks", self.runbooks),
        ):
            if not items:
                continue
            names = sorted(items)
            listed = ", ".join(n.replace(",", " ") for n in names[:_MAX_LISTED])
            more = f" (and {len(names) - _MAX_LISTED} more)" if len(names) > _MAX_LISTED else ""
            lines.append(f"{kind}: {listed}{more}")
        return "\n".join(lines)

    def named_in(self, text: str | None) -> tuple[str, ...]:
        """The services, hosts and tables ``text`` names (sorted; runbook titles not counted,
        since a knowledge answer may speak of its runbooks)."""
        if not text:
            return ()
        lowered = text.lower()
        found = {n for n in self.services | self.hosts if _pattern(n).search(lowered)}
        found |= {t for t in self.tables if _table_pattern(t).search(lowered)}
        return tuple(sorted(found))

    def unfit_answer(
        self,
        *,
        knowledge: bool,
        text: str | None,
        citations: Sequence[str] = (),
        sources: Sequence[str] = (),
    ) -> AnswerTrigger | None:
        """Why a chat (``knowledge`` False) or knowledge answer may not be released, or None.

        A chat answer may name nothing of the catalog. A knowledge answer must cite runbook
        items, and may name a catalog item only where a result it drew on (``sources``) names
        it too: that is runbook content, not a claim about the world's state.
        """
        named = set(self.named_in(text))
        if knowledge:
            if not citations:
                return "ANSWER_UNCITED"
            named -= {n for source in sources for n in self.named_in(source)}
        return "ANSWER_NAMES_CATALOG" if named else None
