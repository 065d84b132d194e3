"""The agent side of a run: model calls, routing, the diagnosis loop and answer paths.

``caller`` makes every model call under budget, deadline and retry policy; ``router`` picks the
path; ``loop`` runs the diagnosis conversation through the ToolBoundary; ``repair`` is the one
evidence repair round; ``answers`` covers the other intents; ``prompts`` holds the texts (they
instruct, the harness enforces).
"""

from harness.agent.answers import (
    AgentAnswer,
    answer_knowledge,
    answer_out_of_scope,
    answer_system_chat,
)
from harness.agent.caller import ComponentSettings, ModelCaller
from harness.agent.loop import AgentOutcome, DiagnosisAgent
from harness.agent.repair import RepairRound
from harness.agent.router import route

__all__ = [
    "AgentAnswer",
    "AgentOutcome",
    "ComponentSettings",
    "DiagnosisAgent",
    "ModelCaller",
    "RepairRound",
    "answer_knowledge",
    "answer_out_of_scope",
    "answer_system_chat",
    "route",
]
