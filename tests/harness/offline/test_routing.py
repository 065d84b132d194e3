"""The offline router: incident phrasing and the world's catalog make a diagnosis."""

from __future__ import annotations

import json

import pytest

from harness.agent.prompts import router_messages
from harness.contracts.models import CallSignal, ChatMessage, Component
from tests.harness.offline.conversations import body, catalog, message

ROUTER = CallSignal(component=Component.ROUTER)
WORLD_TABLES = catalog(
    "media",
    {"main.bucket_usage": "id, bucket, used_gib, quota_gib, sampled_at",
     "main.job_runs": "id, job_name, status, started_at"},
)  # fmt: skip


def intent(question: str, *, tools: bool = False, system: str | None = None) -> str:
    messages = router_messages(question)
    if system is not None:
        messages = [ChatMessage(role="system", content=system), *messages[1:]]
    request = body(messages, ROUTER, tools=tools, catalog=WORLD_TABLES)
    return str(json.loads(message(request)["content"])["intent"])


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Why does checkout-api return HTTP 500 since 14:05?", "DIAGNOSIS"),
        ("order-service is failing with timeouts", "DIAGNOSIS"),
        ("Latency spike on the gateway right now", "DIAGNOSIS"),
        ("How do I roll back a config change?", "KNOWLEDGE_QA"),
        ("What is HikariCP pool exhaustion?", "KNOWLEDGE_QA"),
        ("Show me the runbook for DNS failures", "KNOWLEDGE_QA"),
        ("Hello!", "SYSTEM_CHAT"),
        ("Who are you and what can you do?", "SYSTEM_CHAT"),
        ("Write me a poem about the sea", "OUT_OF_SCOPE"),
        ("Bananas are yellow", "OUT_OF_SCOPE"),
    ],
)
def test_the_questions_of_every_world_keep_their_intents(question: str, expected: str) -> None:
    assert intent(question) == expected


@pytest.mark.parametrize(
    "question",
    [
        "Customers can't pay at checkout, what's wrong?",
        "Reports are stuck this morning, what happened?",
        "Payouts to the bank are not going out this morning",
        "Search results are stale today, what's going on?",
        "Emails stopped arriving, no idea why",
        "The nightly export doesn't work anymore",
        "What's wrong with billing?",
    ],
)
def test_incident_phrasing_is_a_diagnosis_without_a_symptom_word(question: str) -> None:
    assert intent(question) == "DIAGNOSIS"


def test_a_question_that_names_the_worlds_tables_is_a_diagnosis() -> None:
    # Neither phrasing nor a symptom word: only the world's catalog tells it is about the world.
    assert intent("Tell me about bucket usage today", tools=True) == "DIAGNOSIS"
    assert intent("Tell me about bucket usage today", tools=False) == "OUT_OF_SCOPE"
    assert intent("And the job runs?", tools=True) == "DIAGNOSIS"


def test_services_hosts_and_runbook_subjects_listed_in_the_request_are_the_world() -> None:
    system = (
        "You route operator questions. The world: services: image-resizer, thumb-cleanup; "
        "hosts: thumb-1; runbooks: Thumbnail storage quota, Vault unsealing"
    )
    assert intent("image-resizer today?", system=system) == "DIAGNOSIS"
    assert intent("Anything on thumb-1?", system=system) == "DIAGNOSIS"
    assert intent("Is the thumbnail storage okay?", system=system) == "DIAGNOSIS"
    assert intent("Is the thumbnail storage okay?") == "OUT_OF_SCOPE"
    # A greeting that names nothing of the world stays a greeting.
    assert intent("Hello there", system=system) == "SYSTEM_CHAT"
