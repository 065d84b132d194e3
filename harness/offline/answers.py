"""The offline demo model's non-investigating answers: routing, chat, knowledge, review, repair.

Each is a rule over the request's text, written the way a small model would answer: the
router picks an intent from the question's words, the knowledge answer names the runbooks the
search returned, the reviewer checks that every conclusion's citations and stated numbers are
in the verified evidence, and the repair withdraws the conclusions the guard rejected.
"""

from __future__ import annotations

import json
import re
from typing import Any

from harness.offline.conversation import Conversation

__all__ = [
    "OFFLINE_NOTICE",
    "knowledge_answer",
    "repair_draft",
    "review",
    "route",
    "system_chat",
]

OFFLINE_NOTICE = "offline demo model (deterministic rules, no LLM)"

_WORDS = re.compile(r"[a-z0-9][a-z0-9'-]*")
_OUT_OF_SCOPE = frozenset(
    [
        "weather",
        "joke",
        "poem",
        "recipe",
        "stock",
        "stocks",
        "sports",
        "football",
        "movie",
        "song",
        "lyrics",
        "horoscope",
    ]
)
_ABOUT_YOU = (
    "who are you",
    "what are you",
    "what can you do",
    "about you",
    "your name",
    "are you a bot",
    "help me use",
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
_DIAGNOSIS_WORDS = frozenset(
    """
    error errors 500 502 503 504 5xx latency slow slowness down outage failing fail fails failed
    failure failures incident timeout timeouts timing crash crashing crashed exception
    exceptions broken degraded spike spiking unavailable unhealthy alert alerting paging
    """.split()  # noqa: SIM905
)
_ISSUE_CONCLUSION = re.compile(r"conclusion=([A-Za-z0-9_-]{1,32})")
_NUMBERS = re.compile(r"(?<![\w.:-])\d{2,}(?![\w:-])|\b\d{1,2}:\d{2}(?::\d{2})?\b|\b[A-Z]+-\d+\b")


def route(question: str) -> tuple[str, str]:
    """The intent of ``question`` and the rule that chose it."""
    text = " ".join(question.lower().split())
    words = set(_WORDS.findall(text))
    if words & _OUT_OF_SCOPE:
        return "OUT_OF_SCOPE", "off-topic word"
    if any(phrase in text for phrase in _ABOUT_YOU):
        return "SYSTEM_CHAT", "question about the assistant"
    if "why" in words:
        return "DIAGNOSIS", "'why' question"
    if text.startswith(_KNOWLEDGE_STARTS) or words & _KNOWLEDGE_WORDS:
        return "KNOWLEDGE_QA", "how-to / what-is / runbook question"
    if words & _DIAGNOSIS_WORDS:
        return "DIAGNOSIS", f"symptom word {sorted(words & _DIAGNOSIS_WORDS)[0]!r}"
    if words & _GREETINGS:
        return "SYSTEM_CHAT", "greeting"
    return "OUT_OF_SCOPE", "no rule matched"


def system_chat(question: str) -> str:
    """The front desk's fixed-style greeting."""
    return (
        "Hello. I am the incident-diagnosis assistant, currently answering as the "
        f"{OFFLINE_NOTICE}. I can investigate why a service misbehaves — reading its logs, "
        "the change records in its database and the runbooks — and answer how-to questions "
        "from the runbooks. Try: 'Why does my-service return HTTP 500 since 14:05?'"
    )


def knowledge_answer(conversation: Conversation) -> str:
    """An answer naming the runbooks the search returned, with their most relevant lines."""
    blocks = [
        block
        for exchange in conversation.calls("search_knowledge")
        if exchange.observation is not None
        for block in getattr(exchange.observation, "evidence", [])
    ]
    if not blocks:
        return (
            "I found nothing in the runbooks for this question. Try naming the symptom or the "
            "component (for example 'connection pool exhaustion')."
        )
    titles = list(dict.fromkeys(b.title for b in blocks))
    lines = [f"From the runbooks ({'; '.join(titles[:3])}):"]
    for block in blocks[:3]:
        excerpt = " ".join(block.excerpt.replace("#", "").split())
        lines.append(f"- {block.title}: {excerpt[:300]}")
    return "\n".join(lines)


def review(user_content: str) -> dict[str, Any]:
    """SemanticGuard's judgement: each conclusion's citations and stated figures are in evidence.

    The reply is ``{"verdict": "SUPPORTED"|"UNSUPPORTED", "issues": [...]}``.
    """
    try:
        body = json.loads(user_content)
        draft = body["draft"]
        records = body["verified_evidence"]["records"]
        conclusions = draft["conclusions"]
    except (ValueError, KeyError, TypeError):
        return {"verdict": "UNSUPPORTED", "issues": [{"conclusion_id": "", "reason": "unreadable"}]}
    issues = []
    for conclusion in conclusions:
        reason = _unsupported(conclusion, records)
        if reason:
            issues.append({"conclusion_id": str(conclusion.get("id", "")), "reason": reason})
    return {"verdict": "UNSUPPORTED" if issues else "SUPPORTED", "issues": issues}


def _unsupported(conclusion: dict[str, Any], records: dict[str, Any]) -> str | None:
    cited: list[dict[str, Any]] = []
    for citation in conclusion.get("citations") or []:
        call_id = citation.get("tool_call_id") if isinstance(citation, dict) else None
        record = records.get(str(call_id)) if call_id else None
        if isinstance(record, dict):
            cited.append(record)
    kind = conclusion.get("kind")
    if kind == "NEGATIVE_FINDING":
        return None if conclusion.get("scope") else "negative finding without a scope"
    if not cited:
        return "no verified evidence cited"
    if kind == "ROOT_CAUSE" and not any(r.get("kind") in ("logs", "mysql") for r in cited):
        return "root cause rests on documents only"
    evidence = json.dumps(cited, ensure_ascii=False).lower()
    missing = [
        t
        for t in _NUMBERS.findall(str(conclusion.get("statement", "")))
        if t.lower() not in evidence
    ]
    return f"figures not in the evidence: {', '.join(missing[:3])}" if missing else None


def repair_draft(
    conversation: Conversation, previous: dict[str, Any] | None
) -> dict[str, Any] | None:
    """The previous draft without the conclusions the guard named; None when there is none."""
    if previous is None:
        return None
    rejected = set(_ISSUE_CONCLUSION.findall(conversation.last_user))
    kept = [c for c in previous.get("conclusions", []) if c.get("id") not in rejected]
    limitations = list(previous.get("limitations", []))
    if rejected:
        limitations.append(f"Withdrawn after evidence validation: {', '.join(sorted(rejected))}.")
    return {**previous, "conclusions": kept, "limitations": limitations[:10]}
