"""Embedded tool backends: the bundled log store, a user's log files, runbook folders.

They need no server, so they are the embedded default (and what a user's own world is read
with); the HTTP backends for a real log system (Loki) and a RAG service live in
``harness.adapters``.
"""

from harness.backends.knowledge_embedded import EmbeddedKnowledgeBackend
from harness.backends.logs_embedded import EmbeddedLogBackend
from harness.backends.logs_files import FileLogBackend

__all__ = ["EmbeddedKnowledgeBackend", "EmbeddedLogBackend", "FileLogBackend"]
