"""Conditions a runbook puts on its actions: "roll back only if the lag is normal".

A runbook that says when *not* to act tells a reviewer how to read the evidence: a rollback
it allows only while the lag is normal is no remedy — and a change no cause — once the
evidence shows the lag far above its limit. Each way of saying so is a row of
:data:`CONDITION_RULES` with the sentences it must read and the look-alikes it must leave
alone; the tests walk the table. Every row reads the same condition: *act only while the
subject is in its normal state*; the subject's head noun ("lag" of "consumer lag") is what the
evidence is searched for (:func:`harness.embedded.offline.linkage.abnormal`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["CONDITION_RULES", "Condition", "ConditionRule", "conditions"]


@dataclass(frozen=True, kw_only=True)
class Condition:
    """A runbook's condition on an action: act only while ``subject`` is normal.

    Attributes:
        action: The action it governs, as written ("roll back").
        subject: What must be normal ("lag", "consumer lag", "client certificate").
        sentence: The sentence that states it.
        prohibits: True when the sentence forbids the action ("do not roll back while …"):
            it is advice to keep, not an action to withhold.
    """

    action: str
    subject: str
    sentence: str
    prohibits: bool = False
    target: str = ""
    """What the action is done to, as written ("the consumer", "a ledger-sync release");
    empty when the sentence does not say."""

    @property
    def head(self) -> str:
        """The subject's head noun ("consumer lag" → "lag")."""
        return self.subject.split()[-1]


@dataclass(frozen=True, kw_only=True)
class ConditionRule:
    """One way of stating a condition; ``pattern`` captures ``action`` and ``subject``.

    Attributes:
        name: What the rule reads.
        pattern: Matched on the lower-cased sentence.
        prohibits: Whether the sentence forbids the action rather than allowing it.
        examples: Sentences it reads, each with the (action, subject) it finds.
        look_alikes: Sentences it must not read.
    """

    name: str
    pattern: re.Pattern[str]
    prohibits: bool = False
    examples: tuple[tuple[str, tuple[str, str]], ...] = ()
    look_alikes: tuple[str, ...] = ()


_ACTIONS = r"roll ?back|rollback|revert|redeploy|undo|restart|restore|disable|re-?enable"
_NORMAL = (
    r"normal|healthy|ok|fine|low|flat|stable|zero|unchanged|valid|current|unexpired|"
    r"below (?:its |the )?(?:threshold|quota|limit)"
)
_ABNORMAL = (
    r"high|growing|rising|elevated|abnormal|full|exhausted|sealed|down|unavailable|failing|"
    r"expired|unhealthy|broken|above (?:its |the )?(?:threshold|quota|limit)|"
    r"over (?:its |the )?(?:threshold|quota|limit)"
)
_SUBJECT = r"(?:the |its |their )?(?P<subject>[a-z][a-z0-9 -]{1,40}?)"
_VERB = r"\s+(?:is|are|stays?|remains?|looks?|was|were)\s+"

CONDITION_RULES: tuple[ConditionRule, ...] = (
    ConditionRule(
        name="act only if the subject is normal",
        pattern=re.compile(
            rf"\b(?P<action>{_ACTIONS})\b(?P<object>[^.;]*?)\b(?:only (?:if|when)|if and only if)\s+"
            rf"{_SUBJECT}{_VERB}(?:still\s+)?(?:{_NORMAL})\b"
        ),
        examples=(
            ("Roll back only if lag is normal.", ("roll back", "lag")),
            (
                "Roll back the consumer only if the consumer lag is normal.",
                ("roll back", "consumer lag"),
            ),
            (
                "Revert a release only if the client certificate is valid.",
                ("revert", "client certificate"),
            ),
            ("Revert a setting only if the bucket is below its quota.", ("revert", "bucket")),
        ),
        look_alikes=(
            "Roll back the release if payouts fail.",
            "Only the on-call may revert a change.",
        ),
    ),
    ConditionRule(
        name="only if the subject is normal, act",
        pattern=re.compile(
            rf"\bonly (?:if|when)\s+{_SUBJECT}{_VERB}(?:{_NORMAL})\b[^.;]*?"
            rf"\b(?P<action>{_ACTIONS})\b(?P<object>[^.;]*)"
        ),
        examples=(
            (
                "Only when disk usage is below threshold, revert the change.",
                ("revert", "disk usage"),
            ),
        ),
        look_alikes=("Only when asked, explain the change.",),
    ),
    ConditionRule(
        name="act unless the subject is abnormal",
        pattern=re.compile(
            rf"\b(?P<action>{_ACTIONS})\b(?P<object>[^.;]*?)\bunless\s+{_SUBJECT}{_VERB}"
            rf"(?:{_ABNORMAL})\b"
        ),
        examples=(("Revert the deploy unless the queue is growing.", ("revert", "queue")),),
        look_alikes=("Revert the deploy unless told otherwise.",),
    ),
    ConditionRule(
        name="do not act while the subject is abnormal",
        pattern=re.compile(
            rf"\b(?:do not|don't|never)\s+(?P<action>{_ACTIONS})\b(?P<object>[^.;]*?)"
            rf"\b(?:while|if|when)\s+"
            rf"{_SUBJECT}{_VERB}(?:{_ABNORMAL})\b"
        ),
        prohibits=True,
        examples=(
            ("Do not roll back while the disk is full.", ("roll back", "disk")),
            ("Never restart the indexer when vault is sealed.", ("restart", "vault")),
        ),
        look_alikes=("Do not roll back a migration by hand.",),
    ),
)
"""The ways a runbook states a condition on an action, each with its examples."""


def conditions(sentences: Iterable[str]) -> list[Condition]:
    """The conditions the sentences state (the first rule that reads a sentence wins)."""
    found: list[Condition] = []
    for sentence in sentences:
        lowered = " ".join(sentence.lower().split())
        for rule in CONDITION_RULES:
            match = rule.pattern.search(lowered)
            if match:
                found.append(
                    Condition(
                        action=match["action"],
                        subject=" ".join(match["subject"].split()),
                        sentence=sentence,
                        prohibits=rule.prohibits,
                        target=" ".join(match["object"].strip(" ,:").split()),
                    )
                )
                break
    return found
