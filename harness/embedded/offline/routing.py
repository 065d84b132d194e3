"""The offline demo model's router: an intent from the question, the incident's words and the
world's catalog.

The rules, in order (each a named row below, with its examples in the tests):

1. a question about the assistant itself → SYSTEM_CHAT;
2. "why …" → DIAGNOSIS;
3. incident phrasing — something that cannot, will not or no longer works, is stuck or down,
   "what's wrong", "what happened" → DIAGNOSIS;
4. an off-topic word (a poem, the weather) → OUT_OF_SCOPE;
5. a how-to or what-is question, or one about runbooks → KNOWLEDGE_QA;
6. a symptom word (errors, 5xx, latency, timeouts, lag, expired, full, …) → DIAGNOSIS;
7. a question that names something the world knows — a service, host or table of its catalog,
   or the subject words of its runbooks — → DIAGNOSIS: whatever else it asks, it asks about
   the world's state, and only the diagnosis path may answer that from evidence;
8. a greeting → SYSTEM_CHAT; anything else → OUT_OF_SCOPE.

The world's catalog is read from the request, where the harness puts it: the tables of the
``query_mysql`` definition, and ``services:``, ``hosts:``, ``tables:`` and ``runbooks:`` lists
in the system message. A request that carries none leaves rule 7 with nothing to match.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from harness.embedded.offline.conversation import Conversation
from harness.embedded.offline.entities import fold, names
from harness.embedded.offline.tables import singular
from harness.sql.catalog import parse_catalog

__all__ = ["ROUTING_RULES", "route", "world_names"]

_WORDS = re.compile(r"[a-z0-9][a-z0-9'-]*")
_ABOUT_YOU = (
    "who are you",
    "what are you",
    "what can you do",
    "about you",
    "your name",
    "are you a bot",
    "help me use",
)
_INCIDENT = re.compile(
    r"\b(?:can'?t|cannot|can not|unable to|won'?t|doesn'?t work|don'?t work|isn'?t working|"
    r"aren'?t working|not working|stopped working|keeps? failing|no longer|is down|are down|"
    r"went down|(?:is|are|seems?|got|get|keeps? getting) stuck|stuck|broken|"
    r"what'?s wrong|what is wrong|what went wrong|what happened|what'?s happening|"
    r"what is happening|what'?s going on|what is going on)\b"
    r"|\b(?:not|n't)\s+(?:\w+\s+){0,2}?(?:working|going|coming|arriving|loading|processing|"
    r"sending|sent|delivered|showing|updating|syncing|running|responding|starting|paying|"
    r"going out|getting through)\b"
)
_KNOWLEDGE_STARTS = (
    "how do",
    "how to",
    "how can",
    "how should",
    "how does",
    "what is",
    "what's",
    "what are",
    "what does",
    "explain",
    "describe",
)
_KNOWLEDGE_WORDS = frozenset(
    ["runbook", "runbooks", "procedure", "playbook", "checklist", "documentation"]
)
_SYMPTOM_WORDS = frozenset(
    """
    error errors 500 502 503 504 5xx latency slow slowness down outage failing fail fails failed
    failure failures incident timeout timeouts timing crash crashing crashed exception
    exceptions broken degraded spike spiking unavailable unhealthy alert alerting paging lag
    lagging backlog stuck expired expiring full missing hanging hangs hung dropped rejected
    refused unreachable
    """.split()  # noqa: SIM905
)
_OFF_TOPIC = frozenset(
    """
    weather joke poem recipe stock stocks sports football movie song lyrics horoscope
    """.split()  # noqa: SIM905
)
_GREETINGS = frozenset(
    [
        "hi",
        "hello",
        "hey",
        "hallo",
        "thanks",
        "thank",
        "morning",
        "evening",
        "afternoon",
        "greetings",
    ]
)
# Words of runbook titles that say nothing about their subject.
_TITLE_NOISE = frozenset(
    """
    about after again before being check checks common failures failure errors error fixing
    guide handling howto incident incidents issue issues level levels manual notes overview
    problem problems procedure runbook runbooks service services template using what when
    """.split()  # noqa: SIM905
)
_LIST = re.compile(r"\b(services|hosts|tables|runbooks)\s*:\s*([^;\n]+)", re.I)
_MIN_SUBJECT_CHARS = 5


def _about_you(text: str, words: set[str]) -> bool:
    return any(phrase in text for phrase in _ABOUT_YOU)


def _why(text: str, words: set[str]) -> bool:
    return "why" in words


def _incident(text: str, words: set[str]) -> bool:
    return _INCIDENT.search(text) is not None


def _knowledge(text: str, words: set[str]) -> bool:
    return text.startswith(_KNOWLEDGE_STARTS) or bool(words & _KNOWLEDGE_WORDS)


def _symptom(text: str, words: set[str]) -> bool:
    return bool(words & _SYMPTOM_WORDS)


def _off_topic(text: str, words: set[str]) -> bool:
    return bool(words & _OFF_TOPIC)


ROUTING_RULES = (
    ("question about the assistant", _about_you, "SYSTEM_CHAT"),
    ("'why' question", _why, "DIAGNOSIS"),
    ("incident phrasing", _incident, "DIAGNOSIS"),
    ("off-topic word", _off_topic, "OUT_OF_SCOPE"),
    ("how-to / what-is / runbook question", _knowledge, "KNOWLEDGE_QA"),
    ("symptom word", _symptom, "DIAGNOSIS"),
)
"""(name, test, intent) in order; the world's names (rule 7) and the fallbacks follow."""


