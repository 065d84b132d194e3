"""Linking candidate causes to a symptom: evidence decides, time only ranks.

A candidate (:mod:`harness.embedded.offline.candidates`) is *linked* to what it may have caused — the
symptom, or a condition already linked to it — when

* **NAMED**: the target's own text names one of the candidate's entities (the certificate's
  common name in the TLS error, the volume in "No space left on device", the column in
  "Unknown column", another service the failing one calls);
* **RUNBOOK**: a runbook's symptom section matches the target's words and its cause section
  matches the candidate (names its entity, or speaks of its subject or of its kind in its
  own words);
* **EXPIRED**: the candidate is an expiry, and the target's text reports that something
  expired ("certificate has expired") — it names what happened, if not the name;
* **SHARED**: the candidate belongs to a service or host the target comes from.

The strongest link ranks first, then a candidate of a kind the symptom speaks of, then the
nearer in time. A change is *contradicted* when a runbook that matches the symptom makes
rolling back conditional ("roll back the consumer only if the lag is normal"), the condition
concerns that change (:func:`applies`) and the evidence shows it false. A condition (an expiry, a capacity at its limit, a failing dependency) that
is the best linked candidate is itself explained by an earlier candidate linked to it by name
or runbook: that one is the root cause, the condition its mechanism (one step, no longer
chains). A capacity at its limit that nothing explains is only a mechanism: it says how the
symptom happens, not why. Without any link there is no root cause.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum

from harness.contracts.observation import LogsObservation
from harness.embedded.offline.candidates import KIND_WORDS, Candidate, CauseKind
from harness.embedded.offline.conditions import Condition
from harness.embedded.offline.conversation import Exchange
from harness.embedded.offline.entities import fold, named_in
from harness.embedded.offline.runbooks import Runbook, content_words

__all__ = [
    "MIN_SYMPTOM_WORDS",
    "Assessment",
    "Contradiction",
    "Link",
    "LinkKind",
    "Shown",
    "Target",
    "Verdict",
    "abnormal",
    "applies",
    "assess",
    "links",
    "matching_runbooks",
    "symptom_target",
    "target_of",
]

# Words by which a symptom reports that something expired (not merely "certificate").
_EXPIRY_WORDS = frozenset({"expired", "expiry", "expires", "expire", "expiration", "notafter"})
# A runbook's symptom must share at least this many words with the observed events.
MIN_SYMPTOM_WORDS = 2
_ROLLBACK = ("roll back", "rollback", "revert", "redeploy", "undo", "disable")
# What a runbook calls any change at all ("revert the change", "roll it back").
_ANY_CHANGE = frozenset({"change", "changes", "everything", "anything", "them", "this", "that"})
# Words a candidate's own vocabulary shares with every runbook: they show no subject.
_VAGUE = frozenset(
    [
        "service",
        "services",
        "status",
        "state",
        "version",
        "name",
        "value",
        "values",
        "time",
        "date",
        "type",
        "host",
        "hosts",
    ]
)


class LinkKind(str, Enum):
    """How evidence links a candidate to a target, strongest first."""

    NAMED = "NAMED"
    RUNBOOK = "RUNBOOK"
    EXPIRED = "EXPIRED"
    SHARED = "SHARED"


_STRENGTH = {LinkKind.NAMED: 3, LinkKind.RUNBOOK: 2, LinkKind.EXPIRED: 2, LinkKind.SHARED: 1}


class Verdict(str, Enum):
    """What became of a candidate."""

    ROOT = "ROOT"
    MECHANISM = "MECHANISM"
    WEAKER = "WEAKER"
    CONTRADICTED = "CONTRADICTED"
    UNLINKED = "UNLINKED"


@dataclass(frozen=True, kw_only=True)
class Target:
    """What candidates are linked to: the symptom, or a condition linked to it.

    Attributes:
        items: (call, ref) of the items that show it.
        services: Services and hosts it comes from (folded).
        text: Its own text, folded (templates and sampled messages, or row values).
        words: Its content words.
    """

    items: tuple[tuple[Exchange, str], ...]
    services: frozenset[str]
    text: str
    words: frozenset[str]


@dataclass(frozen=True, kw_only=True)
class Link:
    """One piece of evidence that links a candidate to a target."""

    kind: LinkKind
    via: str
    runbook: Runbook | None = None

    @property
    def strength(self) -> int:
        return _STRENGTH[self.kind]


@dataclass(frozen=True, kw_only=True)
class Shown:
    """An observed item that shows something: its call, ref and text."""

    exchange: Exchange
    ref: str
    text: str


@dataclass(frozen=True, kw_only=True)
class Contradiction:
    """A runbook's condition on rolling back that the evidence shows false."""

    runbook: Runbook
    condition: Condition
    shown: Shown


