"""The offline demo model's short answers: the front desk, knowledge answers and repair.

Each is a rule over the request's text, written the way a small model would answer: the
knowledge answer names the runbooks the search returned, and the repair withdraws the
conclusions the guard rejected. Routing is :mod:`harness.embedded.offline.routing`; the judge is
:mod:`harness.embedded.offline.review`.
"""

from __future__ import annotations

import re
from typing import Any

from harness.embedded.offline.conversation import Conversation

__all__ = ["OFFLINE_NOTICE", "knowledge_answer", "repair_draft", "system_chat"]

OFFLINE_NOTICE = "offline demo model (deterministic rules, no LLM)"

_ISSUE_CONCLUSION = re.compile(r"conclusion=([A-Za-z0-9_-]{1,32})")


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
