"""Projectors: from a backend's raw response to the bounded observation the model sees.

One per tool (``logs``, ``mysql``, ``rag``); each also derives the harness-only facts
(returned count, evidence identities) the information-gain control uses. Modules with a
leading underscore are the logs projector's machinery.
"""

from harness.projectors.logs import LogsProjector, LogsProjectorLimits
from harness.projectors.mysql import MysqlProjector, MysqlProjectorLimits
from harness.projectors.rag import RagProjector, RagProjectorLimits

__all__ = [
    "LogsProjector",
    "LogsProjectorLimits",
    "MysqlProjector",
    "MysqlProjectorLimits",
    "RagProjector",
    "RagProjectorLimits",
]