@dataclass(frozen=True, kw_only=True)
class Assessment:
    """A candidate, its links to the symptom, and what became of it."""

    candidate: Candidate
    links: tuple[Link, ...]
    verdict: Verdict
    rival: Candidate | None = None
    contradiction: Contradiction | None = None
    upstream: tuple[Link, ...] = field(default_factory=tuple)
    """For the root found through a condition: its links to that condition."""

    @property
    def strength(self) -> int:
        return max((link.strength for link in self.links), default=0)

    @property
    def best(self) -> Link | None:
        return max(self.links, key=lambda link: link.strength, default=None)


def matching_runbooks(runbooks: Sequence[Runbook], words: frozenset[str]) -> list[Runbook]:
    """Runbooks whose symptom shares at least MIN_SYMPTOM_WORDS with ``words``, best first."""
    scored = [(rb.symptom_overlap(words), n, rb) for n, rb in enumerate(runbooks)]
    return [
        rb
        for score, _, rb in sorted(scored, key=lambda s: (-s[0], s[1]))
        if score >= MIN_SYMPTOM_WORDS
    ]


def links(candidate: Candidate, target: Target, runbooks: Sequence[Runbook]) -> list[Link]:
    """Every link of ``candidate`` to ``target``, strongest first."""
    found: list[Link] = []
    outside = candidate.services - target.services
    named = named_in(target.text, candidate.entities | outside)
    if named:
        found.append(Link(kind=LinkKind.NAMED, via=named[0]))
    for runbook in matching_runbooks(runbooks, target.words):
        if _cause_matches(runbook, candidate):
            found.append(Link(kind=LinkKind.RUNBOOK, via=runbook.title, runbook=runbook))
            break
    if candidate.kind is CauseKind.EXPIRY and candidate.template is None:
        # Something that expired shortly before a symptom that reports an expiry: the symptom
        # names what happened to it, if not its name (which redaction may have masked).
        spoken = sorted(target.words & _EXPIRY_WORDS)
        if spoken:
            found.append(Link(kind=LinkKind.EXPIRED, via=", ".join(spoken[:3])))
    shared = sorted(candidate.services & target.services)
    if shared:
        found.append(Link(kind=LinkKind.SHARED, via=shared[0]))
    return found


def _cause_matches(runbook: Runbook, candidate: Candidate) -> bool:
    if runbook.cause_names(candidate.entities):
        return True
    own = runbook.cause_speaks_of(candidate.words - _VAGUE - KIND_WORDS[candidate.kind])
    kind = runbook.cause_speaks_of(KIND_WORDS[candidate.kind])
    return len(own) >= 2 or (bool(kind) and bool(own))


def abnormal(head: str, logs: Sequence[Exchange], conditions: Sequence[Candidate]) -> Shown | None:
    """An observed item that shows ``head`` ("lag", "disk") abnormal: a WARN+ template that
    speaks of it, or a capacity at its limit whose words hold it."""
    for exchange in logs:
        observation = exchange.observation
        if not isinstance(observation, LogsObservation):
            continue
        for template in observation.templates:
            if template.level.upper() in ("WARN", "WARNING", "ERROR", "FATAL") and head in (
                content_words(template.template)
            ):
                return Shown(exchange=exchange, ref=template.ref, text=template.template)
    for condition in conditions:
        if condition.kind is CauseKind.CAPACITY and head in condition.words:
            return Shown(exchange=condition.exchange, ref=condition.ref, text=condition.text)
    return None


def _contradiction(
    candidate: Candidate,
    runbooks: Sequence[Runbook],
    logs: Sequence[Exchange],
    conditions: Sequence[Candidate],
) -> Contradiction | None:
    if candidate.kind is not CauseKind.CHANGE:
        return None
    for runbook in runbooks:
        for condition in runbook.conditions():
            if not condition.action.startswith(_ROLLBACK) or not applies(condition, candidate):
                continue
            shown = abnormal(condition.head, logs, conditions)
            if shown is not None:
                return Contradiction(runbook=runbook, condition=condition, shown=shown)
    return None


def applies(condition: Condition, candidate: Candidate) -> bool:
    """Whether a condition on an action concerns this candidate: the sentence does not say
    what the action is done to ("roll back only if …", "revert the change"), or what it names
    is the candidate's — its service, an entity, a word of its own ("a ledger-sync release",
    "the consumer", "its flags")."""
    said = content_words(condition.target) - _ANY_CHANGE
    if not said:
        return True
    own = candidate.words | content_words(" ".join(candidate.services))
    return bool(said & own) or bool(
        named_in(fold(condition.target), candidate.entities | candidate.services)
    )


def _rank(assessment: Assessment, symptom_words: frozenset[str]) -> tuple[int, bool, datetime]:
    spoken = bool(symptom_words & KIND_WORDS[assessment.candidate.kind])
    return assessment.strength, spoken, assessment.candidate.at