def route(conversation: Conversation) -> tuple[str, str]:
    """The intent of the conversation's question and the rule that chose it."""
    text = " ".join(conversation.question.lower().split())
    words = set(_WORDS.findall(text))
    for name, test, intent in ROUTING_RULES:
        if test(text, words):
            return intent, name
    named = _world_mention(text, words, world_names(conversation))
    if named is not None:
        return "DIAGNOSIS", f"names {named!r} of the world's catalog"
    if words & _GREETINGS:
        return "SYSTEM_CHAT", "greeting"
    return "OUT_OF_SCOPE", "no rule matched"


def world_names(conversation: Conversation) -> tuple[frozenset[str], frozenset[str]]:
    """(names, subject words) of the world the request describes.

    Names are services, hosts and tables (folded, tables also bare and singular); subject words
    are the distinctive words of runbook titles.
    """
    found: set[str] = set()
    subjects: set[str] = set()
    texts = [conversation.system, *conversation.tool_descriptions.values()]
    for entry in parse_catalog("\n".join(conversation.tool_descriptions.values())):
        # A table is named as written or in words ("bucket_usage", "bucket usage").
        spoken = entry.table.replace("_", " ")
        found.update((entry.qualified, entry.table, singular(entry.table), spoken))
    for text in texts:
        for match in _LIST.finditer(text):
            kind, items = match.group(1).lower(), [i.strip() for i in match.group(2).split(",")]
            if kind == "runbooks":
                subjects.update(_subject_words(items))
            else:
                found.update(fold(i) for i in items if i)
    return frozenset(found), frozenset(subjects)


def _subject_words(titles: Iterable[str]) -> set[str]:
    return {
        w
        for title in titles
        for w in _WORDS.findall(title.lower())
        if len(w) >= _MIN_SUBJECT_CHARS and w not in _TITLE_NOISE
    }


def _world_mention(
    text: str, words: set[str], world: tuple[frozenset[str], frozenset[str]]
) -> str | None:
    known, subjects = world
    folded = fold(text)
    singulars = {singular(w) for w in words}
    for name in sorted(known, key=lambda n: (-len(n), n)):
        if names(folded, name) or singular(name) in singulars:
            return name
    shared = sorted((words | singulars) & subjects)
    return shared[0] if shared else None
