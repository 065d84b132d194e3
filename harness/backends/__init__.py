"""Embedded tool backends: the bundled log store and the bundled runbook index.

They need no server, so they are the embedded default; the HTTP backends for a real log
system (Loki) and a RAG service live in ``harness.adapters``.
"""

from harness.backends.knowledge_embedded import EmbeddedKnowledgeBackend
from harness.backends.logs_embedded import EmbeddedLogBackend

__all__ = ["EmbeddedKnowledgeBackend", "EmbeddedLogBackend"]