def assess(
    candidates: Sequence[Candidate],
    symptom: Target,
    runbooks: Sequence[Runbook],
    logs: Sequence[Exchange],
) -> list[Assessment]:
    """Each candidate's links and verdict; the root cause (if any) first."""
    matching = matching_runbooks(runbooks, symptom.words)
    conditions = [c for c in candidates if c.kind is not CauseKind.CHANGE]
    linked: list[Assessment] = []
    others: list[Assessment] = []
    for candidate in candidates:
        found = tuple(links(candidate, symptom, runbooks))
        # A log template linked only by its service is every other line of that service, one
        # not linked at all is another component's business, and one that speaks of no kind
        # of cause is another failed request: none is a candidate of its own (each may still
        # explain a condition, see _upstream).
        if candidate.template is not None and (
            not candidate.spoken or all(k.kind is LinkKind.SHARED for k in found)
        ):
            continue
        contradiction = _contradiction(candidate, matching, logs, conditions) if found else None
        verdict = (
            Verdict.UNLINKED
            if not found
            else Verdict.CONTRADICTED
            if contradiction
            else Verdict.WEAKER
        )
        entry = Assessment(
            candidate=candidate, links=found, verdict=verdict, contradiction=contradiction
        )
        (linked if verdict is Verdict.WEAKER else others).append(entry)
    if not linked:
        return others
    best = max(linked, key=lambda a: _rank(a, symptom.words))
    root: Assessment | None = best
    mechanism: Assessment | None = None
    upstream: list[Link] = []
    if best.candidate.kind is not CauseKind.CHANGE:
        explained = _upstream(best.candidate, candidates, runbooks)
        if explained is not None:
            root_candidate, upstream = explained
            mechanism = best
            root = next(
                (a for a in linked + others if a.candidate is root_candidate),
                Assessment(candidate=root_candidate, links=(), verdict=Verdict.WEAKER),
            )
        elif best.candidate.kind is CauseKind.CAPACITY:
            # A capacity at its limit is how a symptom happens, not why: what filled it is
            # the cause, and without evidence of that no root cause is established.
            root, mechanism = None, best
    result: list[Assessment] = []
    if root is not None:
        result.append(
            Assessment(
                candidate=root.candidate,
                links=root.links,
                verdict=Verdict.ROOT,
                upstream=tuple(upstream),
            )
        )
    if mechanism is not None:
        result.append(
            Assessment(
                candidate=mechanism.candidate, links=mechanism.links, verdict=Verdict.MECHANISM
            )
        )
    rival = (root or mechanism or best).candidate
    taken = {id(a.candidate) for a in result}
    for entry in sorted(linked, key=lambda a: _rank(a, symptom.words), reverse=True):
        if id(entry.candidate) not in taken:
            result.append(
                Assessment(
                    candidate=entry.candidate,
                    links=entry.links,
                    verdict=Verdict.WEAKER,
                    rival=rival,
                )
            )
    result += [a for a in others if id(a.candidate) not in taken]
    return result


def _upstream(
    condition: Candidate, candidates: Sequence[Candidate], runbooks: Sequence[Runbook]
) -> tuple[Candidate, list[Link]] | None:
    """The earlier candidate a condition is linked to by name or runbook, if any."""
    target = target_of(condition)
    # The strongest link first; among those, the earliest: what began first explains the rest.
    best: tuple[int, float, Candidate, list[Link]] | None = None
    for candidate in candidates:
        if candidate is condition or candidate.at > condition.at:
            continue
        specific = [k for k in links(candidate, target, runbooks) if k.kind is not LinkKind.SHARED]
        if not specific:
            continue
        key = (max(k.strength for k in specific), -candidate.at.timestamp())
        if best is None or key > best[:2]:
            best = (*key, candidate, specific)
    return (best[2], best[3]) if best is not None else None


def target_of(candidate: Candidate) -> Target:
    """A candidate as what another candidate may be linked to (a condition, a cited item)."""
    # What a row measures is in its column names too ("lag", "max_lag", "consumer_group"):
    # a runbook describes a condition in those words.
    columns = candidate.table.readable if candidate.table is not None else ()
    return Target(
        items=((candidate.exchange, candidate.ref),),
        services=candidate.services,
        text=candidate.text,
        words=candidate.words | content_words(" ".join(columns)),
    )


def symptom_target(
    items: Sequence[tuple[Exchange, str]], services: Sequence[str], texts: Sequence[str]
) -> Target:
    """The symptom as a target: its items, services and texts."""
    joined = "\n".join(texts)
    # A service's own name says which service shows the symptom, not what the symptom is:
    # every runbook of that service would match it.
    names = content_words(" ".join(services))
    return Target(
        items=tuple(items),
        services=frozenset(fold(s) for s in services),
        text=fold(joined),
        words=content_words(joined) - names,
    )
