"""Runbooks as the offline demo model reads them: sections, causes, conditions and steps.

A knowledge search returns excerpts of runbook documents (:class:`EvidenceBlock`); a runbook
is cut along its headings, so an excerpt usually starts with one (``## Symptoms``, ``## Why it
happens``) or a label (``Cause:``). The model groups the excerpts it has received by document
and splits each into sections:

* **symptom** — what the operator sees (and the document's title): matched against the
  observed events;
* **cause** — what makes it happen: matched against a candidate cause (it names the
  candidate's entity, or the candidate's kind in its own words). Clauses that rule a kind out
  ("without a deploy", "not the cause") never match it. Without a cause section among the
  excerpts, the **check** section (what to look for) stands in;
* **remedy** — what to do: the sentences a next step may quote;
* **check** and anything else.

A runbook also states *conditions* on its actions (:mod:`harness.embedded.offline.conditions`); whether
one holds is decided against the evidence by :mod:`harness.embedded.offline.linkage`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from harness.contracts.observation import EvidenceBlock
from harness.embedded.offline.conditions import Condition, conditions
from harness.embedded.offline.entities import fold, named_in
from harness.embedded.offline.question import keywords

__all__ = [
    "Runbook",
    "Section",
    "content_words",
    "library",
    "sentences",
]


class Section(str, Enum):
    """The part of a runbook a piece of text belongs to."""

    SYMPTOM = "SYMPTOM"
    CAUSE = "CAUSE"
    CHECK = "CHECK"
    REMEDY = "REMEDY"
    OTHER = "OTHER"


# Heading or label words, by section (a heading is matched on its first words).
_SECTION_WORDS: tuple[tuple[Section, tuple[str, ...]], ...] = (
    (Section.SYMPTOM, ("symptom", "symptoms", "signs", "signature", "what you see")),
    (Section.CAUSE, ("cause", "causes", "root cause", "why", "likely cause", "background")),
    (Section.CHECK, ("check", "checks", "diagnosis", "diagnose", "investigation", "triage")),
    (
        Section.REMEDY,
        (
            "remediation", "roll back", "rollback", "mitigation", "fix", "resolution",
            "recovery", "workaround", "what to do", "actions", "renew", "remedy",
        ),
    ),
    (Section.OTHER, ("verification", "escalation", "overview", "prevention", "owner")),
)  # fmt: skip
_HEADING = re.compile(r"(?:^|\s)#{1,6}\s+")
# A flattened heading's own words: its first word, then lower-case words, up to the body
# ("## Roll back Revert the migration" → "Roll back"); at most six words.
_HEADING_TEXT = re.compile(r"\S+(?:[ \t]+(?![A-Z`*\-•|\d])[a-z][\w'-]*){0,5}")
_LABEL = re.compile(
    r"(?<![\w-])(Symptoms?|Causes?|Root cause|Likely cause|Checks?|Diagnosis|Remediation|"
    r"Mitigation|Fix|Resolution|Roll ?back|Recovery|Workaround):\s",
)
# Clauses that rule a kind of cause out: "without a deploy", "is not the cause".
_NEGATION = re.compile(r"\b(?:without|not|never|no|rule out|rules out|ruled out|isn't|aren't)\b")
_CLAUSE = re.compile(r"[.;:,()]|\s[-–]\s|\bbut\b|\bwhile\b")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\s+[-•*]\s+|\s+\d+\.\s+|\n+")


@dataclass(frozen=True, kw_only=True)
class Runbook:
    """One runbook document, as far as the conversation's searches have shown it.

    Attributes:
        doc_id: The document's identity.
        title: Its title.
        blocks: The excerpts seen, each with the call that returned it, in order of arrival.
    """

    doc_id: str
    title: str
    blocks: tuple[tuple[str, EvidenceBlock], ...]

    def parts(self, section: Section) -> list[tuple[str, EvidenceBlock, str]]:
        """(call id, block, text) of every part of ``section`` the excerpts hold."""
        return [
            (call_id, block, text)
            for call_id, block in self.blocks
            for found, text in split_sections(block.excerpt)
            if found is section
        ]

    @functools.cached_property
    def symptom_text(self) -> str:
        """The title and every symptom part seen (an overview's prose describes no symptom)."""
        return "\n".join([self.title, *(t for _, _, t in self.parts(Section.SYMPTOM))])

    @functools.cached_property
    def cause_text(self) -> str:
        """The cause parts, without the clauses that rule something out. When no cause part
        was among the excerpts, what the runbook says to check for stands in for it."""
        parts = self.parts(Section.CAUSE) or self.parts(Section.CHECK)
        return "\n".join(_affirmed(t) for _, _, t in parts)

    @functools.cached_property
    def text(self) -> str:
        return "\n".join([self.title, *(b.excerpt for _, b in self.blocks)])

    def symptom_overlap(self, words: frozenset[str]) -> int:
        """How many of the observed symptom's ``words`` the runbook's symptom text holds."""
        return len(words & content_words(self.symptom_text))

    def cause_names(self, entities: Iterable[str]) -> list[str]:
        """The ``entities`` its cause parts name."""
        return named_in(fold(self.cause_text), entities)

    def cause_speaks_of(self, words: frozenset[str]) -> frozenset[str]:
        """Which of ``words`` its cause parts use (affirmed clauses only)."""
        return words & content_words(self.cause_text)

    def block_of(self, section: Section) -> tuple[str, EvidenceBlock] | None:
        """The first excerpt holding a part of ``section``."""
        found = self.parts(section)
        return (found[0][0], found[0][1]) if found else None

    def conditions(self) -> list[Condition]:
        """The conditions its excerpts state on actions."""
        return conditions(sentences(self.text))

    def remedies(self) -> list[tuple[str, EvidenceBlock, str]]:
        """(call id, block, sentence) of each remedy sentence, in order."""
        return [
            (call_id, block, sentence)
            for call_id, block, text in self.parts(Section.REMEDY)
            for sentence in sentences(text)
        ]


def split_sections(excerpt: str) -> list[tuple[Section, str]]:
    """The excerpt cut at its headings and labels, each piece with its section."""
    marks: list[tuple[int, int, Section]] = []
    for match in _HEADING.finditer(excerpt):
        heading = _HEADING_TEXT.match(excerpt, match.end())
        end = heading.end() if heading else match.end()
        marks.append((match.start(), end, _section_of(excerpt[match.end() :])))
    for match in _LABEL.finditer(excerpt):
        marks.append((match.start(), match.end(), _section_of(match.group(1))))
    marks.sort()
    if not marks:
        return [(Section.OTHER, excerpt.strip())]
    pieces = []
    if excerpt[: marks[0][0]].strip():
        pieces.append((Section.OTHER, excerpt[: marks[0][0]].strip()))
    for index, (_, end, section) in enumerate(marks):
        stop = marks[index + 1][0] if index + 1 < len(marks) else len(excerpt)
        text = excerpt[end:stop].strip()
        if text:
            pieces.append((section, text))
    return pieces


def _section_of(text: str) -> Section:
    head = " ".join(text.lower().split()[:3])
    for section, words in _SECTION_WORDS:
        if any(head == w or head.startswith(w + " ") for w in words):
            return section
    return Section.OTHER


def _affirmed(text: str) -> str:
    return " ".join(c for c in _CLAUSE.split(text) if not _NEGATION.search(c.lower()))


def sentences(text: str) -> list[str]:
    """Sentences of a flattened excerpt: split at sentence ends, bullets and numbered steps."""
    cleaned = re.sub(r"[*`]+", "", text)
    flat = [" ".join(p.split()).lstrip("-• ") for p in _SENTENCE.split(cleaned)]
    return [p for p in flat if 12 <= len(p) <= 300 and not p.startswith("#")]


@functools.lru_cache(maxsize=4096)
def content_words(text: str) -> frozenset[str]:
    """Lower-case words of ``text`` worth matching: no stopwords, numbers or short words."""
    # Kept per text: the analysis is rebuilt every turn over the same excerpts and templates.
    found: set[str] = set()
    for word in keywords(text, max_words=400).split():
        lowered = word.lower()
        if len(lowered) >= 3 and not lowered.isdigit():
            found.add(lowered)
            found.update(p for p in re.split(r"[._/:-]", lowered) if len(p) >= 3)
    # Plurals meet their singulars ("changes" and "change", "disks" and "disk").
    found.update(w[:-1] for w in list(found) if len(w) > 4 and w.endswith("s") and w[-2] != "s")
    return frozenset(found)


def library(blocks: Sequence[tuple[str, EvidenceBlock]]) -> list[Runbook]:
    """The runbooks the ``(call id, block)`` pairs belong to, in order of first appearance."""
    by_doc: dict[str, list[tuple[str, EvidenceBlock]]] = {}
    titles: dict[str, str] = {}
    for call_id, block in blocks:
        seen = by_doc.setdefault(block.doc_id, [])
        if all(b.ref != block.ref for _, b in seen):
            seen.append((call_id, block))
        titles.setdefault(block.doc_id, block.title)
    return [
        Runbook(doc_id=doc, title=titles[doc], blocks=tuple(found)) for doc, found in by_doc.items()
    ]
