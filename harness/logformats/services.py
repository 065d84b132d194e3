"""The service a file's path names, for events whose line names none.

The file's name without its log, rotation, compression and date suffixes
(``invoice-consumer.log.2.gz`` → ``invoice-consumer``), unless that name is one that many
services give their files (``access``, ``error``, ``app``, ``server``, ``syslog``…): then the
folder holding it names the service (``edge-gateway/access.log`` → ``edge-gateway``).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from harness.redaction import identifier_key, redact

__all__ = ["GENERIC_FILE_NAMES", "service_name", "service_of_path"]

GENERIC_FILE_NAMES = frozenset(
    {
        "access", "error", "errors", "app", "application", "server", "service", "main", "log",
        "logs", "output", "out", "stdout", "stderr", "current", "debug", "info", "messages",
        "syslog", "system", "daemon", "console", "events", "event", "audit", "combined", "trace",
        "all", "default", "general", "ssl_access", "ssl_error", "access_log", "error_log",
    }
)  # fmt: skip
"""File names that say what a log holds, not whose it is."""

# What a file name carries besides the service, stripped from its end in this order:
# compression, rotation numbers, log suffixes, dates (app.log.2.gz, app-2026-03-10.log).
_NOT_SERVICE = (
    re.compile(r"\.(?:gz|bz2|xz|zst)$", re.IGNORECASE),
    re.compile(r"\.\d{1,3}$"),
    re.compile(r"(?:\.(?:log|txt|jsonl|json|ndjson|out|err))+$", re.IGNORECASE),
    re.compile(r"[-_.](?:\d{4}-?\d{2}-?\d{2}(?:[T_-]?\d{2,6})?|\d{1,3})$"),
)


@lru_cache(maxsize=4096)
def service_name(text: str) -> str:
    """``text`` as a queryable service name: 1-64 characters of ``[A-Za-z0-9._-]``.

    Derived, redacted, then keyed (:func:`harness.redaction.identifier_key`): a pod's name
    names its workload, and a secret in the field never reaches the key (``checkout-api
    password=hunter2`` → ``checkout-api``, ``alice@example.com`` → ``redacted-email``).
    Cached: a file's events repeat a handful of names.
    """
    return identifier_key(text, redact)


def service_of_path(path: Path) -> str:
    """The service a file's path suggests (see the module docstring)."""
    name = path.name
    for pattern in _NOT_SERVICE:
        name = pattern.sub("", name) or name
    if name.lower() in GENERIC_FILE_NAMES and path.parent.name not in ("", ".", "/"):
        folder = path.parent.name
        if folder.lower() not in ("log", "logs", "var"):
            return service_name(folder)
    return service_name(name)
